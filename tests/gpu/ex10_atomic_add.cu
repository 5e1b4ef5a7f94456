// expect: 0 pass -- the atomics design: zero out, every block adds its sum with atomicAdd (order varies, within tolerance); must pass the floors
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
__global__ void sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float warp_sums[BLOCK / 32];
    const size_t n4 = (size_t)n / 4, stride = (size_t)gridDim.x * BLOCK;
    const size_t first = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    float s = 0.f;
    for (size_t i = first; i < n4; i += stride) {
        const float4 v = reinterpret_cast<const float4*>(x)[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    if (first < (size_t)n % 4) s += x[4 * n4 + first];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) atomicAdd(out, s);
    }
}
extern "C" void solve(const float* x, float* out, void* work, int n) {
    (void)work;
    cudaMemsetAsync(out, 0, sizeof(float));
    if (n <= 0) return;
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    size_t grid = (size_t)sms * 8, needed = ((size_t)n / 4 + BLOCK - 1) / BLOCK;
    if (grid > needed) grid = needed;
    if (grid == 0) grid = 1;
    sum_kernel<<<(unsigned)grid, BLOCK>>>(x, out, n);
}
