// Kind mma_tiles: many independent 16 x 16 x 16 tile products, the shape of
// one mma.sync.m16n8k16 twice over: C_t (16 x 8) = A_t (16 x 16) B_t (16 x 8)
// for t < tiles, every matrix row-major, tiles one after another. The
// inputs are small whole numbers in bf16, so every product and sum is exact
// in float and the check is exact. Memory-bound (each tile is 1280 bytes and
// 4096 operations), so held to the copy, and to cuBLAS's strided batched
// GEMM doing the same.
#include "harness.h"

#include <cuda_bf16.h>

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>
#endif

typedef void (*Solve)(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int);

static size_t a_len(const Dims &d) { return 256 * (size_t)d.d[0]; }
static size_t b_len(const Dims &d) { return 128 * (size_t)d.d[0]; }
static size_t c_len(const Dims &d) { return 128 * (size_t)d.d[0]; }
static double bytes(const Dims &d) { return 1280.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const __nv_bfloat16 *)a[0], (const __nv_bfloat16 *)a[1], (float *)a[2], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const __nv_bfloat16 *A = (const __nv_bfloat16 *)a[0], *B = (const __nv_bfloat16 *)a[1];
    float *C = (float *)a[2];
    for (size_t t = 0; t < (size_t)d.d[0]; t++)
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                float acc = 0;  // exact: whole numbers far below 2^24
                for (int k = 0; k < 16; k++)
                    acc += __bfloat162float(A[t * 256 + r * 16 + k]) * __bfloat162float(B[t * 128 + k * 8 + c]);
                C[t * 128 + r * 8 + c] = acc;
            }
}

#if KIND_WITH_LIBRARY
// Row-major C_t = A_t B_t is column-major C_t^T = B_t^T A_t^T: B first.
static void library(void *const *a, const Dims &d, const Scalars &) {
    static cublasHandle_t handle;
    if (!handle) cublasCreate(&handle);  // the first call is untimed
    const float one = 1, zero = 0;
    cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 16, 16, &one, a[1], CUDA_R_16BF, 8, 128, a[0],
                               CUDA_R_16BF, 16, 256, &zero, a[2], CUDA_R_32F, 8, 128, (int)d.d[0], CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT);
}
#endif

// one m16n8k16 product per tile
static double product_flops(const Dims &d) { return 2.0 * 16 * 8 * 16 * (double)d.d[0]; }

extern const KindDef kind = {
    "mma_tiles", "void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)", 1, 3,
    {{"A", ELEM_BF16, ROLE_IN, a_len, -4, 4, 0, TOL_FLAT, 1},
     {"B", ELEM_BF16, ROLE_IN, b_len, -4, 4, 0, TOL_FLAT, 1},
     {"C", ELEM_F32, ROLE_OUT, c_len, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("cuBLAS GemmStridedBatchedEx BF16", library), nullptr, PEAK_NONE,
    CHECK_ELEMENTS, nullptr, product_flops};
