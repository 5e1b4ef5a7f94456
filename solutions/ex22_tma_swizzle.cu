// ex22 tma_swizzle -- reference solution
//
// The image a TMA load with 128-byte swizzling leaves in shared memory, for
// a whole matrix cut into panels of 32 floats (128 bytes) across:
//   out[(p * rows8 + r) * 32 + 4 * (h ^ (r % 8)) + e] = in[r][32 p + 4 h + e]
// with zeros outside the matrix; rows8 = rows rounded up to a multiple of 8.
//
// Since 4 (h ^ s) + e = (4 h + e) ^ (4 s) for e < 4, the slot of column
// l = 4 h + e within the panel is simply l ^ (4 (r % 8)): the float offset
// swizzled by Swizzle<3,2,3>, the 128-byte pattern (Swizzle<3,4,3> on byte
// offsets) in units of floats.
//
// Block 32 x 8, one panel across (lane l = column 32 p + l), 32 rows down,
// each thread 4 rows with all loads first. A warp reads 32 consecutive
// floats of one row of `in` and writes one 128-byte row of the panel, in a
// different order: both sides are fully coalesced, no shared memory needed.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kPanel = 32;      // floats per panel row: 128 bytes
constexpr int kBlockRows = 8;
constexpr int kRowsPerBlock = 32;

__global__ void tma_image(const float* __restrict__ in, float* __restrict__ out,
                          int rows, int cols, int rows8)
{
    const int p = blockIdx.x, l = threadIdx.x;
    const int c = p * kPanel + l;
    const int rbase = blockIdx.y * kRowsPerBlock + threadIdx.y;
    float v[kRowsPerBlock / kBlockRows];
#pragma unroll
    for (int k = 0; k < kRowsPerBlock / kBlockRows; ++k) {
        const int r = rbase + k * kBlockRows;
        v[k] = (r < rows && c < cols) ? in[(size_t)r * cols + c] : 0.0f;  // TMA's zero fill
    }
#pragma unroll
    for (int k = 0; k < kRowsPerBlock / kBlockRows; ++k) {
        const int r = rbase + k * kBlockRows;
        if (r < rows8) out[((size_t)p * rows8 + r) * kPanel + (l ^ ((r & 7) << 2))] = v[k];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const int panels = (cols + kPanel - 1) / kPanel;
    const int rows8 = (rows + 7) / 8 * 8;
    const dim3 grid(panels, (rows8 + kRowsPerBlock - 1) / kRowsPerBlock);
    tma_image<<<grid, dim3(kPanel, kBlockRows)>>>(in, out, rows, cols, rows8);
}
