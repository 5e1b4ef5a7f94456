// ex12 tile_scan -- reference solution
//
// out[i] = x[1024t] + ... + x[i] for t = i / 1024: an inclusive scan of
// every tile of 1024 floats.
//
// One block of 256 threads per tile; thread j owns the 4 consecutive floats
// 4j .. 4j+3 of the tile and loads them as one float4 (a warp reads 512
// contiguous bytes). The scan has three levels, each as cheap as possible:
//   1. thread: scan its 4 floats sequentially in registers;
//   2. warp:   inclusive scan of the 32 thread totals with 5 __shfl_up_sync
//              (Kogge-Stone inside the warp: no shared memory, no barrier);
//   3. block:  the 8 warp totals go through shared memory, one barrier,
//              and every thread adds up the totals of the warps before its
//              own (at most 7 broadcast reads of shared memory).
// Each float then gets the sum of everything before its thread in the tile
// (exclusive prefix) added, and the float4 is stored.
//
// That is the work-efficient structure in practice: 1024 - 1 adds for the
// sequential parts plus a few hundred in the shuffles, instead of the
// 10 * 1024 a Kogge-Stone over all 1024 elements would do, and only one
// block barrier instead of 10 or 20.
//
// Floats: the additions happen in a different order from a sequential loop,
// so the results differ in the last bits; the grader's tolerance grows with
// sqrt(i + 1).
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 1024;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void __launch_bounds__(kThreads)
tile_scan_kernel(const float* __restrict__ x, float* __restrict__ out, int n_)
{
    __shared__ float warp_totals[kWarps];
    const size_t n = (size_t)n_;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t e = (size_t)blockIdx.x * kTile + 4 * threadIdx.x;  // this thread's first float

    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (e + 3 < n) {
        v = *reinterpret_cast<const float4*>(x + e);
    } else {
        if (e < n) v.x = x[e];
        if (e + 1 < n) v.y = x[e + 1];
        if (e + 2 < n) v.z = x[e + 2];
    }

    // 1. thread
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    // 2. warp: inclusive scan of the thread totals
    float inclusive = v.w;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const float up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += up;
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    // 3. block: the warps before this one
    float before = inclusive - v.w;
    for (int w = 0; w < warp; ++w) before += warp_totals[w];

    v.x += before;
    v.y += before;
    v.z += before;
    v.w += before;
    if (e + 3 < n) {
        *reinterpret_cast<float4*>(out + e) = v;
    } else {
        if (e < n) out[e] = v.x;
        if (e + 1 < n) out[e + 1] = v.y;
        if (e + 2 < n) out[e + 2] = v.z;
    }
}

}  // namespace

extern "C" void solve(const float* x, float* out, int n)
{
    if (n <= 0) return;
    const unsigned tiles = (unsigned)(((size_t)n + kTile - 1) / kTile);
    tile_scan_kernel<<<tiles, kThreads>>>(x, out, n);
}
