// Kind col_scale: out[r][c] = in[r][c] * scale[c], row-major rows x cols floats.
#include "harness.h"

typedef void (*Solve)(const float *, const float *, float *, int, int);

static double bytes(const Dims &d) { return 8.0 * (double)dims_rows_cols(d) + 4.0 * (double)d.d[1]; }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (const float *)a[1], (float *)a[2], (int)d.d[0], (int)d.d[1]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *in = (const float *)a[0], *scale = (const float *)a[1];
    float *out = (float *)a[2];
    size_t rows = (size_t)d.d[0], cols = (size_t)d.d[1];
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) out[r * cols + c] = in[r * cols + c] * scale[c];
}

extern const KindDef kind = {
    "col_scale", "void solve(const float* in, const float* scale, float* out, int rows, int cols)", 2, 3,
    {{"in", ELEM_F32, ROLE_IN, dims_rows_cols, -1, 1, ROWS_COLS},
     {"scale", ELEM_F32, ROLE_IN, dims_cols, 0.5, 2, 0},
     {"out", ELEM_F32, ROLE_OUT, dims_rows_cols, 0, 0, ROWS_COLS}},
    bytes, call, reference};
