// expect: 1 wrong_answer -- the propagation adds scanned[tile] (the tiles up to and including this one) instead of scanned[tile - 1]: every tile but the first counts itself twice
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
    const size_t tile = (size_t)blockIdx.x + 1;
    const size_t tile_begin = tile * kTile;
    int4 v[kChunks];
    load_tile(out, tile_begin, (size_t)n, v);
    store_tile(out, tile_begin, (size_t)n, v, scanned[tile]);  // inclusive: counts its own tile twice
}

// Pass 2: one block scans all the tile totals, 1024 at a time, with a carry.
__global__ void scan_totals_kernel(const int* __restrict__ totals, int* __restrict__ scanned, int count)
{
    __shared__ int s[1024];
    int carry = 0;
    for (int base = 0; base < count; base += 1024) {
        const int i = base + threadIdx.x;
        s[threadIdx.x] = i < count ? totals[i] : 0;
        __syncthreads();
        for (int d = 1; d < 1024; d *= 2) {
            const int t = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
            __syncthreads();
            s[threadIdx.x] += t;
            __syncthreads();
        }
        if (i < count) scanned[i] = carry + s[threadIdx.x];
        carry += s[1023];
        __syncthreads();
    }
}

extern "C" void solve(const int* x, int* out, void* work, int n)
{
    if (n <= 0) return;
    int* totals = static_cast<int*>(work);
    const size_t tiles = ((size_t)n + kTile - 1) / kTile;
    int* scanned = totals + (tiles + 31) / 32 * 32;
    scan_tiles_kernel<<<(unsigned)tiles, kThreads>>>(x, out, totals, n);
    if (tiles == 1) return;
    scan_totals_kernel<<<1, 1024>>>(totals, scanned, (int)tiles);
    add_prefix_kernel<<<(unsigned)(tiles - 1), kThreads>>>(out, scanned, n);
}
