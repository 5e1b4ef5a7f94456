// Kind gemm_fp8_blockscaled: C = A * B^T with DeepSeek-V3's block scales.
// A (M x K) and B (N x K) in e4m3, K contiguous; sa, a float scale per row
// of A and 128 of K, stored (K/128) x M (sa[kb * M + m]); sb, one per 128 x
// 128 block of B, stored ceil(N/128) x (K/128) (sb[nb * K/128 + kb]); C (M
// x N) float, written:
//   C[m][n] = sum over kb of sa[kb][m] * sb[n/128][kb] * sum over k in kb of A[m][k] B[n][k].
// K is a multiple of 128; M and N are any. The scales' layouts are the ones
// cuBLASLt's VEC128_32F (A) and BLK128x128_32F (B) modes read (found on the
// H100: its results equal the float64 values above only so). Checked by the
// relative Frobenius error and each element's bound against float64 values;
// held to FLOP/s against the reference and cuBLASLt's own block-scaled FP8
// GEMM (which takes M and N in multiples of 16: the timed sizes are).
#include <cuda_fp8.h>

#include "gemm.h"

static size_t a_len(const Dims &d) { return (size_t)d.d[0] * (size_t)d.d[2]; }
static size_t b_len(const Dims &d) { return (size_t)d.d[1] * (size_t)d.d[2]; }
static size_t sa_len(const Dims &d) { return (size_t)d.d[0] * (size_t)(d.d[2] / 128); }
static size_t sb_len(const Dims &d) { return (size_t)((d.d[1] + 127) / 128) * (size_t)(d.d[2] / 128); }
static size_t c_len(const Dims &d) { return (size_t)d.d[0] * (size_t)d.d[1]; }

static double bytes(const Dims &d) {  // A, B and the scales read once, C written
    return (double)(a_len(d) + b_len(d)) + 4.0 * (double)(sa_len(d) + sb_len(d) + c_len(d));
}

typedef void (*Solve)(const __nv_fp8_e4m3 *, const __nv_fp8_e4m3 *, const float *, const float *, float *, int, int,
                      int);

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const __nv_fp8_e4m3 *)a[0], (const __nv_fp8_e4m3 *)a[1], (const float *)a[2],
                   (const float *)a[3], (float *)a[4], (int)d.d[0], (int)d.d[1], (int)d.d[2]);
}

// The operands with their scales applied, in float64 (exact: 4 significant
// bits times 24), and their absolute values: A' = A sa, B' = B sb.
__global__ void scaled_kernel(const __nv_fp8_e4m3 *x, const float *scale, size_t rows, int K, int by_block_rows,
                              size_t scale_rows, double *v, double *abs_v) {
    size_t n = rows * (size_t)K;
    int kbs = K / 128;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / K;
        int kb = (int)(i % K) / 128;
        // A: sa[kb * rows + r]; B: sb[(r / 128) * kbs + kb]
        double s = by_block_rows ? scale[(r / 128) * kbs + kb] : scale[(size_t)kb * scale_rows + r];
        double value = (double)(float)x[i] * s;
        v[i] = value;
        abs_v[i] = fabs(value);
    }
}

// Without cuBLAS or memory for the float64 copies: one thread an element.
__global__ void exact_kernel(const __nv_fp8_e4m3 *A, const __nv_fp8_e4m3 *B, const float *sa, const float *sb, int M,
                             int N, int K, double *out, double *magnitude) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= (size_t)M * N) return;
    int m = (int)(i / N), n = (int)(i % N), kbs = K / 128;
    double acc = 0, mag = 0;
    for (int k = 0; k < K; k++) {
        double p = (double)(float)A[(size_t)m * K + k] * (double)(float)B[(size_t)n * K + k] *
                   sa[(size_t)(k / 128) * M + m] * sb[(size_t)(n / 128) * kbs + k / 128];
        acc += p;
        mag += fabs(p);
    }
    out[i] = acc;
    magnitude[i] = mag;
}

static void exact(void *const *a, int, double *out, double *magnitude, const Dims &d, const Scalars &) {
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
    const __nv_fp8_e4m3 *A = (const __nv_fp8_e4m3 *)a[0], *B = (const __nv_fp8_e4m3 *)a[1];
    const float *sa = (const float *)a[2], *sb = (const float *)a[3];
    if (M <= 0 || N <= 0 || K <= 0) return;
#if KIND_WITH_LIBRARY
    static cublasHandle_t handle;
    static double *a64, *a_abs, *b64, *b_abs;
    static size_t a_have, a_abs_have, b_have, b_abs_have;
    size_t na = (size_t)M * K, nb = (size_t)N * K;
    if ((handle || cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) && gemm_grown(&a64, &a_have, na) &&
        gemm_grown(&a_abs, &a_abs_have, na) && gemm_grown(&b64, &b_have, nb) && gemm_grown(&b_abs, &b_abs_have, nb)) {
        scaled_kernel<<<grid_for(na), 256>>>(A, sa, (size_t)M, K, 0, (size_t)M, a64, a_abs);
        scaled_kernel<<<grid_for(nb), 256>>>(B, sb, (size_t)N, K, 1, 0, b64, b_abs);
        // row-major C = A' B'^T is column-major C^T = B' A'^T; B' (N x K row-major) is column-major K x N
        double one = 1.0, zero = 0.0;
        if (cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b64, K, a64, K, &zero, out, N) ==
                CUBLAS_STATUS_SUCCESS &&
            cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b_abs, K, a_abs, K, &zero, magnitude, N) ==
                CUBLAS_STATUS_SUCCESS)
            return;
    }
