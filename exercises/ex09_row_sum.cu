// ex09 row_sum: sum every row of a matrix, one warp per row, with shuffles
//
// What this exercise teaches
//   Warp shuffles. The 32 lanes of a warp can read each other's registers:
//   __shfl_down_sync(mask, v, d) gives lane L the value v of lane L + d, and
//   __shfl_xor_sync(mask, v, d) the value of lane L ^ d. Five of them add up
//   32 values, with no shared memory and no __syncthreads().
//
// The problem
//   x is a row-major rows x cols matrix of floats (element [r][c] at offset
//   r * cols + c). sums[r] = x[r][0] + x[r][1] + ... + x[r][cols - 1].
//
// The layout (already chosen for you, see solve())
//   Blocks of 256 threads = 8 warps; warp w of block b sums row 8b + w.
//   Lane L adds the elements L, L + 32, L + 64, ... of the row, so the 32
//   lanes read 32 neighbouring floats at every step (coalesced).
//
// What to fill in: the kernel body (the TODOs).
//   The grader requires SHFL instructions in your machine code: the warp's
//   32 partial sums must be combined with shuffles, not shared memory.
//
// How it is graded
//   gpucourse grade ex09
//   sums is filled with NaN first. Shapes from 1 x 1 to 257 x 1000 and
//   9 x 4097 are checked (floats: a small tolerance for the order of the
//   additions), then 262144 x 1000 (1.05 GB) is timed against the
//   reference, a copy and CUB.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define BLOCK 256
#define ROWS_PER_BLOCK (BLOCK / 32)  // one warp per row

__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ sums, int rows, int cols)
{
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    if (row >= (size_t)rows) return;  // all 32 lanes of this warp leave together

    // TODO 1: s = the sum of the elements lane, lane + 32, lane + 64, ... of
    //         this row (stop before cols; the row starts at x + row * cols).
    //         Rows need not be a multiple of 32 long.
    //
    // TODO 2: add up s over the 32 lanes with five shuffles
    //         (offsets 16, 8, 4, 2, 1) and mask 0xffffffff: every lane of the
    //         warp is still here, so every lane must take part.
    //
    // TODO 3: one lane writes sums[row]. (With __shfl_down_sync only lane 0
    //         holds the full sum; with __shfl_xor_sync every lane does.)
    (void)lane;
}

extern "C" void solve(const float* x, float* sums, int rows, int cols)
{
    if (rows <= 0) return;
    const unsigned grid = (unsigned)(((size_t)rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    row_sum_kernel<<<grid, BLOCK>>>(x, sums, rows, cols);
}
