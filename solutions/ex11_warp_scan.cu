// ex11 warp_scan -- reference solution
//
// out[i] = x[32g] + ... + x[i] for g = i / 32: an inclusive scan of every
// group of 32 ints.
//
// Layout: a warp handles 512 consecutive ints, as 4 chunks of 128. In chunk
// k, lane L loads the int4 at offset 4L: one 512-byte, fully coalesced load
// per chunk, and all four loads are issued before any is used (64 bytes in
// flight per lane). A group of 32 ints is then held by 8 neighbouring lanes,
// 4 ints each.
//
// The scan of a group, in two steps:
//   1. each lane scans its own 4 ints sequentially (3 adds, registers only);
//   2. the 8 lanes of the group scan their 4-int totals with shuffles. The
//      `width` argument of __shfl_up_sync cuts the warp into independent
//      segments of 8 lanes, so lane L only ever reads from lanes of its own
//      group: log2(8) = 3 shuffle steps instead of 5, and no masking by hand.
//   The exclusive part (the sum of the lanes before this one in its group)
//   is then added to all 4 ints.
//
// Tail: an int4 that reaches past n is loaded and stored element by element
// (zeros stand in for the missing elements, which are never stored).
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kThreads = 256;
constexpr int kChunks = 4;                             // int4 loads per lane
constexpr int kPerWarp = kChunks * 128;                // 512 ints
constexpr int kPerBlock = (kThreads / 32) * kPerWarp;  // 4096 ints

__device__ __forceinline__ int4 load4(const int* __restrict__ x, size_t e, size_t n)
{
    if (e + 3 < n) return *reinterpret_cast<const int4*>(x + e);
    int4 v = make_int4(0, 0, 0, 0);
    if (e < n) v.x = x[e];
    if (e + 1 < n) v.y = x[e + 1];
    if (e + 2 < n) v.z = x[e + 2];
    return v;
}

__device__ __forceinline__ void store4(int* __restrict__ out, size_t e, size_t n, int4 v)
{
    if (e + 3 < n) {
        *reinterpret_cast<int4*>(out + e) = v;
        return;
    }
    if (e < n) out[e] = v.x;
    if (e + 1 < n) out[e + 1] = v.y;
    if (e + 2 < n) out[e + 2] = v.z;
}

__global__ void __launch_bounds__(kThreads)
warp_scan_kernel(const int* __restrict__ x, int* __restrict__ out, int n_)
{
    const size_t n = (size_t)n_;
    const int lane = threadIdx.x % 32;
    const size_t warp_begin = (size_t)blockIdx.x * kPerBlock + (size_t)(threadIdx.x / 32) * kPerWarp;
    if (warp_begin >= n) return;  // the whole warp leaves together

    int4 v[kChunks];
#pragma unroll
    for (int k = 0; k < kChunks; ++k) v[k] = load4(x, warp_begin + k * 128 + 4 * lane, n);

#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        // 1. this lane's 4 ints
        v[k].y += v[k].x;
        v[k].z += v[k].y;
        v[k].w += v[k].z;
        // 2. inclusive scan of the lane totals within each group of 8 lanes
        int inclusive = v[k].w;
#pragma unroll
        for (int d = 1; d < 8; d *= 2) {
            const int up = __shfl_up_sync(0xffffffffu, inclusive, d, 8);
            if (lane % 8 >= d) inclusive += up;
        }
        const int before = inclusive - v[k].w;  // lanes before this one in the group
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
    }

#pragma unroll
    for (int k = 0; k < kChunks; ++k) store4(out, warp_begin + k * 128 + 4 * lane, n, v[k]);
}

}  // namespace

extern "C" void solve(const int* x, int* out, int n)
{
    if (n <= 0) return;
    const unsigned grid = (unsigned)(((size_t)n + kPerBlock - 1) / kPerBlock);
    warp_scan_kernel<<<grid, kThreads>>>(x, out, n);
}
