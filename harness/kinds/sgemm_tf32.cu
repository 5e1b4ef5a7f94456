// Kind sgemm_tf32: C = alpha * A * B^T + beta * C with FP32 inputs on the
// tensor cores (TF32), row-major, A (M x K), B (N x K) and C (M x N) in
// float. Both operands keep K contiguous ("K-major"): wgmma reads 32-bit
// operands only that way (it transposes 16-bit ones alone). K is a multiple
// of 4, so that every row starts on 16 bytes, as TMA requires; M and N are
// any. Checked by the relative Frobenius error against float64 values with
// a TF32-level bound (the tensor cores keep 10 of the 23 mantissa bits of
// each input); held to FLOP/s against the reference and cuBLAS with TF32
// compute (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32, the same transposes).
#include "gemm.h"

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>

// Row-major C = A B^T is column-major C^T = B A^T. Column-major, B is K x N
// (leading dimension K), so it goes in transposed; A is K x M as it is.
static void library(void *const *a, const Dims &d, const Scalars &s) {
    static cublasHandle_t handle;
    if (!handle) cublasCreate(&handle);  // the first call is untimed
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
    cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &s.f[0], a[1], CUDA_R_32F, K, a[0], CUDA_R_32F, K,
                 &s.f[1], a[2], CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
}
#endif

extern const KindDef kind = {
    "sgemm_tf32", "void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)",
    3, 3,
    {{"A", ELEM_F32, ROLE_IN, gemm_a_len, -1, 1, 0},
     {"B", ELEM_F32, ROLE_IN, gemm_b_len, -1, 1, 0},
     {"C", ELEM_F32, ROLE_INOUT, gemm_c_len, -1, 1, ROWS_COLS}},
    gemm_bytes<float>, gemm_call<float>, nullptr /* checked against exact */, KIND_LIBRARY("cuBLAS GemmEx TF32", library),
    gemm_flops, PEAK_TF32_TENSOR, CHECK_REL_NORM, gemm_kind_exact<float, true>};
