// ex40 sgemm_warptiling -- reference solution
//
// ex39's kernel (128 x 128 tiles, K in steps of 8, 256 threads with 8 x 8
// results each, float4 copies, A transposed in shared memory) with the
// threads placed so that their float4 reads of shared memory never meet
// in a bank.
//
// In ex39 the 8 threads that one 16-byte read serves together read B at
// float4s 32 bytes apart: 8 chunks on only 4 of the 8 groups of 4 banks, a
// 2-way conflict on every read of B. Here the 8 warps are laid out 2 (rows) x 4
// (columns), each owning a 64 x 32 piece of the tile, and lane l is
// (ly, lx) = (l / 4, l % 4) inside it. A thread's 8 rows are
// wm * 64 + ly * 4 + {0..3} and the same + 32; its 8 columns
// wn * 32 + lx * 4 + {0..3} and the same + 16. Each float4 read of a warp
// then touches 8 (A) or 4 (B) distinct chunks, contiguous: one pass of the
// shared memory, no conflict, the other lanes served by broadcast.
//
// As is padded by 4 floats a row (As[8][132]). The transposed copy writes
// columns of As: in one store instruction half the warp writes row e and
// half row e + 4, at the same 16 columns. With rows of 128 floats (a
// multiple of 32 banks) both halves hit the same 16 banks, a 2-way
// conflict; with 132, row e + 4 is 16 banks on and the 32 stores hit 32
// banks. 132 floats also keep every row 16-byte aligned for the float4
// reads. __launch_bounds__(256, 2): at most 128 registers, so that two
// blocks share an SM.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 128, BN = 128, BK = 8, THREADS = 256;
constexpr int WM = 64, WN = 32;  // a warp's piece: 2 x 4 warps cover the tile
constexpr int APAD = 4;          // floats of padding per row of As

__device__ __forceinline__ float4 load_a4(const float* A, int M, int K, int m, int k, bool vec)
{
    if (vec && m < M && k + 3 < K) return *reinterpret_cast<const float4*>(A + (size_t)m * K + k);
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = m < M && k + e < K ? A[(size_t)m * K + k + e] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

__device__ __forceinline__ float4 load_b4(const float* B, int K, int N, int k, int n, bool vec)
{
    if (vec && k < K && n + 3 < N) return *reinterpret_cast<const float4*>(B + (size_t)k * N + n);
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = k < K && n + e < N ? B[(size_t)k * N + n + e] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

__global__ void __launch_bounds__(THREADS, 2) sgemm_warptile(const float* __restrict__ A, const float* __restrict__ B,
                                                             float* __restrict__ C, int M, int N, int K, float alpha,
                                                             float beta)
{
    __shared__ __align__(16) float As[BK][BM + APAD];  // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool a_vec = K % 4 == 0, b_vec = N % 4 == 0;
    const int a_row = tid / (BK / 4), a_k = tid % (BK / 4) * 4;  // this thread's float4 of A's tile
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;    // and of B's
    // Where this thread's results lie: warp (wm, wn) of 2 x 4, lane (ly, lx) of 8 x 4 inside it.
    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN), ly = lane / 4, lx = lane % 4;
    const int arow = wm * WM + ly * 4;  // rows arow + {0..3} and arow + 32 + {0..3}
    const int bcol = wn * WN + lx * 4;  // columns bcol + {0..3} and bcol + 16 + {0..3}
    float acc[8][8] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 va = load_a4(A, M, K, m0 + a_row, k0 + a_k, a_vec);
        As[a_k + 0][a_row] = va.x;
        As[a_k + 1][a_row] = va.y;
        As[a_k + 2][a_row] = va.z;
        As[a_k + 3][a_row] = va.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = load_b4(B, K, N, k0 + b_k, n0 + b_n, b_vec);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(&As[k][arow]);
            *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(&As[k][arow + 32]);
            *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(&Bs[k][bcol]);
            *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(&Bs[k][bcol + 16]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int m = m0 + arow + i / 4 * 32 + i % 4;
        if (m >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int n = n0 + bcol + 16 * h;
            float* c = C + (size_t)m * N + n;
            if (b_vec && n + 3 < N) {
                float4 old = *reinterpret_cast<float4*>(c);
                old.x = alpha * acc[i][4 * h] + beta * old.x;
                old.y = alpha * acc[i][4 * h + 1] + beta * old.y;
                old.z = alpha * acc[i][4 * h + 2] + beta * old.z;
                old.w = alpha * acc[i][4 * h + 3] + beta * old.w;
                *reinterpret_cast<float4*>(c) = old;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (n + e < N) c[e] = alpha * acc[i][4 * h + e] + beta * c[e];
            }
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_warptile<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
