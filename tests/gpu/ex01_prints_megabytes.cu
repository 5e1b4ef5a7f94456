// expect: 0 pass -- correct, and prints 20 MB to stdout: the output is capped, grading goes on
#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int calls;
    if (calls++ < 2)
        for (int k = 0; k < 200000; k++) printf("debug line %d: lots of output from the student's code ....\n", k);
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
