// expect: 1 wrong_answer -- the tail lanes of the last warp vote with x[0] instead of voting false
#include <cuda_runtime.h>
__global__ void count(const int* __restrict__ x, int* __restrict__ counts, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned votes = __ballot_sync(0xffffffffu, x[i < (size_t)n ? i : 0] > 0);  // reads x[0] for the tail lanes
    if (threadIdx.x % 32 == 0 && i < (size_t)n) counts[i / 32] = __popc(votes);
}
extern "C" void solve(const int* x, int* counts, int n) {
    if (n > 0) count<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(x, counts, n);
}
