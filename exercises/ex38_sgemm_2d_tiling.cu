// ex38 sgemm_2d_tiling: an 8 x 8 block of results per thread
//
// What this exercise teaches
//   Register tiling in two dimensions. ex37's thread keeps one value of B
//   in a register and reuses it 8 times; give the thread an 8 x 8 block of
//   C instead and, at each k, it loads 8 values of A and 8 of B into
//   registers and does all 64 products between them (an outer product):
//   16 shared loads for 64 FMAs instead of 9 for 8. Also, each element
//   fetched from global memory now serves 128 rows or columns of C.
//
// The problem (kind sgemm)
//   C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N,
//   C is M x N. Any M, N, K.
//
// What is given
//   Blocks of 256 threads own a 128 x 128 tile of C and walk K in steps of
//   8. Per step the block copies a 128 x 8 tile of A into As[128][8] and an
//   8 x 128 tile of B into Bs[8][128], four elements of each per thread,
//   zero outside the matrices, between two barriers. Thread tid is
//   (ty, tx) = (tid / 16, tid % 16) and owns rows ty * 8 .. ty * 8 + 7 and
//   columns tx * 8 .. tx * 8 + 7 of the block's tile, in acc[8][8].
//
// What to fill in (the TODOs)
//   1. The products of one step, for each k < 8: a[8] from A's column k,
//      b[8] from B's row k, then the 64 FMAs acc[i][j] += a[i] * b[j].
//   2. The epilogue: the 8 x 8 results into C, alpha * acc + beta * C, only
//      the elements inside C.
//   As shipped nothing is computed or written: a wrong answer.
//
// How it is graded
//   gpucourse grade ex38
//   Checked by the relative error (Frobenius norm) against exact values
//   computed in float64, bound 1e-5, for shapes from 1 x 1 x 1 to
//   520 x 1000 x 1030; then timed against the reference and cuBLAS SGEMM
//   (FP32) at 4096^3. acc[8][8] must stay in registers: indexed by a loop
//   that is not unrolled it goes to local memory (a stack frame in
//   ptxas -v), and the kernel is then far slower.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;  // block tile, K step, a thread's TM x TN results
constexpr int THREADS = (BM / TM) * (BN / TN);            // 256
constexpr int A_PER = BM * BK / THREADS, B_PER = BK * BN / THREADS;  // elements each thread copies: 4 and 4

__global__ void __launch_bounds__(THREADS) sgemm_2d(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K, float alpha,
                                                    float beta)
{
    [[maybe_unused]] __shared__ float As[BM][BK], Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    [[maybe_unused]] const int ty = tid / (BN / TN), tx = tid % (BN / TN);  // this thread's 8 x 8 block of results
    [[maybe_unused]] float acc[TM][TN] = {};
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
        // TODO: for each k < BK: load column k of this thread's rows of A (As[ty * TM + i][k],
        //       i < TM) into a register array a[TM], row k of its columns of B (Bs[k][tx * TN + j],
        //       j < TN) into b[TN], then the outer product acc[i][j] += a[i] * b[j]: 64 FMAs from 16
        //       loads. Unroll every loop (#pragma unroll): an array indexed by a loop that is not
        //       unrolled cannot live in registers.
        __syncthreads();
    }
    // TODO: the epilogue: for i < TM, j < TN, m = m0 + ty * TM + i, n = n0 + tx * TN + j; where
    //       m < M and n < N, C[m * N + n] = alpha * acc[i][j] + beta * C[m * N + n] (in size_t).
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_2d<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
