// expect: 0 pass -- a PADDED tile (ex17's answer) also passes ex19: the grader measures speed and cannot see the layout
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols) tile[ty + k][tx] = in[(size_t)r * cols + c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k += 8) {
        const int orow = c0 + ty + k, oc = r0 + tx;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][ty + k];
    }
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    transpose_padded<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(in, out, rows, cols);
}
