// ex15 naive_transpose -- reference solution
//
// out[c][r] = in[r][c]; in is rows x cols, out is cols x rows (row-major).
//
// A transpose without shared memory cannot be coalesced on both sides: if
// neighbouring lanes read neighbouring floats of a row of `in`, they write
// floats a whole row of `out` apart, and the other way round. This version
// lets lanes walk along a row of OUT (threadIdx.x = r, the column of out),
// so the stores are coalesced and the loads are strided: lane i of a warp
// reads in[r0 + i][c], 32 different rows. The 32-byte sector each lane's
// load brings in also holds the floats of the next columns, which the
// other warps of the block (the other threadIdx.y) read soon after, so
// most of those sectors are read from DRAM once (at 36 bytes of DRAM
// traffic per element, one sector per load, the kernel could not pass 22%
// of the copy). Writes get no such help: a partial-sector store goes to L2
// as it is. That is why the strided side is put on the loads here.
// Measured on an H100 at 16384 x 16381: 73% of the copy bandwidth this way
// (docs/benchmarks.md), 14% for one element per thread the other way.
//
// Each thread handles kPerThread columns of `in` (rows of `out`), issuing
// all its loads before its stores, so that more loads are in flight.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 32;       // a block covers 32 x 32 elements
constexpr int kBlockRows = 8;   // 32 x 8 threads
constexpr int kPerThread = kTile / kBlockRows;

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                int rows, int cols)
{
    const int r = blockIdx.x * kTile + threadIdx.x;       // row of in = column of out
    const int c0 = blockIdx.y * kTile + threadIdx.y;      // first column of in = row of out
    if (r >= rows) return;
    float v[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int c = c0 + k * kBlockRows;
        if (c < cols) v[k] = in[(size_t)r * cols + c];
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int c = c0 + k * kBlockRows;
        if (c < cols) out[(size_t)c * rows + r] = v[k];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((rows + kTile - 1) / kTile, (cols + kTile - 1) / kTile);
    transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
