// expect: 5 requirement_not_met -- correct and fast, but with plain loads: no UTMALDG in its machine code
// why: "section": "One tile, one load"
#include <cuda_runtime.h>
#include <cstddef>
__global__ void pack(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, int tiles_c) {
    const int tc = blockIdx.x, tr = blockIdx.y;
    float* dst = out + ((size_t)tr * tiles_c + tc) * 4096;
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {
        const int r = tr * 64 + i / 64, c = tc * 64 + i % 64;
        dst[i] = r < rows && c < cols ? in[(size_t)r * cols + c] : 0.0f;
    }
}
extern "C" void solve(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return;
    const int tiles_c = (cols + 63) / 64, tiles_r = (rows + 63) / 64;
    pack<<<dim3(tiles_c, tiles_r), 256>>>(in, out, rows, cols, tiles_c);
}
