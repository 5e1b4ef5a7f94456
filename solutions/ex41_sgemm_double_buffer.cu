// ex41 sgemm_double_buffer -- reference solution
//
// The last FP32 rung: ex40's warp tiling with everything pipelined.
//
// - Tiles of 128 x 256 (K in steps of 8), 256 threads, one block per SM:
//   each warp owns 64 x 64 of the tile and each thread 8 x 16 results, its
//   columns in four float4 groups 16 apart (conflict-free, as in ex40).
//   128 accumulators and about 225 registers per thread: two warps per
//   scheduler, each with 128 independent FFMAs per k. This is the shape of
//   cuBLAS's own FP32 kernel (256 x 128 x 8 in its column-major terms).
// - Shared memory holds two tiles. The next tile's global loads go to
//   registers at the start of a tile and into the other buffer at its last
//   k-step, before the one barrier per tile: they are in flight during
//   1024 FFMAs per thread.
// - The fragments are double-buffered too: the shared loads of k + 1 are
//   issued before the FFMAs of k, and at the last k-step the first
//   fragments of the next tile load right after the barrier.
// - Full-width tiles load without a test per float4 (the kVec instance:
//   K and N multiples of 4). Rows of A past M and columns of B past N are
//   clamped to the last valid ones: what they compute is never stored.
//   Only the last, partial k-tile tests k < K. Other shapes take the same
//   kernel with element-wise loads (kVec = false).
// - Tiles are taken in groups of 8 tile rows (chapter 9's order).
//
// Measured on the H100: see docs/benchmarks.md (chapter 10).
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

constexpr int BM = 128, BN = 256, BK = 8, THREADS = 256;
constexpr int WARPS_N = 4;                  // 2 x 4 warps of 64 x 64
constexpr int TN = 16;                      // columns per thread: 4 groups of 4, 16 apart
constexpr int APAD = 4;                     // keeps the transposed stores of A off each other's banks
constexpr int GROUP_M = 8;
constexpr int BV = BK * BN / 4 / THREADS;   // float4s of B per thread per tile (2); of A: 1
constexpr int B_ROWS = THREADS / (BN / 4);  // rows of B's tile one pass of the block covers (4)

