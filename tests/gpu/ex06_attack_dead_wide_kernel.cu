// expect: 5 requirement_not_met "sectors per request" -- red team: a float4 kernel compiled (so LDG.E.128 and STG.E.128 are in the machine code) but launched only for a NaN `a`, which the grader never passes; the plain 4-byte kernel does the work, correct and fast enough (ex06_scalar): the counted calls' loads are 4 sectors a request
#include <cuda_runtime.h>
__global__ void affine_wide(const float4* __restrict__ x, float4* __restrict__ y, float a, float b, int n4) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n4) {
        float4 v = x[i];
        v.x = a * v.x + b, v.y = a * v.y + b, v.z = a * v.z + b, v.w = a * v.w + b;
        y[i] = v;
    }
}
__global__ void affine(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) y[i] = a * x[i] + b;
}
extern "C" void solve(const float* x, float* y, float a, float b, int n) {
    if (n <= 0) return;
    if (a != a) affine_wide<<<(unsigned)((n / 4 + 255) / 256 + 1), 256>>>((const float4*)x, (float4*)y, a, b, n / 4);
    affine<<<(unsigned)((n + 255) / 256), 256>>>(x, y, a, b, n);
}
