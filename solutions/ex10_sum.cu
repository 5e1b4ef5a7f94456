// ex10 sum -- reference solution
//
// out[0] = x[0] + ... + x[n-1] over n floats, in one pass over the data.
//
// The grid is sized from the machine (as many 256-thread blocks as fit on
// all SMs at once) and each thread walks the array with a grid-stride loop
// of float4 loads, four loads in flight per trip: 64 bytes per thread,
// 128 KB per SM, enough to keep DRAM busy. A read-only stream like this one
// can run slightly faster than a copy, which has to turn the bus around for
// writes.
//
// Combining the blocks: "last block done". Every block reduces its threads'
// sums (shuffles within each warp, then the 8 warp sums) and thread 0 stores
// the block's sum in partials[blockIdx.x]. It then takes a ticket from a
// counter with an atomic fetch_add. The block that draws the last ticket
// (gridDim.x - 1) knows that every other block has stored its partial, adds
// the partials up and writes out[0]. Nobody waits for anybody: no block
// spins, so the grid cannot deadlock however the blocks are scheduled.
//
// Memory order: the fetch_add is acq_rel at device scope. Its release half
// makes the block's partials[] store visible before its ticket; its acquire
// half, in the last block, makes every earlier block's partial visible to
// thread 0, and the __syncthreads() that follows extends that to the whole
// block. The partials are read with __ldcg (from L2, never from a stale L1
// line), which the model does not need but costs nothing.
//
// Why not atomicAdd(out, blockSum)? It works too (after zeroing out), but
// the order of the float additions then changes from run to run, and so do
// the last bits of the result. Here the partials are always added in the same
// order: the same input gives the same sum, bit for bit.
//
// The counter is in the scratch array, which the harness fills with 0xFF
// bytes before every run: solve() zeroes it (a 4-byte memset, timed with the
// kernel) every time.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;
constexpr int kPartialsOffset = 32;  // floats: the counter's 128-byte line is its own

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// The block's sum, valid in thread 0. Starts with no barrier: the caller
// makes sure warp_sums is free (see the __syncthreads between the two uses).
__device__ __forceinline__ float block_sum(float v, float* warp_sums)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = 0.f;
    if (warp == 0) v = warp_sum(lane < kWarps ? warp_sums[lane] : 0.f);
    return v;
}

__device__ __forceinline__ void add4(float4& a, const float4 b)
{
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
    a.w += b.w;
}

__global__ void __launch_bounds__(kThreads)
sum_kernel(const float* __restrict__ x, float* __restrict__ out, unsigned* __restrict__ counter,
           float* __restrict__ partials, int n)
{
    __shared__ float warp_sums[kWarps];
    __shared__ bool last;

    const size_t n4 = (size_t)n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const size_t stride = (size_t)gridDim.x * kThreads;
    const size_t first = (size_t)blockIdx.x * kThreads + threadIdx.x;

    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    size_t i = first;
    for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
        float4 v[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) v[k] = x4[i + k * stride];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) add4(acc, v[k]);
    }
    for (; i < n4; i += stride) add4(acc, x4[i]);
    float s = (acc.x + acc.y) + (acc.z + acc.w);
    if (first < (size_t)n % 4) s += x[4 * n4 + first];  // the last n % 4 floats

    s = block_sum(s, warp_sums);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*counter);
        last = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();  // shares `last`; also frees warp_sums for the second block_sum
    if (!last) return;

    float t = 0.f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads) t += __ldcg(partials + b);
    t = block_sum(t, warp_sums);
    if (threadIdx.x == 0) out[0] = t;
}

int grid_size(size_t n4)
{
    static int resident = 0;  // blocks that fit on the whole GPU at once
    if (resident == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_kernel, kThreads, 0);
        resident = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    }
    const size_t needed = (n4 + kThreads - 1) / kThreads;
    size_t grid = needed < (size_t)resident ? needed : (size_t)resident;
    return grid > 0 ? (int)grid : 1;
}

}  // namespace

// work: the ticket counter at word 0, the block partials from word 32 on
// (at most a few thousand blocks; the scratch has n / 64 + 4096 words).
extern "C" void solve(const float* x, float* out, void* work, int n)
{
    if (n <= 0) {
        cudaMemsetAsync(out, 0, sizeof(float));
        return;
    }
    unsigned* counter = static_cast<unsigned*>(work);
    float* partials = static_cast<float*>(work) + kPartialsOffset;
    cudaMemsetAsync(counter, 0, sizeof(unsigned));
    sum_kernel<<<grid_size((size_t)n / 4), kThreads>>>(x, out, counter, partials, n);
}
