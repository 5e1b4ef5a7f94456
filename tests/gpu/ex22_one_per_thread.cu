// expect: 0 pass -- the plain one-thread-per-slot answer the stub leads to must pass
#include <cuda_runtime.h>
#include <cstddef>
__global__ void tma_image(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, int rows8) {
    const int p = blockIdx.x, r = blockIdx.y * 8 + threadIdx.y, l = threadIdx.x;
    const int c = 32 * p + l;
    const float v = (r < rows && c < cols) ? in[(size_t)r * cols + c] : 0.0f;
    const int slot = 4 * ((l / 4) ^ (r % 8)) + l % 4;
    out[((size_t)p * rows8 + r) * 32 + slot] = v;
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const int panels = (cols + 31) / 32, rows8 = (rows + 7) / 8 * 8;
    tma_image<<<dim3(panels, rows8 / 8), dim3(32, 8)>>>(in, out, rows, cols, rows8);
}
