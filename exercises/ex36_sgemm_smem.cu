// ex36 sgemm_smem: tiles of A and B in shared memory
//
// What this exercise teaches
//   Reuse through shared memory. In ex35 every thread reads its own row of
//   A and column of B from global memory, although the 32 threads of a row
//   of the block share the row and the 32 of a column share the column.
//   Copy a 32 x 32 tile of each into shared memory once per block, and each
//   element fetched from global memory serves 32 threads. The price: the
//   block must wait until a tile is complete before anyone reads it, and
//   until everyone is done with it before it is overwritten.
//
// The problem (kind sgemm)
//   C = alpha * A * B + beta * C in FP32, row-major: A is M x K, B is K x N,
//   C is M x N. Any M, N, K.
//
// What is given
//   Blocks of 32 x 32 threads, one element of C each, x along the columns
//   (ex35's map); the two 32 x 32 tiles As and Bs in shared memory; the loop
//   over K in steps of 32; the guarded store of alpha * acc + beta * C.
//
// What to fill in (the TODOs, all inside the k0 loop)
//   1. The copies: thread (tx, ty) stores A[row][k0 + tx] in As[ty][tx] and
//      B[k0 + ty][col] in Bs[ty][tx], and 0 for an element outside A or B.
//      Every thread copies, even one whose (row, col) is outside C: its
//      elements of the tiles are still needed by the others.
//   2. A barrier after the copies.
//   3. The 32 products: acc += As[ty][k] * Bs[k][tx].
//   4. A barrier after the products.
//   As shipped nothing is multiplied: C = beta * C, a wrong answer.
//
// How it is graded
//   gpucourse grade ex36
//   Checked by the relative error (Frobenius norm) against exact values
//   computed in float64, bound 1e-5, for shapes from 1 x 1 x 1 to
//   520 x 1000 x 1030; then timed against the reference and cuBLAS SGEMM
//   (FP32) at 4096^3.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int T = 32;  // the tile: T x T elements of C per block, K in steps of T

__global__ void sgemm_smem(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, float alpha, float beta)
{
    [[maybe_unused]] __shared__ float As[T][T], Bs[T][T];
    [[maybe_unused]] const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += T) {
        // TODO: As[ty][tx] = A[row][k0 + tx] and Bs[ty][tx] = B[k0 + ty][col], 0 where the element
        //       lies outside A (row >= M or k0 + tx >= K) or outside B (k0 + ty >= K or col >= N).
        //       Elements of A: row * K + k; of B: k * N + col (in size_t).
        // TODO: a barrier: no thread may read the tiles before every thread has written its part.
        // TODO: acc += As[ty][k] * Bs[k][tx] for k = 0 .. T - 1 (the zeros take care of the tails).
        // TODO: a barrier: no thread may overwrite the tiles in the next step while others still read them.
    }
    if (row < M && col < N) {
        float* c = C + (size_t)row * N + col;
        *c = alpha * acc + beta * *c;
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    sgemm_smem<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
