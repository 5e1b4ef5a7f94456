// ex18 vectorized_transpose -- reference solution
//
// out[c][r] = in[r][c] with 16-byte global loads and stores. rows and cols
// are multiples of 4 (the exercise promises it), so every row of `in` and
// of `out` starts on a 16-byte boundary and a float4 never straddles the
// edge of the matrix. They are not multiples of 32: the edge tiles are
// partial, guarded per float4.
//
// Block (8, 32) owns a 32 x 32 tile. Phase 1: thread (tx, ty) loads the
// float4 at row r0 + ty, columns c0 + 4 tx .. + 3 (a warp: 4 rows x 128
// bytes) and stores its 4 floats into the padded tile. Phase 2: thread
// (tx, ty) writes row c0 + ty of `out`, columns r0 + 4 tx .. + 3, which are
// tile[4 tx + e][ty] for e = 0..3, gathered into one float4.
//
// Banks, tile[32][33] (word 33 i + j, bank (i + j) % 32): a warp is
// tx = 0..7 and four consecutive ty = 4w .. 4w + 3.
//   phase 1, component e: tile[ty][4 tx + e], bank (ty + 4 tx + e) % 32
//   phase 2, component e: tile[4 tx + e][ty], bank (4 tx + e + ty) % 32
// ty + 4 tx takes the 32 values 4w .. 4w + 31: 32 different banks in both.
//
// Shapes that are not multiples of 4 fall back to a scalar padded kernel
// (not needed by the grader; it keeps the function correct for any shape).
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 32;

__global__ void transpose_vec4(const float* __restrict__ in, float* __restrict__ out,
                               int rows, int cols)
{
    __shared__ float tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;  // tx: float4 column 0..7, ty: row 0..31
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;

    const int r = r0 + ty, c = c0 + 4 * tx;
    if (r < rows && c < cols) {  // cols % 4 == 0: c < cols means all four floats are inside
        const float4 v = *reinterpret_cast<const float4*>(in + (size_t)r * cols + c);
        tile[ty][4 * tx + 0] = v.x;
        tile[ty][4 * tx + 1] = v.y;
        tile[ty][4 * tx + 2] = v.z;
        tile[ty][4 * tx + 3] = v.w;
    }
    __syncthreads();

    const int orow = c0 + ty, oc = r0 + 4 * tx;  // out[orow][oc .. oc + 3]
    if (orow < cols && oc < rows) {
        float4 v;
        v.x = tile[4 * tx + 0][ty];
        v.y = tile[4 * tx + 1][ty];
        v.z = tile[4 * tx + 2][ty];
        v.w = tile[4 * tx + 3][ty];
        *reinterpret_cast<float4*>(out + (size_t)orow * rows + oc) = v;
    }
}

// Any shape: ex17's padded kernel.
__global__ void transpose_scalar(const float* __restrict__ in, float* __restrict__ out,
                                 int rows, int cols)
{
    __shared__ float tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
#pragma unroll
    for (int k = 0; k < kTile; k += 8) {
        const int r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols) tile[ty + k][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; k += 8) {
        const int orow = c0 + ty + k, oc = r0 + tx;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][ty + k];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    if (rows % 4 == 0 && cols % 4 == 0)
        transpose_vec4<<<grid, dim3(kTile / 4, kTile)>>>(in, out, rows, cols);
    else
        transpose_scalar<<<grid, dim3(kTile, 8)>>>(in, out, rows, cols);
}
