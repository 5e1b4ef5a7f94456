// expect: 1 wrong_answer -- computes c correctly, then zeroes its inputs a and b
// Attack: compute c, then zero the inputs a and b: with one shared copy of the inputs, a reference computed or compared
// afterwards (or the next contestant) sees different data. Stopped: each contestant has its own copy refilled from
// the judge's master, and the judge compares ours with the master after every call: "violation: input".
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
    cudaMemsetAsync(const_cast<float*>(a), 0, (size_t)n * sizeof(float));  // stream-ordered: after the kernel
    cudaMemsetAsync(const_cast<float*>(b), 0, (size_t)n * sizeof(float));
}
