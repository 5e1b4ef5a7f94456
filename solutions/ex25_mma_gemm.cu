// ex25 mma_gemm -- reference solution
//
// C = alpha * A * B + beta * C, row-major, bf16 A (M x K) and B (K x N),
// float C, on the tensor cores with mma.sync.m16n8k16.
//
// Blocks of 128 threads compute 128 x 128 tiles of C, K in steps of 64; two
// blocks share an SM. The 4 warps are laid out 2 x 2, each owning a 64 x 64
// piece: 4 x 8 mma tiles, 128 accumulators per thread. A warp's 16-step of
// k loads 4 + 4 ldmatrix.x4 (4 KB from shared memory) for 32 mma, a third
// less per mma than 64 x 32 pieces (6 for 16). tools/mma-ladder.cu
// measures each choice; docs/benchmarks.md has the table.
//
// Global -> shared: cp.async, 16 bytes per instruction, through a ring of
// 3 stages of 32 KB. A chunk that lies outside the matrix is zero-filled
// (src-size 0), but only tiles at the matrix's edges test: a tile wholly
// inside copies without a test per chunk (the tests and the registers
// they need would otherwise sit inside the k loop). This needs every row
// to start on 16 bytes: K and N multiples of 8. Other shapes take the
// same kernel with plain loads (kAsync = false).
//
// Shared -> registers: ldmatrix (.x4 for A; .x4.trans for B, which is
// stored N-major and wanted in pairs along k), double-buffered: the
// fragments of the next 16-step load while this one's mma run. The wait
// for the next stage and the barrier come before the last 16-step of a
// stage, so that even the next stage's first fragments are in flight while
// the last mma of this one run; no warp then waits on shared memory at a
// stage boundary. The 16-byte chunks are XOR-swizzled so that the 8 rows
// one ldmatrix phase reads fall in 8 different groups of banks (chapter
// 6): chunk c of A's row r at c ^ (r % 8), of B's row k at c ^ (k % 8).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace {

constexpr int BM = 128, BN = 128, BK = 64, STAGES = 3, THREADS = 128;
constexpr int WM = 64, WN = 64;             // a warp's piece of the block tile
constexpr int MT = WM / 16, NT = WN / 8;    // its mma tiles
constexpr int KSTEPS = BK / 16;             // 16-steps of k per stage
constexpr int A_STAGE = BM * BK * 2;        // bytes: 128 rows of 128
constexpr int B_STAGE = BK * BN * 2;        // bytes: 64 rows of 256
constexpr int SMEM = STAGES * (A_STAGE + B_STAGE);

__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ int a_offset(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }
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

