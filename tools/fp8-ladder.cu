// fp8-ladder: the measured rung behind ex45's reference (chapter 11).
//
// ex45's reference (128 x 128 tiles, two partial sums: block kb + 1's wgmma
// issued before block kb's are waited for and promoted) and the same kernel
// with one partial sum (each block waited for and promoted before the next
// is issued), timed against cuBLASLt's block-scaled FP8 GEMM with the same
// scales, in one process, interleaved, with L2 flushed before every call
// (as the harness does). Prints per size each kernel's TFLOP/s, its
// fraction of cuBLASLt, and its relative difference from cuBLASLt's C (all
// promote every 128 of K in the same order). For tile choices, not for
// grading; the earlier 128 x 192 rungs are in docs/benchmarks.md.
//
//   make build/fp8-ladder && build/fp8-ladder [ROUNDS]
#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <vector>

// The shipped reference, timed as graded. Its helpers (descriptors, wgmma,
// mbarriers, TMA, the tensor maps) are at file scope and used below too.
#ifndef EX45_FILE
#define EX45_FILE "../solutions/ex45_fp8_blockscaled.cu"
#endif
#include EX45_FILE

namespace one_sum {

// The reference's kernel with one partial sum: each k-block issued, waited
// for and promoted before the next is issued (the scales still loaded a
// block ahead), so the tensor pipe waits for every promotion. Tile, ring,
// producer and helpers are the reference's (its anonymous namespace).
__global__ void __launch_bounds__(THREADS, 1)
    gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
         const float* __restrict__ sa, const float* __restrict__ sb, float* __restrict__ C, int M, int N, int K)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
    unsigned char* as = smem;
    unsigned char* bs = smem + STAGES * A_BYTES;
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * STAGE_BYTES);
    uint64_t* empty = full + STAGES;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], CONSUMERS);
        fence_proxy_async();
    }
    __syncthreads();
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, tiles = tiles_m * tiles_n;
    const int kblocks = K / BK;
    if (threadIdx.x < 128) {
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            uint32_t it = 0;
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                int m0, n0;
                tile_at(tile, tiles_m, tiles_n, m0, n0);
                for (int kb = 0; kb < kblocks; ++kb, ++it) {
                    const int s = it % STAGES;
                    if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
                    tma_load_2d(as + s * A_BYTES, &a_map, &full[s], kb * BK, m0);
                    tma_load_2d(bs + s * B_BYTES, &b_map, &full[s], kb * BK, n0);
                }
            }
        }
        return;
    }
    setmaxnreg_inc<232>();
    const int c = threadIdx.x / 128 - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    float d[BN / 2], part[BN / 2];
    uint32_t it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int m0, n0;
        tile_at(tile, tiles_m, tiles_n, m0, n0);
        const int row = m0 + 64 * c + 16 * warp + lane / 4;
        const float* sa0 = sa + min(row, M - 1);
        const float* sa1 = sa + min(row + 8, M - 1);
        const float* sbt = sb + (size_t)(n0 / 128) * kblocks;
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
        float r0n = __ldg(sa0), r1n = __ldg(sa1), bn = __ldg(sbt);
        for (int kb = 0; kb < kblocks; ++kb, ++it) {
            const float s0 = r0n * bn, s1 = r1n * bn;
            if (kb + 1 < kblocks)
                r0n = __ldg(sa0 + (size_t)(kb + 1) * M), r1n = __ldg(sa1 + (size_t)(kb + 1) * M), bn = __ldg(sbt + kb + 1);
            const int s = it % STAGES;
            mbar_wait(&full[s], (it / STAGES) & 1);
            const unsigned char* a = as + s * A_BYTES + c * 64 * BK;
            const unsigned char* b = bs + s * B_BYTES;
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < BK / 32; ++ks)
                wgmma_m64n128k32_e4m3(part, make_desc(a + 32 * ks, LBO, SBO, SWIZZLE_128B),
                                      make_desc(b + 32 * ks, LBO, SBO, SWIZZLE_128B), ks > 0);
            wgmma_commit();
            wgmma_wait<0>();
            fence_registers(part);
            if (threadIdx.x % 128 == 0) mbar_arrive(&empty[s]);
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) d[i] += part[i] * ((i & 2) ? s1 : s0);
        }
        store_tile(d, C, M, N, m0 + 64 * c, n0);
    }
}

void solve(const void* A, const void* B, const float* sa, const float* sb, float* C, int M, int N, int K)
{
    const CUtensorMap a_map = e4m3_map(A, M, K, BM), b_map = e4m3_map(B, N, K, BN);
    static int sms = 0;
    if (!sms) {
        cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    }
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    gemm<<<std::min(tiles, sms), THREADS, SMEM_BYTES>>>(a_map, b_map, sa, sb, C, M, N, K);
}

}  // namespace one_sum

