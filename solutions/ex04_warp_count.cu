// ex04 warp_count -- reference solution
//
// The input is cut into groups of 32 consecutive ints; counts[g] is how many
// of x[32g .. 32g+31] (those below n) are > 0.
//
// One warp handles a group at a time: lane L looks at element 32g + L, the
// warp votes with __ballot_sync (bit L of the result is lane L's answer) and
// __popc counts the set bits. Lane 0 writes the count.
//
// The trap: __ballot_sync(0xffffffff, ...) names all 32 lanes, so every lane
// that is still running must reach that same call. In the last, partial
// group some lanes have no element; they must not skip the ballot (for
// example by sitting inside `if (i < n)`), they vote false instead. The one
// early exit below is taken by a whole warp at once (its condition is the
// same for all 32 lanes), so it cannot split a warp.
//
// Why it is fast: one int per lane is only 128 bytes per warp in flight, too
// little to keep HBM busy on an H100. Each warp therefore owns
// kGroupsPerWarp consecutive groups: it issues all of its loads first (they
// are independent), then votes on each group. Reads are fully coalesced.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kWarpSize = 32;
constexpr int kBlock = 256;          // 8 warps per block; must be a multiple of 32
constexpr int kGroupsPerWarp = 8;
constexpr unsigned kFullMask = 0xffffffffu;

__global__ void warp_count_kernel(const int* __restrict__ x,
                                  int* __restrict__ counts, int n)
{
    const int lane = threadIdx.x % kWarpSize;
    const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
    const size_t ngroups = ((size_t)n + kWarpSize - 1) / kWarpSize;
    const size_t first = warp * kGroupsPerWarp;  // first group of this warp
    if (first >= ngroups) return;                // the whole warp leaves together

    // Issue every load before using any of them. Lanes past n load nothing
    // and hold 0, which votes false.
    int v[kGroupsPerWarp];
#pragma unroll
    for (int k = 0; k < kGroupsPerWarp; ++k) {
        const size_t i = (first + k) * kWarpSize + lane;
        v[k] = (i < (size_t)n) ? x[i] : 0;
    }

#pragma unroll
    for (int k = 0; k < kGroupsPerWarp; ++k) {
        // `first + k < ngroups` is the same for all lanes of the warp, so
        // either all 32 lanes reach the ballot or none does.
        if (first + k < ngroups) {
            const unsigned votes = __ballot_sync(kFullMask, v[k] > 0);
            if (lane == 0) counts[first + k] = __popc(votes);
        }
    }
}

}  // namespace

extern "C" void solve(const int* x, int* counts, int n)
{
    if (n <= 0) return;
    const size_t ngroups = ((size_t)n + kWarpSize - 1) / kWarpSize;
    const size_t groups_per_block = (size_t)(kBlock / kWarpSize) * kGroupsPerWarp;
    const unsigned grid = (unsigned)((ngroups + groups_per_block - 1) / groups_per_block);
    warp_count_kernel<<<grid, kBlock>>>(x, counts, n);
}
