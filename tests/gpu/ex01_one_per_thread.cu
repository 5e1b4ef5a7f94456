// expect: 0 pass -- the one-thread-per-element answer the lesson leads to must pass the floors
//
// c[i] = a[i] + b[i], one thread per element.
//
// Why this is fast enough: the work per element is two 4-byte loads and one
// 4-byte store, so the kernel is limited by DRAM bandwidth, not arithmetic.
// What matters is that every warp reads 32 neighbouring floats (128 bytes,
// four full 32-byte sectors: nothing fetched is wasted) and that the GPU has
// many loads in flight. A grid of ceil(n / 256) blocks of 256 threads gives
// about a million blocks at n = 2^28; each SM keeps up to 8 of them (2048
// threads) resident, and as one block finishes another takes its place.
//
// Correctness details that the grader checks:
//   * the grid is rounded UP, so the last partial block exists;
//   * the tail guard `i < n` stops the extra threads of that block;
//   * the index is computed in 64 bits: blockIdx.x * blockDim.x is an
//     unsigned 32-bit product and would wrap for n close to 2^31.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kBlock = 256;  // threads per block

__global__ void vector_add_kernel(const float* __restrict__ a,
                                  const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    // Global index: which block we are in, times the block size, plus our
    // position inside the block.
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) {  // the tail guard: the last block overhangs n
        c[i] = a[i] + b[i];
    }
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n)
{
    if (n <= 0) return;  // a grid of 0 blocks is a launch error
    const unsigned grid = (unsigned)(((size_t)n + kBlock - 1) / kBlock);  // ceil(n / kBlock)
    vector_add_kernel<<<grid, kBlock>>>(a, b, c, n);
}
