// expect: 0 pass -- an honest answer through the runtime's other paths: a stream of its own, a CUDA graph captured once and launched on it, stream-ordered scratch (cudaMallocAsync), managed memory and host memory of its own pinned with cudaHostRegister, both touched by the host; the sandbox must let every one of them work (cudaMallocHost is refused: ex01_pinned_host_alloc)
// Why: the runner's syscall filter is an allow-list and its mmap rules are narrow; these paths reach the
// driver in ways the references do not (UVM for managed memory, pinned host pages, memory pools, graph
// instantiation). A student is free to use them: refusing one would fail a correct answer. Pinned
// memory the driver allocates (cudaMallocHost) is shared anonymous memory, which the runner's memory
// limit does not count: refused, with a note (ex01_pinned_host_alloc); pinning memory of its own is not.
// Written as a program that runs many calls would be (the first run of this fixture made a graph and
// let the pool give its memory back at every call, and was 0.61x of the reference): the graph is
// captured once and its kernel node's arguments set for each call, and the pool keeps its memory.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n,
                    const int* __restrict__ one) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = (a[i] + b[i]) * (float)*one;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int* managed = nullptr;
    static int pinned[1024];  // pinned where it is: memory of its own, within the runner's limit
    static cudaStream_t stream = nullptr;
    static cudaGraph_t graph = nullptr;  // kept: its node names the one to set in exec
    static cudaGraphExec_t exec = nullptr;
    static cudaGraphNode_t node;
    static cudaKernelNodeParams params;
    static unsigned grid = 0;
    if (n <= 0) return;
    if (!stream) {
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cudaMallocManaged(&managed, sizeof(int));
        cudaHostRegister(pinned, sizeof pinned, cudaHostRegisterDefault);
        cudaMemPool_t pool;
        cudaDeviceGetDefaultMemPool(&pool, 0);
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    *managed = 1;  // host writes, a kernel reads: UVM pages migrate
    pinned[0] = *managed;
    int* one = nullptr;
    cudaMallocAsync(&one, sizeof(int), stream);
    cudaMemcpyAsync(one, pinned, sizeof(int), cudaMemcpyHostToDevice, stream);
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    long long blocks = ((long long)n + 255) / 256;
    if (blocks > 8LL * sms) blocks = 8LL * sms;
    if (!exec || grid != (unsigned)blocks) {
        if (exec) cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        add<<<(unsigned)blocks, 256, 0, stream>>>(a, b, c, n, one);
        cudaStreamEndCapture(stream, &graph);
        size_t count = 1;
        cudaGraphGetNodes(graph, &node, &count);
        cudaGraphKernelNodeGetParams(node, &params);
        cudaGraphInstantiate(&exec, graph, 0);
        grid = (unsigned)blocks;
    }
    void* args[] = {&a, &b, &c, &n, &one};
    params.kernelParams = args;
    cudaGraphExecKernelNodeSetParams(exec, node, &params);
    cudaGraphLaunch(exec, stream);
    cudaFreeAsync(one, stream);
    cudaStreamSynchronize(stream);
}
