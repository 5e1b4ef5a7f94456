// expect: 5 requirement_not_met -- correct, with plain stores: no UTMASTG in its machine code
#include <cuda_runtime.h>
#include <cstddef>
__global__ void flip(const float4* __restrict__ in, float4* __restrict__ out, int rows, int cols4) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (q >= cols4) return;
    const float4 w = in[(size_t)r * cols4 + cols4 - 1 - q];
    out[(size_t)r * cols4 + q] = make_float4(w.w, w.z, w.y, w.x);
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const int cols4 = cols / 4;  // cols is a multiple of 4
    flip<<<dim3((cols4 + 255) / 256, rows), 256>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), rows, cols4);
}
