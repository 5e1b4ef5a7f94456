// expect: 2 too_slow -- a slow correct kernel; background threads keep the GPU busy with 1 ms spin kernels and burn every CPU core, to slow down the reference and the copy it is compared with
// Attack: slow the reference and the copy instead of speeding up: one thread keeps a ~1 ms spin kernel on every SM,
// one per core burns CPU. Where contestants run side by side, a kernel at a few percent could clear the 0.70 ratio.
// Stopped: the runner is SIGSTOPped (all threads) outside its own calls and the judge waits for an idle GPU after
// each of them, so the sabotage only slows our own calls.
#include <cuda_runtime.h>

#include <atomic>
#include <thread>

__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

__global__ void spin(long long cycles, int* sink) {
    long long start = clock64();
    int x = threadIdx.x;
    while (clock64() - start < cycles) x = x * 1103515245 + 12345;
    if (x == 42) *sink = x;  // keeps the loop
}

static std::atomic<unsigned long long> burned;

static void burn_cpu(void) {
    unsigned long long x = 1;
    for (;;) {
        for (int i = 0; i < 1 << 20; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
        burned.fetch_add(x & 1, std::memory_order_relaxed);
    }
}

static void burn_gpu(void) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int* sink;
    cudaMalloc(&sink, sizeof(int));
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (;;) {
        spin<<<2 * sms, 1024, 0, s>>>(2000000, sink);  // ~1 ms at 2 GHz, every SM full
        cudaStreamSynchronize(s);                       // one in flight: never a queue the judge would call "busy"
    }
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static bool started;
    if (!started) {
        started = true;
        std::thread(burn_gpu).detach();
        // One per core, up to 16: the judge pins the runner to one CPU, so these only share it with
        // the runner's own thread; 64 of them (a host of four H200s) starve that thread into a timeout
        // within the fixture's 15 s, not a pass either, but not the verdict this fixture is about.
        unsigned cores = std::thread::hardware_concurrency();
        for (unsigned k = 0; k < (cores && cores < 16 ? cores : 16); k++) std::thread(burn_cpu).detach();
    }
    if (n > 0) slow_add<<<64, 64>>>(a, b, c, n);
}
