// expect: 0 pass -- the plain naive transpose the stub leads to (coalesced reads, strided writes, one element per thread) must pass
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
