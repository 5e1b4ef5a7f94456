// expect: 1 wrong_answer -- reads in[c * rows + r], the output's offset formula, instead of in[r * cols + c]
#include <cuda_runtime.h>
#include <cstddef>
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    out[(size_t)c * rows + r] = in[(size_t)c * rows + r];  // in bounds, wrong element
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    transpose<<<grid, block>>>(in, out, rows, cols);
}
