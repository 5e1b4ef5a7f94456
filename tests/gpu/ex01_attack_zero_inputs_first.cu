// expect: 1 wrong_answer -- zeroes its inputs a and b first, then computes c = a + b (all zeros)
// Attack: zero a and b first, then c = 0 + 0: with one shared copy of the inputs, a reference computed afterwards
// from the same arrays would agree. Stopped: the references (CPU at the check sizes, the reference runner at the timed
// size) use the judge's master copy, so c is wrong; the input check also reports it ("violation: input").
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    cudaMemsetAsync(const_cast<float*>(a), 0, (size_t)n * sizeof(float));
    cudaMemsetAsync(const_cast<float*>(b), 0, (size_t)n * sizeof(float));
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
}
