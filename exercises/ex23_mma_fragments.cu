// ex23 mma_fragments: one mma.sync per tile, fragments loaded by hand
//
// What this exercise teaches
//   What one tensor-core instruction computes, and which element of the
//   matrices each of the 32 lanes holds: the fragment layout is the whole
//   interface between your code and the tensor core.
//
// The problem
//   A holds `tiles` row-major 16 x 16 bf16 matrices, one after another
//   (tile t starts at A + 256 t); B holds as many row-major 16 x 8 bf16
//   matrices (B + 128 t); write C_t = A_t * B_t, row-major 16 x 8 floats,
//   at C + 128 t.
//   That is exactly one mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32.
//
// What is given
//   mma_16816(d, a, b): the instruction itself (d += A * B on fragments).
//   The kernel: one warp per tile, and the store of the result fragment.
//
// What to fill in
//   The fragments, with g = lane / 4 and t = lane % 4 (PTX ISA, "Matrix
//   Fragments for mma.m16n8k16 with floating point type"):
//     a[0] = A[g][2t], A[g][2t+1]          a[1] = A[g+8][2t], A[g+8][2t+1]
//     a[2] = A[g][2t+8], A[g][2t+9]        a[3] = A[g+8][2t+8], A[g+8][2t+9]
//     b[0] = B[2t][g], B[2t+1][g]          b[1] = B[2t+8][g], B[2t+9][g]
//   Each uint32_t holds two bf16, the first (lower index) in its low 16
//   bits: pack(lo, hi) builds one. As shipped the fragments are zero and
//   every C is 0: wrong answer.
//
// How it is graded
//   gpucourse grade ex23
//   A and B hold small whole numbers (-4 .. 4), so every product and sum is
//   exact: C is checked exactly for 1 to 1000 tiles, then 2^21 tiles
//   (2.7 GB moved) are timed against the reference, a copy and cuBLAS's
//   strided batched GEMM. Your machine code must contain HMMA.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ uint32_t pack(__nv_bfloat16 lo, __nv_bfloat16 hi)
{
    return (uint32_t)__bfloat16_as_ushort(lo) | ((uint32_t)__bfloat16_as_ushort(hi) << 16);
}

// d += A * B for one 16 x 8 x 16 tile; every lane passes its own fragments.
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
    for (long long tile = warp; tile < tiles; tile += warps) {
        [[maybe_unused]] const __nv_bfloat16* At = A + tile * 256;  // this tile's A, row-major 16 x 16
        [[maybe_unused]] const __nv_bfloat16* Bt = B + tile * 128;  // this tile's B, row-major 16 x 8
        uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
        // TODO: a[0..3] from At, as the map above says (two adjacent bf16 per
        //       register: one 32-bit load each, e.g.
        //       *reinterpret_cast<const uint32_t*>(At + row * 16 + col)).
        // TODO: b[0..1] from Bt: B[k][n] is Bt[k * 8 + n], and a register's two
        //       values are a row of B apart, so pack() them.
        float d[4] = {0.f, 0.f, 0.f, 0.f};
        mma_16816(d, a, b);
        // d[0], d[1] are C[g][2t], C[g][2t+1]; d[2], d[3] the same in row g + 8
        float* Ct = C + tile * 128;
        *reinterpret_cast<float2*>(Ct + g * 8 + 2 * t) = make_float2(d[0], d[1]);
        *reinterpret_cast<float2*>(Ct + (g + 8) * 8 + 2 * t) = make_float2(d[2], d[3]);
    }
}

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long blocks_needed = (tiles + 7) / 8;  // 8 warps per block, a tile each
    const long long cap = (long long)sms * 8;
    mma_tiles<<<(int)(blocks_needed < cap ? blocks_needed : cap), 256>>>(A, B, C, tiles);
}
