// ex19 xor_transpose -- reference solution
//
// out[c][r] = in[r][c] through a 32 x 32 tile with NO padding: the tile is
// exactly 32 * 32 floats (4 KB), and an XOR swizzle keeps both phases free
// of bank conflicts.
//
// Element [i][j] of the tile is stored at tile[i][j ^ i] (i, j < 32). Within
// a row the XOR with i only reorders the 32 words, so nothing collides and
// nothing is lost; and since row i is 32 words, that word is in bank j ^ i.
//   phase 1: a warp writes logical row i, lanes j = 0..31: banks j ^ i,
//            32 different banks.
//   phase 2: a warp reads logical column j, lanes i = 0..31: banks j ^ i,
//            again 32 different banks.
// The same index expression is used to write and to read, which is what
// makes it easy to get right: [i][j ^ i] in both phases.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

// Where logical element [i][j] of the tile lives: column j ^ i of row i.
__device__ __forceinline__ int swz(int i, int j) { return j ^ i; }

__global__ void transpose_xor(const float* __restrict__ in, float* __restrict__ out,
                              int rows, int cols)
{
    __shared__ float tile[kTile][kTile];  // exactly the tile
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;

    const int c = c0 + tx;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        const int i = ty + k, r = r0 + i;
        if (r < rows && c < cols) tile[i][swz(i, tx)] = in[(size_t)r * cols + c];
    }
    __syncthreads();

    const int oc = r0 + tx;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        const int j = ty + k, orow = c0 + j;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][swz(tx, j)];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_xor<<<grid, block>>>(in, out, rows, cols);
}
