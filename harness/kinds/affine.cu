// Kind affine: y[i] = a * x[i] + b over n floats.
#include "harness.h"

typedef void (*Solve)(const float *, float *, float, float, int);

static double bytes(const Dims &d) { return 8.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &s) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], s.f[0], s.f[1], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &s) {
    const float *x = (const float *)a[0];
    float *y = (float *)a[1];
    for (size_t i = 0; i < dims_n(d); i++) y[i] = s.f[0] * x[i] + s.f[1];
}

extern const KindDef kind = {
    "affine", "void solve(const float* x, float* y, float a, float b, int n)", 1, 2,
    {{"x", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"y", ELEM_F32, ROLE_OUT, dims_n, 0, 0, 0}},
    bytes, call, reference};
