// ex14 single_pass_scan: a device-wide prefix sum in one pass (decoupled look-back)
//
// What this exercise teaches
//   The scan that moves the data once, like a copy: every block scans its
//   tile and gets the sum of all earlier tiles from per-tile status words
//   that the earlier blocks publish as they go (Merrill and Garland's
//   decoupled look-back). Inter-block communication through memory: flags,
//   memory order, and why a block may wait only for blocks that are sure to
//   be running.
//
// The problem
//   x has n ints. out[i] = x[0] + x[1] + ... + x[i] (inclusive scan).
//   work points to scratch device memory of at least 4 * (n / 64 + 4096)
//   bytes, garbage (0xFF bytes) at every call.
//
// What is given
//   - The tile scan of ex13 with bigger tiles: 6144 ints per block of 128
//     threads, 12 int4 loads in flight per lane.
//   - A status word per tile, 64 bits: flag << 32 | value, where flag is
//     INVALID (0: nothing published yet), AGGREGATE (value = this tile's
//     total) or PREFIX (value = the total of this tile and all before it).
//     publish() and read_status() are relaxed atomic stores and loads at
//     device scope; read_status() of a tile below 0 returns PREFIX 0.
//   - The layout of work: a tile counter at word 0, the status words from
//     byte 8 on.
//
// What to fill in (the TODOs)
//   0. solve(): zero the counter and the status words on every call.
//   1. The kernel: take the tile index from the counter (thread 0, atomicAdd,
//      shared with the block through shared memory), not from blockIdx.x.
//   2. look_back(): publish, look back, publish again (see the TODO there).
//   As shipped, every tile is scanned on its own (prefix 0): wrong answer.
//
// How it is graded
//   gpucourse grade ex14
//   n = 1 to 16785409 are checked exactly, then n = 2^28 (2.1 GB) is timed
//   against the reference, a copy and CUB's DeviceScan::InclusiveSum. A
//   scan-then-propagate (ex13) moves twice the bytes and is too slow here.
//   A look-back that waits forever (e.g. on a status word nobody zeroed)
//   ends as "timeout".
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cstddef>

constexpr int kThreads = 128;                     // threads per block
constexpr int kWarps = kThreads / 32;             // 4
constexpr int kChunks = 12;                       // int4 loads per lane
constexpr int kTile = kThreads * 4 * kChunks;     // 6144 ints per tile

// Where the ints of a thread live: warp w owns the 1536 ints from w * 1536
// on (of its tile), as 12 chunks of 128; in chunk k, lane L holds the 4 ints
// from w * 1536 + k * 128 + 4L on. Every load and store of a warp is one
// contiguous 512-byte piece, and each lane has 12 loads (192 bytes) in
// flight: a big tile per block means fewer tiles, so fewer look-backs.
__device__ __forceinline__ size_t element_of(size_t tile_begin, int k)
{
    return tile_begin + (size_t)(threadIdx.x / 32) * (128 * kChunks) + (size_t)k * 128 + 4 * (threadIdx.x % 32);
}

// Loads this thread's 4 * kChunks = 48 ints of the tile (zeros past n).
__device__ __forceinline__ void load_tile(const int* __restrict__ x, size_t tile_begin, size_t n, int4 (&v)[kChunks])
{
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const size_t e = element_of(tile_begin, k);
        if (e + 3 < n) {
            v[k] = __ldcs(reinterpret_cast<const int4*>(x + e));  // read once: evict first
        } else {
            v[k] = make_int4(e < n ? x[e] : 0, e + 1 < n ? x[e + 1] : 0, e + 2 < n ? x[e + 2] : 0, 0);
        }
    }
}

// Stores this thread's 48 ints, each plus `add` (only those below n).
__device__ __forceinline__ void store_tile(int* __restrict__ out, size_t tile_begin, size_t n, const int4 (&v)[kChunks],
                                           int add)
{
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const size_t e = element_of(tile_begin, k);
        const int4 r = make_int4(v[k].x + add, v[k].y + add, v[k].z + add, v[k].w + add);
        if (e + 3 < n) {
            __stcs(reinterpret_cast<int4*>(out + e), r);  // written once: evict first
        } else {
            if (e < n) out[e] = r.x;
            if (e + 1 < n) out[e + 1] = r.y;
            if (e + 2 < n) out[e + 2] = r.z;
        }
    }
}

