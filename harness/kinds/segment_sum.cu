// Kind segment_sum: sums[g] = x[1024g] + ... + x[1024g + 1023] over n ints
// (only indices below n: the last segment may be partial).
#include "harness.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

enum { SEGMENT = 1024 };

typedef void (*Solve)(const int *, int *, int);

static size_t segments(const Dims &d) { return ((size_t)d.d[0] + SEGMENT - 1) / SEGMENT; }

static double bytes(const Dims &d) { return 4.0 * (double)d.d[0] + 4.0 * (double)segments(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const int *)a[0], (int *)a[1], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const int *x = (const int *)a[0];
    int *sums = (int *)a[1];
    size_t n = dims_n(d);
    for (size_t g = 0; g < segments(d); g++) {
        long long s = 0;
        for (size_t i = g * SEGMENT; i < (g + 1) * SEGMENT && i < n; i++) s += x[i];
        sums[g] = (int)s;
    }
}

// CUB's segmented reduction, with the segment offsets computed on the fly.
struct SegmentBegin {
    __host__ __device__ int operator()(int g) const { return g * SEGMENT; }
};
struct SegmentEnd {
    int n;
    __host__ __device__ int operator()(int g) const { return g < n / SEGMENT ? (g + 1) * SEGMENT : n; }
};

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for = -1;
    const int n = (int)d.d[0], count = (int)segments(d);
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator(0), SegmentBegin{});
    auto end = thrust::make_transform_iterator(thrust::make_counting_iterator(0), SegmentEnd{n});
    if (sized_for != d.d[0]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceSegmentedReduce::Sum(nullptr, need, (const int *)a[0], (int *)a[1], count, begin, end);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for = d.d[0];
    }
    cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, (const int *)a[0], (int *)a[1], count, begin, end);
}
#endif

extern const KindDef kind = {
    "segment_sum", "void solve(const int* x, int* sums, int n)", 1, 2,
    {{"x", ELEM_I32, ROLE_IN, dims_n, -8, 8, 0},
     {"sums", ELEM_I32, ROLE_OUT, segments, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceSegmentedReduce::Sum", library)};
