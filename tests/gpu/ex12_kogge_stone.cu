// expect: 0 pass -- the stub with a plain Kogge-Stone over the 256 totals (read, barrier, write, barrier) must pass the floors
#include <cuda_runtime.h>
#include <cstddef>

#define TILE 1024
#define BLOCK 256  // threads per tile, 4 floats each

__global__ void tile_scan_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float totals[BLOCK];
    const int j = threadIdx.x;
    const size_t e = (size_t)blockIdx.x * TILE + 4 * j;  // this thread's first element

    // Load 4 floats as one float4 (element by element where the float4
    // would reach past n; zeros stand in for the missing ones) and scan them
    // in registers.
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    if (e + 3 < (size_t)n) {
        const float4 f = *reinterpret_cast<const float4*>(x + e);
        v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    } else {
        for (int k = 0; k < 3; ++k) v[k] = e + k < (size_t)n ? x[e + k] : 0.f;
    }
    v[1] += v[0];
    v[2] += v[1];
    v[3] += v[2];
    totals[j] = v[3];
    __syncthreads();

    for (int d = 1; d < BLOCK; d *= 2) {
        const float t = j >= d ? totals[j - d] : 0.f;
        __syncthreads();
        totals[j] += t;
        __syncthreads();
    }

    // Every thread adds the sum of the totals of the threads before it (the
    // exclusive prefix) to its 4 values. As shipped, totals[] is not scanned,
    // so this adds only the total of thread j - 1: wrong answer.
    const float before = j > 0 ? totals[j - 1] : 0.f;
    for (int k = 0; k < 4; ++k) v[k] += before;

    if (e + 3 < (size_t)n) {
        *reinterpret_cast<float4*>(out + e) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        for (int k = 0; k < 3; ++k)
            if (e + k < (size_t)n) out[e + k] = v[k];
    }
}

extern "C" void solve(const float* x, float* out, int n)
{
    if (n <= 0) return;
    const unsigned tiles = (unsigned)(((size_t)n + TILE - 1) / TILE);
    tile_scan_kernel<<<tiles, BLOCK>>>(x, out, n);
}
