// ex37 sgemm_1d_tiling -- reference solution
//
// ex36's shared-memory tiles, with each thread computing a column of 8
// elements of C instead of one. A block of 512 threads owns a 64 x 64 tile
// of C and walks K in steps of 8: per step it copies a 64 x 8 tile of A and
// an 8 x 64 tile of B (one element of each per thread, zero outside the
// matrices), then thread tid adds to rows (tid / 64) * 8 + i, i < 8, of
// column tid % 64.
//
// Why: in ex36 every FMA needed two loads from shared memory, and shared
// memory, not arithmetic, set the pace. Here, at each k, a thread loads its
// element of B once into a register and uses it for 8 FMAs, one for each
// of its rows; its 8 values of A are the same for the whole warp (all 32
// lanes share tid / 64), so they are broadcasts. About 9 shared loads per
// 8 FMAs instead of 16, and each element of A or B fetched from global
// memory now serves 64 threads' worth of C instead of 32.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;  // block tile BM x BN, K in steps of BK, TM rows a thread
constexpr int THREADS = BM * BN / TM;             // 512: one thread per column of TM results

__global__ void __launch_bounds__(THREADS) sgemm_1d(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K, float alpha,
                                                    float beta)
{
    __shared__ float As[BM][BK], Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int a_row = tid / BK, a_k = tid % BK;  // this thread's element of A's tile
    const int b_k = tid / BN, b_n = tid % BN;    // and of B's: both copies coalesced
    const int col = tid % BN, row0 = tid / BN * TM;  // its results: rows row0 .. row0 + 7 of column col
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const int am = m0 + a_row, ak = k0 + a_k, bk = k0 + b_k, bn = n0 + b_n;
        As[a_row][a_k] = am < M && ak < K ? A[(size_t)am * K + ak] : 0.f;
        Bs[b_k][b_n] = bk < K && bn < N ? B[(size_t)bk * N + bn] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][col];  // one shared load ...
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[row0 + i][k] * b;  // ... for TM FMAs
        }
        __syncthreads();
    }
    const int n = n0 + col;
    if (n >= N) return;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + row0 + i;
        if (m < M) {
            float* c = C + (size_t)m * N + n;
            *c = alpha * acc[i] + beta * *c;
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_1d<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
