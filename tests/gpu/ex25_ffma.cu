// expect: 5 requirement_not_met -- a shared-memory tiled GEMM on the CUDA cores (FFMA): correct, far below the floors, and without HMMA, LDSM or LDGSTS
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int T = 32;

__global__ void gemm_ffma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                          float* __restrict__ C, int M, int N, int K, float alpha, float beta)
{
    __shared__ float As[T][T + 1], Bs[T][T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m = blockIdx.y * T + ty, n = blockIdx.x * T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = m < M && k0 + tx < K ? __bfloat162float(A[(size_t)m * K + k0 + tx]) : 0.f;
        Bs[ty][tx] = k0 + ty < K && n < N ? __bfloat162float(B[(size_t)(k0 + ty) * N + n]) : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (m < M && n < N) C[(size_t)m * N + n] = alpha * acc + beta * C[(size_t)m * N + n];
}

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha,
                      float beta)
{
    if (M <= 0 || N <= 0) return;
    gemm_ffma<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K, alpha, beta);
}
