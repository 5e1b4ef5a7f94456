// fp8-ladder: the measured rungs behind ex45's reference (chapter 11).
//
// ex45's reference (128 x 128 tiles, two partial sums: block kb + 1's wgmma
// issued before block kb's are waited for and promoted; each consumer's part
// of C staged in shared memory and stored by TMA under the next tile's
// MMAs), the same kernel with the consumers storing C themselves (six
// stages, no staging: tools/ex45_threads_store.patch, the reference before
// its TMA store) and with one partial sum (the fixture
// tests/gpu/ex45_one_partial_sum.patch, C through TMA as the reference's,
// which the grade judges too slow),
// timed against cuBLASLt's block-scaled FP8 GEMM, in one process,
// interleaved, with L2 flushed before every call (as the harness does). Each
// is called through the harness's own kind
// (harness/kinds/gemm_fp8_blockscaled.cu): its `call` for the kernels, its
// `library` for cuBLASLt, so the ladder times what the grade times. Prints
// per size each kernel's TFLOP/s, its fraction of cuBLASLt, and its relative
// difference from cuBLASLt's C (all promote every 128 of K in the same
// order). For tile choices, not for grading; the earlier 128 x 192 rungs are
// in docs/benchmarks.md.
//
//   make build/fp8-ladder && build/fp8-ladder [ROUNDS]
//   (nvcc -Iharness -DEX45_ONE_SUM_FILE='"the fixture applied"'
//    -DEX45_THREADS_STORE_FILE='"the patch applied"': the Makefile's rule)
#include "kinds/gemm_fp8_blockscaled.cu"  // the kind: its call, its library (cuBLASLt), its sizes' lengths
#include "ladder.h"                       // the timing method and the difference, shared with splitk-ladder

// The shipped reference, the fixture with one partial sum (the reference
// with its loop changed) and the reference storing C from its threads, each
// in a namespace of its own (their helpers have the same names) with its
// `solve` renamed, so that all link; their headers are in already.
#include <cuda.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#ifndef EX45_FILE
#define EX45_FILE "../solutions/ex45_fp8_blockscaled.cu"
#endif
namespace two_sums {
#define solve two_sums_solve
#include EX45_FILE
#undef solve
}  // namespace two_sums
namespace one_sum {
#define solve one_sum_solve
#include EX45_ONE_SUM_FILE
#undef solve
}  // namespace one_sum
namespace threads_store {
#define solve threads_store_solve
#include EX45_THREADS_STORE_FILE
#undef solve
}  // namespace threads_store

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

int main(int argc, char** argv)
{
    const int rounds = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 15;  // timed calls of each, interleaved
    const int sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {5000, 3000, 4096}};  // ex45's timed sizes
    if (!kind.library) {
        fprintf(stderr, "%s\n", kind.library_name);  // the kind's reason: a toolkit older than CUDA 12.9
        return 1;
    }
    const LadderKernel kernels[] = {
        {"cuBLASLt (block-scaled FP8)", nullptr},
        {"128 x 128, one partial sum, C through TMA", (void*)one_sum::one_sum_solve},
        {"128 x 128, two partial sums, threads store C", (void*)threads_store::threads_store_solve},
        {"ex45 reference: two sums, C through TMA", (void*)two_sums::two_sums_solve},
    };
    const int nk = sizeof kernels / sizeof kernels[0];
    printf("%-46s %-16s %9s %8s %10s\n", "kernel", "size", "TFLOP/s", "/library", "diff");
    for (const auto& z : sizes) {
        const int M = z[0], N = z[1], K = z[2];
        const Dims dims = {3, {M, N, K}};
        const Scalars scalars = {};
        const size_t na = a_len(dims), nb = b_len(dims), nsa = sa_len(dims), nsb = sb_len(dims), nc = c_len(dims);
        unsigned char *A, *B;
        float *sa, *sb, *C[nk];
        CHECK(cudaMalloc(&A, na));
        CHECK(cudaMalloc(&B, nb));
        CHECK(cudaMalloc(&sa, nsa * 4));
        CHECK(cudaMalloc(&sb, nsb * 4));
        for (int k = 0; k < nk; ++k) CHECK(cudaMalloc(&C[k], nc * 4));
        fill_e4m3<<<1024, 256>>>(A, na, 1), fill_e4m3<<<1024, 256>>>(B, nb, 2);
        fill_scales<<<1024, 256>>>(sa, nsa, 3), fill_scales<<<1024, 256>>>(sb, nsb, 4);
        const std::vector<double> median = ladder_medians(kernels, nk, dims, scalars, rounds, [&](int k) {
            return std::vector<void*>{A, B, sa, sb, C[k]};
        });
        std::vector<float> lib(nc);
        CHECK(cudaMemcpy(lib.data(), C[0], lib.size() * 4, cudaMemcpyDeviceToHost));
        char size[32];
        snprintf(size, sizeof size, "%dx%dx%d", M, N, K);
        for (int k = 0; k < nk; ++k)
            printf("%-46s %-16s %9.1f %8.3f %10.1e\n", kernels[k].name, size, 2.0 * M * N * K / median[k] / 1e9,
                   median[0] / median[k], ladder_diff(C[k], lib));
        cudaFree(A), cudaFree(B), cudaFree(sa), cudaFree(sb);
        for (int k = 0; k < nk; ++k) cudaFree(C[k]);
    }
    return 0;
}
