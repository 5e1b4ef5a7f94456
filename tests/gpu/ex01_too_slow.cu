// expect: 2 too_slow -- correct, but only 4096 threads for 2^28 elements
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) { add<<<64, 64>>>(a, b, c, n); }
