// ex24 ldmatrix_tiles -- reference solution
//
// The same tile products as ex23, but each warp first copies its tiles into
// shared memory with 16-byte loads (the whole A tile is one 512-byte load
// instruction for the warp) and then hands out the fragments with ldmatrix:
//   A: ldmatrix .x4, the four 8 x 8 blocks (rows 0-7 | 8-15) x (k 0-7 | 8-15)
//      in the order a[0..3] wants them; lanes 8m .. 8m+7 give the row
//      addresses of block m.
//   B: ldmatrix .x2 .trans: B is stored N-major (row k holds 8 n's), and the
//      fragment wants pairs along k, so each 8 x 8 block is transposed on the
//      way; lanes 0-15 give the addresses of rows k = 0 .. 15.
// A row of an A tile is 32 bytes: 8 rows read by one ldmatrix phase would
// meet in the same banks every 4 rows. The 16-byte chunk c of row r is
// therefore stored at chunk c ^ ((r / 4) % 2) (chapter 6's XOR swizzle),
// and ldmatrix reads 8 rows without a conflict.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace {

constexpr int kWarps = 8;
constexpr int kTilesPerStep = 2;  // tiles a warp stages at once

__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Byte offset of 16-byte chunk c (0 or 1) of row r in a swizzled A tile.
__device__ __forceinline__ int a_offset(int r, int c) { return r * 32 + ((c ^ ((r >> 2) & 1)) << 4); }

__global__ void __launch_bounds__(kWarps * 32) mma_tiles(const __nv_bfloat16* __restrict__ A,
                                                         const __nv_bfloat16* __restrict__ B,
                                                         float* __restrict__ C, int tiles)
{
    __shared__ __align__(128) unsigned char a_smem[kWarps][kTilesPerStep][512];
    __shared__ __align__(128) unsigned char b_smem[kWarps][kTilesPerStep][256];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const long long warp = blockIdx.x * (long long)kWarps + w;
    const long long warps = (long long)gridDim.x * kWarps;
    for (long long first = warp * kTilesPerStep; first < tiles; first += warps * kTilesPerStep) {
        // global -> shared: lane l moves chunk l of the A tile (row l / 2, chunk l % 2)
        // and, in lanes 0-15, row l of the B tile
        uint4 av[kTilesPerStep], bv[kTilesPerStep];
#pragma unroll
        for (int j = 0; j < kTilesPerStep; ++j) {
            const long long tile = first + j < tiles ? first + j : first;
            av[j] = reinterpret_cast<const uint4*>(A + tile * 256)[lane];
            if (lane < 16) bv[j] = reinterpret_cast<const uint4*>(B + tile * 128)[lane];
        }
#pragma unroll
        for (int j = 0; j < kTilesPerStep; ++j) {
            *reinterpret_cast<uint4*>(a_smem[w][j] + a_offset(lane / 2, lane % 2)) = av[j];
            if (lane < 16) *reinterpret_cast<uint4*>(b_smem[w][j] + lane * 16) = bv[j];
        }
        __syncwarp();
#pragma unroll
        for (int j = 0; j < kTilesPerStep; ++j) {
            uint32_t a[4], b[2];
            const int m = lane / 8, r = lane % 8;  // block m: rows (m % 2) * 8 + r, chunk m / 2
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                         : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                         : "r"(smem_addr(a_smem[w][j] + a_offset((m & 1) * 8 + r, m >> 1))));
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                         : "=r"(b[0]), "=r"(b[1])
                         : "r"(smem_addr(b_smem[w][j] + (lane % 16) * 16)));
            float d[4] = {0.f, 0.f, 0.f, 0.f};
            mma_16816(d, a, b);
            if (first + j < tiles) {
                float* Ct = C + (first + j) * 128;
                *reinterpret_cast<float2*>(Ct + g * 8 + 2 * t) = make_float2(d[0], d[1]);
                *reinterpret_cast<float2*>(Ct + (g + 8) * 8 + 2 * t) = make_float2(d[2], d[3]);
            }
        }
        __syncwarp();  // the next step overwrites this warp's tiles
    }
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long steps = (tiles + kTilesPerStep - 1) / kTilesPerStep;
    const long long blocks_needed = (steps + kWarps - 1) / kWarps;
    const long long cap = (long long)sms * 8;
    mma_tiles<<<(int)(blocks_needed < cap ? blocks_needed : cap), kWarps * 32>>>(A, B, C, tiles);
}
