// What the GEMM ladders (tools/fp8-ladder.cu, tools/splitk-ladder.cu) share: one timing
// method, the harness's. Each kernel is called through the kind's own `call` (or its
// `library`, the vendor's GEMM), in one process, interleaved, with L2 flushed before every
// call; two untimed rounds first; the median of the rest. Include after the kind file
// (it uses `kind`).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

struct LadderKernel {
    const char* name;
    void* solve;  // nullptr: the kind's library
};

// The median milliseconds of each of the nk kernels over `rounds` interleaved calls.
// arrays_for(k) gives kernel k's arrays (a std::vector<void*>, in the kind's order), built
// before the clock starts.
template <class ArraysFor>
std::vector<double> ladder_medians(const LadderKernel* kernels, int nk, const Dims& dims, const Scalars& scalars,
                                   int rounds, ArraysFor arrays_for)
{
    static void* flush = nullptr;
    const size_t FLUSH = 256u << 20;  // over twice the L2 of an H100 or H200
    if (!flush) CHECK(cudaMalloc(&flush, FLUSH));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> ms(nk);
    for (int r = -2; r < rounds; ++r)
        for (int k = 0; k < nk; ++k) {
            const std::vector<void*> arrays = arrays_for(k);
            CHECK(cudaMemsetAsync(flush, r & 0xff, FLUSH));
            cudaEventRecord(e0);
            if (kernels[k].solve) kind.call(kernels[k].solve, arrays.data(), dims, scalars);
            else kind.library(arrays.data(), dims, scalars);
            cudaEventRecord(e1);
            CHECK(cudaEventSynchronize(e1));
            float t;
            cudaEventElapsedTime(&t, e0, e1);
            if (r >= 0) ms[k].push_back(t);
        }
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    std::vector<double> median(nk);
    for (int k = 0; k < nk; ++k) {
        std::sort(ms[k].begin(), ms[k].end());
        median[k] = ms[k][ms[k].size() / 2];
    }
    return median;
}

// The relative (Frobenius) difference of the device array `mine` from `lib`, as many floats.
inline double ladder_diff(const float* mine, const std::vector<float>& lib)
{
    std::vector<float> got(lib.size());
    CHECK(cudaMemcpy(got.data(), mine, got.size() * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (size_t i = 0; i < got.size(); ++i)
        num += (double)(got[i] - lib[i]) * (got[i] - lib[i]), den += (double)lib[i] * lib[i];
    return den > 0 ? sqrt(num / den) : NAN;
}
