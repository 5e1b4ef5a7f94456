// expect: 4 timeout -- a kernel that never finishes
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    volatile int forever = 1;
    while (forever) {}
}
extern "C" void solve(const float* a, const float* b, float* c, int n) { add<<<1, 32>>>(a, b, c, n); }
