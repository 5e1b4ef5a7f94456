// expect: 1 wrong_answer -- a result cache keyed by where the data lives (a, b, c pointers and n): recomputes only when they change, otherwise copies the saved answer back with its own kernel
// Attack: cache the answer by where the data lives (a, b, c, n) and replay it with a copy kernel: against a grader
// that re-times unchanged inputs it moves 8 instead of 12 bytes per element. Stopped: every timed sample has fresh
// inputs (unpredictable seed) in the same arrays and every sample is checked, so the replay is stale at the first
// sample. (A key hashing the inputs' contents would never hit: honest kernel, pass.)
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

__global__ void replay(const float4* saved, float4* c, size_t n4) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        c[i] = saved[i];
}

static const float *key_a, *key_b;
static float* key_c;
static int key_n;
static float* saved;
static size_t saved_bytes;

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    const size_t bytes = (size_t)n * sizeof(float);
    if (a == key_a && b == key_b && c == key_c && n == key_n && n % 4 == 0) {  // "cache hit"
        replay<<<132 * 16, 256>>>((const float4*)saved, (float4*)c, (size_t)n / 4);
        return;
    }
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
    if (bytes > saved_bytes) {
        cudaFree(saved);
        if (cudaMalloc(&saved, bytes) != cudaSuccess) { saved = nullptr; saved_bytes = 0; return; }
        saved_bytes = bytes;
    }
    cudaMemcpyAsync(saved, c, bytes, cudaMemcpyDeviceToDevice);
    key_a = a, key_b = b, key_c = c, key_n = n;
}
