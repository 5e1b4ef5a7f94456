// Kind vector_add: c[i] = a[i] + b[i] over n floats.
#include "harness.h"

typedef void (*Solve)(const float *, const float *, float *, int);

static double bytes(const Dims &d) { return 12.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (const float *)a[1], (float *)a[2], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *x = (const float *)a[0], *y = (const float *)a[1];
    float *z = (float *)a[2];
    for (size_t i = 0; i < dims_n(d); i++) z[i] = x[i] + y[i];
}

extern const KindDef kind = {
    "vector_add", "void solve(const float* a, const float* b, float* c, int n)", 1, 3,
    {{"a", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"b", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"c", ELEM_F32, ROLE_OUT, dims_n, 0, 0, 0}},
    bytes, call, reference};
