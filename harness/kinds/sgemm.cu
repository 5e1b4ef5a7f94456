// Kind sgemm: C = alpha * A * B + beta * C in FP32 on the CUDA cores,
// row-major, A (M x K), B (K x N), C (M x N), any M, N, K. Checked by the
// relative Frobenius error against float64 values (a bound tight enough
// that TF32 tensor-core math, 10 bits of mantissa, cannot pass); held to
// FLOP/s against the reference and cuBLAS SGEMM in its default math mode,
// which does not use TF32.
#include "gemm.h"

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>
#include <stdlib.h>

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
// CUBLAS_DEFAULT_MATH: FP32 on the CUDA cores (TF32 only when asked for).
static void library(void *const *a, const Dims &d, const Scalars &s) {
    static cublasHandle_t handle;
    if (!handle) {
        // TF32 is never the baseline, whatever the environment says.
        setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
        cublasCreate(&handle);  // the first call is untimed
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    }
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &s.f[0], (const float *)a[1], N, (const float *)a[0], K,
                &s.f[1], (float *)a[2], N);
}
#endif

extern const KindDef kind = {
    "sgemm", "void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)", 3,
    3,
    {{"A", ELEM_F32, ROLE_IN, gemm_a_len, -1, 1, 0},
     {"B", ELEM_F32, ROLE_IN, gemm_b_len, -1, 1, 0},
     {"C", ELEM_F32, ROLE_INOUT, gemm_c_len, -1, 1, ROWS_COLS}},
    gemm_bytes<float>, gemm_call<float>, nullptr /* checked against exact */, KIND_LIBRARY("cuBLAS Sgemm FP32", library),
    gemm_flops, PEAK_FP32, CHECK_REL_NORM, gemm_kind_exact<float>};
