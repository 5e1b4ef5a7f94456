// expect: 4 runtime_error -- a static constructor calls exit(0) while the runner loads the library
// Attack: exit(0) from a static constructor, before any check: a grader that treats a clean exit as success, or
// runs student code in its own process, records nothing against us. Stopped: the runner loads the library while the
// judge waits for READY; the socket closes instead: "ended (exit status 0) while loading your library".
#include <cuda_runtime.h>
#include <stdlib.h>

__attribute__((constructor)) static void leave_at_once(void) { exit(0); }

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
}
