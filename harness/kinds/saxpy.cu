// Kind saxpy: y[i] = alpha * x[i] + y[i] over n floats (y is read and written).
#include "harness.h"

typedef void (*Solve)(float, const float *, float *, size_t);

static double bytes(const Dims &d) { return 12.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &s) {
    ((Solve)solve)(s.f[0], (const float *)a[0], (float *)a[1], dims_n(d));
}

static void reference(void *const *a, const Dims &d, const Scalars &s) {
    const float *x = (const float *)a[0];
    float *y = (float *)a[1];
    for (size_t i = 0; i < dims_n(d); i++) y[i] = s.f[0] * x[i] + y[i];
}

extern const KindDef kind = {
    "saxpy", "void solve(float alpha, const float* x, float* y, size_t n)", 1, 2,
    {{"x", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"y", ELEM_F32, ROLE_INOUT, dims_n, -1, 1, 0}},
    bytes, call, reference};
