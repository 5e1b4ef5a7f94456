// expect: 1 wrong_answer -- solve launches nothing; a background thread launches the correct kernel 3 ms after solve returned
// Attack: return at once; a detached thread launches the correct kernel on its own stream 3 ms later: a grader that
// stops its clock when solve returns and reads c a bit later sees a right answer in ~0 ms. Stopped: the runner syncs
// the whole device, and after its answer the judge freezes the whole process (SIGSTOP) before reading c: poison.
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    std::thread([=] {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        add<<<(unsigned)(((size_t)n + 255) / 256), 256, 0, s>>>(a, b, c, n);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }).detach();
}
