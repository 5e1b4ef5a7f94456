// ex39 sgemm_vectorized -- reference solution
//
// ex38's kernel (128 x 128 tiles, K in steps of 8, 256 threads, thread
// (ty, tx) = (tid / 16, tid % 16) owning an 8 x 8 block of C) with 16-byte
// accesses wherever the data allows them.
//
// Global -> shared: each thread copies one float4 of A's 128 x 8 tile (row
// tid / 2, columns 4 * (tid % 2) .. + 3) and one float4 of B's 8 x 128 tile
// (row tid / 32, columns 4 * (tid % 32) .. + 3): one 16-byte load each
// instead of four 4-byte ones. A float4 load of a row needs the row to start
// on 16 bytes, so K % 4 == 0 for A and N % 4 == 0 for B (cudaMalloc gives
// the base), and the four elements all inside the matrix; otherwise the
// four elements are loaded one by one, zero outside.
//
// A is stored TRANSPOSED in shared memory, As[k][m]: a thread's 8 values of
// A at one k are then contiguous, so they come in two 16-byte loads (LDS.128)
// instead of eight 4-byte ones. (ptxas fused ex38's reads of A only by
// loading a row of As[m][k] for all 8 k at once, 64 registers of A in
// flight; here a step of k needs 8.) The price is four 4-byte stores per
// copied float4. B's 8 values are contiguous already: two LDS.128. 4 shared
// loads per 64 FMAs, in the source and in the machine code.
//
// Left for ex40: a 16-byte read is served 8 threads at a time, and those 8
// read B at float4s 32 bytes apart (tx * 8): 8 chunks on only 4 of the 8
// groups of 4 banks, a 2-way bank conflict on every read of B. (The
// transposed stores into As meet 2-way too; ex40 pads As.)
//
// C: alpha * acc + beta * C as float4 read-modify-writes when N % 4 == 0,
// element by element at the right edge and otherwise.
#include <cuda_runtime.h>
#include <cstddef>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256: one float4 of each tile per thread

// Four elements of row m of A from column k (a multiple of 4): one float4 when the row starts on
// 16 bytes (vec: K % 4 == 0) and all four are inside, else one by one with 0 outside.
__device__ __forceinline__ float4 load_a4(const float* A, int M, int K, int m, int k, bool vec)
{
    if (vec && m < M && k + 3 < K) return *reinterpret_cast<const float4*>(A + (size_t)m * K + k);
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = m < M && k + e < K ? A[(size_t)m * K + k + e] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

// The same for row k of B from column n (vec: N % 4 == 0).
__device__ __forceinline__ float4 load_b4(const float* B, int K, int N, int k, int n, bool vec)
{
    if (vec && k < K && n + 3 < N) return *reinterpret_cast<const float4*>(B + (size_t)k * N + n);
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = k < K && n + e < N ? B[(size_t)k * N + n + e] : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

__global__ void __launch_bounds__(THREADS) sgemm_vec(const float* __restrict__ A, const float* __restrict__ B,
                                                     float* __restrict__ C, int M, int N, int K, float alpha,
                                                     float beta)
{
    __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);
    const bool a_vec = K % 4 == 0, b_vec = N % 4 == 0;
    const int a_row = tid / (BK / 4), a_k = tid % (BK / 4) * 4;  // this thread's float4 of A's tile
    const int b_k = tid / (BN / 4), b_n = tid % (BN / 4) * 4;    // and of B's
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 va = load_a4(A, M, K, m0 + a_row, k0 + a_k, a_vec);
        As[a_k + 0][a_row] = va.x;  // a row of A's tile becomes a column of As
        As[a_k + 1][a_row] = va.y;
        As[a_k + 2][a_row] = va.z;
        As[a_k + 3][a_row] = va.w;
        *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = load_b4(B, K, N, k0 + b_k, n0 + b_n, b_vec);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(&As[k][ty * TM]);
            *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(&As[k][ty * TM + 4]);
            *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(&Bs[k][tx * TN]);
            *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(&Bs[k][tx * TN + 4]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = m0 + ty * TM + i;
        if (m >= M) break;
#pragma unroll
        for (int h = 0; h < TN; h += 4) {  // two groups of 4 columns
            const int n = n0 + tx * TN + h;
            float* c = C + (size_t)m * N + n;
            if (b_vec && n + 3 < N) {  // the row starts on 16 bytes, and so does n
                float4 old = *reinterpret_cast<float4*>(c);
                old.x = alpha * acc[i][h] + beta * old.x;
                old.y = alpha * acc[i][h + 1] + beta * old.y;
                old.z = alpha * acc[i][h + 2] + beta * old.z;
                old.w = alpha * acc[i][h + 3] + beta * old.w;
                *reinterpret_cast<float4*>(c) = old;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (n + e < N) c[e] = alpha * acc[i][h + e] + beta * c[e];
            }
        }
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta)
{
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_vec<<<grid, THREADS>>>(A, B, C, M, N, K, alpha, beta);
}
