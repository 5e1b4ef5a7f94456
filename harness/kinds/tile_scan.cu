// Kind tile_scan: inclusive prefix sums within every tile of 1024 floats:
// out[i] = x[1024t] + ... + x[i] for t = i / 1024.
#include "harness.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

enum { TILE = 1024 };

typedef void (*Solve)(const float *, float *, int);

static double bytes(const Dims &d) { return 8.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], (int)d.d[0]);
}

// Summed in double: every output is the exact prefix sum, rounded once.
static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *x = (const float *)a[0];
    float *out = (float *)a[1];
    double s = 0;
    for (size_t i = 0; i < dims_n(d); i++) {
        s = (i % TILE == 0 ? 0.0 : s) + x[i];
        out[i] = (float)s;
    }
}

// CUB's scan by key, the key of element i being its tile i / 1024.
struct TileOf {
    __host__ __device__ int operator()(int i) const { return i / TILE; }
};

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for = -1;
    const int n = (int)d.d[0];
    auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator(0), TileOf{});
    if (sized_for != d.d[0]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceScan::InclusiveSumByKey(nullptr, need, keys, (const float *)a[0], (float *)a[1], n);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for = d.d[0];
    }
    cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, keys, (const float *)a[0], (float *)a[1], n);
}
#endif

extern const KindDef kind = {
    "tile_scan", "void solve(const float* x, float* out, int n)", 1, 2,
    {{"x", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"out", ELEM_F32, ROLE_OUT, dims_n, 0, 0, 0, TOL_SQRT_INDEX}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceScan::InclusiveSumByKey", library)};
