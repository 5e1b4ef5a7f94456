// expect: 1 wrong_answer -- adds the shuffled value only when lane > d instead of lane >= d: lane d never adds lane 0's value
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
__global__ void warp_scan_kernel(const int* __restrict__ x, int* __restrict__ out, int n) {
    const size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    const int lane = threadIdx.x % 32;
    int v = i < (size_t)n ? x[i] : 0;
    for (int d = 1; d < 32; d *= 2) {
        const int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane > d) v += up;  // off by one
    }
    if (i < (size_t)n) out[i] = v;
}
extern "C" void solve(const int* x, int* out, int n) {
    if (n <= 0) return;
    warp_scan_kernel<<<(unsigned)(((size_t)n + BLOCK - 1) / BLOCK), BLOCK>>>(x, out, n);
}
