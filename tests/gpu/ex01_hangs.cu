// expect: 4 timeout -- a kernel that never finishes
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    for (;;) __nanosleep(1000);  // inline asm: the compiler cannot remove the loop
}
extern "C" void solve(const float* a, const float* b, float* c, int n) { add<<<1, 32>>>(a, b, c, n); }
