// Kind wgmma_tiles: many independent 64 x 64 x 64 tile products, the shape of
// four wgmma.m64n64k16 in a row: C_t = A_t * B_t^T for t < tiles, A_t
// (64 x 64, M x K) and B_t (64 x 64, N x K) in bf16, both K-major as wgmma
// reads them, C_t (64 x 64) in float; every matrix row-major, tiles one
// after another. The inputs are small whole numbers, so every product and
// sum is exact in float and the check is exact. Memory-bound (each tile moves
// 32 KB for 524288 operations), so held to the copy, and to cuBLAS's strided
// batched GEMM doing the same.
#include "harness.h"

#include <cuda_bf16.h>

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>
#endif

typedef void (*Solve)(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int);

enum { T = 64, TILE_ELEMS = T * T };

static size_t tile_len(const Dims &d) { return (size_t)TILE_ELEMS * (size_t)d.d[0]; }
static double bytes(const Dims &d) { return (2.0 + 2.0 + 4.0) * TILE_ELEMS * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const __nv_bfloat16 *)a[0], (const __nv_bfloat16 *)a[1], (float *)a[2], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const __nv_bfloat16 *A = (const __nv_bfloat16 *)a[0], *B = (const __nv_bfloat16 *)a[1];
    float *C = (float *)a[2];
    static float at[TILE_ELEMS], bt[TILE_ELEMS];  // one tile pair, converted once
    for (size_t t = 0; t < (size_t)d.d[0]; t++) {
        for (int i = 0; i < TILE_ELEMS; i++) {
            at[i] = __bfloat162float(A[t * TILE_ELEMS + i]);
            bt[i] = __bfloat162float(B[t * TILE_ELEMS + i]);
        }
        for (int m = 0; m < T; m++)
            for (int n = 0; n < T; n++) {
                float acc = 0;  // exact: whole numbers, |acc| <= 64 * 16
                for (int k = 0; k < T; k++) acc += at[m * T + k] * bt[n * T + k];
                C[t * TILE_ELEMS + m * T + n] = acc;
            }
    }
}

#if KIND_WITH_LIBRARY
// Row-major C_t = A_t B_t^T is column-major C_t^T = B_t A_t^T: B first,
// transposed (column-major it is K x N).
static void library(void *const *a, const Dims &d, const Scalars &) {
    static cublasHandle_t handle;
    if (!handle) cublasCreate(&handle);  // the first call is untimed
    const float one = 1, zero = 0;
    cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, T, &one, a[1], CUDA_R_16BF, T, TILE_ELEMS,
                               a[0], CUDA_R_16BF, T, TILE_ELEMS, &zero, a[2], CUDA_R_32F, T, TILE_ELEMS, (int)d.d[0],
                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
#endif

// one 64 x 64 x 64 product per tile
static double product_flops(const Dims &d) { return 2.0 * T * T * T * (double)d.d[0]; }

extern const KindDef kind = {
    "wgmma_tiles", "void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)", 1, 3,
    {{"A", ELEM_BF16, ROLE_IN, tile_len, -4, 4, 0, TOL_FLAT, 1},
     {"B", ELEM_BF16, ROLE_IN, tile_len, -4, 4, 0, TOL_FLAT, 1},
     {"C", ELEM_F32, ROLE_OUT, tile_len, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("cuBLAS GemmStridedBatchedEx BF16", library), nullptr, PEAK_NONE,
    CHECK_ELEMENTS, nullptr, product_flops};
