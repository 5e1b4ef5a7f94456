// expect: 1 wrong_answer -- off by one in the float4 guard (c + 4 < cols): the last float4 of every row is dropped
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose_vec4(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    const int r = r0 + ty, c = c0 + 4 * tx;
    if (r < rows && c + 4 < cols) {  // should be c + 3 < cols (or c < cols, cols being a multiple of 4)
        const float4 v = *reinterpret_cast<const float4*>(in + (size_t)r * cols + c);
        tile[ty][4 * tx] = v.x; tile[ty][4 * tx + 1] = v.y; tile[ty][4 * tx + 2] = v.z; tile[ty][4 * tx + 3] = v.w;
    }
    __syncthreads();
    const int orow = c0 + ty, oc = r0 + 4 * tx;
    if (orow < cols && oc < rows) {
        const float4 v = make_float4(tile[4 * tx][ty], tile[4 * tx + 1][ty], tile[4 * tx + 2][ty], tile[4 * tx + 3][ty]);
        *reinterpret_cast<float4*>(out + (size_t)orow * rows + oc) = v;
    }
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    transpose_vec4<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(8, 32)>>>(in, out, rows, cols);
}
