// Kind scan: inclusive prefix sums over n ints, out[i] = x[0] + ... + x[i],
// with a scratch array (tile sums, tile status words, a counter, ...).
#include "harness.h"

#include <cub/cub.cuh>

typedef void (*Solve)(const int *, int *, void *, int);

// Scratch: 4 * (n / 64 + 4096) bytes.
static size_t work_words(const Dims &d) { return (size_t)d.d[0] / 64 + 4096; }

static double bytes(const Dims &d) { return 8.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const int *)a[0], (int *)a[1], a[2], (int)d.d[0]);
}

// Wraps around like the GPU's 32-bit adds (the inputs are small enough that it never does).
static void reference(void *const *a, const Dims &d, const Scalars &) {
    const int *x = (const int *)a[0];
    int *out = (int *)a[1];
    unsigned s = 0;
    for (size_t i = 0; i < dims_n(d); i++) {
        s += (unsigned)x[i];
        out[i] = (int)s;
    }
}

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for = -1;
    if (sized_for != d.d[0]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceScan::InclusiveSum(nullptr, need, (const int *)a[0], (int *)a[1], (int)d.d[0]);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for = d.d[0];
    }
    cub::DeviceScan::InclusiveSum(temp, temp_bytes, (const int *)a[0], (int *)a[1], (int)d.d[0]);
}
#endif

extern const KindDef kind = {
    "scan", "void solve(const int* x, int* out, void* work, int n)", 1, 3,
    {{"x", ELEM_I32, ROLE_IN, dims_n, -8, 8, 0},
     {"out", ELEM_I32, ROLE_OUT, dims_n, 0, 0, 0},
     {"work", ELEM_I32, ROLE_SCRATCH, work_words, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceScan::InclusiveSum", library)};
