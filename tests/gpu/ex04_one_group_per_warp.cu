// expect: 0 pass -- one load per thread, one group per warp: correct, slow (~0.42x the reference), still above the floor of an exercise about warp votes
#include <cuda_runtime.h>
__global__ void count(const int* __restrict__ x, int* __restrict__ counts, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    bool positive = i < (size_t)n && x[i] > 0;  // out-of-range lanes vote false, they do not leave
    unsigned votes = __ballot_sync(0xffffffffu, positive);
    if (threadIdx.x % 32 == 0 && i < (size_t)n) counts[i / 32] = __popc(votes);
}
extern "C" void solve(const int* x, int* counts, int n) {
    if (n > 0) count<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(x, counts, n);
}
