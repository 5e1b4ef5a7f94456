// expect: 1 wrong_answer -- computes once, then returns the stale result for the same pointers
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}
static float* cache_for;
static float* saved;
static int saved_n;
extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (c == cache_for && n == saved_n) {  // "cached": copy the old answer back
        cudaMemcpyAsync(c, saved, (size_t)n * 4, cudaMemcpyDeviceToDevice);
        return;
    }
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    if (n > (1 << 20)) {
        cudaFree(saved);
        cudaMalloc(&saved, (size_t)n * 4);
        cudaMemcpyAsync(saved, c, (size_t)n * 4, cudaMemcpyDeviceToDevice);
        cache_for = c;
        saved_n = n;
    }
}
