// expect: 0 pass -- the plain grid-stride loop the lesson teaches must pass the floors
#include <cuda_runtime.h>
__global__ void saxpy(float alpha, const float* __restrict__ x, float* __restrict__ y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = alpha * x[i] + y[i];
}
extern "C" void solve(float alpha, const float* x, float* y, size_t n) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    saxpy<<<sms * 8, 256>>>(alpha, x, y, n);
}
