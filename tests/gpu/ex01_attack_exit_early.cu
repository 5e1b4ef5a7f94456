// expect: 4 runtime_error -- correct at every check size, then _exit(0) at the timed size (n > 2^20)
// Attack: pass the checks (up to n = 1000003), then _exit(0) at the first call with n > 2^20, before anything is
// timed: a grader that reads "exit status 0 after the checks" as success passes it. Stopped: the judge sees its
// runner's socket close during a call: "runner: the process running your code ended (exit status 0) during ...".
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n > (1 << 20)) _exit(0);
    if (n <= 0) return;
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
}
