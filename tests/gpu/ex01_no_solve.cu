// expect: 3 compile_error -- compiles, but solve is not extern "C"
#include <cuda_runtime.h>
void solve(const float* a, const float* b, float* c, int n) {}
