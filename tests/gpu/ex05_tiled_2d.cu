// expect: 0 pass -- a good 2D-tiled answer (not the flattened reference) must pass the floors
//
// out[r][c] = in[r][c] * scale[c] for a row-major rows x cols matrix.
//
// Coalescing: threadIdx.x walks COLUMNS. The 32 lanes of a warp then read
// 32 neighbouring floats of one row: 128 contiguous bytes, 4 or 5 sectors
// of 32 bytes (5 when the row does not start on a sector boundary, as with
// 16383 columns; the extra sector is shared with the neighbouring warp and
// is normally still in L2). Compare the stub, where neighbouring lanes are a
// whole row apart and every lane pulls its own 32-byte sector to use 4 bytes
// of it.
//
// Each block covers a 32-column x 32-row tile with 32 x 8 threads; each
// thread loads scale[c] once, keeps it in a register, and handles
// kRowsPerThread rows, issuing all of their loads before any store (more
// bytes in flight per thread). scale is 64 KiB and is re-read by every row
// tile, so it lives in L2 and costs almost no DRAM traffic.
//
// Both dimensions are guarded (the shape does not divide the tile) and
// offsets are 64-bit.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kRowsPerThread = 4;
constexpr int kTileRows = kBlockY * kRowsPerThread;

__global__ void col_scale_kernel(const float* __restrict__ in,
                                 const float* __restrict__ scale,
                                 float* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * kBlockX + threadIdx.x;  // consecutive lanes: consecutive columns
    if (c >= cols) return;
    const float s = scale[c];
    const int r0 = blockIdx.y * kTileRows + threadIdx.y;

    float v[kRowsPerThread];
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) {
        const int r = r0 + k * kBlockY;
        if (r < rows) v[k] = in[(size_t)r * cols + c];
    }
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) {
        const int r = r0 + k * kBlockY;
        if (r < rows) out[(size_t)r * cols + c] = v[k] * s;
    }
}

}  // namespace

extern "C" void solve(const float* in, const float* scale, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((cols + kBlockX - 1) / kBlockX,
                    (rows + kTileRows - 1) / kTileRows);  // y <= 65535: rows up to ~2M
    col_scale_kernel<<<grid, block>>>(in, scale, out, rows, cols);
}
