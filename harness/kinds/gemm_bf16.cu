// Kind gemm_bf16: C = alpha * A * B + beta * C, row-major, A (M x K) and
// B (K x N) in bf16, C (M x N) in float, any M, N, K. Checked by the
// relative Frobenius error against float64 values; held to FLOP/s against
// the reference and cuBLAS (cublasGemmEx, bf16 in, float out and compute).
#include "gemm.h"

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
static void library(void *const *a, const Dims &d, const Scalars &s) {
    static cublasHandle_t handle;
    if (!handle) cublasCreate(&handle);  // the first call is untimed
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &s.f[0], a[1], CUDA_R_16BF, N, a[0], CUDA_R_16BF, K,
                 &s.f[1], a[2], CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
#endif

extern const KindDef kind = {
    "gemm_bf16",
    "void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha, float beta)",
    3, 3,
    {{"A", ELEM_BF16, ROLE_IN, gemm_a_len, -1, 1, 0},
     {"B", ELEM_BF16, ROLE_IN, gemm_b_len, -1, 1, 0},
     {"C", ELEM_F32, ROLE_INOUT, gemm_c_len, -1, 1, ROWS_COLS}},
    gemm_bytes<__nv_bfloat16>, gemm_call<__nv_bfloat16>, nullptr /* checked against exact */,
    KIND_LIBRARY("cuBLAS GemmEx BF16", library),
    gemm_flops, PEAK_BF16_TENSOR, CHECK_REL_NORM, gemm_kind_exact<__nv_bfloat16>};
