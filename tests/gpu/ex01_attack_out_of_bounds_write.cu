// expect: 1 wrong_answer -- the honest kernel, plus one float written just past the end of c (c[n]) at every call
// Attack: the honest kernel plus c[n] = 0 at every call: invisible to a grader that compares c[0..n) only, and in a
// shared allocation it scribbles on the neighbour. Stopped: each array is its own allocation, the bytes past its end
// (to the 2 MiB granularity) are 0xA5 before the call and checked after: "violation: bounds".
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
    if (i == (size_t)n) c[i] = 0.0f;  // one past the end
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    add<<<(unsigned)(((size_t)n + 1 + 255) / 256), 256>>>(a, b, c, n);  // one more thread than elements
}
