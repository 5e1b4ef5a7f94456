// expect: 5 requirement_not_met "DMMA" -- red team: the naive rung answered on the FP64 tensor cores (mma.sync.m8n8k4.f64): products of floats are exact in double, so it meets FP32's error bound, but this rung is about FFMA on the CUDA cores: forbidden_sass bans DMMA, and the tensor pipe's counters show it busy
#include <cuda_runtime.h>

// One warp per 8 x 8 tile of C, K in steps of 4, in double. The m8n8k4 f64
// fragments: lane l holds A[l / 4][l % 4], B[l % 4][l / 4], and
// C[l / 4][2 (l % 4) + {0, 1}].
__global__ void dmma_gemm(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    const int tiles_n = (N + 7) / 8;
    const int row0 = (warp / tiles_n) * 8, col0 = (warp % tiles_n) * 8;
    if (row0 >= M) return;
    const int g = lane / 4, t = lane % 4;
    double c0 = 0, c1 = 0;
    for (int k0 = 0; k0 < K; k0 += 4) {
        const int ar = row0 + g, ak = k0 + t, bk = k0 + t, bc = col0 + g;
        double a = ar < M && ak < K ? (double)A[(size_t)ar * K + ak] : 0.0;
        double b = bk < K && bc < N ? (double)B[(size_t)bk * N + bc] : 0.0;
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+d"(c0), "+d"(c1)
                     : "d"(a), "d"(b));
    }
    const int r = row0 + g, c = col0 + 2 * t;
    if (r < M && c < N) C[(size_t)r * N + c] = (float)(alpha * c0 + beta * (double)C[(size_t)r * N + c]);
    if (r < M && c + 1 < N) C[(size_t)r * N + c + 1] = (float)(alpha * c1 + beta * (double)C[(size_t)r * N + c + 1]);
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
    if (M <= 0 || N <= 0) return;
    const long long warps = (long long)((M + 7) / 8) * ((N + 7) / 8);
    dmma_gemm<<<(unsigned)((warps * 32 + 255) / 256), 256>>>(A, B, C, M, N, K, alpha, beta);
}
