// ex34 sgemm_naive -- reference solution
//
// C = alpha * A * B + beta * C in FP32, row-major, any M, N, K: one thread
// per element of C, a dot product of length K from global memory.
//
// The mapping is the classic naive one, kept on purpose as the ladder's
// first rung: threadIdx.x walks DOWN the rows of C. The 32 lanes of a warp
// then hold 32 different rows and one column, so each step of k reads A at
// 32 addresses K floats apart (32 sectors for 128 useful bytes) and B at a
// single address, and the store of C writes 32 floats N apart. Nothing is
// reused between threads except through the caches. ex35 turns the mapping
// round and nothing else.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, float alpha, float beta)
{
    const int row = blockIdx.x * 32 + threadIdx.x;  // x down the rows: the slow way round
    const int col = blockIdx.y * 32 + threadIdx.y;
    if (row >= M || col >= N) return;  // the grid is rounded up to whole blocks
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    float* c = C + (size_t)row * N + col;
    *c = alpha * acc + beta * *c;  // K == 0 leaves acc at 0: C = beta * C
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;  // a grid of 0 blocks is a launch error
    const dim3 block(32, 32), grid((M + 31) / 32, (N + 31) / 32);
    sgemm_naive<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}
