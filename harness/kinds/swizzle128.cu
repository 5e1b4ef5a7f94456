// Kind swizzle128: the shared-memory image that a TMA load with
// CU_TENSOR_MAP_SWIZZLE_128B leaves, for a whole row-major rows x cols float
// matrix cut into panels of 32 columns (128 bytes).
//
// out holds panels = ceil(cols / 32) panels one after another; each panel is
// rows8 = rows rounded up to a multiple of 8 rows of 32 floats, so every panel
// starts on a 1024-byte boundary. Within a row r of a panel, the 16-byte chunk
// c (floats 4c .. 4c+3) is stored at chunk c ^ (r % 8):
//   out[(p * rows8 + r) * 32 + 4 * (c ^ (r % 8)) + e] = in[r][32p + 4c + e]
// and elements outside the matrix (columns >= cols, rows >= rows) are 0, as
// TMA fills them. Inputs are in [1, 2], never 0. Checked exactly.
#include "harness.h"

typedef void (*Solve)(const float *, float *, int, int);

static size_t panels(const Dims &d) { return ((size_t)d.d[1] + 31) / 32; }
static size_t rows8(const Dims &d) { return ((size_t)d.d[0] + 7) / 8 * 8; }
static size_t out_len(const Dims &d) { return panels(d) * rows8(d) * 32; }

static double bytes(const Dims &d) { return 4.0 * (double)dims_rows_cols(d) + 4.0 * (double)out_len(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], (int)d.d[0], (int)d.d[1]);
}

// From the other side: for every slot of the image, which element lands there.
static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *in = (const float *)a[0];
    float *out = (float *)a[1];
    size_t rows = (size_t)d.d[0], cols = (size_t)d.d[1];
    for (size_t p = 0; p < panels(d); p++)
        for (size_t r = 0; r < rows8(d); r++)
            for (size_t slot = 0; slot < 32; slot++) {
                size_t chunk = (slot / 4) ^ (r % 8);  // XOR is its own inverse
                size_t c = 32 * p + 4 * chunk + slot % 4;
                out[(p * rows8(d) + r) * 32 + slot] = r < rows && c < cols ? in[r * cols + c] : 0.0f;
            }
}

extern const KindDef kind = {
    "swizzle128", "void solve(const float* in, float* out, int rows, int cols)", 2, 2,
    {{"in", ELEM_F32, ROLE_IN, dims_rows_cols, 1, 2, ROWS_COLS},
     {"out", ELEM_F32, ROLE_OUT, out_len, 0, 0, 0}},
    bytes, call, reference};
