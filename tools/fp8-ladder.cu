// fp8-ladder: the measured ladder behind ex45's reference (chapter 11).
//
// ex45's reference (128 x 192 tiles, one partial sum, the scales loaded a
// k-block ahead) and the next rung the lesson names but does not grade
// (128 x 128 tiles, two partial sums: block kb + 1's wgmma issued before
// block kb's are waited for and promoted), timed against cuBLASLt's
// block-scaled FP8 GEMM with the same scales, in one process, interleaved,
// with L2 flushed before every call (as the harness does). Prints per size
// each kernel's TFLOP/s, its fraction of cuBLASLt, and its relative
// difference from cuBLASLt's C (the three promote every 128 of K, so it is
// small). For tile choices, not for grading.
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

namespace two_parts {

// D (64 x 128, f32, 64 per thread) = A (64 x 32) * B (32 x 128) + (accumulate ? D : 0), e4m3 operands
// K-major in shared memory, as the reference's m64n192k32.
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

constexpr int BM = 128, BN = 128, BK = 128, STAGES = 6, CONSUMERS = 2, THREADS = 128 * (1 + CONSUMERS);
constexpr int GROUP_M = 8;  // 8 measured a little ahead of 16 at these tiles
constexpr uint32_t A_BYTES = BM * BK, B_BYTES = BN * BK, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr size_t SMEM_BYTES = 1024 + STAGES * STAGE_BYTES + 2 * STAGES * sizeof(uint64_t);
constexpr uint32_t LBO = 16, SBO = 1024, SWIZZLE_128B = 1;

__device__ __forceinline__ void tile_at(int tile, int tiles_m, int tiles_n, int& m0, int& n0)
{
    const int per_group = GROUP_M * tiles_n;
    const int first = tile / per_group * GROUP_M;
    const int rows = min(GROUP_M, tiles_m - first);
    const int r = tile % per_group;
    m0 = (first + r % rows) * BM;
    n0 = r / rows * BN;
}

// The reference's ring and producer; the consumers keep two partial sums,
// pa and pb. The loop is peeled so that its body issues unconditionally:
// with the issue under a condition, ptxas serialized the wgmma (C7514).
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
    float d[BN / 2], pa[BN / 2], pb[BN / 2];
    uint32_t it = 0;  // the stage of the oldest k-block not yet promoted
    auto issue = [&](float (&p)[BN / 2], uint32_t at) {  // k-block `at`'s product into p, from zero
        const int s = at % STAGES;
        mbar_wait(&full[s], (at / STAGES) & 1);
        const unsigned char* a = as + s * A_BYTES + c * 64 * BK;
        const unsigned char* b = bs + s * B_BYTES;
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < BK / 32; ++ks)
            wgmma_m64n128k32_e4m3(p, make_desc(a + 32 * ks, LBO, SBO, SWIZZLE_128B),
                                  make_desc(b + 32 * ks, LBO, SBO, SWIZZLE_128B), ks > 0);
        wgmma_commit();
    };
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int m0, n0;
        tile_at(tile, tiles_m, tiles_n, m0, n0);
        const int row = m0 + 64 * c + 16 * warp + lane / 4;
        const float* sa0 = sa + min(row, M - 1);
        const float* sa1 = sa + min(row + 8, M - 1);
        const float* sbt = sb + (size_t)(n0 / 128) * kblocks;  // the tile is one block of B's scales
        auto scales = [&](int kb, float (&sc)[3]) {
            sc[0] = __ldg(sa0 + (size_t)kb * M), sc[1] = __ldg(sa1 + (size_t)kb * M), sc[2] = __ldg(sbt + kb);
        };
        auto promote = [&](float (&p)[BN / 2], const float (&sc)[3]) {  // p waited for: release, then promote
            fence_registers(p);
            if (threadIdx.x % 128 == 0) mbar_arrive(&empty[it % STAGES]);
            ++it;
            const float s0 = sc[0] * sc[2], s1 = sc[1] * sc[2];
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) d[i] += p[i] * ((i & 2) ? s1 : s0);
        };
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
        float sc_a[3], sc_b[3];
        scales(0, sc_a);
        issue(pa, it);
        int kb = 0;
        for (; kb + 2 < kblocks; kb += 2) {  // pa: block kb in flight; kb + 1 and kb + 2 exist
            scales(kb + 1, sc_b);
            issue(pb, it + 1);
            wgmma_wait<1>();
            promote(pa, sc_a);
            scales(kb + 2, sc_a);
            issue(pa, it + 1);
            wgmma_wait<1>();
            promote(pb, sc_b);
        }
        if (kb + 1 < kblocks) {
            scales(kb + 1, sc_b);
            issue(pb, it + 1);
            wgmma_wait<1>();
            promote(pa, sc_a);
            wgmma_wait<0>();
            promote(pb, sc_b);
        } else {
            wgmma_wait<0>();
            promote(pa, sc_a);
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

}  // namespace two_parts

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
    const int rounds = argc > 1 ? atoi(argv[1]) : 15;
    const int sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {5000, 3000, 4096}};  // ex45's timed sizes
    typedef void (*Solve)(const void*, const void*, const float*, const float*, float*, int, int, int);
    struct Kernel {
        const char* name;
        Solve solve;
    };
    const Kernel kernels[] = {
        {"cuBLASLt (block-scaled FP8)", library},
        {"ex45 reference: 128 x 192, one partial sum", [](const void* A, const void* B, const float* sa, const float* sb,
                                                          float* C, int M, int N, int K) {
             ::solve((const __nv_fp8_e4m3*)A, (const __nv_fp8_e4m3*)B, sa, sb, C, M, N, K);
         }},
        {"128 x 128, two partial sums", two_parts::solve},
    };
    const int nk = sizeof kernels / sizeof kernels[0];
    void* flush;
    const size_t FLUSH = 256u << 20;  // over twice the L2 of an H100 or H200
    CHECK(cudaMalloc(&flush, FLUSH));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    printf("%-44s %-16s %9s %8s %10s\n", "kernel", "size", "TFLOP/s", "/library", "diff");
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
            printf("%-44s %-16s %9.1f %8.3f %10.1e\n", kernels[k].name, size, 2.0 * M * N * K / median[k] / 1e9,
                   median[0] / median[k], den > 0 ? sqrt(num / den) : NAN);
        }
        cudaFree(A), cudaFree(B), cudaFree(sa), cudaFree(sb);
        for (int k = 0; k < nk; ++k) cudaFree(C[k]);
    }
    return 0;
}
