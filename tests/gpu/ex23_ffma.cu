// expect: 5 requirement_not_met -- the tile products on the CUDA cores (FFMA), correct and memory-bound: the HMMA requirement rejects it
// why: "section": "A GEMM with mma.sync"
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void tiles_ffma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                           float* __restrict__ C, int tiles)
{
    // one thread per element of C: row r, column c of tile t
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= 128LL * tiles) return;
    const long long t = i / 128;
    const int r = (int)(i % 128) / 8, c = (int)(i % 8);
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < 16; ++k)
        acc += __bfloat162float(A[t * 256 + r * 16 + k]) * __bfloat162float(B[t * 128 + k * 8 + c]);
    C[i] = acc;
}

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    const long long n = 128LL * tiles;
    tiles_ffma<<<(unsigned)((n + 255) / 256), 256>>>(A, B, C, tiles);
}
