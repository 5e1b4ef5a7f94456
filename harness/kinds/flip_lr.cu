// Kind flip_lr: out[r][c] = in[r][cols-1-c], row-major rows x cols floats.
#include "harness.h"

typedef void (*Solve)(const float *, float *, int, int);

static double bytes(const Dims &d) { return 8.0 * (double)dims_rows_cols(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], (int)d.d[0], (int)d.d[1]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *in = (const float *)a[0];
    float *out = (float *)a[1];
    size_t rows = (size_t)d.d[0], cols = (size_t)d.d[1];
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) out[r * cols + c] = in[r * cols + (cols - 1 - c)];
}

extern const KindDef kind = {
    "flip_lr", "void solve(const float* in, float* out, int rows, int cols)", 2, 2,
    {{"in", ELEM_F32, ROLE_IN, dims_rows_cols, -1, 1, ROWS_COLS},
     {"out", ELEM_F32, ROLE_OUT, dims_rows_cols, 0, 0, ROWS_COLS}},
    bytes, call, reference};
