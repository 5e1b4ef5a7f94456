// expect: 4 timeout -- a static constructor spins forever, so the runner never says READY
// Attack: hang before anything is checked: a grader without a deadline hangs with us, one that treats "no result" as
// "no failure" passes us. Stopped: the judge waits for READY without a deadline, but gpucourse runs it under the
// exercise's timeout (15 s in gpu.sh) and kills the whole process group: timeout.
#include <cuda_runtime.h>

static volatile unsigned long long spins;

__attribute__((constructor)) static void never_return(void) {
    for (;;) spins = spins + 1;
}

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n > 0) add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
}
