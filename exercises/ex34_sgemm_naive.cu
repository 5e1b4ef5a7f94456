// ex34 sgemm_naive: one thread per element of C
//
// What this exercise teaches
//   The GEMM every faster one in this chapter is measured from: one thread
//   per element of C, each a dot product of a row of A and a column of B
//   read straight from global memory. It is correct and slow; the next
//   seven exercises make it fast one idea at a time.
//
// The problem (kind sgemm)
//   C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N,
//   C is M x N. Any M, N, K (tails in all three). The pointers are device
//   pointers.
//
// What is given
//   The kernel's signature, the thread -> element map and the launch:
//   blocks of 32 x 32 threads, threadIdx.x along the ROWS of C (row =
//   blockIdx.x * 32 + threadIdx.x, col = blockIdx.y * 32 + threadIdx.y), a
//   grid rounded up to cover all of C. This map is the classic naive one;
//   ex35 is about why it is the wrong way round.
//
// What to fill in (the TODOs)
//   1. The bounds check: the grid is rounded up, so some threads lie
//      outside C and must do nothing.
//   2. The dot product of row `row` of A and column `col` of B, in a float
//      accumulator.
//   3. The store: C[row][col] = alpha * dot + beta * C[row][col].
//   As shipped the kernel writes nothing: C keeps its old values, a wrong
//   answer.
//
// How it is graded
//   gpucourse grade ex34
//   Checked by the relative error (Frobenius norm) against exact values
//   computed in float64, bound 1e-5 (float accumulation; TF32 cannot pass),
//   for shapes from 1 x 1 x 1 to 520 x 1000 x 1030; then timed against the
//   reference and cuBLAS SGEMM (FP32) at 4096^3.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, float alpha, float beta)
{
    [[maybe_unused]] const int row = blockIdx.x * 32 + threadIdx.x;  // x down the rows: the slow way round
    [[maybe_unused]] const int col = blockIdx.y * 32 + threadIdx.y;
    // TODO: return when (row, col) lies outside C (row >= M or col >= N).
    // TODO: acc = the sum over k < K of A[row][k] * B[k][col], in a float. A is M x K and B is
    //       K x N, row-major: element (r, c) of a matrix with n columns is at r * n + c (compute it
    //       in size_t: in int, r * n overflows once a matrix has 2^31 elements).
    // TODO: C[row][col] = alpha * acc + beta * C[row][col].
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;  // a grid of 0 blocks is a launch error
    const dim3 block(32, 32), grid((M + 31) / 32, (N + 31) / 32);
    sgemm_naive<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
