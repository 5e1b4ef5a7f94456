// ex16 tiled_transpose: transpose through a tile in shared memory
//
// What this exercise teaches
//   Shared memory and __syncthreads(). The threads of a block read a tile
//   of `in` with coalesced loads, park it in shared memory, and once all of
//   it is there, read it back in the other direction to write `out` with
//   coalesced stores. Global memory sees only full rows on both sides.
//
//   It is not yet fast. Reading the tile back by columns puts all 32 lanes
//   of a warp in one shared-memory bank (a 32-way bank conflict, see the
//   lesson's "Banks"): on an H100 the reference of this exercise measures
//   58% of the copy bandwidth, below ex15's reference (73%). The floors
//   allow for that; ex17 removes the conflict.
//
// The problem (as in ex15)
//   in is row-major rows x cols, out is row-major cols x rows:
//   out[c][r] = in[r][c]. The timed shape is 16384 x 16381, so the tiles at
//   the right edge are partial (in the checked shapes, the bottom ones too).
//
// The layout (already chosen, see solve())
//   Block (bx, by) owns the 32 x 32 tile of `in` with rows r0 = 32 * by ...
//   and columns c0 = 32 * bx ...; it has 32 x 8 threads, so each thread
//   moves 4 elements (rows ty, ty + 8, ty + 16, ty + 24 of the tile).
//
// What to fill in: the kernel body (the TODOs).
//
// How it is graded
//   gpucourse grade ex16
//   Shapes from 1 x 1 to 1000 x 999 are checked element by element (out is
//   filled with NaN first), then 16384 x 16381 is timed (2.1 GB moved)
//   against the reference and a device-to-device copy.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define TILE 32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                int rows, int cols)
{
    // TODO: declare the tile: __shared__ float tile[TILE][TILE];
    // TODO: r0 = first row of this block's tile in `in` (blockIdx.y),
    //       c0 = its first column (blockIdx.x).
    //
    // TODO: phase 1, in -> tile. For k = 0, 8, 16, 24: row r = r0 + threadIdx.y + k,
    //       column c = c0 + threadIdx.x; if both are inside `in`,
    //       tile[threadIdx.y + k][threadIdx.x] = in[r][c].
    //
    // TODO: wait until the whole block has written its part of the tile.
    //
    // TODO: phase 2, tile -> out. The tile lands in `out` at rows c0 ..,
    //       columns r0 ..: for k = 0, 8, 16, 24 this thread writes row
    //       c0 + threadIdx.y + k of `out`, column r0 + threadIdx.x, which is
    //       in[r0 + threadIdx.x][c0 + threadIdx.y + k]: read it from the tile.
    //       Guard both coordinates against the shape of `out` (cols x rows).
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled<<<grid, block>>>(in, out, rows, cols);
}
