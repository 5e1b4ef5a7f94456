// ex21 swizzled_transpose -- reference solution
//
// out[c][r] = in[r][c] with 16-byte accesses everywhere: global loads and
// stores AND shared-memory loads and stores, through a 64 x 64 tile that is
// exactly 64 * 64 floats (16 KB), kept free of bank conflicts by a swizzle.
// rows and cols are multiples of 4.
//
// Block of 256 threads, tile of `in` at rows r0 .., columns c0 .. (64 each).
//
// Phase 1. Thread t takes the 4 x 4 block of `in` at rows r0 + 4a .. + 3,
//   columns c0 + 4b .. + 3 (b = t % 16, a = t / 16): four float4 loads, one
//   per row (a half-warp reads 256 contiguous bytes of one row). In
//   registers, column e of that block is row e of its transpose. The tile
//   holds the TRANSPOSED tile, T[x][y] = in[r0 + y][c0 + x], so the thread
//   stores four float4s: T[4b + e][4a .. 4a + 3] for e = 0..3.
// Phase 2. Thread t reads the float4 T[p][4q .. 4q + 3] (q = t % 16, p =
//   t / 16 + 16k) and stores it to out[c0 + p][r0 + 4q .. + 3]: a half-warp
//   writes 256 contiguous bytes of one row of `out`.
//
// Banks with 16-byte accesses: the 32 banks make 8 groups of 16 bytes, and
// a warp's 16-byte requests are served 8 lanes (a quarter warp) at a time;
// 8 lanes that hit 8 different groups take one pass. A tile row is 64
// floats = 16 chunks of 16 bytes; chunk h of any row is in group h % 8.
//   Phase 1 without a swizzle: lanes b = 0..7 store T[4b + e][chunk a]:
//   rows 4 apart, same chunk, same group: an 8-way conflict. Padding rows
//   cannot fix this: a row stride of 16 + p chunks puts row 4b in group
//   (4b(16 + p) + a) % 8, which takes at most two values over b.
//   Phase 2: lanes q = 0..7 read chunks 0..7 of one row: no conflict.
// The swizzle: store chunk h of row x at chunk h ^ ((x >> 2) & 7). Rows 4b
// (b = 0..7) then put chunk a in groups a ^ b: all 8 different. In phase 2
// the row is fixed, so XOR with one constant keeps the 8 groups different.
// As a function of the float offset o = 64 x + 4 h + e this is
// Swizzle<3,2,6>: bits 8..10 of o (x >> 2) XORed into bits 2..4 (h % 8).
// Bits 0..1 never change, so a float4 stays one aligned float4.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kTile = 64;
constexpr int kThreads = 256;

// Swizzle<3,2,6> on a float offset within the tile.
__device__ __forceinline__ int swz(int o) { return o ^ ((o >> 6) & (7 << 2)); }

__global__ void __launch_bounds__(kThreads) transpose_swizzled(const float* __restrict__ in,
                                                                float* __restrict__ out, int rows, int cols)
{
    __shared__ __align__(16) float tile[kTile * kTile];  // exactly the tile: T[x][y] at swz(64 x + y)
    const int t = threadIdx.x;
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;

    {   // phase 1
        const int b = t % 16, a = t / 16;
        const int r = r0 + 4 * a, c = c0 + 4 * b;
        if (r < rows && c < cols) {  // rows, cols multiples of 4: the whole 4 x 4 block is inside
            float4 v[4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                v[i] = *reinterpret_cast<const float4*>(in + (size_t)(r + i) * cols + c);
            const float4 w0 = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
            const float4 w1 = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
            const float4 w2 = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
            const float4 w3 = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 0) * kTile + 4 * a)]) = w0;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 1) * kTile + 4 * a)]) = w1;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 2) * kTile + 4 * a)]) = w2;
            *reinterpret_cast<float4*>(&tile[swz((4 * b + 3) * kTile + 4 * a)]) = w3;
        }
    }
    __syncthreads();

    {   // phase 2
        const int q = t % 16;
        const int oc = r0 + 4 * q;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int p = t / 16 + 16 * k;
            const int orow = c0 + p;
            if (orow < cols && oc < rows) {
                const float4 v = *reinterpret_cast<const float4*>(&tile[swz(p * kTile + 4 * q)]);
                *reinterpret_cast<float4*>(out + (size_t)orow * rows + oc) = v;
            }
        }
    }
}

// Any shape: the XOR-swizzled scalar kernel of ex19.
__global__ void transpose_scalar(const float* __restrict__ in, float* __restrict__ out,
                                 int rows, int cols)
{
    __shared__ float tile[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int i = ty + k, r = r0 + i, c = c0 + tx;
        if (r < rows && c < cols) tile[i][tx ^ i] = in[(size_t)r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int j = ty + k, orow = c0 + j, oc = r0 + tx;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][j ^ tx];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    if (rows % 4 == 0 && cols % 4 == 0) {
        const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
        transpose_swizzled<<<grid, kThreads>>>(in, out, rows, cols);
    } else {
        const dim3 grid((cols + 31) / 32, (rows + 31) / 32);
        transpose_scalar<<<grid, dim3(32, 8)>>>(in, out, rows, cols);
    }
}
