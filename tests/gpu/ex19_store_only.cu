// expect: 1 wrong_answer -- swizzles the stores of phase 1 but reads phase 2 at the plain column
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose_xor(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    for (int k = 0; k < 32; k += 8) {
        const int i = ty + k, r = r0 + i, c = c0 + tx;
        if (r < rows && c < cols) tile[i][tx ^ i] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int k = 0; k < 32; k += 8) {
        const int j = ty + k, orow = c0 + j, oc = r0 + tx;
        if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][j];  // should be tile[tx][j ^ tx]
    }
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    transpose_xor<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(in, out, rows, cols);
}
