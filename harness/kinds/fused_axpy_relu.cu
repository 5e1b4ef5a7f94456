// Kind fused_axpy_relu: z[i] = max(alpha * x[i] + y[i], 0) over n floats.
#include "harness.h"

typedef void (*Solve)(const float *, const float *, float *, float, int);

static double bytes(const Dims &d) { return 12.0 * (double)d.d[0]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &s) {
    ((Solve)solve)((const float *)a[0], (const float *)a[1], (float *)a[2], s.f[0], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &s) {
    const float *x = (const float *)a[0], *y = (const float *)a[1];
    float *z = (float *)a[2];
    for (size_t i = 0; i < dims_n(d); i++) {
        float v = s.f[0] * x[i] + y[i];
        z[i] = v > 0.0f ? v : 0.0f;
    }
}

extern const KindDef kind = {
    "fused_axpy_relu", "void solve(const float* x, const float* y, float* z, float alpha, int n)", 1, 3,
    {{"x", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"y", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0},
     {"z", ELEM_F32, ROLE_OUT, dims_n, 0, 0, 0}},
    bytes, call, reference};
