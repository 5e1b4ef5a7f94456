// expect: 1 wrong_answer -- a[1] and a[2] swapped: rows g+8 and columns 2t+8 exchanged, the mistake the fragment table invites
// ex23 mma_fragments -- reference solution
//
// One mma.sync.m16n8k16 per tile, each lane loading its own fragments
// straight from global memory. The fragment maps (PTX ISA, "Matrix Fragments
// for mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
//   A (16 x 16, row): a[0] = A[g][2t..2t+1]    a[1] = A[g+8][2t..2t+1]
//                     a[2] = A[g][2t+8..2t+9]  a[3] = A[g+8][2t+8..2t+9]
//   B (16 x 8, col):  b[0] = B[2t..2t+1][g]    b[1] = B[2t+8..2t+9][g]
//   C (16 x 8):       c[0..1] = C[g][2t..2t+1] c[2..3] = C[g+8][2t..2t+1]
// Each 32-bit register holds two bf16, the lower index in the low half. A's
// pairs are adjacent in memory (one 32-bit load each); B's are a row apart
// (two 16-bit loads). A warp works on two tiles at a time, all loads first,
// so that more loads are in flight while the first ones wait on memory.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace {

constexpr int kTilesPerWarp = 2;

__device__ __forceinline__ uint32_t pack(__nv_bfloat16 lo, __nv_bfloat16 hi)
{
    return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void mma_tiles(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                          float* __restrict__ C, int tiles)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    for (long long first = warp * kTilesPerWarp; first < tiles; first += warps * kTilesPerWarp) {
        uint32_t a[kTilesPerWarp][4], b[kTilesPerWarp][2];
#pragma unroll
        for (int j = 0; j < kTilesPerWarp; ++j) {
            const long long tile = first + j < tiles ? first + j : first;  // the warp stays together
            const __nv_bfloat16* At = A + tile * 256;
            const __nv_bfloat16* Bt = B + tile * 128;
            a[j][0] = *reinterpret_cast<const uint32_t*>(At + g * 16 + 2 * t);
            a[j][2] = *reinterpret_cast<const uint32_t*>(At + (g + 8) * 16 + 2 * t);
            a[j][1] = *reinterpret_cast<const uint32_t*>(At + g * 16 + 2 * t + 8);
            a[j][3] = *reinterpret_cast<const uint32_t*>(At + (g + 8) * 16 + 2 * t + 8);
            b[j][0] = pack(Bt[(2 * t) * 8 + g], Bt[(2 * t + 1) * 8 + g]);
            b[j][1] = pack(Bt[(2 * t + 8) * 8 + g], Bt[(2 * t + 9) * 8 + g]);
        }
#pragma unroll
        for (int j = 0; j < kTilesPerWarp; ++j) {
            float d[4] = {0.f, 0.f, 0.f, 0.f};
            mma_16816(d, a[j], b[j]);
            if (first + j < tiles) {
                float* Ct = C + (first + j) * 128;
                *reinterpret_cast<float2*>(Ct + g * 8 + 2 * t) = make_float2(d[0], d[1]);
                *reinterpret_cast<float2*>(Ct + (g + 8) * 8 + 2 * t) = make_float2(d[2], d[3]);
            }
        }
    }
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long warps_needed = (tiles + kTilesPerWarp - 1) / kTilesPerWarp;
    const long long blocks_needed = (warps_needed + 7) / 8;
    const long long cap = (long long)sms * 8;  // 8 blocks of 256 threads per SM: 64 warps, full occupancy
    mma_tiles<<<(int)(blocks_needed < cap ? blocks_needed : cap), 256>>>(A, B, C, tiles);
}
