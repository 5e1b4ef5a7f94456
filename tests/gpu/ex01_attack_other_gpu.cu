// expect: 1 wrong_answer "one GPU visible" -- adds nothing unless it can reach a second GPU: widens CUDA_VISIBLE_DEVICES from a constructor, asks the runtime how many GPUs it sees, and would do the work on another one (a machine of several, where other students are timed)
// Attack: on a machine with several GPUs the judge points each grading at one (CUDA_VISIBLE_DEVICES=its UUID,
// passed to the runners). A student's runner that reached the others could take their compute, or disturb the
// gradings timed there. Tried here: setenv("CUDA_VISIBLE_DEVICES", "0,1,...") in a static initializer, then
// cudaGetDeviceCount and cudaSetDevice(1). Stopped: the runner's CUDA context exists before the student's library
// is loaded, and the runtime reads CUDA_VISIBLE_DEVICES once, at its start; the count stays 1, so nothing is added
// and the answer is wrong (also on a machine with one GPU, where there is nothing to reach).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void widen(void) { setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", 1); }

__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    int here = 0, count = 0;
    cudaGetDevice(&here);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
        printf("one GPU visible: nothing to reach\n");
        fflush(stdout);  // the runner may be stopped before its buffer would be
        return;
    }
    int other = here == 0 ? 1 : 0;  // another GPU: compute there, copy back
    size_t bytes = (size_t)n * sizeof(float);
    float *a2, *b2, *c2;
    cudaSetDevice(other);
    cudaMalloc(&a2, bytes), cudaMalloc(&b2, bytes), cudaMalloc(&c2, bytes);
    cudaMemcpyPeer(a2, other, a, here, bytes);
    cudaMemcpyPeer(b2, other, b, here, bytes);
    add<<<(n + 255) / 256, 256>>>(a2, b2, c2, n);
    cudaMemcpyPeer(c, here, c2, other, bytes);
    cudaFree(a2), cudaFree(b2), cudaFree(c2);
    cudaSetDevice(here);
    printf("reached GPU %d of %d\n", other, count);
}
