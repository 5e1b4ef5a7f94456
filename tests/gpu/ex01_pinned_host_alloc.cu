// expect: 4 runtime_error "cudaHostRegister" -- pinned host memory from the driver (cudaMallocHost) is shared anonymous memory, which the runner's memory limit does not count: the sandbox refuses it (cudaMallocHost says out of memory), and the grade's note says why and what works instead
#include <cuda_runtime.h>
#include <cstdio>

__global__ void add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int* flag = nullptr;
    if (!flag) {
        cudaError_t e = cudaMallocHost(&flag, sizeof(int));
        if (e != cudaSuccess) {  // a student's own check: the error goes on to the judge
            fprintf(stderr, "cudaMallocHost: %s\n", cudaGetErrorString(e));
            return;
        }
    }
    if (n > 0) add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
