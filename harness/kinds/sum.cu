// Kind sum: out[0] = x[0] + ... + x[n-1] over n floats, with a scratch array.
#include "harness.h"

#include <cub/cub.cuh>

typedef void (*Solve)(const float *, float *, void *, int);

static size_t one(const Dims &) { return 1; }
// Scratch: 4 * (n / 64 + 4096) bytes (block partial sums, a counter, ...).
static size_t work_words(const Dims &d) { return (size_t)d.d[0] / 64 + 4096; }

static double bytes(const Dims &d) { return 4.0 * (double)d.d[0] + 4.0; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], a[2], (int)d.d[0]);
}

// Summed in double: the float result is the exact sum, rounded once.
static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *x = (const float *)a[0];
    double s = 0;
    for (size_t i = 0; i < dims_n(d); i++) s += x[i];
    ((float *)a[1])[0] = (float)s;
}

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for = -1;
    if (sized_for != d.d[0]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceReduce::Sum(nullptr, need, (const float *)a[0], (float *)a[1], (int)d.d[0]);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for = d.d[0];
    }
    cub::DeviceReduce::Sum(temp, temp_bytes, (const float *)a[0], (float *)a[1], (int)d.d[0]);
}
#endif

extern const KindDef kind = {
    "sum", "void solve(const float* x, float* out, void* work, int n)", 1, 3,
    {{"x", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"out", ELEM_F32, ROLE_OUT, one, 0, 0, 0, TOL_SQRT_LENGTH},
     {"work", ELEM_I32, ROLE_SCRATCH, work_words, 0, 0, 0}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceReduce::Sum", library)};
