// ex02 flip_lr: mirror every row of a matrix
//
// What this exercise teaches
//   2D blocks and grids (dim3): a thread finds its row and column from the
//   x and y parts of blockIdx and threadIdx, and checks BOTH against the
//   matrix shape, because the shape need not divide the block.
//
// The problem
//   in and out are row-major rows x cols matrices (element [r][c] is at
//   offset r * cols + c). Compute out[r][c] = in[r][cols - 1 - c].
//
// What to fill in
//   1. In the kernel: the column c (from the x parts) and the row r (from
//      the y parts); return if either is outside the matrix; copy the
//      mirrored element.
//   2. In solve(): a grid that covers all columns (x) and all rows (y).
//   Keep threadIdx.x on columns: neighbouring threads then touch
//   neighbouring addresses (chapter 2 explains why that matters).
//
// How it is graded
//   gpucourse grade ex02
//   Shapes like 1 x 1, 31 x 33 and 1000 x 1001 are checked element by
//   element (out is filled with NaN first), then 16384 x 16383 is timed.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

__global__ void flip_lr_kernel(const float* __restrict__ in,
                               float* __restrict__ out, int rows, int cols)
{
    // TODO: c = column of this thread (blockIdx.x, blockDim.x, threadIdx.x)
    // TODO: r = row of this thread    (blockIdx.y, blockDim.y, threadIdx.y)
    // TODO: if r or c is outside the matrix, this thread has nothing to do.
    // TODO: out[r][c] = in[r][cols - 1 - c]. Compute the offsets as
    //       (size_t)r * cols + ... so that they cannot overflow an int.
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    const dim3 block(32, 8);  // 32 columns x 8 rows = 256 threads
    // TODO: grid.x must cover cols columns, grid.y must cover rows rows
    //       (each rounded up). As written, only one 32 x 8 corner is covered.
    const dim3 grid(1, 1);
    flip_lr_kernel<<<grid, block>>>(in, out, rows, cols);
}
