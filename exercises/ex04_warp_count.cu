// ex04 warp_count: count the positive elements of every group of 32
//
// What this exercise teaches
//   Warps and lanes. A block of 256 threads is 8 warps of 32 lanes; a thread
//   is lane threadIdx.x % 32 of warp threadIdx.x / 32 in its block. The 32
//   lanes of a warp can vote together: __ballot_sync(mask, pred) gives every
//   lane a 32-bit word whose bit L is lane L's pred, and __popc counts the
//   set bits.
//
// The problem
//   x has n ints. Group g is x[32g .. 32g+31] (only indices below n; the last
//   group may be partial). There are (n + 31) / 32 groups.
//   counts[g] = how many elements of group g are > 0.
//
// The layout (already chosen for you, see solve())
//   Each warp handles GROUPS_PER_WARP consecutive groups; for each of them,
//   lane L looks at element 32 * g + L. (Several groups per warp give each
//   warp several loads in flight; chapter 2 says why that matters for speed.)
//
// What to fill in: the kernel body (the TODOs).
//   The trap: a ballot with mask 0xffffffff must be reached by every one of
//   the 32 lanes that is still running. In the last group some lanes have no
//   element. They must still take part and vote false; do not put the ballot
//   inside `if (i < n)`.
//
// How it is graded
//   gpucourse grade ex04
//   counts is filled with garbage first; n = 1, 31, 32, 33, 1000, 65537 ...
//   are checked exactly, then n = 2^28 is timed.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define WARP_SIZE 32
#define GROUPS_PER_WARP 8
#define BLOCK 256  // a multiple of 32: every warp is a whole warp

__global__ void warp_count_kernel(const int* __restrict__ x,
                                  int* __restrict__ counts, int n)
{
    // TODO: lane = this thread's lane (0..31).
    // TODO: warp = this warp's index in the WHOLE grid (not just the block);
    //       use 64-bit arithmetic.
    // TODO: ngroups = (n + 31) / 32; this warp's first group is
    //       first = warp * GROUPS_PER_WARP. A warp whose first group is past
    //       the end may return: all of its lanes leave together.
    //
    // TODO: phase 1, loads. For k = 0 .. GROUPS_PER_WARP - 1, this lane's
    //       element of group first + k is i = 32 * (first + k) + lane. Keep
    //       x[i] in v[k] (an int array of GROUPS_PER_WARP), or a value that
    //       is not positive when i >= n. Loading everything before voting
    //       lets all these loads be in flight at once; a loop that loads,
    //       votes, stores and only then loads the next group is correct but
    //       slower: each warp then waits for one load at a time.
    //
    // TODO: phase 2, votes. For each k with first + k < ngroups:
    //         votes = __ballot_sync(0xffffffff, v[k] > 0)   (all 32 lanes!)
    //         lane 0 writes counts[first + k] = __popc(votes).
}

extern "C" void solve(const int* x, int* counts, int n)
{
    if (n <= 0) return;
    const size_t ngroups = ((size_t)n + WARP_SIZE - 1) / WARP_SIZE;
    const size_t groups_per_block = (size_t)(BLOCK / WARP_SIZE) * GROUPS_PER_WARP;
    const unsigned grid = (unsigned)((ngroups + groups_per_block - 1) / groups_per_block);
    warp_count_kernel<<<grid, BLOCK>>>(x, counts, n);
}
