// What the GEMM kinds share: C = alpha * A * B + beta * C, row-major,
// A M x K, B K x N, C M x N in float; A and B of type T (bf16, half or
// float). With B_NK, B is given N x K (K contiguous, as the Hopper tensor
// cores read it) and the product is A * B^T. The exact values, in float64,
// are the judge's own: on the CPU for the small sizes, on the GPU for the
// timed size (CHECK_REL_NORM).
#pragma once
#include "harness.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

__host__ __device__ inline double gemm_value(float x) { return x; }
__host__ __device__ inline double gemm_value(__nv_bfloat16 x) { return __bfloat162float(x); }
__host__ __device__ inline double gemm_value(__half x) { return __half2float(x); }

// Element (k, n) of the product's right operand.
template <bool B_NK, typename T>
__host__ __device__ inline T gemm_b_at(const T *B, size_t k, size_t n, int N, int K) {
    return B_NK ? B[n * (size_t)K + k] : B[k * (size_t)N + n];
}

// 64 x 64 tiles of C, 256 threads, 4 x 4 outputs each, K in steps of 16.
// Also each element's magnitude, |alpha| sum_k |a_mk b_kn| + |beta c_mn|,
// which bounds the rounding error of any order of summation (the judge's
// element bound).
template <typename T, bool B_NK = false>
__global__ void gemm_exact_kernel(const T *A, const T *B, const float *C, double *out, double *magnitude, int M,
                                  int N, int K, double alpha, double beta) {
    __shared__ double As[16][65];  // [k][m], padded: a column read is conflict-free
    __shared__ double Bs[16][64];  // [k][n]
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    double acc[4][4] = {}, mag[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 64 * 16; i += 256) {
            int mm = i / 16, kk = i % 16, m = m0 + mm, k = k0 + kk;
            As[kk][mm] = m < M && k < K ? gemm_value(A[(size_t)m * K + k]) : 0.0;
            int kb = B_NK ? i % 16 : i / 64, nn = B_NK ? i / 16 : i % 64, n = n0 + nn, k2 = k0 + kb;  // along B's rows
            Bs[kb][nn] = k2 < K && n < N ? gemm_value(gemm_b_at<B_NK>(B, k2, n, N, K)) : 0.0;
        }
        __syncthreads();
        for (int kk = 0; kk < 16; kk++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    double prod = As[kk][ty + 16 * i] * Bs[kk][tx + 16 * j];
                    acc[i][j] += prod;
                    mag[i][j] += fabs(prod);
                }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
            if (m >= M || n >= N) continue;
            double c = C[(size_t)m * N + n];
            out[(size_t)m * N + n] = alpha * acc[i][j] + beta * c;
            magnitude[(size_t)m * N + n] = fabs(alpha) * mag[i][j] + fabs(beta * c);
        }
}

template <bool B_NK = false, typename T>
void gemm_exact(const T *A, const T *B, const float *C, double *out, double *magnitude, int M, int N, int K,
                float alpha, float beta) {
    dim3 grid((N + 63) / 64, (M + 63) / 64);
    gemm_exact_kernel<T, B_NK><<<grid, 256>>>(A, B, C, out, magnitude, M, N, K, alpha, beta);
}

static inline size_t gemm_a_len(const Dims &d) { return (size_t)d.d[0] * (size_t)d.d[2]; }
static inline size_t gemm_b_len(const Dims &d) { return (size_t)d.d[2] * (size_t)d.d[1]; }
static inline size_t gemm_c_len(const Dims &d) { return (size_t)d.d[0] * (size_t)d.d[1]; }
static inline double gemm_flops(const Dims &d) { return 2.0 * (double)d.d[0] * (double)d.d[1] * (double)d.d[2]; }

// The KindDef functions every GEMM kind shares, for a solve of the form
//   void solve(const T* A, const T* B, float* C, int M, int N, int K, float alpha, float beta)
// (B_NK: B given N x K). A kind file adds its library call and its KindDef.
template <typename T>
double gemm_bytes(const Dims &d) {  // A and B read once, C read and written
    return (double)sizeof(T) * (double)(gemm_a_len(d) + gemm_b_len(d)) + 8.0 * (double)gemm_c_len(d);
}

template <typename T>
void gemm_call(void *solve, void *const *a, const Dims &d, const Scalars &s) {
    typedef void (*Solve)(const T *, const T *, float *, int, int, int, float, float);
    ((Solve)solve)((const T *)a[0], (const T *)a[1], (float *)a[2], (int)d.d[0], (int)d.d[1], (int)d.d[2], s.f[0],
                   s.f[1]);
}

#if KIND_WITH_LIBRARY
#include <cublas_v2.h>

