// ex21 swizzled_transpose: 16-byte shared accesses, no padding, no conflicts
//
// What this exercise teaches
//   Choosing a swizzle for an access pattern. With 16-byte shared-memory
//   accesses a padded tile stops working (rows must stay 16-byte aligned,
//   and even then padding cannot separate rows that are 4 apart; the lesson
//   shows why). An XOR swizzle of the 16-byte chunk index can.
//
// The problem
//   out[c][r] = in[r][c]; in is rows x cols, out is cols x rows, row-major;
//   rows and cols are multiples of 4, cols not of 64 (16384 x 16388 is timed).
//
// The layout (already chosen)
//   A block of 256 threads owns the 64 x 64 tile of `in` at rows r0 ..,
//   columns c0 ... Shared memory holds that tile TRANSPOSED, exactly 64 x 64
//   floats: T[x][y] = in[r0 + y][c0 + x], logically at float offset 64 x + y.
//   Phase 1 (given): thread t loads the 4 x 4 block of `in` at rows
//     r0 + 4a .. + 3, columns c0 + 4b .. + 3 (b = t % 16, a = t / 16) into
//     v[0..3] (v[i] is row r0 + 4a + i), transposes it in registers and
//     stores it to T: row 4b + e of T, floats 4a .. 4a + 3, is
//     (v[0].e, v[1].e, v[2].e, v[3].e): four float4 stores.
//   Phase 2 (TODO): thread t copies T[p][4q .. 4q + 3] (q = t % 16,
//     p = t / 16 + 16 k, k = 0..3) to out[c0 + p][r0 + 4q .. + 3] as float4s.
//
// Banks: a warp's 16-byte accesses are served 8 lanes at a time, and 8 lanes
//   take one pass when their 16-byte chunks are in 8 different groups of
//   4 banks (chunk h of a row is in group h % 8, rows being 256 bytes).
//   In phase 1, lanes b = 0..7 store to rows 4b + e, all at chunk a: one
//   group, 8 ways. TODO: write swz(), a Swizzle<B,M,S> on the float offset
//   (ex20) that sends those 8 stores to 8 different groups, keeps the 8
//   loads of phase 2 (one row, chunks 8j .. 8j + 7) in 8 different groups,
//   and never changes bits 0..1 (a float4 must stay one aligned float4).
//   Phase 1 already calls swz() for every store; use it in phase 2 too.
//
// How it is graded
//   gpucourse grade ex21
//   Shapes from 4 x 4 to 1004 x 996 are checked, then 16384 x 16388 is
//   timed. The grader requires 16-byte accesses to global AND shared memory
//   (LDG.E.128, STG.E.128, LDS.128, STS.128 in your machine code). It
//   cannot see the layout of your tile: keep it exactly 64 x 64 floats.
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

#define TILE 64
#define THREADS 256

// TODO: the physical float offset of logical offset o in the tile.
__device__ __forceinline__ int swz(int o) { return o; }

__global__ void __launch_bounds__(THREADS) transpose_swizzled(const float* __restrict__ in,
                                                               float* __restrict__ out, int rows, int cols)
{
    __shared__ __align__(16) float tile[TILE * TILE];  // exactly the tile: do not pad it
    const int t = threadIdx.x;
    const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;

    {   // phase 1
        const int b = t % 16, a = t / 16;
        const int r = r0 + 4 * a, c = c0 + 4 * b;
        if (r < rows && c < cols) {  // the whole 4 x 4 block is inside
            float4 v[4];
            for (int i = 0; i < 4; ++i)
                v[i] = *reinterpret_cast<const float4*>(in + (size_t)(r + i) * cols + c);
            // transpose the 4 x 4 block in registers: w_e is column e of it
            const float4 w0 = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
            const float4 w1 = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
            const float4 w2 = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
            const float4 w3 = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
            // row 4b + e of T, floats 4a .. 4a + 3, each at its swizzled place
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 0) * TILE + 4 * a)]) = w0;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 1) * TILE + 4 * a)]) = w1;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 2) * TILE + 4 * a)]) = w2;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 3) * TILE + 4 * a)]) = w3;
        }
    }
    __syncthreads();

    {   // phase 2
        // TODO: q = t % 16; for k = 0..3: p = t / 16 + 16 * k. If row c0 + p
        //       and column r0 + 4 * q are inside `out` (cols x rows), load the
        //       float4 at &tile[swz(p * TILE + 4 * q)] and store it at
        //       out + (c0 + p) * rows + r0 + 4 * q.
    }
}

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_swizzled<<<grid, THREADS>>>(in, out, rows, cols);
}
