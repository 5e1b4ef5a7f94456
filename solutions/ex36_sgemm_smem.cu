// ex36 sgemm_smem -- reference solution
//
// ex35's thread map (blocks of 32 x 32 threads, one element of C each, x
// along the columns) with the operands staged through shared memory. K is
// walked in steps of 32: the block copies a 32 x 32 tile of A and one of B
// into shared memory, each thread one element of each (both copies are
// coalesced: x runs along a row of A's tile and of B's), then every thread
// takes its 32 products from shared memory. Each element loaded from global
// memory is used by 32 threads, so global traffic falls 32-fold.
//
// Elements outside the matrices are stored as 0, so the tails of M, N and K
// need no test inside the product loop, and every thread, inside C or not,
// takes part in the copies and the barriers; only the store is guarded.
// Two barriers per step: after the copies (no thread reads a tile before
// all of it has been written) and after the products (no thread overwrites
// a tile another thread still reads).
//
// The reads inside the product loop: As[ty][k] is one address per warp (a
// broadcast), Bs[k][tx] 32 neighbouring words (32 banks): no conflict.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int T = 32;  // the tile: T x T elements of C per block, K in steps of T

__global__ void sgemm_smem(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, float alpha, float beta)
{
    __shared__ float As[T][T], Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += T) {
        // This thread's element of each tile: A[row][k0 + tx] and B[k0 + ty][col], 0 outside.
        As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.f;
        __syncthreads();  // both tiles complete before anyone reads them
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // everyone done reading before the next step overwrites them
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
