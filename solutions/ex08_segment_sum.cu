// ex08 segment_sum -- reference solution
//
// sums[g] = x[1024g] + ... + x[1024g + 1023] (indices below n only).
//
// One block of 128 threads per segment of 1024 ints. Each thread first adds
// eight elements in registers (two 16-byte loads, both issued before either
// is used), so the tree in shared memory starts from 128 values instead of
// 1024: the serial part costs nothing (the loads dominate), and the tree has
// three fewer levels, each of which would cost a barrier.
//
// The tree: 128 -> 64 -> 32 values in shared memory, with __syncthreads()
// between levels because the partners are in different warps. The last 32
// values are in one warp; they are added with warp shuffles (ex09's topic),
// which need no shared memory and no block barrier.
//
// Why blocks of 128 and not 256: with 128 threads and 32 bytes per thread,
// sixteen blocks fit on an SM (2048 threads) and each keeps 4 KB of loads in
// flight, 64 KB per SM in all: enough to cover the DRAM latency.
//
// The last segment may be partial (n is not a multiple of 1024 in most
// checks); it is summed with guarded scalar loads. n % 4 need not be 0, but
// every full segment starts at a multiple of 1024 elements, so its int4 loads
// are 16-byte aligned.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kSegment = 1024;
constexpr int kThreads = 128;
constexpr int kPerThread = kSegment / kThreads;  // 8

__global__ void __launch_bounds__(kThreads)
segment_sum_kernel(const int* __restrict__ x, int* __restrict__ sums, int n)
{
    __shared__ int partial[kThreads];
    const int t = threadIdx.x;
    const size_t begin = (size_t)blockIdx.x * kSegment;
    const size_t left = (size_t)n - begin;  // > 0: blocks cover the segments

    int s = 0;
    if (left >= kSegment) {
        const int4* seg = reinterpret_cast<const int4*>(x + begin);
        const int4 a = seg[t];             // elements 4t .. 4t+3
        const int4 b = seg[t + kThreads];  // elements 512 + 4t .. 512 + 4t+3
        s = (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
    } else {
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            const size_t i = (size_t)t + (size_t)k * kThreads;
            if (i < left) s += x[begin + i];
        }
    }
    partial[t] = s;
    __syncthreads();

    // 128 -> 64 -> 32 in shared memory; a barrier after every level.
#pragma unroll
    for (int stride = kThreads / 2; stride >= 32; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    // The last 32 values: one warp, shuffles.
    if (t < 32) {
        int v = partial[t];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (t == 0) sums[blockIdx.x] = v;
    }
}

}  // namespace

extern "C" void solve(const int* x, int* sums, int n)
{
    if (n <= 0) return;
    const unsigned segments = (unsigned)(((size_t)n + kSegment - 1) / kSegment);
    segment_sum_kernel<<<segments, kThreads>>>(x, sums, n);
}
