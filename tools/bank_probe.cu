// How shared memory serves a warp, as Nsight Compute counts it: one warp,
// one access pattern per kernel launch. Build and profile (GPU with ncu):
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -o bank_probe tools/bank_probe.cu
//   ncu --metrics smsp__sass_inst_executed_op_shared_ld.sum,\
//   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum ./bank_probe
//   (the same three with _op_st for the stores)
//
// A wavefront is one pass of shared memory; the bank-conflict counter is the
// wavefronts beyond the fewest the access needs (4 for a warp's 16-byte
// accesses, 1 for 4-byte ones). What docs/benchmarks.md reports for an H100:
//
//   16-byte loads (LDS.128), chunk c = bytes 16c..16c+15, bank group c % 8
//   (launches 5-9: v4_store, the same chunks stored with STS.128, took the
//   same wavefronts as launches 0-4):
//   launch 0  lane l reads chunk l                 4 wavefronts
//   launch 1  lane l reads chunk 8l (one group)    32
//   launch 2  lane l reads chunk l/4 + 8(l%4)      16  (4 lanes per group, but
//             each quarter warp has 2 groups of 4: quarters are served apart)
//   launch 3  lane l reads chunk 8(l%8) + l/8      32  (8 lanes of a quarter
//             in one group, the quarters in different groups)
//   launch 4  lane l reads chunk l%8               4   (every quarter the same
//             8 chunks)
//   4-byte accesses, 32 x 8 threads, the tile phases of ex16 and ex17:
//   launch 10 tile[32][32], columns read           32 loads, 1024 wavefronts
//   launch 11 tile[32][33], columns read           32 loads, 32 wavefronts
#include <cstdio>
#include <cuda_runtime.h>

__global__ void v4_load(float* out, int pattern)
{
    __shared__ float4 s[512];
    const int l = threadIdx.x;
    for (int i = l; i < 512; i += 32) s[i] = make_float4(i, i, i, i);
    __syncthreads();
    const int c = pattern == 0 ? l
                : pattern == 1 ? 8 * l
                : pattern == 2 ? l / 4 + 8 * (l % 4)
                : pattern == 3 ? 8 * (l % 8) + l / 8
                               : l % 8;
    const float4 v = s[c];
    out[l] = v.x + v.y + v.z + v.w;
}

// The same chunks, stored to instead of loaded from.
__global__ void v4_store(float* out, int pattern)
{
    __shared__ float4 s[512];
    const int l = threadIdx.x;
    const int c = pattern == 0 ? l
                : pattern == 1 ? 8 * l
                : pattern == 2 ? l / 4 + 8 * (l % 4)
                : pattern == 3 ? 8 * (l % 8) + l / 8
                               : l % 8;
    s[c] = make_float4(l, l, l, l);
    __syncthreads();
    out[l] = s[l].x;
}

template <int W>
__global__ void tile_columns(const float* in, float* out)
{
    __shared__ float tile[32][W];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int k = 0; k < 32; k += 8) tile[y + k][x] = in[(y + k) * 32 + x];  // rows
    __syncthreads();
    for (int k = 0; k < 32; k += 8) out[(y + k) * 32 + x] = tile[x][y + k];  // columns
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 4096 * sizeof(float));
    cudaMalloc(&out, 4096 * sizeof(float));
    cudaMemset(in, 0, 4096 * sizeof(float));
    for (int p = 0; p < 5; ++p) v4_load<<<1, 32>>>(out, p);
    for (int p = 0; p < 5; ++p) v4_store<<<1, 32>>>(out, p);
    tile_columns<32><<<1, dim3(32, 8)>>>(in, out);
    tile_columns<33><<<1, dim3(32, 8)>>>(in, out);
    const cudaError_t e = cudaDeviceSynchronize();
    printf("bank_probe: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
