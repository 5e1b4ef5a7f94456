// Kind warp_scan: inclusive prefix sums within every group of 32 ints:
// out[i] = x[32g] + ... + x[i] for g = i / 32.
#include "harness.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

typedef void (*Solve)(const int *, int *, int);

static double bytes(const Dims &d) { return 8.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const int *)a[0], (int *)a[1], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const int *x = (const int *)a[0];
    int *out = (int *)a[1];
    long long s = 0;
    for (size_t i = 0; i < dims_n(d); i++) {
        s = (i % 32 == 0 ? 0 : s) + x[i];
        out[i] = (int)s;
    }
}

// CUB's scan by key, the key of element i being its group i / 32.
struct GroupOf {
    __host__ __device__ int operator()(int i) const { return i >> 5; }
};

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for = -1;
    const int n = (int)d.d[0];
    auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator(0), GroupOf{});
    if (sized_for != d.d[0]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceScan::InclusiveSumByKey(nullptr, need, keys, (const int *)a[0], (int *)a[1], n);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for = d.d[0];
    }
    cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys, (const int *)a[0], (int *)a[1], n);
}
#endif

extern const KindDef kind = {
    "warp_scan", "void solve(const int* x, int* out, int n)", 1, 2,
    {{"x", ELEM_I32, ROLE_IN, dims_n, -8, 8, 0},
     {"out", ELEM_I32, ROLE_OUT, dims_n, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceScan::InclusiveSumByKey", library)};
