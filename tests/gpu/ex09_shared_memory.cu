// expect: 5 requirement_not_met -- correct, but the warp's 32 partial sums are combined in shared memory: no SHFL, not what ex09 teaches
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
#define ROWS_PER_BLOCK (BLOCK / 32)
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    __shared__ float part[BLOCK];
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    float s = 0.f;
    if (row < (size_t)rows)
        for (int c = lane; c < cols; c += 32) s += x[row * cols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    if (lane == 0 && row < (size_t)rows) {
        float t = 0.f;
        for (int l = 0; l < 32; l++) t += part[threadIdx.x + l];
        sums[row] = t;
    }
}
extern "C" void solve(const float* x, float* sums, int rows, int cols) {
    if (rows <= 0) return;
    row_sum_kernel<<<(unsigned)(((size_t)rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK), BLOCK>>>(x, sums, rows, cols);
}