// The block scans its tile: on return v holds the inclusive scan of the
// tile (tile-local: as if the tile were the whole array), and every thread
// gets the tile's total. Thread -> warp (shuffles) -> block (one barrier).
// Call it once per block (warp_totals is not reused).
__device__ __forceinline__ int scan_tile(int4 (&v)[kChunks], int* warp_totals)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int chunk_total[kChunks];
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        v[k].y += v[k].x;  // this lane's 4 ints
        v[k].z += v[k].y;
        v[k].w += v[k].z;
        int inclusive = v[k].w;  // the 32 lane totals of the chunk
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const int up = __shfl_up_sync(0xffffffffu, inclusive, d);
            if (lane >= d) inclusive += up;
        }
        const int before = inclusive - v[k].w;
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
        chunk_total[k] = __shfl_sync(0xffffffffu, inclusive, 31);
    }
    int warp_sum = 0;  // the chunks before chunk k, then the whole warp
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        v[k].x += warp_sum;
        v[k].y += warp_sum;
        v[k].z += warp_sum;
        v[k].w += warp_sum;
        warp_sum += chunk_total[k];
    }
    if (lane == 0) warp_totals[warp] = warp_sum;
    __syncthreads();
    int before = 0, total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const int t = warp_totals[w];
        before += w < warp ? t : 0;
        total += t;
    }
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        v[k].x += before;
        v[k].y += before;
        v[k].z += before;
        v[k].w += before;
    }
    return total;
}

enum : unsigned { INVALID = 0, AGGREGATE = 1, PREFIX = 2 };

using Status = unsigned long long;

__device__ __forceinline__ Status make_status(unsigned flag, int value)
{
    return (Status)flag << 32 | (unsigned)value;
}
__device__ __forceinline__ unsigned flag_of(Status s) { return (unsigned)(s >> 32); }
__device__ __forceinline__ int value_of(Status s) { return (int)(unsigned)s; }

// One 64-bit store: a reader sees the flag and its value together.
__device__ __forceinline__ void publish(Status* status, size_t tile, unsigned flag, int value)
{
    cuda::atomic_ref<Status, cuda::thread_scope_device>(status[tile]).store(make_status(flag, value),
                                                                            cuda::memory_order_relaxed);
}
// One 64-bit load, never cached in this SM's L1, never hoisted out of a loop.
__device__ __forceinline__ Status read_status(Status* status, long long tile)
{
    if (tile < 0) return make_status(PREFIX, 0);
    return cuda::atomic_ref<Status, cuda::thread_scope_device>(status[tile]).load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ int warp_sum(int v)
{
    for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

// Called by the 32 lanes of warp 0. Returns the sum of all tiles before
// `tile` (its exclusive prefix).
__device__ int look_back(Status* status, size_t tile, int total)
{
    // TODO 2:
    //   a. Tile 0: publish PREFIX = total and return 0.
    //   b. Otherwise publish AGGREGATE = total at once (lane 0), so that later
    //      tiles need not wait for this tile's look-back.
    //   c. Look back in windows of 32: lane L reads tile end - 1 - L (lane 0
    //      the nearest), starting with end = tile. Re-read until no lane sees
    //      INVALID (__any_sync). If some lane sees a PREFIX (__ballot_sync),
    //      the nearest one is the lowest set bit (__ffs(bits) - 1): add the
    //      values of the lanes up to and including it, and stop. Otherwise
    //      add all 32 AGGREGATE values and move the window back by 32.
    //   d. Publish PREFIX = exclusive prefix + total (lane 0), return it.
    return 0;
}

__global__ void __launch_bounds__(kThreads)
single_pass_scan_kernel(const int* __restrict__ x, int* __restrict__ out, unsigned* __restrict__ counter,
                        Status* __restrict__ status, int n)
{
    __shared__ int warp_totals[kWarps];
    __shared__ int tile_prefix;

    // TODO 1: the tile index from the counter: thread 0 takes
    //         atomicAdd(counter, 1u) into a __shared__ variable, then a
    //         __syncthreads(). Blocks then get tiles in the order they start,
    //         so a tile only ever waits for tiles whose blocks are running.
    const size_t tile = blockIdx.x;
    const size_t tile_begin = tile * kTile;

    int4 v[kChunks];
    load_tile(x, tile_begin, (size_t)n, v);
    const int total = scan_tile(v, warp_totals);
    if (threadIdx.x < 32) {
        const int prefix = look_back(status, tile, total);
        if (threadIdx.x == 0) tile_prefix = prefix;
    }
    __syncthreads();
    store_tile(out, tile_begin, (size_t)n, v, tile_prefix);
}

extern "C" void solve(const int* x, int* out, void* work, int n)
{
    if (n <= 0) return;
    const size_t tiles = ((size_t)n + kTile - 1) / kTile;
    unsigned* counter = static_cast<unsigned*>(work);
    Status* status = static_cast<Status*>(work) + 1;
    // TODO 0: zero the counter and the `tiles` status words (one
    //         cudaMemsetAsync of (tiles + 1) * 8 bytes from work), before the
    //         launch, on every call.
    single_pass_scan_kernel<<<(unsigned)tiles, kThreads>>>(x, out, counter, status, n);
}
