// ex37 sgemm_1d_tiling: 8 results per thread, B's element in a register
//
// What this exercise teaches
//   Register tiling in one dimension. In ex36 every FMA costs two loads
//   from shared memory, so shared memory, not arithmetic, sets the pace.
//   Give each thread a column of 8 results instead of one: at each k it
//   loads its element of B once, keeps it in a register and uses it for 8
//   FMAs, one for each of its rows.
//
// The problem (kind sgemm)
//   C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N,
//   C is M x N. Any M, N, K.
//
// What is given
//   Blocks of 512 threads (1D) own a 64 x 64 tile of C and walk K in steps
//   of 8. Per step the block copies a 64 x 8 tile of A into As[64][8] and
//   an 8 x 64 tile of B into Bs[8][64], one element of each per thread,
//   zero outside the matrices, between two barriers. Thread tid owns rows
//   row0 .. row0 + 7 (row0 = (tid / 64) * 8) of column col = tid % 64 of
//   the block's tile, in acc[8].
//
// What to fill in (the TODOs)
//   1. The products of one step: for each k < 8, load Bs[k][col] into a
//      register once, then acc[i] += As[row0 + i][k] * b for i < 8.
//   2. The epilogue: C[m][n] = alpha * acc[i] + beta * C[m][n] for the 8
//      rows m = m0 + row0 + i of column n = n0 + col, only where m < M and
//      n < N.
//   As shipped nothing is computed or written: a wrong answer.
//
// How it is graded
//   gpucourse grade ex37
//   Checked by the relative error (Frobenius norm) against exact values
//   computed in float64, bound 1e-5, for shapes from 1 x 1 x 1 to
//   520 x 1000 x 1030; then timed against the reference and cuBLAS SGEMM
//   (FP32) at 4096^3.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;  // block tile BM x BN, K in steps of BK, TM rows a thread
constexpr int THREADS = BM * BN / TM;             // 512: one thread per column of TM results

__global__ void __launch_bounds__(THREADS) sgemm_1d(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K, float alpha,
                                                    float beta)
{
    [[maybe_unused]] __shared__ float As[BM][BK], Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int a_row = tid / BK, a_k = tid % BK;  // this thread's element of A's tile
    const int b_k = tid / BN, b_n = tid % BN;    // and of B's: both copies coalesced
    [[maybe_unused]] const int col = tid % BN, row0 = tid / BN * TM;  // its results: rows row0 .. row0 + 7 of column col
    [[maybe_unused]] float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const int am = m0 + a_row, ak = k0 + a_k, bk = k0 + b_k, bn = n0 + b_n;
        As[a_row][a_k] = am < M && ak < K ? A[(size_t)am * K + ak] : 0.f;
        Bs[b_k][b_n] = bk < K && bn < N ? B[(size_t)bk * N + bn] : 0.f;
        __syncthreads();
        // TODO: for k < BK: b = Bs[k][col], held in a register; then acc[i] += As[row0 + i][k] * b
        //       for i < TM. (#pragma unroll on both loops keeps acc[] in registers.)
        __syncthreads();
    }
    // TODO: the epilogue. For i < TM: m = m0 + row0 + i, n = n0 + col; where m < M and n < N,
    //       C[m * N + n] = alpha * acc[i] + beta * C[m * N + n] (index in size_t).
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_1d<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