// cuBLASLt's block-scaled FP8 GEMM, called as harness/kinds/gemm_fp8_blockscaled.cu
// calls it (row-major C = A B^T as column-major C^T = B A^T); planned once per size.
static void library(const void* A, const void* B, const float* sa, const float* sb, float* C, int M, int N, int K)
{
    static cublasLtHandle_t lt;
    static void* workspace;
    static const size_t WORKSPACE = 32u << 20;
    static cublasLtMatmulDesc_t op;
    static cublasLtMatrixLayout_t la, lb, lc;
    static cublasLtMatmulAlgo_t algo;
    static int planned[3];
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
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof sb);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof sa);
    if (planned[0] != M || planned[1] != N || planned[2] != K) {
        if (la) cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K);
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K);
        cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N);
        cublasLtMatmulPreference_t pref;
        cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WORKSPACE, sizeof WORKSPACE);
        cublasLtMatmulHeuristicResult_t result;
        int found = 0;
        if (cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &result, &found) != CUBLAS_STATUS_SUCCESS ||
            !found) {
            fprintf(stderr, "cuBLASLt has no block-scaled FP8 GEMM for %d x %d x %d\n", M, N, K);
            exit(1);
        }
        algo = result.algo;
        cublasLtMatmulPreferenceDestroy(pref);
        planned[0] = M, planned[1] = N, planned[2] = K;
    }
    const float one = 1.f, zero = 0.f;
    cublasLtMatmul(lt, op, &one, B, la, A, lb, &zero, C, lc, C, lc, &algo, workspace, WORKSPACE, 0);
}

// Random e4m3 bytes (never the NaN pattern) and scales in [0.5, 1.5).
__global__ void fill_e4m3(unsigned char* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        unsigned char v = h & 0x7f;
        if (v == 0x7f) v = 0x7e;
        p[i] = v | (h >> 24 & 0x80);
    }
}
__global__ void fill_scales(float* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2246822519u ^ seed;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        p[i] = 0.5f + (h & 1023) / 1024.f;
    }
}

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main(int argc, char** argv)
{
    const int rounds = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 15;  // timed calls of each, interleaved
    const int sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {5000, 3000, 4096}};  // ex45's timed sizes
    typedef void (*Solve)(const void*, const void*, const float*, const float*, float*, int, int, int);
    struct Kernel {
        const char* name;
        Solve solve;
    };
    const Kernel kernels[] = {
        {"cuBLASLt (block-scaled FP8)", library},
        {"128 x 128, one partial sum", one_sum::solve},
        {"ex45 reference: 128 x 128, two partial sums", [](const void* A, const void* B, const float* sa, const float* sb,
                                                           float* C, int M, int N, int K) {
             ::solve((const __nv_fp8_e4m3*)A, (const __nv_fp8_e4m3*)B, sa, sb, C, M, N, K);
         }},
    };
    const int nk = sizeof kernels / sizeof kernels[0];
    void* flush;
    const size_t FLUSH = 256u << 20;  // over twice the L2 of an H100 or H200
    CHECK(cudaMalloc(&flush, FLUSH));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    printf("%-46s %-16s %9s %8s %10s\n", "kernel", "size", "TFLOP/s", "/library", "diff");
    for (const auto& z : sizes) {
        const int M = z[0], N = z[1], K = z[2];
        const size_t nsa = (size_t)M * (K / 128), nsb = (size_t)((N + 127) / 128) * (K / 128);
        unsigned char *A, *B;
        float *sa, *sb, *C[nk];
        CHECK(cudaMalloc(&A, (size_t)M * K));
        CHECK(cudaMalloc(&B, (size_t)N * K));
        CHECK(cudaMalloc(&sa, nsa * 4));
        CHECK(cudaMalloc(&sb, nsb * 4));
        for (int k = 0; k < nk; ++k) CHECK(cudaMalloc(&C[k], (size_t)M * N * 4));
        fill_e4m3<<<1024, 256>>>(A, (size_t)M * K, 1), fill_e4m3<<<1024, 256>>>(B, (size_t)N * K, 2);
        fill_scales<<<1024, 256>>>(sa, nsa, 3), fill_scales<<<1024, 256>>>(sb, nsb, 4);
        std::vector<std::vector<float>> ms(nk);
        for (int r = -2; r < rounds; ++r)  // two untimed rounds, then interleaved
            for (int k = 0; k < nk; ++k) {
                CHECK(cudaMemsetAsync(flush, r & 0xff, FLUSH));
                cudaEventRecord(e0);
                kernels[k].solve(A, B, sa, sb, C[k], M, N, K);
                cudaEventRecord(e1);
                CHECK(cudaEventSynchronize(e1));
                float t;
                cudaEventElapsedTime(&t, e0, e1);
                if (r >= 0) ms[k].push_back(t);
            }
        std::vector<float> lib((size_t)M * N), mine((size_t)M * N);
        CHECK(cudaMemcpy(lib.data(), C[0], lib.size() * 4, cudaMemcpyDeviceToHost));
        char size[32];
        snprintf(size, sizeof size, "%dx%dx%d", M, N, K);
        double median[nk];
        for (int k = 0; k < nk; ++k) {
            std::sort(ms[k].begin(), ms[k].end());
            median[k] = ms[k][ms[k].size() / 2];
            CHECK(cudaMemcpy(mine.data(), C[k], mine.size() * 4, cudaMemcpyDeviceToHost));
            double num = 0, den = 0;
            for (size_t i = 0; i < mine.size(); ++i) num += (double)(mine[i] - lib[i]) * (mine[i] - lib[i]), den += (double)lib[i] * lib[i];
            printf("%-46s %-16s %9.1f %8.3f %10.1e\n", kernels[k].name, size, 2.0 * M * N * K / median[k] / 1e9,
                   median[0] / median[k], den > 0 ? sqrt(num / den) : NAN);
        }
        cudaFree(A), cudaFree(B), cudaFree(sa), cudaFree(sb);
        for (int k = 0; k < nk; ++k) cudaFree(C[k]);
    }
    return 0;
}