// Tile (m0, n0, k0) of A and B into one stage of shared memory, as one
// cp.async group. The chunk loops have constant trip counts: a loop from
// threadIdx.x would stay a loop, branches and all, inside the k loop.
// 128 threads, 1024 chunks of 16 bytes in each matrix's tile.
template <bool kAsync>
__device__ __forceinline__ void load_stage(unsigned char* as, unsigned char* bs, const __nv_bfloat16* A,
                                           const __nv_bfloat16* B, int M, int N, int K, int m0, int n0, int k0)
{
    if (kAsync) {
        // A thread copies the same chunk column c of 8 rows of A, 16 apart, and chunk cb of 8 rows
        // of B, 8 apart.
        const int r = threadIdx.x / 8, c = threadIdx.x % 8, k = k0 + c * 8;
        const int kb = threadIdx.x / 16, cb = threadIdx.x % 16, n = n0 + cb * 8;
        const __nv_bfloat16* a = A + (size_t)(m0 + r) * K + k;
        const __nv_bfloat16* b = B + (size_t)(k0 + kb) * N + n;
        if (m0 + BM <= M && n0 + BN <= N && k0 + BK <= K) {  // the whole tile inside: no tests
#pragma unroll
            for (int i = 0; i < BM / 16; ++i) copy16(as + a_offset(r + 16 * i, c), a + (size_t)16 * i * K, true);
#pragma unroll
            for (int i = 0; i < BK / 8; ++i) copy16(bs + b_offset(kb + 8 * i, cb), b + (size_t)8 * i * N, true);
        } else {
#pragma unroll
            for (int i = 0; i < BM / 16; ++i) {
                const bool inside = m0 + r + 16 * i < M && k < K;
                copy16(as + a_offset(r + 16 * i, c), inside ? a + (size_t)16 * i * K : A, inside);
            }
#pragma unroll
            for (int i = 0; i < BK / 8; ++i) {
                const bool inside = k0 + kb + 8 * i < K && n < N;
                copy16(bs + b_offset(kb + 8 * i, cb), inside ? b + (size_t)8 * i * N : B, inside);
            }
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

// A warp's fragments of 16-step kk of one stage: its 64 rows of A (4 mma
// tiles) and 64 columns of B (8 mma tiles).
__device__ __forceinline__ void load_fragments(uint32_t (&a)[MT][4], uint32_t (&b)[NT][2], const unsigned char* as,
                                               const unsigned char* bs, int wm, int wn, int kk)
{
    const int lane = threadIdx.x % 32, blk = lane / 8, row = lane % 8;
#pragma unroll
    for (int i = 0; i < MT; ++i)  // blocks: (rows 0-7 | 8-15) x (k 0-7 | 8-15)
        ldmatrix_x4(a[i], as + a_offset(wm * WM + i * 16 + (blk & 1) * 8 + row, kk / 8 + (blk >> 1)));
#pragma unroll
    for (int j = 0; j < NT; j += 2) {  // blocks: (k 0-7 | 8-15) x (n 0-7 | 8-15) of two mma tiles
        uint32_t r[4];
        ldmatrix_x4_trans(r, bs + b_offset(kk + (blk & 1) * 8 + row, (wn * WN + j * 8) / 8 + (blk >> 1)));
        b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
}

template <bool kAsync>
__global__ void __launch_bounds__(THREADS, 2) gemm(const __nv_bfloat16* __restrict__ A,
                                                   const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                                                   int M, int N, int K, float alpha, float beta)
{
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char* a_smem = smem;
    unsigned char* b_smem = smem + STAGES * A_STAGE;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp / 2, wn = warp % 2;  // this warp's piece: rows wm * 64, columns wn * 64
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles_k = (K + BK - 1) / BK;

    float acc[MT][NT][4] = {};

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles_k) load_stage<kAsync>(a_smem + s * A_STAGE, b_smem + s * B_STAGE, A, B, M, N, K, m0, n0, s * BK);
        else asm volatile("cp.async.commit_group;\n" ::);  // an empty group keeps the count
    }
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));  // tile 0 has landed
    __syncthreads();

    int read = 0, write = STAGES - 1;  // the stage the warps read, the one the next copy fills
    uint32_t a[2][MT][4], b[2][NT][2];  // fragments: this 16-step's and the next one's
    load_fragments(a[0], b[0], a_smem, b_smem, wm, wn, 0);

    for (int kt = 0; kt < tiles_k; ++kt) {
#pragma unroll
        for (int s = 0; s < KSTEPS; ++s) {
            // The next 16-step's fragments: of this stage, or after the last step the next
            // stage's first (read moved on at step KSTEPS - 2).
            const int next_kk = s + 1 < KSTEPS ? (s + 1) * 16 : 0;
            load_fragments(a[(s + 1) % 2], b[(s + 1) % 2], a_smem + read * A_STAGE, b_smem + read * B_STAGE, wm, wn,
                           next_kk);
            if (s == 0) {  // the stage every warp finished reading before the last barrier
                const int next = kt + STAGES - 1;
                if (next < tiles_k)
                    load_stage<kAsync>(a_smem + write * A_STAGE, b_smem + write * B_STAGE, A, B, M, N, K, m0, n0,
                                       next * BK);
                else asm volatile("cp.async.commit_group;\n" ::);
            }
            if (s == KSTEPS - 2) {  // tile kt + 1 has landed, for every thread of the block
                asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
                __syncthreads();
                read = read + 1 == STAGES ? 0 : read + 1;
                write = write + 1 == STAGES ? 0 : write + 1;
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_16816(acc[i][j], a[s % 2][i], b[s % 2][j][0], b[s % 2][j][1]);
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
