// ex12 tile_scan: prefix sums within every tile of 1024 floats (a block scan)
//
// What this exercise teaches
//   The scan across a whole block, through shared memory and barriers:
//   Kogge-Stone (short, does more additions) or Brent-Kung (up-sweep and
//   down-sweep, does the fewest additions). The lesson explains both; either
//   passes.
//
// The problem
//   x has n floats. Tile t is x[1024t .. 1024t + 1023] (the last may be
//   partial). out[i] = x[1024t] + ... + x[i], where t = i / 1024.
//
// The layout (already written for you)
//   One block of 256 threads per tile. Thread j loads the 4 consecutive
//   floats 4j .. 4j+3 of the tile (one float4), scans them in registers,
//   and puts its total v[3] in totals[j]. What is missing is the middle:
//   each thread needs the sum of the totals of threads 0 .. j-1.
//
// What to fill in (the TODO in the kernel)
//   Turn totals[0..255] into its inclusive scan, in place, in shared memory.
//   The code after it then adds totals[j - 1] (the sum of the totals of
//   threads 0 .. j-1; 0 for thread 0) to the 4 values of thread j.
//   As shipped totals[] is not scanned: wrong answer.
//
// How it is graded
//   gpucourse grade ex12
//   out is filled with NaN first. n = 1, 31, 1000, 1025, 65537, 1000003 ...
//   are checked against prefix sums in double precision, with a tolerance
//   that grows like sqrt(i + 1) (floats added in another order round
//   differently), then n = 2^28 (2.1 GB moved) is timed against the
//   reference, a copy and CUB.
#include <cuda_runtime.h>
#include <cstddef>

#define TILE 1024
#define BLOCK 256  // threads per tile, 4 floats each

__global__ void tile_scan_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float totals[BLOCK];
    const int j = threadIdx.x;
    const size_t e = (size_t)blockIdx.x * TILE + 4 * j;  // this thread's first element

    // Load 4 floats as one float4 (element by element where the float4
    // would reach past n; zeros stand in for the missing ones) and scan them
    // in registers.
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    if (e + 3 < (size_t)n) {
        const float4 f = *reinterpret_cast<const float4*>(x + e);
        v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    } else {
        for (int k = 0; k < 3; ++k) v[k] = e + k < (size_t)n ? x[e + k] : 0.f;
    }
    v[1] += v[0];
    v[2] += v[1];
    v[3] += v[2];
    totals[j] = v[3];
    __syncthreads();

    // TODO 1: the inclusive scan of totals[0 .. BLOCK-1], in place.
    //   Kogge-Stone: for d = 1, 2, 4, ..., 128:
    //       read t = (j >= d) ? totals[j - d] : 0, then __syncthreads(),
    //       then totals[j] += t, then __syncthreads().
    //     (Read everything of a round before anyone writes: that is what the
    //     first barrier is for.)
    //   Brent-Kung: an up-sweep (d = 1, 2, ..., 128: the element at
    //     (k + 1) * 2d - 1 adds the one d before it), then a down-sweep
    //     (d = 64, ..., 1: the element at (k + 1) * 2d - 1 + d adds the one
    //     d before it); one __syncthreads() after every step.

    // Every thread adds the sum of the totals of the threads before it (the
    // exclusive prefix) to its 4 values. As shipped, totals[] is not scanned,
    // so this adds only the total of thread j - 1: wrong answer.
    const float before = j > 0 ? totals[j - 1] : 0.f;
    for (int k = 0; k < 4; ++k) v[k] += before;

    if (e + 3 < (size_t)n) {
        *reinterpret_cast<float4*>(out + e) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        for (int k = 0; k < 3; ++k)
            if (e + k < (size_t)n) out[e + k] = v[k];
    }
}

extern "C" void solve(const float* x, float* out, int n)
{
    if (n <= 0) return;
    const unsigned tiles = (unsigned)(((size_t)n + TILE - 1) / TILE);
    tile_scan_kernel<<<tiles, BLOCK>>>(x, out, n);
}
