// ex25 mma_gemm -- reference solution
//
// C = alpha * A * B + beta * C, row-major, bf16 A (M x K) and B (K x N),
// float C, on the tensor cores with mma.sync.m16n8k16.
//
// Blocks of 256 threads compute 128 x 128 tiles of C, K in steps of 32.
// The 8 warps are laid out 2 (M) x 4 (N), each owning a 64 x 32 piece: 4 x 4
// mma tiles of 16 x 8, 64 accumulators per thread.
//
// Global -> shared: cp.async, 16 bytes per instruction, through a ring of
// 4 stages. While the warps multiply stage s, the copies of stages s+1 ..
// s+3 are in flight; cp.async.wait_group 2 waits for the oldest of them
// only. A chunk that lies outside the matrix is zero-filled (src-size 0).
// This needs every row to start on 16 bytes: K and N multiples of 8. Other
// shapes take the same kernel with plain loads (kAsync = false).
//
// Shared -> registers: ldmatrix (.x4 for A; .x4.trans for B, which is
// stored k-major and wanted in pairs along k). The 16-byte chunks are
// XOR-swizzled so that the 8 rows one ldmatrix phase reads fall in 8
// different groups of banks (chapter 6): chunk c of A's row r at
// c ^ ((r / 2) % 4), chunk c of B's row k at c ^ (k % 8).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace {

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int WM = 64, WN = 32;             // a warp's piece of the block tile
constexpr int MT = WM / 16, NT = WN / 8;    // its mma tiles
constexpr int A_STAGE = BM * BK * 2;        // bytes: 128 rows of 64
constexpr int B_STAGE = BK * BN * 2;        // bytes: 32 rows of 256
constexpr int SMEM = STAGES * (A_STAGE + B_STAGE);

__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ int a_offset(int r, int c) { return r * 64 + ((c ^ ((r >> 1) & 3)) << 4); }
__device__ __forceinline__ int b_offset(int k, int c) { return k * 256 + ((c ^ (k & 7)) << 4); }

__device__ __forceinline__ void copy16(unsigned char* dst, const void* src, bool inside)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(inside ? 16 : 0));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Four 8 x 8 blocks of 16-bit values; lanes 8m .. 8m+7 give the row addresses of block m.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
}

// The same, each block transposed on the way.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
}

// Tile (m0, n0, k0) of A and B into one stage of shared memory.
template <bool kAsync>
__device__ __forceinline__ void load_stage(unsigned char* as, unsigned char* bs, const __nv_bfloat16* A,
                                           const __nv_bfloat16* B, int M, int N, int K, int m0, int n0, int k0)
{
    if (kAsync) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int q = threadIdx.x + i * THREADS;
            const int r = q / 4, c = q % 4;  // A: row r, chunk c (8 elements)
            const int m = m0 + r, k = k0 + c * 8;
            const bool in_a = m < M && k < K;
            copy16(as + a_offset(r, c), in_a ? A + (size_t)m * K + k : A, in_a);
            const int kb = q / 16, cb = q % 16;  // B: row kb, chunk cb
            const int k2 = k0 + kb, n = n0 + cb * 8;
            const bool in_b = k2 < K && n < N;
            copy16(bs + b_offset(kb, cb), in_b ? B + (size_t)k2 * N + n : B, in_b);
        }
    } else {
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, kk = e % BK, m = m0 + r, k = k0 + kk;
            const __nv_bfloat16 v = m < M && k < K ? A[(size_t)m * K + k] : __float2bfloat16(0.f);
            *reinterpret_cast<__nv_bfloat16*>(as + a_offset(r, kk / 8) + (kk % 8) * 2) = v;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            const int kb = e / BN, nn = e % BN, k = k0 + kb, n = n0 + nn;
            const __nv_bfloat16 v = k < K && n < N ? B[(size_t)k * N + n] : __float2bfloat16(0.f);
            *reinterpret_cast<__nv_bfloat16*>(bs + b_offset(kb, nn / 8) + (nn % 8) * 2) = v;
        }
    }
    asm volatile("cp.async.commit_group;\n" ::);
}

