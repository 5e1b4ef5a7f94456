// Kind warp_count: counts[g] = how many x[i] > 0 for i in [32g, 32g+32), i < n.
#include "harness.h"

typedef void (*Solve)(const int *, int *, int);

static double bytes(const Dims &d) { return 4.0 * (double)d.d[0] + 4.0 * (double)dims_groups32(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const int *)a[0], (int *)a[1], (int)d.d[0]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const int *x = (const int *)a[0];
    int *counts = (int *)a[1];
    size_t n = dims_n(d);
    for (size_t g = 0; g < dims_groups32(d); g++) {
        int c = 0;
        for (size_t i = 32 * g; i < 32 * g + 32 && i < n; i++) c += x[i] > 0;
        counts[g] = c;
    }
}

extern const KindDef kind = {
    "warp_count", "void solve(const int* x, int* counts, int n)", 1, 2,
    {{"x", ELEM_I32, ROLE_IN, dims_n, -5, 5, 0},
     {"counts", ELEM_I32, ROLE_OUT, dims_groups32, 0, 0, 0}},
    bytes, call, reference};
