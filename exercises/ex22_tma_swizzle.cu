// ex22 tma_swizzle: the 128-byte swizzle of TMA and wgmma
//
// What this exercise teaches
//   The one shared-memory layout you will meet again in chapters 8 and 9.
//   A TMA load with CU_TENSOR_MAP_SWIZZLE_128B copies a box whose rows are
//   128 bytes (32 floats) into shared memory, and within every group of 8
//   rows (1024 bytes) it stores the 16-byte chunk h of row r at chunk
//   h ^ (r % 8). wgmma reads its operands in the same layout. Here you
//   produce that image for a whole matrix, exactly, in global memory.
//
// The problem
//   in is a row-major rows x cols matrix. Cut it into panels of 32 columns:
//   panel p holds columns 32p .. 32p + 31; there are panels = ceil(cols / 32)
//   and the last one may stick out past cols. Each panel becomes rows8 rows
//   of 32 floats (rows8 = rows rounded up to a multiple of 8, so that every
//   panel starts on a 1024-byte boundary), and the panels follow each other
//   in out:
//     out[(p * rows8 + r) * 32 + 4 * (h ^ (r % 8)) + e] = in[r][32p + 4h + e]
//   for h = 0..7, e = 0..3. Elements outside the matrix (column >= cols or
//   row >= rows) are 0.0f, as TMA fills them.
//
// What to fill in: the kernel body (the TODOs). solve() launches one
//   thread per slot of the image: blocks of 32 x 8 threads, grid.x over the
//   panels, grid.y over the rows8 rows in steps of 8.
//
// How it is graded
//   gpucourse grade ex22
//   out is checked exactly (mismatches are reported as out[k], with
//   k = (p * rows8 + r) * 32 + slot) for shapes from 1 x 1 to 1000 x 999,
//   then 16197 x 16381 is timed (2.1 GB moved).
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

__global__ void tma_image(const float* __restrict__ in, float* __restrict__ out,
                          int rows, int cols, int rows8)
{
    // TODO: p = blockIdx.x (the panel), r = blockIdx.y * 8 + threadIdx.y (the
    //       row), and let lane l = threadIdx.x be column 32p + l of `in`.
    // TODO: v = in[r][32p + l], or 0.0f when that is outside the matrix.
    // TODO: which slot of row r of the panel does column l go to? Its chunk
    //       is l / 4, its place in the chunk l % 4.
    // TODO: out[(p * rows8 + r) * 32 + slot] = v.
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const int panels = (cols + 31) / 32;
    const int rows8 = (rows + 7) / 8 * 8;
    const dim3 block(32, 8);
    const dim3 grid(panels, rows8 / 8);
    tma_image<<<grid, block>>>(in, out, rows, cols, rows8);
}
