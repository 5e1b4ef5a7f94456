// ex20 swizzle_map -- reference solution
//
// CuTe's Swizzle<B,M,S> on an index i: take the B bits of i that start at
// bit M + S and XOR them into the B bits that start at bit M.
//
//   i:  ... | YYY (B bits at M+S) | ... | ZZZ (B bits at M) | M low bits |
//   swz(i) = i ^ ((i & (((1 << B) - 1) << (M + S))) >> S)
//
// With S >= B the bits that are read (YYY) are never among the bits that are
// changed (ZZZ), so swz(swz(i)) = i: the map is its own inverse, and
// out[i] = in[swz(i)] is the same as out[swz(i)] = in[i]. Only bits below
// B + M + S change, so each aligned block of 2^(B+M+S) indices maps onto
// itself; the last, partial block is left in place.
//
// When M >= 2 the 4 indices 4k .. 4k+3 have the same bits above bit 1, so
// they map to 4 consecutive indices swz(4k) .. swz(4k) + 3, and a thread can
// move them as one int4 (16 bytes, aligned since swz(4k) is a multiple of
// 4). For M < 2 a scalar kernel handles several elements per thread.
#include <cuda_runtime.h>
#include <cstddef>

namespace {

constexpr int kBlock = 256;
constexpr int kPerThread = 4;

__device__ __forceinline__ int swz(int i, int B, int M, int S)
{
    const int yyy = ((1 << B) - 1) << (M + S);  // the bits that are read
    return i ^ ((i & yyy) >> S);
}

// M >= 2: thread g moves indices 4g .. 4g + 3.
__global__ void swizzle_vec4(const int* __restrict__ in, int* __restrict__ map,
                             int* __restrict__ out, int n, int whole, int B, int M, int S)
{
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t i = 4 * g;
    if (i + 3 < (size_t)n) {
        // whole is a multiple of 2^(B+M+S), itself a multiple of 4: the four
        // indices are all in whole blocks or all in the partial one
        const int j = i < (size_t)whole ? swz((int)i, B, M, S) : (int)i;
        const int4 v = *reinterpret_cast<const int4*>(in + j);
        *reinterpret_cast<int4*>(map + i) = make_int4(j, j + 1, j + 2, j + 3);
        *reinterpret_cast<int4*>(out + i) = v;
    } else {
        for (size_t k = i; k < (size_t)n; ++k) {  // the last 1-3 elements
            const int j = k < (size_t)whole ? swz((int)k, B, M, S) : (int)k;
            map[k] = j;
            out[k] = in[j];
        }
    }
}

// Any M: kPerThread elements per thread, kBlock apart, loads first.
__global__ void swizzle_scalar(const int* __restrict__ in, int* __restrict__ map,
                               int* __restrict__ out, int n, int whole, int B, int M, int S)
{
    const size_t base = (size_t)blockIdx.x * kBlock * kPerThread + threadIdx.x;
    int j[kPerThread], v[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t i = base + (size_t)k * kBlock;
        if (i < (size_t)n) {
            j[k] = i < (size_t)whole ? swz((int)i, B, M, S) : (int)i;
            v[k] = in[j[k]];
        }
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const size_t i = base + (size_t)k * kBlock;
        if (i < (size_t)n) {
            map[i] = j[k];
            out[i] = v[k];
        }
    }
}

}  // namespace

extern "C" void solve(const int* in, int* map, int* out, int n, int B, int M, int S)
{
    if (n <= 0) return;
    const int span = 1 << (B + M + S);
    const int whole = n - n % span;  // indices below this are in whole blocks
    if (M >= 2) {
        const size_t groups = ((size_t)n + 3) / 4;
        swizzle_vec4<<<(unsigned)((groups + kBlock - 1) / kBlock), kBlock>>>(in, map, out, n, whole, B, M, S);
    } else {
        const size_t per_block = (size_t)kBlock * kPerThread;
        swizzle_scalar<<<(unsigned)(((size_t)n + per_block - 1) / per_block), kBlock>>>(in, map, out, n, whole, B,
                                                                                        M, S);
    }
}
