// ex13 scan: a device-wide prefix sum, scan-then-propagate
//
// What this exercise teaches
//   How a scan crosses block boundaries when blocks cannot wait for each
//   other: split the work into kernels, and let the kernel boundaries be the
//   grid-wide barriers. And what that costs in bytes.
//
// The problem
//   x has n ints. out[i] = x[0] + x[1] + ... + x[i] (inclusive scan).
//   work points to scratch device memory of at least 4 * (n / 64 + 4096)
//   bytes, garbage at every call.
//
// What is given
//   The block-level machinery (from ex11 and ex12): a tile is 4096 ints,
//   one block of 256 threads scans it (load_tile, scan_tile, store_tile).
//   scan_tiles_kernel is complete: block b writes the scan of tile b, as if
//   that tile were the whole array, to out, and the tile's total to
//   totals[b].
//
// What to fill in
//   1. add_prefix_kernel: every tile but the first must add the sum of all
//      tiles before it to each of its elements.
//   2. solve(): scan the tile totals (an array of `tiles` ints: 65536 at
//      n = 2^28), then launch add_prefix_kernel. The simplest way to scan
//      the totals is to call the same procedure recursively on them, with
//      the rest of `work` as its scratch, until one tile is left.
//   As shipped, only scan_tiles_kernel runs: tiles after the first are
//   missing everything before them (wrong answer from n = 4097 on).
//
// How it is graded
//   gpucourse grade ex13
//   out is filled with garbage (-1) first; n = 1 to 16785409 are checked
//   exactly, then n = 2^28 (2.1 GB moved by an ideal scan) is timed against
//   the reference (the same design), a copy and CUB's DeviceScan.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int kThreads = 256;                     // threads per block
constexpr int kWarps = kThreads / 32;             // 8
constexpr int kChunks = 4;                        // int4 loads per lane
constexpr int kTile = kThreads * 4 * kChunks;     // 4096 ints per tile

// Where the ints of a thread live: warp w owns the 512 ints from w * 512 on
// (of its tile), as 4 chunks of 128; in chunk k, lane L holds the 4 ints
// from w * 512 + k * 128 + 4L on. Every load and store of a warp is one
// contiguous 512-byte piece.
__device__ __forceinline__ size_t element_of(size_t tile_begin, int k)
{
    return tile_begin + (size_t)(threadIdx.x / 32) * 512 + (size_t)k * 128 + 4 * (threadIdx.x % 32);
}

// Loads this thread's 16 ints of the tile (zeros past n).
__device__ __forceinline__ void load_tile(const int* __restrict__ x, size_t tile_begin, size_t n, int4 (&v)[kChunks])
{
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const size_t e = element_of(tile_begin, k);
        if (e + 3 < n) {
            v[k] = *reinterpret_cast<const int4*>(x + e);
        } else {
            v[k] = make_int4(e < n ? x[e] : 0, e + 1 < n ? x[e + 1] : 0, e + 2 < n ? x[e + 2] : 0, 0);
        }
    }
}

// Stores this thread's 16 ints, each plus `add` (only those below n).
__device__ __forceinline__ void store_tile(int* __restrict__ out, size_t tile_begin, size_t n, const int4 (&v)[kChunks],
                                           int add)
{
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
        const size_t e = element_of(tile_begin, k);
        const int4 r = make_int4(v[k].x + add, v[k].y + add, v[k].z + add, v[k].w + add);
        if (e + 3 < n) {
            *reinterpret_cast<int4*>(out + e) = r;
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

__global__ void __launch_bounds__(kThreads)
scan_tiles_kernel(const int* __restrict__ x, int* __restrict__ out, int* __restrict__ totals, int n)
{
    __shared__ int warp_totals[kWarps];
    const size_t tile_begin = (size_t)blockIdx.x * kTile;
    int4 v[kChunks];
    load_tile(x, tile_begin, (size_t)n, v);
    const int total = scan_tile(v, warp_totals);
    store_tile(out, tile_begin, (size_t)n, v, 0);
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

// TODO 1: the propagation. Launched with one block of kThreads threads per
// tile that needs it; `scanned` is the INCLUSIVE scan of the tile totals,
// so scanned[t - 1] is the sum of every element before tile t.
//   - decide which tile this block handles (tile 0 needs nothing added);
//   - read its prefix from scanned[];
//   - add it to every element of the tile below n: load_tile(out, ...) then
//     store_tile(out, ..., prefix) does exactly that.
__global__ void __launch_bounds__(kThreads)
add_prefix_kernel(int* __restrict__ out, const int* __restrict__ scanned, int n)
{
}

extern "C" void solve(const int* x, int* out, void* work, int n)
{
    if (n <= 0) return;
    int* totals = static_cast<int*>(work);
    const size_t tiles = ((size_t)n + kTile - 1) / kTile;
    scan_tiles_kernel<<<(unsigned)tiles, kThreads>>>(x, out, totals, n);

    // TODO 2: if there is more than one tile:
    //   - scan totals[0 .. tiles-1] into another part of work, e.g. by
    //     moving the code of solve() into a recursive host function
    //     scan(in, out, work, n) and calling scan(totals, scanned,
    //     rest_of_work, tiles). Start every array in work on a multiple of
    //     4 ints (16 bytes): load_tile and store_tile use int4 accesses;
    //   - launch add_prefix_kernel over the tiles that need a prefix.
    // All launches go to the default stream, so each kernel sees the
    // results of the ones before it.
}
