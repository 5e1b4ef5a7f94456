// Kind tile_pack: a row-major rows x cols float matrix rewritten as 64 x 64
// tiles, each stored whole (64 rows of 64 floats, 16 KB) one after another
// in row-major tile order, with zeros where a tile sticks out past the
// matrix:
//   out[((tr * tiles_c + tc) * 64 + y) * 64 + x] = in[64 tr + y][64 tc + x]
// or 0 when that element is outside (tiles_c = ceil(cols / 64), tiles_r =
// ceil(rows / 64)). It is the image a TMA load of a 64 x 64 box leaves in
// shared memory, out-of-bounds elements zero-filled, written out tile by
// tile. Inputs are in [1, 2], never 0. Checked exactly.
#include "harness.h"

typedef void (*Solve)(const float *, float *, int, int);

enum { TILE = 64 };

static size_t tiles_r(const Dims &d) { return ((size_t)d.d[0] + TILE - 1) / TILE; }
static size_t tiles_c(const Dims &d) { return ((size_t)d.d[1] + TILE - 1) / TILE; }
static size_t out_len(const Dims &d) { return tiles_r(d) * tiles_c(d) * TILE * TILE; }

static double bytes(const Dims &d) { return 4.0 * (double)dims_rows_cols(d) + 4.0 * (double)out_len(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], (int)d.d[0], (int)d.d[1]);
}

static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *in = (const float *)a[0];
    float *out = (float *)a[1];
    size_t rows = (size_t)d.d[0], cols = (size_t)d.d[1];
    for (size_t tr = 0; tr < tiles_r(d); tr++)
        for (size_t tc = 0; tc < tiles_c(d); tc++)
            for (size_t y = 0; y < TILE; y++)
                for (size_t x = 0; x < TILE; x++) {
                    size_t r = tr * TILE + y, c = tc * TILE + x;
                    out[((tr * tiles_c(d) + tc) * TILE + y) * TILE + x] = r < rows && c < cols ? in[r * cols + c] : 0.0f;
                }
}

extern const KindDef kind = {
    "tile_pack", "void solve(const float* in, float* out, int rows, int cols)", 2, 2,
    {{"in", ELEM_F32, ROLE_IN, dims_rows_cols, 1, 2, ROWS_COLS},
     {"out", ELEM_F32, ROLE_OUT, out_len, 0, 0, 0}},
    bytes, call, reference};
