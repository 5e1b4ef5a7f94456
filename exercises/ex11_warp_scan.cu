// ex11 warp_scan: prefix sums within every group of 32, with shuffles
//
// What this exercise teaches
//   The scan (prefix sum) inside one warp: after log2(32) = 5 rounds of
//   __shfl_up_sync, lane L holds the sum of the values of lanes 0 .. L.
//   In round d (d = 1, 2, 4, 8, 16) every lane L >= d adds the value lane
//   L - d held after the previous round (Kogge-Stone, see the lesson).
//
// The problem
//   x has n ints. Group g is x[32g .. 32g + 31] (the last group may be
//   partial). out[i] = x[32g] + x[32g + 1] + ... + x[i], where g = i / 32:
//   an inclusive scan that starts again at every multiple of 32.
//
// The layout (already chosen for you, see solve(); the same as ex04)
//   Each warp handles GROUPS_PER_WARP consecutive groups; in each of them,
//   lane L holds element 32g + L.
//
// What to fill in: the kernel body (the TODOs).
//   Lanes past n still take part in the shuffles, with the value 0; they
//   just do not store.
//
// How it is graded
//   gpucourse grade ex11
//   out is filled with garbage (-1) first; n = 1, 31, 32, 33, 1000, 65537,
//   1000003 ... are checked exactly, then n = 2^28 (2.1 GB moved) is timed
//   against the reference, a copy and CUB.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define GROUPS_PER_WARP 8
#define BLOCK 256  // a multiple of 32: every warp is a whole warp

__global__ void warp_scan_kernel(const int* __restrict__ x, int* __restrict__ out, int n)
{
    // TODO 1: lane = threadIdx.x % 32; warp = this warp's index in the whole
    //         grid (size_t); first = warp * GROUPS_PER_WARP, this warp's
    //         first group. If 32 * first >= n, return (the whole warp does).
    //
    // TODO 2: loads. For k = 0 .. GROUPS_PER_WARP - 1: i = 32 * (first + k)
    //         + lane; v[k] = i < n ? x[i] : 0. All loads first (ex04: they
    //         are then all in flight at once).
    //
    // TODO 3: scan each v[k] across the warp:
    //           for d = 1, 2, 4, 8, 16:
    //               up = __shfl_up_sync(0xffffffff, v[k], d);
    //               if (lane >= d) v[k] += up;
    //         Every lane calls the shuffle; only the add is conditional.
    //
    // TODO 4: stores. out[i] = v[k] for every i below n.
}

extern "C" void solve(const int* x, int* out, int n)
{
    if (n <= 0) return;
    const size_t ngroups = ((size_t)n + 31) / 32;
    const size_t groups_per_block = (size_t)(BLOCK / 32) * GROUPS_PER_WARP;
    const unsigned grid = (unsigned)((ngroups + groups_per_block - 1) / groups_per_block);
    warp_scan_kernel<<<grid, BLOCK>>>(x, out, n);
}
