// expect: 1 wrong_answer -- swaps the roles of the bits: XORs the B bits at M into the B bits at M + S
#include <cuda_runtime.h>
#include <cstddef>
__device__ int swz(int i, int B, int M, int S) {
    const int zzz = ((1 << B) - 1) << M;
    return i ^ ((i & zzz) << S);  // should be i ^ ((i & (((1 << B) - 1) << (M + S))) >> S)
}
__global__ void swizzle_kernel(const int* __restrict__ in, int* __restrict__ map, int* __restrict__ out, int n, int B,
                               int M, int S) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const int whole = n - n % (1 << (B + M + S));
    const int j = (int)i < whole ? swz((int)i, B, M, S) : (int)i;
    map[i] = j;
    out[i] = in[j];
}
extern "C" void solve(const int* in, int* map, int* out, int n, int B, int M, int S) {
    if (n <= 0) return;
    swizzle_kernel<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(in, map, out, n, B, M, S);
}
