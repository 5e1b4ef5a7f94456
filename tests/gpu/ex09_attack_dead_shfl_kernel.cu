// expect: 5 requirement_not_met "LDS" -- red team: the warp's partial sums combined in shared memory (ex09_shared_memory, correct and fast enough), beside a shuffle kernel that puts SHFL in the machine code and is launched only for a negative number of columns, which the grader never passes: ex09 forbids shared memory and atomics, so the lanes can only meet through shuffles
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
#define ROWS_PER_BLOCK (BLOCK / 32)
__global__ void row_sum_shfl(const float* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    const size_t row = (size_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    float s = row < (size_t)rows ? x[row] : 0.f;
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (threadIdx.x % 32 == 0 && row < (size_t)rows) sums[row] = s;
}
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
    const unsigned grid = (unsigned)(((size_t)rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    if (cols < 0) row_sum_shfl<<<grid, BLOCK>>>(x, sums, rows, cols);
    row_sum_kernel<<<grid, BLOCK>>>(x, sums, rows, cols);
}
