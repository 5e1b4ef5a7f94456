// splitk-ladder: the measured rungs behind ex43's lesson and docs/benchmarks.md (chapter 11).
//
// At ex43's timed sizes and at sizes where M x N is small and K long (where
// cuBLAS itself cuts along K: a split-K kernel and a reduction kernel), four
// kernels in one process, interleaved, with L2 flushed before every call (as
// the harness does):
//   - cuBLAS GemmEx, the kind's library;
//   - whole waves: ex43's reference whose plan never cuts (the fixture
//     tests/gpu/ex43_whole_tiles_only.patch applied: ex33's waves, which the
//     grade judges too slow);
//   - ex43's reference (its plan, its owner's hand-over);
//   - the same with the hand-over left out (tools/ex43_no_handover.patch:
//     contributors write nothing, owners write their own partial sums). Its
//     values are wrong; its time is the bound on what a cheaper hand-over
//     could give, and the gap to the reference is what the hand-over costs.
// Each is called through the harness's own kind (harness/kinds/gemm_bf16_kmajor.cu:
// its `call`, and its `library` for cuBLAS), so the ladder times what the
// grade times. Prints per size the plan's parts, each kernel's TFLOP/s, its
// fraction of cuBLAS, and its relative difference from cuBLAS's C.
//
//   make build/splitk-ladder && build/splitk-ladder [ROUNDS]
#include "kinds/gemm_bf16_kmajor.cu"  // the kind: its call, its library (cuBLAS), its sizes' lengths
#include "ladder.h"                   // the timing method and the difference, shared with fp8-ladder

// The reference and the two patched copies, each in a namespace of its own
// (their helpers have the same names) with its `solve` renamed, so that all
// link; their headers are in already.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
namespace reference {
#define solve reference_solve
#include "../solutions/ex43_split_k.cu"
#undef solve
}  // namespace reference
namespace whole {
#define solve whole_solve
#include EX43_WHOLE_FILE
#undef solve
}  // namespace whole
namespace no_handover {
#define solve no_handover_solve
#include EX43_NO_HANDOVER_FILE
#undef solve
}  // namespace no_handover

// Random bf16 in [-1, 1).
__global__ void fill_bf16(__nv_bfloat16* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
        p[i] = __float2bfloat16(((int)(h & 0xffff) - 32768) / 32768.f);
    }
}

int main(int argc, char** argv)
{
    const int rounds = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 11;  // timed calls of each, interleaved
    const int sizes[][3] = {{3072, 3072, 8192}, {2944, 3072, 8192}, {5000, 3000, 4096},  // ex43's timed sizes
                            {1024, 1024, 32768}, {2048, 1024, 32768}, {1024, 2048, 16384},
                            {768, 1024, 65536}, {1024, 1536, 24576}};
    const LadderKernel kernels[] = {
        {"cuBLAS GemmEx", nullptr},
        {"whole waves (the plan never cuts)", (void*)whole::whole_solve},
        {"ex43 reference", (void*)reference::reference_solve},
        {"ex43, hand-over left out (wrong C)", (void*)no_handover::no_handover_solve},
    };
    const int nk = sizeof kernels / sizeof kernels[0];
    int device = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    printf("%-36s %-16s %5s %9s %8s %10s\n", "kernel", "size", "parts", "TFLOP/s", "/cuBLAS", "diff");
    for (const auto& z : sizes) {
        const int M = z[0], N = z[1], K = z[2];
        const Dims dims = {3, {M, N, K}};
        const Scalars scalars = {{1.f, 0.f, 0.f, 0.f}};  // alpha 1, beta 0: every kernel's C comparable
        const size_t na = gemm_a_len(dims), nb = gemm_b_len(dims), nc = gemm_c_len(dims);
        __nv_bfloat16 *A, *B;
        float* C[nk];
        CHECK(cudaMalloc(&A, na * 2));
        CHECK(cudaMalloc(&B, nb * 2));
        for (int k = 0; k < nk; ++k) CHECK(cudaMalloc(&C[k], nc * 4));
        fill_bf16<<<1024, 256>>>(A, na, 1 + M), fill_bf16<<<1024, 256>>>(B, nb, 2 + N);
        const std::vector<double> median = ladder_medians(kernels, nk, dims, scalars, rounds, [&](int k) {
            return std::vector<void*>{A, B, C[k]};
        });
        std::vector<float> lib(nc);
        CHECK(cudaMemcpy(lib.data(), C[0], lib.size() * 4, cudaMemcpyDeviceToHost));
        const int tiles = ((M + reference::BM - 1) / reference::BM) * ((N + reference::BN - 1) / reference::BN);
        const reference::Plan plan = reference::make_plan(tiles, (K + reference::BK - 1) / reference::BK, sms);
        char size[32], parts[8];
        snprintf(size, sizeof size, "%dx%dx%d", M, N, K);
        snprintf(parts, sizeof parts, "%d", plan.parts);
        for (int k = 0; k < nk; ++k)  // the plan's parts for the two kernels that have one
            printf("%-36s %-16s %5s %9.1f %8.3f %10.1e\n", kernels[k].name, size, k >= 2 ? parts : "-",
                   2.0 * M * N * K / median[k] / 1e9, median[0] / median[k], ladder_diff(C[k], lib));
        cudaFree(A), cudaFree(B);
        for (int k = 0; k < nk; ++k) cudaFree(C[k]);
    }
    return 0;
}
