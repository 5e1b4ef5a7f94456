// ex05 col_scale -- reference solution
//
// out[r][c] = in[r][c] * scale[c] for a row-major rows x cols matrix.
//
// Coalescing: neighbouring threads must touch neighbouring addresses. The
// stub maps threadIdx.x to rows, so the 32 threads of a warp read 32
// different rows, cols*4 bytes apart: one 32-byte sector fetched for every
// 4 bytes used. Here the flat index o = r*cols + c walks memory in order, so
// a warp reads and writes 32 consecutive floats: four full sectors.
//
// Why flat and not a 2D grid with x on columns? That version is correct and
// fast enough to pass (the grader accepts it), but when cols is odd (the
// timed shape is 16384 x 16383) 7 rows in 8 start mid-sector, and the warps at
// both ends of a row write partial sectors: 0.75 of the copy bandwidth on
// the H100 against 1.01 here (docs/benchmarks.md). scale[] is small (64 KB)
// and stays in cache.
// Each thread handles kPerThread elements with all loads before the stores.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kBlock = 256;
constexpr int kPerThread = 4;

__global__ void col_scale_kernel(const float* __restrict__ in,
                                 const float* __restrict__ scale,
                                 float* __restrict__ out, int rows, int cols)
{
    const size_t total = (size_t)rows * cols;
    const size_t base = (size_t)blockIdx.x * kBlock * kPerThread + threadIdx.x;
    float v[kPerThread], s[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t o = base + (size_t)k * kBlock;
        if (o < total) {
            v[k] = in[o];
            s[k] = scale[o % (size_t)cols];  // the column of element o
        }
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t o = base + (size_t)k * kBlock;
        if (o < total) out[o] = v[k] * s[k];
    }
}

}  // namespace

extern "C" void solve(const float* in, const float* scale, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const size_t total = (size_t)rows * cols;
    const size_t per_block = (size_t)kBlock * kPerThread;
    col_scale_kernel<<<(unsigned)((total + per_block - 1) / per_block), kBlock>>>(in, scale, out, rows, cols);
}
