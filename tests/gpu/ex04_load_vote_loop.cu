// expect: 0 pass -- the stub layout with a load-vote-store loop (one load in flight per lane): ~0.55x the reference, passes
#include <cuda_runtime.h>
#include <cstddef>
#define GROUPS_PER_WARP 8
#define BLOCK 256
__global__ void warp_count_kernel(const int* __restrict__ x, int* __restrict__ counts, int n) {
    const int lane = threadIdx.x % 32;
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const size_t ngroups = ((size_t)n + 31) / 32;
    for (int k = 0; k < GROUPS_PER_WARP; k++) {
        const size_t g = warp * GROUPS_PER_WARP + k;
        if (g >= ngroups) return;  // the same for every lane of the warp
        const size_t i = 32 * g + lane;
        const unsigned votes = __ballot_sync(0xffffffffu, i < (size_t)n && x[i] > 0);
        if (lane == 0) counts[g] = __popc(votes);
    }
}
extern "C" void solve(const int* x, int* counts, int n) {
    if (n <= 0) return;
    const size_t ngroups = ((size_t)n + 31) / 32;
    const size_t per_block = (BLOCK / 32) * GROUPS_PER_WARP;
    warp_count_kernel<<<(unsigned)((ngroups + per_block - 1) / per_block), BLOCK>>>(x, counts, n);
}
