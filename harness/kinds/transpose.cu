// Kind transpose: out[c][r] = in[r][c]; in is row-major rows x cols floats,
// out is row-major cols x rows. Mismatches are reported as flat indices of
// out: out[i] is out[i / rows][i % rows] (row_major_2d would use cols = d[1],
// which is the width of in, not of out).
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
        for (size_t c = 0; c < cols; c++) out[c * rows + r] = in[r * cols + c];
}

extern const KindDef kind = {
    "transpose", "void solve(const float* in, float* out, int rows, int cols)", 2, 2,
    {{"in", ELEM_F32, ROLE_IN, dims_rows_cols, -1, 1, ROWS_COLS},
     {"out", ELEM_F32, ROLE_OUT, dims_rows_cols, 0, 0, COLS_ROWS}},
    bytes, call, reference};