// The judge's exact values through cuBLAS DGEMM, on the FP64 tensor cores:
// the same float64 products (each exact: the inputs have at most 24
// mantissa bits) summed in float64, about ten times sooner than
// gemm_exact_kernel on the CUDA cores, which decided the GEMM grades' time
// (every timed sample is checked). Rounding in float64 stays some 2^-29 of
// the float32 bounds it is held to.
//
// `magnitude`, |alpha| sum |a b| + |beta c|, only scales each element's
// bound, so it needs to be no smaller than exact, not exact: a TF32 GEMM of
// |A| and |B| each rounded up to TF32 (10 mantissa bits), whose products are
// then at least the exact |a b| and are multiplied exactly by the tensor
// cores, and whose float32 sum of K positive terms (rounded toward zero at
// worst) is short of the exact sum by less than K 2^-23 of it: the sum times
// 1 + (K + 64) 2^-21, plus 2 K 2^-126 for products flushed as subnormal (the
// judge's inputs make none), is at least exact and at most about 0.6% above
// it (K = 8192). Against a second DGEMM for it, an 8192^3 sample's check
// costs about 13 ms less (H100: ex41's 21 samples there 2.28 s -> 2.01 s).
__device__ inline float gemm_tf32_up(float v) {
    unsigned u = __float_as_uint(fabsf(v));
    if (u & 0x1fffu) u = (u | 0x1fffu) + 1;  // the next TF32 value up (a carry moves the exponent, as it should)
    return __uint_as_float(u);
}

template <typename T>
__global__ void gemm_widen_kernel(const T *x, size_t n, double *v, float *abs_up) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double value = gemm_value(x[i]);
        v[i] = value;
        abs_up[i] = gemm_tf32_up((float)value);
    }
}

// out = beta * C and magnitude = |beta * C|, in float64, before the GEMMs add the products.
__global__ void gemm_scaled_c_kernel(const float *c, size_t n, double beta, double *out, double *magnitude) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double v = beta * (double)c[i];
        out[i] = v;
        magnitude[i] = fabs(v);
    }
}

// magnitude += scale * sum + floor_term: the TF32 sums of |a b| made bounds.
__global__ void gemm_add_magnitude_kernel(const float *sum, size_t n, double scale, double floor_term,
                                          double *magnitude) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        magnitude[i] += scale * (double)sum[i] + floor_term;
}

// Buffers that grow to the largest size seen (the judge's, for its whole run).
template <typename E>
static E *gemm_grown(E **buf, size_t *have, size_t n) {
    if (*have < n) {
        cudaFree(*buf);
        *buf = NULL;
        *have = 0;
        if (cudaMalloc(buf, n * sizeof **buf) != cudaSuccess) {
            cudaGetLastError();  // no memory for it: the kernel below does without
            return NULL;
        }
        *have = n;
    }
    return *buf;
}

template <typename T, bool B_NK>
static bool gemm_exact_dgemm(const T *A, const T *B, const float *C, double *out, double *magnitude, int M, int N,
                             int K, double alpha, double beta) {
    static cublasHandle_t handle;
    static double *a64, *b64;
    static float *a_up, *b_up, *sums;
    static size_t a_have, b_have, a_up_have, b_up_have, sums_have;
    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return false;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    if (!gemm_grown(&a64, &a_have, na) || !gemm_grown(&b64, &b_have, nb) || !gemm_grown(&a_up, &a_up_have, na) ||
        !gemm_grown(&b_up, &b_up_have, nb) || !gemm_grown(&sums, &sums_have, nc))
        return false;
    gemm_widen_kernel<<<grid_for(na), 256>>>(A, na, a64, a_up);
    gemm_widen_kernel<<<grid_for(nb), 256>>>(B, nb, b64, b_up);
    gemm_scaled_c_kernel<<<grid_for(nc), 256>>>(C, nc, beta, out, magnitude);
    // Row-major C (M x N) is column-major C^T (N x M) = B^T A^T: B first. A
    // row-major B (K x N) is column-major B^T with ld N; one given N x K
    // (B_NK) is column-major K x N with ld K, transposed.
    cublasOperation_t op_b = B_NK ? CUBLAS_OP_T : CUBLAS_OP_N;
    int ldb = B_NK ? K : N;
    double one = 1.0;
    float one_f = 1.0f, zero_f = 0.0f;
    if (cublasDgemm(handle, op_b, CUBLAS_OP_N, N, M, K, &alpha, b64, ldb, a64, K, &one, out, N) !=
            CUBLAS_STATUS_SUCCESS ||
        cublasGemmEx(handle, op_b, CUBLAS_OP_N, N, M, K, &one_f, b_up, CUDA_R_32F, ldb, a_up, CUDA_R_32F, K, &zero_f,
                     sums, CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
        return false;
    double slack = 1.0 + (K + 64.0) * ldexp(1.0, -21), flushed = 2.0 * K * ldexp(1.0, -126);
    gemm_add_magnitude_kernel<<<grid_for(nc), 256>>>(sums, nc, fabs(alpha) * slack, fabs(alpha) * flushed, magnitude);
    return cudaGetLastError() == cudaSuccess;
}
#endif

template <typename T, bool B_NK = false>
void gemm_kind_exact(void *const *a, int, double *out, double *magnitude, const Dims &d, const Scalars &s) {
    int M = (int)d.d[0], N = (int)d.d[1], K = (int)d.d[2];
#if KIND_WITH_LIBRARY
    if (M > 0 && N > 0 && K > 0 &&
        gemm_exact_dgemm<T, B_NK>((const T *)a[0], (const T *)a[1], (const float *)a[2], out, magnitude, M, N, K,
                                  s.f[0], s.f[1]))
        return;
#endif
    // without cuBLAS (or memory for its float64 copies): the kernel of our own
    gemm_exact<B_NK>((const T *)a[0], (const T *)a[1], (const float *)a[2], out, magnitude, M, N, K, s.f[0], s.f[1]);
}