template <bool kAsync>
__global__ void __launch_bounds__(THREADS) gemm(const __nv_bfloat16* __restrict__ A,
                                                const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                                                int M, int N, int K, float alpha, float beta)
{
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char* a_smem = smem;
    unsigned char* b_smem = smem + STAGES * A_STAGE;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp / 4, wn = warp % 4;  // this warp's piece: rows wm * 64, columns wn * 32
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles_k = (K + BK - 1) / BK;

    float acc[MT][NT][4] = {};

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles_k) load_stage<kAsync>(a_smem + s * A_STAGE, b_smem + s * B_STAGE, A, B, M, N, K, m0, n0, s * BK);
        else asm volatile("cp.async.commit_group;\n" ::);  // an empty group keeps the count
    }

    for (int kt = 0; kt < tiles_k; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));  // stage kt has landed
        __syncthreads();  // ... for every thread, and everyone is done with stage kt - 1
        const int next = kt + STAGES - 1;
        if (next < tiles_k)
            load_stage<kAsync>(a_smem + (next % STAGES) * A_STAGE, b_smem + (next % STAGES) * B_STAGE, A, B, M, N, K,
                               m0, n0, next * BK);
        else asm volatile("cp.async.commit_group;\n" ::);

        const unsigned char* as = a_smem + (kt % STAGES) * A_STAGE;
        const unsigned char* bs = b_smem + (kt % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t a[MT][4], b[NT][2];
            const int blk = lane / 8, row = lane % 8;
#pragma unroll
            for (int i = 0; i < MT; ++i)  // blocks: (rows 0-7 | 8-15) x (k 0-7 | 8-15)
                ldmatrix_x4(a[i], as + a_offset(wm * WM + i * 16 + (blk & 1) * 8 + row, kk / 8 + (blk >> 1)));
#pragma unroll
            for (int j = 0; j < NT; j += 2) {  // blocks: (k 0-7 | 8-15) x (n 0-7 | 8-15) of two mma tiles
                uint32_t r[4];
                ldmatrix_x4_trans(r, bs + b_offset(kk + (blk & 1) * 8 + row, (wn * WN + j * 8) / 8 + (blk >> 1)));
                b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_16816(acc[i][j], a[i], b[j][0], b[j][1]);
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::);

    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {  // rows g and g + 8 of the mma tile
                const int m = m0 + wm * WM + i * 16 + g + h * 8, n = n0 + wn * WN + j * 8 + 2 * t;
                if (m >= M) continue;
                float* c = C + (size_t)m * N + n;
                if (n + 1 < N && (N % 2) == 0) {
                    float2 old = *reinterpret_cast<float2*>(c);
                    *reinterpret_cast<float2*>(c) =
                        make_float2(alpha * acc[i][j][2 * h] + beta * old.x, alpha * acc[i][j][2 * h + 1] + beta * old.y);
                } else {
                    if (n < N) c[0] = alpha * acc[i][j][2 * h] + beta * c[0];
                    if (n + 1 < N) c[1] = alpha * acc[i][j][2 * h + 1] + beta * c[1];
                }
            }
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha,
                      float beta)
{
    if (M <= 0 || N <= 0) return;
    static bool configured;
    if (!configured) {  // more than 48 KB of shared memory needs asking for
        cudaFuncSetAttribute(gemm<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
        cudaFuncSetAttribute(gemm<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
        configured = true;
    }
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    if (K % 8 == 0 && N % 8 == 0)
        gemm<true><<<grid, THREADS, SMEM>>>(A, B, C, M, N, K, alpha, beta);
    else
        gemm<false><<<grid, THREADS, SMEM>>>(A, B, C, M, N, K, alpha, beta);
}
