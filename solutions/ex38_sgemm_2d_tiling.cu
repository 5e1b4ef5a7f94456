// ex38 sgemm_2d_tiling -- reference solution
//
// ex37's register tiling in two dimensions. A block of 256 threads owns a
// 128 x 128 tile of C and walks K in steps of 8; thread (ty, tx) = (tid / 16,
// tid % 16) owns the 8 x 8 results at rows ty * 8 + i and columns
// tx * 8 + j of the tile. Per step the block copies a 128 x 8 tile of A and
// an 8 x 128 tile of B, four elements of each per thread, with scalar loads
// (consecutive threads, consecutive addresses; zero outside the matrices).
//
// The products of one k are an outer product: the thread loads its 8
// values of A's column k and its 8 values of B's row k into registers, then
// does 64 FMAs from registers. 16 shared loads for 64 FMAs (ex37: 9 for 8),
// so shared memory stops setting the pace; and each element fetched from
// global memory serves 128 rows or columns of C (ex37: 64).
//
// What is left for the next rungs: every load is written as a 4-byte one.
// ptxas fuses the shared loads it can prove contiguous into LDS.128 (with
// the k loop unrolled, row r of As holds the 8 values of k together), at
// the price of holding all 64 values of A a step needs in registers; the
// global loads stay 4-byte ones. ex39 writes 16-byte loads on both sides.
// And the reads of B meet in banks (ex40).
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;  // block tile, K step, a thread's TM x TN results
constexpr int THREADS = (BM / TM) * (BN / TN);            // 256
constexpr int A_PER = BM * BK / THREADS, B_PER = BK * BN / THREADS;  // elements each thread copies: 4 and 4

__global__ void __launch_bounds__(THREADS) sgemm_2d(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K, float alpha,
                                                    float beta)
{
    __shared__ float As[BM][BK], Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);  // this thread's 8 x 8 block of results
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Copy i of a thread: A's row tid / 8 + 32 i, column tid % 8; B's row tid / 128 + 2 i,
        // column tid % 128. Neighbouring threads take neighbouring addresses.
#pragma unroll
        for (int i = 0; i < A_PER; ++i) {
            const int r = tid / BK + i * (THREADS / BK), m = m0 + r, k = k0 + tid % BK;
            As[r][tid % BK] = m < M && k < K ? A[(size_t)m * K + k] : 0.f;
        }
#pragma unroll
        for (int i = 0; i < B_PER; ++i) {
            const int r = tid / BN + i * (THREADS / BN), k = k0 + r, n = n0 + tid % BN;
            Bs[r][tid % BN] = k < K && n < N ? B[(size_t)k * N + n] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];  // column k of this thread's rows of A, row k of its columns of B
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];  // 64 FMAs from 16 loads
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + ty * TM + i;
        if (m >= M) break;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int n = n0 + tx * TN + j;
            if (n < N) {
                float* c = C + (size_t)m * N + n;
                *c = alpha * acc[i][j] + beta * *c;
            }
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_2d<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
