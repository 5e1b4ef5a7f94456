// expect: 1 wrong_answer -- relies on the ticket counter starting at 0 (as fresh cudaMalloc memory often does); the scratch is garbage, no block ever draws the last ticket, out stays NaN
// why: "class": "uninitialized"
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
__device__ float block_sum(float s, float* warp_sums) {
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0.f;
    if (threadIdx.x < 32) {
        s = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    }
    return s;
}
__global__ void sum_kernel(const float* __restrict__ x, float* __restrict__ out, unsigned* counter,
                           float* partials, int n) {
    __shared__ float warp_sums[BLOCK / 32];
    __shared__ bool last;
    float s = 0.f;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * BLOCK) s += x[i];
    s = block_sum(s, warp_sums);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
        last = c.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    float t = 0.f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) t += partials[b];
    t = block_sum(t, warp_sums);
    if (threadIdx.x == 0) out[0] = t;
}
extern "C" void solve(const float* x, float* out, void* work, int n) {
    if (n <= 0) return;
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    size_t grid = (size_t)sms * 8, needed = ((size_t)n + BLOCK - 1) / BLOCK;
    if (grid > needed) grid = needed;
    // missing: cudaMemsetAsync(work, 0, 4)
    sum_kernel<<<(unsigned)grid, BLOCK>>>(x, out, (unsigned*)work, (float*)work + 32, n);
}
