// Kind row_sum: sums[r] = x[r][0] + ... + x[r][cols-1], row-major rows x cols floats.
#include "harness.h"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

typedef void (*Solve)(const float *, float *, int, int);

static size_t rows(const Dims &d) { return (size_t)d.d[0]; }

static double bytes(const Dims &d) { return 4.0 * (double)dims_rows_cols(d) + 4.0 * (double)rows(d); }

static void call(void *solve, void *const *a, const Dims &d, const Scalars &) {
    ((Solve)solve)((const float *)a[0], (float *)a[1], (int)d.d[0], (int)d.d[1]);
}

// Summed in double: the float result is the exact sum, rounded once.
static void reference(void *const *a, const Dims &d, const Scalars &) {
    const float *x = (const float *)a[0];
    float *sums = (float *)a[1];
    size_t cols = dims_cols(d);
    for (size_t r = 0; r < rows(d); r++) {
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += x[r * cols + c];
        sums[r] = (float)s;
    }
}

// CUB's segmented reduction: row r is the segment [r * cols, (r + 1) * cols).
struct RowOffset {
    int cols;
    __host__ __device__ int operator()(int r) const { return r * cols; }
};

#if KIND_WITH_LIBRARY
static void library(void *const *a, const Dims &d, const Scalars &) {
    static void *temp;
    static size_t temp_bytes;
    static long long sized_for[2] = {-1, -1};
    const int nrows = (int)d.d[0], cols = (int)d.d[1];
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator(0), RowOffset{cols});
    auto end = begin + 1;
    if (sized_for[0] != d.d[0] || sized_for[1] != d.d[1]) {  // the first call at a size: untimed
        size_t need = 0;
        cub::DeviceSegmentedReduce::Sum(nullptr, need, (const float *)a[0], (float *)a[1], nrows, begin, end);
        if (need > temp_bytes) {
            cudaFree(temp);
            cudaMalloc(&temp, need);
            temp_bytes = need;
        }
        sized_for[0] = d.d[0];
        sized_for[1] = d.d[1];
    }
    cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, (const float *)a[0], (float *)a[1], nrows, begin, end);
}
#endif

extern const KindDef kind = {
    "row_sum", "void solve(const float* x, float* sums, int rows, int cols)", 2, 2,
    {{"x", ELEM_F32, ROLE_IN, dims_rows_cols, -1, 1, ROWS_COLS},
     {"sums", ELEM_F32, ROLE_OUT, rows, 0, 0, 0, TOL_FLAT}},
    bytes, call, reference, KIND_LIBRARY("CUB DeviceSegmentedReduce::Sum", library)};
