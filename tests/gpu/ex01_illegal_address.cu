// expect: 4 runtime_error -- writes far outside c
// why: "class": "out_of_bounds"
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i + (1ull << 36)] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) { add<<<(n + 255) / 256, 256>>>(a, b, c, n); }
