// ex16 tiled_transpose -- reference solution
//
// out[c][r] = in[r][c] through a 32 x 32 tile in shared memory.
//
// A block owns one 32 x 32 tile of `in` (rows r0.., columns c0..). Its
// threads read the tile row by row (lanes along a row of `in`: coalesced),
// write it into shared memory, wait at __syncthreads(), then read it back
// column by column and write rows of `out` (lanes along a row of `out`:
// coalesced again). The tile at (r0, c0) of `in` becomes the tile at
// (c0, r0) of `out`: the block's x and y swap roles between the two halves.
//
// 32 x 8 threads, each moving 4 elements: a thread issues its four global
// loads before it has to wait for any of them.
//
// This tile is NOT padded. Reading a column of tile[32][32] has all 32 lanes
// of a warp in the same shared-memory bank: a 32-way bank conflict, so each
// of those reads takes 32 passes, and shared memory rather than DRAM sets
// the pace (at best about 2/3 of a copy, the lesson counts it). Measured on
// an H100 at 16384 x 16381: 58% of the copy bandwidth, below ex15's
// reference (73%); the padded tile of ex17, 92% (docs/benchmarks.md). The
// floors of this exercise allow for that.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;  // threads per block: kTile x kBlockRows

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                int rows, int cols)
{
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * kTile;  // the tile's first row of `in`
    const int c0 = blockIdx.x * kTile;  // the tile's first column of `in`

    // in -> tile: lane tx reads column c0 + tx of rows r0 + ty, r0 + ty + 8, ...
    const int c = c0 + tx;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        const int r = r0 + ty + k;
        if (r < rows && c < cols) tile[ty + k][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();  // every element of the tile is written before anyone reads

    // tile -> out: row c0 + ty + k of out, column r0 + tx; that is in[r0 + tx][c0 + ty + k]
    const int oc = r0 + tx;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        const int orow = c0 + ty + k;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][ty + k];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tiled<<<grid, block>>>(in, out, rows, cols);
}
