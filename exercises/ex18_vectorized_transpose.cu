// ex18 vectorized_transpose: 16-byte loads and stores on both sides
//
// What this exercise teaches
//   Combining chapter 2's float4 accesses with a shared-memory tile. Global
//   memory is read and written 16 bytes per instruction; the reordering
//   happens in shared memory, one float at a time, without bank conflicts.
//
// The problem
//   out[c][r] = in[r][c]; in is rows x cols, out is cols x rows, row-major.
//   Here rows and cols are MULTIPLES OF 4 (cols not of 32: 16384 x 16388 is
//   timed), so every row of both matrices starts 16-byte aligned and a
//   float4 of 4 neighbouring columns is either wholly inside or wholly
//   outside the matrix.
//
// The layout (already chosen, see solve())
//   Block (bx, by) owns the 32 x 32 tile of `in` at rows r0 = 32 * by ..,
//   columns c0 = 32 * bx ..; it has 8 x 32 threads. Thread (tx, ty):
//     phase 1: loads the float4 of row r0 + ty, columns c0 + 4 tx .. + 3;
//     phase 2: stores the float4 of row c0 + ty of `out`,
//              columns r0 + 4 tx .. + 3.
//
// What to fill in: the kernel body (the TODOs). Keep both phases free of
//   bank conflicts: work out the bank of every shared access of a warp
//   (tx = 0..7, four consecutive ty) for your tile shape.
//
// How it is graded
//   gpucourse grade ex18
//   Shapes from 4 x 4 to 1004 x 996 are checked, then 16384 x 16388 is
//   timed (2.1 GB moved). The grader requires 16-byte global accesses in
//   your machine code (LDG.E.128 and STG.E.128).
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define TILE 32

__global__ void transpose_vec4(const float* __restrict__ in, float* __restrict__ out,
                               int rows, int cols)
{
    // TODO: a shared tile of TILE x TILE floats, laid out so that neither
    //       phase has bank conflicts.
    // TODO: phase 1. r = r0 + ty, c = c0 + 4 * tx. If inside `in`, load
    //       the float4 at in + r * cols + c (reinterpret_cast<const float4*>)
    //       and store its .x .y .z .w into row ty of the tile.
    // TODO: barrier.
    // TODO: phase 2. Row orow = c0 + ty of `out`, columns oc = r0 + 4 * tx ..
    //       + 3 hold in[r0 + 4 tx + e][c0 + ty], e = 0..3: four floats from
    //       the tile. If inside `out`, store them as one float4 at
    //       out + orow * rows + oc.
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(TILE / 4, TILE);  // 8 x 32 threads
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_vec4<<<grid, block>>>(in, out, rows, cols);
}
