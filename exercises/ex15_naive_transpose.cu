// ex15 naive_transpose: transpose a matrix, one element per thread
//
// What this exercise teaches
//   Why a transpose is the hard case of coalescing. Reading a row of `in`
//   means writing a column of `out`: one side of the copy is always
//   strided. This first version accepts that; the next exercises fix it.
//
// The problem
//   in is a row-major rows x cols matrix, out a row-major cols x rows one:
//   out[c][r] = in[r][c], i.e. out[c * rows + r] = in[r * cols + c].
//   The checked shapes are not multiples of 32 in either dimension (the
//   timed shape is 16384 x 16381).
//
// What to fill in: the kernel body (the TODOs). solve() already launches
//   32 x 8 blocks over the shape of `in`: x across its columns, y down its
//   rows, each rounded up.
//
// How it is graded
//   gpucourse grade ex15
//   Shapes from 1 x 1 to 1000 x 999 are checked element by element (out is
//   filled with NaN first), then 16384 x 16381 is timed (2.1 GB moved).
//   This exercise is expected to be slow: the floor only asks for a
//   correct transpose that uses the whole GPU.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                int rows, int cols)
{
    // TODO: c = the column of `in` this thread handles (the .x parts)
    // TODO: r = the row of `in` (the .y parts)
    // TODO: return if r or c is outside `in`
    // TODO: out[c][r] = in[r][c]. Rows of `out` have `rows` elements, rows of
    //       `in` have `cols`. Compute offsets as (size_t)r * cols + c.
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
