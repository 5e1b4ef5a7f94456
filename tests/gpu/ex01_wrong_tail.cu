// expect: 1 wrong_answer -- drops the tail: the grid is rounded down
// why: "pattern": "tail"
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n >= 256) add<<<n / 256, 256>>>(a, b, c, n);
}