#endif
    exact_kernel<<<grid_for((size_t)M * N), 256>>>(A, B, sa, sb, M, N, K, out, magnitude);
}

// cuBLASLt's block scale modes (VEC128_32F, BLK128x128_32F) came with
// cuBLAS 12.9 (CUDA 12.9.0), for sm_90 only. An older toolkit still builds
// this kind, without the library: the judge says "nolibrary:" and the
// grader passes no exercise with a library floor (ex45 is then a setup
// error that says why, never a pass without the baseline).
#if KIND_WITH_LIBRARY
#include <cublasLt.h>
#endif
#ifndef GPUCOURSE_CUBLAS_VERSION  // tests/errata.sh sets it to build this kind as an older toolkit would
#define GPUCOURSE_CUBLAS_VERSION CUBLAS_VERSION
#endif
#if KIND_WITH_LIBRARY && GPUCOURSE_CUBLAS_VERSION >= 120900
#define FP8_LIBRARY 1

// cuBLASLt's block-scaled FP8 GEMM. Row-major C = A B^T is column-major C^T
// = B A^T: cuBLASLt's A is our B (K x N column-major, transposed), with the
// 128 x 128 block scales; its B is our A, with the per-row ones. The plan is
// made once per size (the first calls are untimed).
static void library(void *const *a, const Dims &d, const Scalars &) {
    static cublasLtHandle_t lt;
    static void *workspace;
    static const size_t WORKSPACE = 32u << 20;
    static long long planned[3];
    static cublasLtMatmulDesc_t op;
    static cublasLtMatrixLayout_t la, lb, lc;
    static cublasLtMatmulAlgo_t algo;
    static bool have_algo;
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
    const void *A = a[0], *B = a[1], *sa = a[2], *sb = a[3];
    if (!lt) {
        cublasLtCreate(&lt);
        cudaMalloc(&workspace, WORKSPACE);
        cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n);
        int32_t blocks = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, rows = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blocks, sizeof blocks);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &rows, sizeof rows);
    }
    static const void *scales_set[2];
    if (scales_set[0] != sa || scales_set[1] != sb) {  // the library's arrays change with the size, not per call
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof sb);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof sa);
        scales_set[0] = sa, scales_set[1] = sb;
    }
    if (planned[0] != M || planned[1] != N || planned[2] != K) {
        if (la) cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K);
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K);
        cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N);
        cublasLtMatmulPreference_t pref;
        cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WORKSPACE,
                                             sizeof WORKSPACE);
        cublasLtMatmulHeuristicResult_t result;
        int found = 0;
        have_algo = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &result, &found) ==
                        CUBLAS_STATUS_SUCCESS &&
                    found > 0;
        if (have_algo) algo = result.algo;
        cublasLtMatmulPreferenceDestroy(pref);
        planned[0] = M, planned[1] = N, planned[2] = K;
    }
    if (!have_algo) return;  // a size cuBLASLt declines: no library time (the timed sizes are all taken)
    float one = 1.0f, zero = 0.0f;
    cublasLtMatmul(lt, op, &one, B, la, A, lb, &zero, a[4], lc, a[4], lc, &algo, workspace, WORKSPACE, 0);
}
#endif

extern const KindDef kind = {
    "gemm_fp8_blockscaled",
    "void solve(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, const float* sa, const float* sb, float* C, int M, "
    "int N, int K)",
    3, 5,
    {{"A", ELEM_E4M3, ROLE_IN, a_len, -448, 448, 0},
     {"B", ELEM_E4M3, ROLE_IN, b_len, -448, 448, 0},
     {"sa", ELEM_F32, ROLE_IN, sa_len, 1.0 / 1024, 1.0 / 128, 0},
     {"sb", ELEM_F32, ROLE_IN, sb_len, 1.0 / 1024, 1.0 / 128, 0},
     {"C", ELEM_F32, ROLE_OUT, c_len, -1, 1, ROWS_COLS}},
    bytes, call, nullptr /* checked against exact */,
#if FP8_LIBRARY || !KIND_WITH_LIBRARY
    KIND_LIBRARY("cuBLASLt Matmul FP8 block-scaled", library),
#else
    KIND_NO_LIBRARY("no library baseline: cuBLASLt's block scaling needs CUDA 12.9 or later"),
#endif
    gemm_flops, PEAK_FP8_TENSOR, CHECK_REL_NORM, exact};
