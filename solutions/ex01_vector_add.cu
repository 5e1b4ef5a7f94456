// ex01 vector_add -- reference solution
//
// c[i] = a[i] + b[i].
//
// The answer the lesson leads to is one thread per element with a tail guard
// (the grader accepts it). This reference goes one step further, and the step
// is worth seeing: each thread handles kPerThread elements, one block-width
// apart, and issues all of its loads before its first add. One load per
// thread leaves fewer bytes in flight per SM to hide DRAM latency: on the
// H100 (docs/benchmarks.md) one thread per element reaches 0.92 of the
// device-to-device copy measured in the same run, this reference 1.01.
//
// Still one warp touches 32 neighbouring floats per load (four full 32-byte
// sectors), the grid is rounded up so the tail exists, and every access is
// guarded by `i < n`. Indices are 64-bit: the products can pass 2^31.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kBlock = 256;     // threads per block
constexpr int kPerThread = 4;   // elements per thread, kBlock apart

__global__ void vector_add_kernel(const float* __restrict__ a,
                                  const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    const size_t base = (size_t)blockIdx.x * kBlock * kPerThread + threadIdx.x;
    float x[kPerThread], y[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {  // all loads first: they overlap in flight
        const size_t i = base + (size_t)k * kBlock;
        if (i < (size_t)n) {
            x[k] = a[i];
            y[k] = b[i];
        }
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t i = base + (size_t)k * kBlock;
        if (i < (size_t)n) c[i] = x[k] + y[k];
    }
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n)
{
    if (n <= 0) return;  // a grid of 0 blocks is a launch error
    const size_t per_block = (size_t)kBlock * kPerThread;
    const unsigned grid = (unsigned)(((size_t)n + per_block - 1) / per_block);  // rounded up
    vector_add_kernel<<<grid, kBlock>>>(a, b, c, n);
}
