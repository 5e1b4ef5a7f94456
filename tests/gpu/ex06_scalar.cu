// expect: 5 requirement_not_met -- correct and fast enough, but no 16-byte loads: not what ex06 teaches
#include <cuda_runtime.h>
__global__ void affine(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) y[i] = a * x[i] + b;
}
extern "C" void solve(const float* x, float* y, float a, float b, int n) {
    if (n > 0) affine<<<(unsigned)((n + 255) / 256), 256>>>(x, y, a, b, n);
}
