// ex08 segment_sum: sum every segment of 1024 ints with a tree in shared memory
//
// What this exercise teaches
//   Shared memory and __syncthreads(): the threads of a block cooperate on
//   one result. Each thread adds a few elements in registers, writes its
//   partial sum to a __shared__ array, and the block halves the array level
//   by level (a tree) until one value is left.
//
// The problem
//   x has n ints. Segment g is x[1024g .. 1024g + 1023] (only indices below
//   n: the last segment may be partial). sums[g] = the sum of segment g.
//   There are (n + 1023) / 1024 segments.
//
// The layout (already chosen for you, see solve())
//   One block of 256 threads per segment. Thread t adds the elements
//   t, t + 256, t + 512 and t + 768 of its segment (neighbouring threads,
//   neighbouring addresses: coalesced), then the block reduces 256 partial
//   sums to one.
//
// What to fill in: the kernel body (the TODOs).
//   The trap: a thread must not read partial[t + stride] before the thread
//   that owns it has written it. Threads of different warps run in no fixed
//   order, so every level of the tree ends with __syncthreads(), and every
//   thread of the block must reach every __syncthreads() (never put one
//   inside `if (t < stride)`).
//
// How it is graded
//   gpucourse grade ex08
//   sums is filled with garbage (-1) first; n = 1, 31, 1000, 1025, 65537,
//   1000003 ... are checked exactly, then n = 2^28 (1.07 GB) is timed against
//   the reference, a device-to-device copy and CUB.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define SEGMENT 1024
#define BLOCK 256  // threads per block: one segment per block

__global__ void segment_sum_kernel(const int* __restrict__ x, int* __restrict__ sums, int n)
{
    // TODO 0: a shared array for the partial sums: __shared__ int partial[BLOCK];
    //
    // TODO 1: t = threadIdx.x; begin = blockIdx.x * SEGMENT (as a size_t).
    //
    // TODO 2: s = the sum of the elements begin + t + k * BLOCK for
    //         k = 0 .. SEGMENT / BLOCK - 1 that are below n (the last segment
    //         may be partial). Keep s in a register; then partial[t] = s.
    //         Barrier: nobody may read partial[] before everyone has written.
    //
    // TODO 3: the tree. For stride = BLOCK / 2, BLOCK / 4, ..., 1:
    //           threads t < stride add partial[t + stride] into partial[t];
    //           then every thread (not only t < stride) waits at a barrier.
    //
    // TODO 4: thread 0 writes partial[0] to sums[blockIdx.x].
}

extern "C" void solve(const int* x, int* sums, int n)
{
    if (n <= 0) return;
    const unsigned segments = (unsigned)(((size_t)n + SEGMENT - 1) / SEGMENT);
    segment_sum_kernel<<<segments, BLOCK>>>(x, sums, n);
}