// Four neighbouring floats of row r of a rows x len matrix, 0 outside it.
template <bool kVec>
__device__ __forceinline__ float4 load4(const float* p, int r, int c, int rows, int len)
{
    if constexpr (kVec) {  // r is valid (clamped by the caller); len % 4 == 0: a float4 is all in or all out
        if (c < len) return __ldg(reinterpret_cast<const float4*>(p + (size_t)r * len + c));
        return make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
        float v[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = r < rows && c + e < len ? __ldg(p + (size_t)r * len + c + e) : 0.f;
        return make_float4(v[0], v[1], v[2], v[3]);
    }
}

__device__ __forceinline__ void tile_at(int tile, int tiles_m, int tiles_n, int& m0, int& n0)
{
    const int per_group = GROUP_M * tiles_n;
    const int first = tile / per_group * GROUP_M;
    const int rows = min(GROUP_M, tiles_m - first);
    const int r = tile % per_group;
    m0 = (first + r % rows) * BM;
    n0 = r / rows * BN;
}

template <bool kVec>
__global__ void __launch_bounds__(THREADS, 1)
    sgemm_db(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
             float alpha, float beta, bool c_vec)
{
    __shared__ __align__(16) float As[2][BK][BM + APAD];  // A transposed: As[k][m]
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int m0, n0;
    tile_at(blockIdx.x, (M + BM - 1) / BM, (N + BN - 1) / BN, m0, n0);

    // This thread's share of each tile: one float4 of A (row a_row, k a_k)
    // and two of B (rows b_k, b_k + 4, columns b_n).
    const int a_row = tid / (BK / 4), a_k = tid % (BK / 4) * 4;
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;
    int am = m0 + a_row, bn = n0 + b_n;
    if (kVec) am = min(am, M - 1), bn = min(bn, N - 4);
    // The full tiles' sources, moved one tile along K before each load.
    const float* pa = A + (size_t)am * K + a_k - BK;
    const float* pb = B + (size_t)b_k * N + bn - (size_t)BK * N;
    const int ktiles = (K + BK - 1) / BK, kfull = K / BK;

    float4 ra, rb[BV];  // the next tile, on its way from global memory
    // A whole tile (kVec, kt < kfull; they come in order, kt = 0, 1, 2, ...):
    // no test per float4.
    auto load_full = [&]() {
        pa += BK;
        pb += (size_t)BK * N;
        ra = __ldg(reinterpret_cast<const float4*>(pa));
#pragma unroll
        for (int v = 0; v < BV; ++v) rb[v] = __ldg(reinterpret_cast<const float4*>(pb + (size_t)v * B_ROWS * N));
    };
    // Any tile, 0 outside the matrices.
    auto load_tested = [&](int kt) {
        ra = load4<kVec>(A, am, kt * BK + a_k, M, K);
#pragma unroll
        for (int v = 0; v < BV; ++v) {
            const int k = kt * BK + b_k + v * B_ROWS;  // B's rows are along K
            if (kVec)
                rb[v] = k < K ? __ldg(reinterpret_cast<const float4*>(B + (size_t)k * N + bn))
                              : make_float4(0.f, 0.f, 0.f, 0.f);
            else
                rb[v] = load4<false>(B, k, bn, K, N);
        }
    };
    auto load_tile = [&](int kt) {
        if (kVec && kt < kfull) load_full();
        else load_tested(kt);
    };
    auto store_tile = [&](int buf) {
        As[buf][a_k + 0][a_row] = ra.x;
        As[buf][a_k + 1][a_row] = ra.y;
        As[buf][a_k + 2][a_row] = ra.z;
        As[buf][a_k + 3][a_row] = ra.w;
#pragma unroll
        for (int v = 0; v < BV; ++v) *reinterpret_cast<float4*>(&Bs[buf][b_k + v * B_ROWS][b_n]) = rb[v];
    };

    // ex40's warp tiling, with 16 columns per thread.
    const int arow = warp / WARPS_N * 64 + lane / 4 * 4, bcol = warp % WARPS_N * 64 + lane % 4 * 4;
    float a[2][8], b[2][TN];  // fragments of k and k + 1
    auto load_fragments = [&](int s, int buf, int k) {
        *reinterpret_cast<float4*>(&a[s][0]) = *reinterpret_cast<const float4*>(&As[buf][k][arow]);
        *reinterpret_cast<float4*>(&a[s][4]) = *reinterpret_cast<const float4*>(&As[buf][k][arow + 32]);
#pragma unroll
        for (int g = 0; g < TN / 4; ++g)
            *reinterpret_cast<float4*>(&b[s][4 * g]) = *reinterpret_cast<const float4*>(&Bs[buf][k][bcol + 16 * g]);
    };
    float acc[8][TN] = {};

    // One tile: the FFMAs of tile kt from buffer kt % 2, while tile kt + 1
    // comes from global memory. next_full: tile kt + 1 is known to be whole.
    auto tile = [&](int kt, auto next_full) {
        const int cur = kt & 1;
        if (decltype(next_full)::value) load_full();
        else if (kt + 1 < ktiles) load_tile(kt + 1);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k < BK - 1) {
                load_fragments((k + 1) & 1, cur, k + 1);
            } else {
                // The tile boundary. The other buffer was last read before
                // the previous barrier; after this one, the next tile is
                // complete. On the last tile this stores stale registers
                // that nobody reads: cheaper than a branch.
                store_tile(cur ^ 1);
                __syncthreads();
                load_fragments((k + 1) & 1, cur ^ 1, 0);
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
    };

    if (ktiles > 0) {
        load_tile(0);
        store_tile(0);
    }
    __syncthreads();
    if (ktiles > 0) load_fragments(0, 0, 0);
    // Two loops over the tiles: while the next tile is whole, a loop with no
    // test at all (worth 2-3%: the tests sat between the barrier and the
    // first FFMAs of every tile), then the last one or two tiles.
    int kt = 0;
    if (kVec)
        for (; kt + 1 < kfull; ++kt) tile(kt, std::true_type{});
    for (; kt < ktiles; ++kt) tile(kt, std::false_type{});

    // Thread rows arow + {0..3} and + 32 + {0..3}; columns bcol + 16 g + {0..3}.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int m = m0 + arow + i / 4 * 32 + i % 4;
        if (m >= M) continue;
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) {
            const int n = n0 + bcol + 16 * g;
            float* p = C + (size_t)m * N + n;
            if (c_vec && n + 3 < N) {
                float4 c = *reinterpret_cast<float4*>(p);
                c.x = alpha * acc[i][4 * g + 0] + beta * c.x;
                c.y = alpha * acc[i][4 * g + 1] + beta * c.y;
                c.z = alpha * acc[i][4 * g + 2] + beta * c.z;
                c.w = alpha * acc[i][4 * g + 3] + beta * c.w;
                *reinterpret_cast<float4*>(p) = c;
            } else {
                for (int e = 0; e < 4; ++e)
                    if (n + e < N) p[e] = alpha * acc[i][4 * g + e] + beta * p[e];
            }
        }
    }
}

}  // namespace

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const bool vec = K % 4 == 0 && N % 4 == 0 && (uintptr_t)A % 16 == 0 && (uintptr_t)B % 16 == 0;
    const bool c_vec = N % 4 == 0 && (uintptr_t)C % 16 == 0;
    if (vec)
        sgemm_db<true><<<tiles, THREADS>>>(A, B, C, M, N, K, alpha, beta, c_vec);
    else
        sgemm_db<false><<<tiles, THREADS>>>(A, B, C, M, N, K, alpha, beta, c_vec);
}
