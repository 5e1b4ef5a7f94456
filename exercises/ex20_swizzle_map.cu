// ex20 swizzle_map: the general swizzle function, Swizzle<B,M,S>
//
// What this exercise teaches
//   The swizzle family that CuTe (CUTLASS) uses for every shared-memory
//   layout, written as plain bit operations. Swizzle<B,M,S> maps an index i
//   (an element or byte offset) to another one: it takes the B bits of i
//   that start at bit M + S and XORs them into the B bits that start at
//   bit M. Everything else stays. S >= B always holds here.
//
// The problem
//   n ints in `in`, and B, M, S. The map permutes each aligned block of
//   2^(B+M+S) indices; the last block may be partial (n is not a multiple)
//   and is left in place:
//     i in a whole block:    map[i] = swz(i), out[i] = in[swz(i)]
//     i in the partial one:  map[i] = i,      out[i] = in[i]
//   Example, Swizzle<1,0,1> (B=1, M=0, S=1): bit 1 is XORed into bit 0,
//   blocks of 4: map = 0 1 3 2 | 4 5 7 6 | ...
//
// What to fill in: swz() and the kernel body (the TODOs). solve() launches
//   one thread per element.
//
// How it is graded
//   gpucourse grade ex20
//   map and out are checked exactly for several (B, M, S) (shown as a
//   three-digit size: 343 is Swizzle<3,4,3>, the 128-byte pattern in bytes)
//   and n from 1 to 1000003, then n = 2^28 + 3 is timed with Swizzle<3,4,3>
//   (3.2 GB moved).
//   As shipped this file compiles but fails with "wrong answer".
#include <cuda_runtime.h>
#include <cstddef>

__device__ __forceinline__ int swz(int i, int B, int M, int S)
{
    // TODO: a mask with B one-bits, moved up to bit M + S; keep those bits
    //       of i, shift them down by S (to bit M), and XOR them into i.
    return i;
}

__global__ void swizzle_kernel(const int* __restrict__ in, int* __restrict__ map,
                               int* __restrict__ out, int n, int B, int M, int S)
{
    // TODO: i = this thread's global index; nothing to do past n.
    // TODO: whole = the number of indices in whole blocks of 2^(B+M+S)
    //       (n minus n modulo the block size).
    // TODO: j = swz(i) for i < whole, else i. map[i] = j, out[i] = in[j].
}

extern "C" void solve(const int* in, int* map, int* out, int n, int B, int M, int S)
{
    if (n <= 0) return;
    const int block = 256;
    const unsigned grid = (unsigned)(((size_t)n + block - 1) / block);
    swizzle_kernel<<<grid, block>>>(in, map, out, n, B, M, S);
}
