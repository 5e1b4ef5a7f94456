// expect: 1 wrong_answer -- the lanes only walk whole groups of 32 columns: the last cols % 32 elements of every row are dropped
#include <cuda_runtime.h>
#include <cstddef>
#define BLOCK 256
#define ROWS_PER_BLOCK (BLOCK / 32)
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ sums, int rows, int cols) {
    const int lane = threadIdx.x % 32;
    const size_t row = (size_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    if (row >= (size_t)rows) return;
    const float* r = x + row * cols;
    float s = 0.f;
    for (int c = lane; c < cols / 32 * 32; c += 32) s += r[c];  // the tail of the row is lost
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane == 0) sums[row] = s;
}
extern "C" void solve(const float* x, float* sums, int rows, int cols) {
    if (rows <= 0) return;
    row_sum_kernel<<<(unsigned)(((size_t)rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK), BLOCK>>>(x, sums, rows, cols);
}
