// expect: 5 requirement_not_met "HGMMA" -- a correct GEMM through the WMMA API (mma.sync, HMMA in the machine code): far below the floors, and without the wgmma this chapter is about
// C = alpha * A * B^T + beta * C with nvcuda::wmma 16 x 16 x 16 bf16 tiles:
// blocks of 4 warps own 32 x 32 tiles of C; each 16-step of K is staged in
// shared memory with zeros past the edges (K is a multiple of 8, not of 16).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

constexpr int T = 32, KS = 16;

__global__ void gemm_wmma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                          float* __restrict__ C, int M, int N, int K, float alpha, float beta)
{
    __shared__ __nv_bfloat16 as[T][KS], bs[T][KS];  // as[m][k]; bs[n][k]: B^T column-major
    __shared__ float cs[4][16][16];
    const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * T, n0 = blockIdx.x * T;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += KS) {
        for (int i = threadIdx.x; i < T * KS; i += blockDim.x) {
            const int r = i / KS, k = k0 + i % KS;
            as[r][i % KS] = m0 + r < M && k < K ? A[(size_t)(m0 + r) * K + k] : __float2bfloat16(0.0f);
            bs[r][i % KS] = n0 + r < N && k < K ? B[(size_t)(n0 + r) * K + k] : __float2bfloat16(0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
        wmma::load_matrix_sync(a, &as[16 * wm][0], KS);
        wmma::load_matrix_sync(b, &bs[16 * wn][0], KS);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&cs[warp][0][0], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x % 32; i < 256; i += 32) {
        const int m = m0 + 16 * wm + i / 16, n = n0 + 16 * wn + i % 16;
        if (m < M && n < N) C[(size_t)m * N + n] = alpha * cs[warp][i / 16][i % 16] + beta * C[(size_t)m * N + n];
    }
}

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha,
                      float beta)
{
    if (M <= 0 || N <= 0 || K <= 0) return;
    const dim3 grid((N + T - 1) / T, (M + T - 1) / T);
    gemm_wmma<<<grid, 128>>>(A, B, C, M, N, K, alpha, beta);
}
