// ex14 single_pass_scan -- reference solution (decoupled look-back)
//
// out[i] = x[0] + ... + x[i] over n ints, in ONE pass over the data: 8n
// bytes, like a copy (plus 8 bytes of status per 6144 ints).
//
// Every block scans one tile of 6144 ints (ex13's tile scan with 128
// threads and 12 int4 loads per lane: bigger tiles, fewer look-backs) and
// then needs one number: the sum of all elements before its tile (its
// exclusive prefix). It gets it from the tiles before it through one 64-bit
// status word per tile, following Merrill and Garland's decoupled look-back:
//
//   status = flag << 32 | value (32 bits of sum)
//     flag 0 (INVALID):   nothing published yet (the memset's zeros)
//     flag 1 (AGGREGATE): value = the sum of this tile alone
//     flag 2 (PREFIX):    value = the sum of this tile and all before it
//
//   1. As soon as its tile total is known, the block publishes AGGREGATE
//      (tile 0 publishes PREFIX right away: nothing is before it).
//   2. Warp 0 looks back over the 32 preceding tiles at once (lane L reads
//      tile - 1 - L). It waits until none of them is INVALID, then finds the
//      nearest PREFIX with a ballot: the exclusive prefix is that PREFIX plus
//      the AGGREGATEs between it and this tile. If all 32 are AGGREGATEs, it
//      adds them all and moves the window 32 tiles further back.
//   3. It publishes PREFIX = exclusive prefix + own total, so that later
//      tiles stop their look-back here.
//   4. The block adds the exclusive prefix to its tile and stores it.
//
// A tile never waits for its predecessor to *finish*, only for it to have
// read its own data (AGGREGATE), so the tiles do not form a serial chain.
//
// Memory order: flag and value are one aligned 64-bit word, written with one
// store and read with one load, so a reader that sees a flag sees the value
// that goes with it. No other data passes between blocks through these
// words, so relaxed atomics at device scope are enough: no fence, no
// acquire/release. They must be atomics (cuda::atomic_ref) all the same: a
// plain load in a spin loop may be hoisted out of the loop by the compiler,
// or served from this SM's L1 which never sees the other SM's store.
//
// Forward progress: blocks take their tile index from an atomic counter, not
// from blockIdx.x. Whichever block starts first gets tile 0, and so on: when
// a block waits on tile t - 1, the block that owns t - 1 has already started
// and is running, so it will publish. (Nothing in CUDA promises that blocks
// start in blockIdx order; with blockIdx, a waiting block could occupy the
// last free slot of the GPU while the block it waits for never starts.)
//
// Scratch: a counter (word 0), then one status word per tile, all zeroed by
// one cudaMemsetAsync per call (timed; 350 KB at n = 2^28).
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace {

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

__device__ __forceinline__ void publish(Status* status, size_t tile, unsigned flag, int value)
{
    cuda::atomic_ref<Status, cuda::thread_scope_device>(status[tile]).store(make_status(flag, value),
                                                                            cuda::memory_order_relaxed);
}
__device__ __forceinline__ Status read_status(Status* status, long long tile)
{
    if (tile < 0) return make_status(PREFIX, 0);  // before tile 0: an empty prefix
    return cuda::atomic_ref<Status, cuda::thread_scope_device>(status[tile]).load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

// Warp 0 only (all 32 lanes). Returns the sum of all tiles before `tile`,
// and publishes this tile's PREFIX.
__device__ int look_back(Status* status, size_t tile, int total)
{
    const int lane = threadIdx.x % 32;
    if (tile == 0) {
        if (lane == 0) publish(status, 0, PREFIX, total);
        return 0;
    }
    if (lane == 0) publish(status, tile, AGGREGATE, total);

    int exclusive = 0;
    for (long long end = (long long)tile;; end -= 32) {  // window: tiles end-32 .. end-1
        const long long mine = end - 1 - lane;           // lane 0: the nearest
        Status s = read_status(status, mine);
        while (__any_sync(0xffffffffu, flag_of(s) == INVALID)) s = read_status(status, mine);
        const unsigned prefixes = __ballot_sync(0xffffffffu, flag_of(s) == PREFIX);
        if (prefixes) {
            const int nearest = __ffs(prefixes) - 1;  // lanes 0 .. nearest count
            exclusive += warp_sum(lane <= nearest ? value_of(s) : 0);
            break;
        }
        exclusive += warp_sum(value_of(s));  // 32 AGGREGATEs: go further back
    }
    if (lane == 0) publish(status, tile, PREFIX, exclusive + total);
    return exclusive;
}

__global__ void __launch_bounds__(kThreads)
single_pass_scan_kernel(const int* __restrict__ x, int* __restrict__ out, unsigned* __restrict__ counter,
                        Status* __restrict__ status, int n)
{
    __shared__ unsigned tile_index;
    __shared__ int warp_totals[kWarps];
    __shared__ int tile_prefix;

    if (threadIdx.x == 0) tile_index = atomicAdd(counter, 1u);
    __syncthreads();
    const size_t tile = tile_index;
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

}  // namespace

extern "C" void solve(const int* x, int* out, void* work, int n)
{
    if (n <= 0) return;
    const size_t tiles = ((size_t)n + kTile - 1) / kTile;
    // word 0: the tile counter; from byte 8 on: one status word per tile
    unsigned* counter = static_cast<unsigned*>(work);
    Status* status = static_cast<Status*>(work) + 1;
    cudaMemsetAsync(work, 0, (tiles + 1) * sizeof(Status));
    single_pass_scan_kernel<<<(unsigned)tiles, kThreads>>>(x, out, counter, status, n);
}
