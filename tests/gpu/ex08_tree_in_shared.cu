// expect: 0 pass -- the stub's layout filled in plainly (4 scalar loads per thread, a 256-wide tree with a barrier per level) must pass the floors
#include <cuda_runtime.h>
#include <cstddef>
#define SEGMENT 1024
#define BLOCK 256
__global__ void segment_sum_kernel(const int* __restrict__ x, int* __restrict__ sums, int n) {
    __shared__ int partial[BLOCK];
    const int t = threadIdx.x;
    const size_t begin = (size_t)blockIdx.x * SEGMENT;
    int s = 0;
    for (int k = 0; k < SEGMENT / BLOCK; k++) {
        const size_t i = begin + t + (size_t)k * BLOCK;
        if (i < (size_t)n) s += x[i];
    }
    partial[t] = s;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = partial[0];
}
extern "C" void solve(const int* x, int* sums, int n) {
    if (n <= 0) return;
    segment_sum_kernel<<<(unsigned)(((size_t)n + SEGMENT - 1) / SEGMENT), BLOCK>>>(x, sums, n);
}
