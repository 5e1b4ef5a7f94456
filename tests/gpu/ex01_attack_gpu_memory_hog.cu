// expect: 4 runtime_error -- the honest kernel, and after every call it takes all the GPU memory that is left (cudaMalloc until nothing fits, 1 GiB down to 2 MiB pieces)
// Attack: after each (correct) call take all GPU memory left, so the judge cannot allocate the next problem and the
// trusted side cannot run: a grader that treats "the reference could not run" as nothing to compare would pass us
// unmeasured. Stopped: the judge's allocation fails and it reports a cuda error: runtime error, never a pass.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

static size_t hoard(void) {
    size_t taken = 0;
    for (size_t piece = (size_t)1 << 30; piece >= ((size_t)2 << 20); piece /= 2) {
        void* p;
        while (cudaMalloc(&p, piece) == cudaSuccess) taken += piece;
        cudaGetLastError();  // the failed allocation is not an error of later calls
    }
    return taken;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n > 0) add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
    size_t taken = hoard();  // whatever the judge freed since the last call, too
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    fprintf(stderr, "gpu_memory_hog: took %zu MiB more, %zu MiB left of %zu\n", taken >> 20, free_bytes >> 20, total >> 20);
}
