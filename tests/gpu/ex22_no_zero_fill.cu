// expect: 1 wrong_answer -- skips the slots outside the matrix instead of writing 0 there (TMA zero-fills them)
#include <cuda_runtime.h>
#include <cstddef>
__global__ void tma_image(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, int rows8) {
    const int p = blockIdx.x, r = blockIdx.y * 8 + threadIdx.y, l = threadIdx.x;
    const int c = 32 * p + l;
    if (r >= rows || c >= cols) return;
    out[((size_t)p * rows8 + r) * 32 + (l ^ ((r % 8) * 4))] = in[(size_t)r * cols + c];
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const int panels = (cols + 31) / 32, rows8 = (rows + 7) / 8 * 8;
    tma_image<<<dim3(panels, rows8 / 8), dim3(32, 8)>>>(in, out, rows, cols, rows8);
}
