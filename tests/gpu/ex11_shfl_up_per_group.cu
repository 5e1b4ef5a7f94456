// expect: 0 pass -- the stub's layout filled in plainly (one int per lane, 8 groups per warp, loads first, 5 shuffles per group) must pass the floors
#include <cuda_runtime.h>
#include <cstddef>
#define GROUPS_PER_WARP 8
#define BLOCK 256
__global__ void warp_scan_kernel(const int* __restrict__ x, int* __restrict__ out, int n) {
    const int lane = threadIdx.x % 32;
    const size_t warp = ((size_t)blockIdx.x * BLOCK + threadIdx.x) / 32;
    const size_t first = warp * GROUPS_PER_WARP;
    if (32 * first >= (size_t)n) return;
    int v[GROUPS_PER_WARP];
#pragma unroll
    for (int k = 0; k < GROUPS_PER_WARP; k++) {
        const size_t i = 32 * (first + k) + lane;
        v[k] = i < (size_t)n ? x[i] : 0;
    }
#pragma unroll
    for (int k = 0; k < GROUPS_PER_WARP; k++)
        for (int d = 1; d < 32; d *= 2) {
            const int up = __shfl_up_sync(0xffffffffu, v[k], d);
            if (lane >= d) v[k] += up;
        }
#pragma unroll
    for (int k = 0; k < GROUPS_PER_WARP; k++) {
        const size_t i = 32 * (first + k) + lane;
        if (i < (size_t)n) out[i] = v[k];
    }
}
extern "C" void solve(const int* x, int* out, int n) {
    if (n <= 0) return;
    const size_t ngroups = ((size_t)n + 31) / 32, per_block = (BLOCK / 32) * GROUPS_PER_WARP;
    warp_scan_kernel<<<(unsigned)((ngroups + per_block - 1) / per_block), BLOCK>>>(x, out, n);
}
