// ex45 fp8_blockscaled -- reference solution
//
// C = (A * B^T) with DeepSeek-V3's block scales: A (M x K) and B (N x K) in
// e4m3, K-major; sa a float scale per row of A and 128 of K, stored
// (K/128) x M (M-major, sa[kb * M + m], the layout cuBLASLt's VEC128_32F
// mode reads), sb one per 128 x 128 block of B, (ceil(N/128)) x (K/128)
// (sb[nb * K/128 + kb], BLK128x128_32F); C (M x N) float: C[m][n] = sum over
// k-blocks kb of sa[kb][m] * sb[n/128][kb] * (sum over k in kb of A[m][k] *
// B[n][k]). K is a multiple of 128.
//
// ex33's persistent, warp-specialized kernel with 128 x 128 tiles, one
// stage per 128-wide block of K. Each k-block is computed on the tensor
// cores from zero into a partial sum and promoted into float accumulators
// on the CUDA cores, scaled. Each consumer keeps two partial sums, so that
// block kb + 1's wgmma are issued before block kb's are waited for
// (wgmma.wait_group 1): kb is promoted while kb + 1 runs, and the tensor
// pipe does not wait for the promotion. cuBLASLt's kernel for these shapes
// has the same tile (ncu names it ..._128x128_128x6_2x1_...). Each
// consumer's finished 64 x 128 part of C goes into a staging buffer of its
// own, and TMA stores it while the next tile's MMAs run (ex47's epilogue,
// here with the whole part staged: 32 KB a consumer, paid for with one
// stage of the ring, 5 instead of 6).
//
// The ladder (docs/benchmarks.md, tools/fp8-ladder.cu, H200, each against
// cuBLASLt in the same run at 4096^3 / 8192^3 / 5000 x 3000 x 4096):
// 128 x 192 with one partial sum (this exercise's first reference, its
// scales loaded in their own k-block) 0.76 / 0.78 / 0.85; the same with the
// scales loaded a k-block ahead 0.78 / 0.87 / 0.88; 128 x 128 with one
// partial sum 0.74 / 0.65 / 0.73; with two 0.90 / 0.88 / 0.88; with C
// through TMA (this) 1.03-1.05 of that, graded beside it. Two partial sums
// do not fit at 128 x 192: d and two sums would be 288 floats a thread.
// With the next block's issue under a condition in the loop, ptxas
// serialized the wgmma (C7514) and inserted a wait (C7517), so the loop is
// peeled: its body issues unconditionally, and the tile's last one or two
// blocks come after it. Through the grader (H200, three grades): 1018-1025,
// 1161-1168 and 909-916 TFLOP/s, 0.94, 0.90-0.91 and 0.91-0.92 of cuBLASLt.
// At those sizes its C and cuBLASLt's agree to the bit (the same promotion
// every 128 of K). Its wgmma is QGMMA in the machine code.
#include <cuda.h>          // the driver API: CUtensorMap, cuTensorMapEncodeTiled (linked with -lcuda)
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// ---------------------------------------------------------------------------
// Given: the PTX of wgmma, one instruction per function.

__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Orders this thread's earlier shared-memory writes (ordinary stores, a
// barrier's init) before later accesses of the async proxy (wgmma, TMA).
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// A wgmma shared-memory matrix descriptor, 64 bits: the start address in
// bits 0-13, the leading-dimension byte offset (LBO) in bits 16-29, the
// stride-dimension byte offset (SBO) in bits 32-45, all three in units of
// 16 bytes, and the swizzle mode in bits 62-63 (0 none, 1 = 128-byte,
// 2 = 64-byte, 3 = 32-byte).
__device__ __forceinline__ uint64_t make_desc(const void* start, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                              uint32_t swizzle)
{
    return (uint64_t)((smem_addr(start) & 0x3FFFF) >> 4) | (uint64_t)((lbo_bytes >> 4) & 0x3FFF) << 16 |
           (uint64_t)((sbo_bytes >> 4) & 0x3FFF) << 32 | (uint64_t)swizzle << 62;
}

// Before the first wgmma, and after any ordinary access to the accumulator
// registers: orders those accesses before the asynchronous MMAs use them.
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

// Closes this warpgroup's wgmmas issued so far into one group.
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// Waits until at most N of this warpgroup's wgmma groups are still running.
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Tells the compiler that each accumulator may have changed here, so that
// it reads them only after wgmma_wait (it cannot see the asynchronous writes).
template <int R>
__device__ __forceinline__ void fence_registers(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Given: TMA and mbarriers (chapter 8).

// The barrier's first phase expects `count` arrivals.
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// One arrival, and `bytes` more to be delivered before this phase completes.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes)
{
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}" ::"r"(
                     smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

// One arrival (release: this thread's earlier reads and writes come first).
__device__ __forceinline__ void mbar_arrive(uint64_t* bar)
{
    asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}" ::"r"(smem_addr(bar))
                 : "memory");
}

// Whether the phase of parity `parity` (0 or 1) has completed.
__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
    return done != 0;
}

// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity)
{
    while (!mbar_try_wait(bar, parity)) {
    }
}

// TMA load: the box at element coordinates (x, y) (x innermost) of the map's
// tensor into shared memory at dst; its bytes count against bar's phase.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
            "r"(smem_addr(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar))
        : "memory");
}

// A map the driver rejects ends the program with the driver's name for the
// error (CUDA_ERROR_INVALID_VALUE: a stride, a box or an address breaks a rule).
[[maybe_unused]] static void check_driver(CUresult rc, const char* what)
{
    if (rc == CUDA_SUCCESS) return;
    const char* name = "an unknown error";
    cuGetErrorName(rc, &name);
    fprintf(stderr, "%s failed: %s\n", what, name);
    exit(1);
}

// The tensor map of a row-major e4m3 matrix, rows x cols bytes (cols a
// multiple of 16), read in boxes of box_rows rows by 128 columns (128
// bytes: one 128-byte swizzle row, one block of the scales), zero-filled
// past the edges.
static CUtensorMap e4m3_map(const void* base, int rows, int cols, int box_rows)
{
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols};
    const cuuint32_t box[2] = {128, (cuuint32_t)box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides,
                                        box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    return map;
}

// TMA store: the box in shared memory at src to element coordinates (x, y)
// of the map's tensor; the parts outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(x), "r"(y), "r"(smem_addr(src))
                 : "memory");
}

// Closes this thread's TMA stores issued so far into one bulk group.
__device__ __forceinline__ void tma_store_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most N of this thread's bulk groups are still reading
// shared memory: the buffers of the others may be written again.
template <int N>
__device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// The 128 threads of consumer warpgroup c meet (named barrier 1 + c; 0 is
// __syncthreads()).
__device__ __forceinline__ void warpgroup_barrier(int c)
{
    asm volatile("bar.sync %0, 128;" ::"r"(1 + c) : "memory");
}

// The tensor map of C (rows x cols floats, row-major) for TMA stores of
// boxes of 64 rows by 32 floats, 128-byte swizzled. cols * 4 must be a
// multiple of 16 and C 16-byte aligned (TMA's rules).
static CUtensorMap f32_store_map(float* base, int rows, int cols)
{
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};
    const cuuint32_t box[2] = {32, 64};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box,
                                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    return map;
}

// D (64 x 128, f32, 64 per thread) = A (64 x 32) * B (32 x 128) + (accumulate ? D : 0),
// e4m3 operands read from shared memory through their descriptors, both
// K-major (the only layout wgmma takes for 8-bit types).
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// ---------------------------------------------------------------------------

namespace {

constexpr int BM = 128, BN = 128, BK = 128;  // the tile of C, and K per stage: one block of the scales
constexpr int STAGES = 5;                    // 5 x 32 KB of ring
constexpr int CONSUMERS = 2;                 // warpgroups, 64 rows of the tile each
constexpr int THREADS = 128 * (1 + CONSUMERS);
constexpr int GROUP_M = 8;                   // tile rows walked before moving right (L2 reuse)
constexpr uint32_t A_BYTES = BM * BK, B_BYTES = BN * BK, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int CHUNK = 32;                    // columns per TMA store of C: 128 bytes, the swizzle's row
constexpr uint32_t CHUNK_BYTES = 64 * CHUNK * 4;             // 8 KB
constexpr uint32_t STAGING_BYTES = (BN / CHUNK) * CHUNK_BYTES;  // a consumer's whole 64 x 128 part: 32 KB
constexpr size_t SMEM_BYTES = 1024 + STAGES * STAGE_BYTES + CONSUMERS * STAGING_BYTES + 2 * STAGES * sizeof(uint64_t);
constexpr uint32_t LBO = 16, SBO = 1024, SWIZZLE_128B = 1;

template <int R>
__device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

// ex33's tile order: down GROUP_M tile rows, then one tile column right.
__device__ __forceinline__ void tile_at(int tile, int tiles_m, int tiles_n, int& m0, int& n0)
{
    const int per_group = GROUP_M * tiles_n;
    const int first = tile / per_group * GROUP_M;
    const int rows = min(GROUP_M, tiles_m - first);
    const int r = tile % per_group;
    m0 = (first + r % rows) * BM;
    n0 = r / rows * BN;
}

// C = D for this warpgroup's 64 x BN part: loads none, stores in pairs
// where the tile is whole.
template <int R>
__device__ __forceinline__ void store_tile(const float (&d)[R], float* __restrict__ C, int M, int N, int m0, int n0)
{
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const int row = m0 + 16 * warp + lane / 4, col = n0 + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < R / 4; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = row + 8 * h, c = col + 8 * i;
            if (r >= M) continue;
            float* p = C + (size_t)r * N + c;
            if (c + 1 < N && N % 2 == 0) {
                *reinterpret_cast<float2*>(p) = make_float2(d[4 * i + 2 * h], d[4 * i + 2 * h + 1]);
            } else {
                if (c < N) p[0] = d[4 * i + 2 * h];
                if (c + 1 < N) p[1] = d[4 * i + 2 * h + 1];
            }
        }
}

// Where row r, column col (floats) of a 64 x 32 chunk lies in a 128-byte-
// swizzled buffer, as TMA reads it: row r at r * 128, its 16-byte piece j
// at piece j ^ (r % 8) (the buffer starts on 1024 bytes).
__device__ __forceinline__ uint32_t staging_offset(int r, int col)
{
    return r * 128 + (((col / 4) ^ (r % 8)) * 16) + (col % 4) * 4;
}

// C = D for this warpgroup's 64 x 128 part, through TMA: the whole part
// goes into the warpgroup's staging buffer (four chunks of 32 columns),
// and one thread issues the four stores and moves on, so that they run
// under the next tile's MMAs. Before the buffer is written again the
// previous tile's stores must have read it (wait_group.read 0).
__device__ __forceinline__ void store_tile_tma(const float (&d)[BN / 2], const CUtensorMap* c_map,
                                               unsigned char* staging, int N, int m0, int n0, int c)
{
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const int r0 = 16 * warp + lane / 4, c0 = 2 * (lane % 4);
    const bool leader = threadIdx.x % 128 == 0;
    if (leader) tma_store_wait_read<0>();
    warpgroup_barrier(c);
#pragma unroll
    for (int q = 0; q < BN / CHUNK; ++q)
#pragma unroll
        for (int i = 0; i < CHUNK / 8; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                *reinterpret_cast<float2*>(staging + q * CHUNK_BYTES + staging_offset(r0 + 8 * h, 8 * i + c0)) =
                    make_float2(d[4 * (CHUNK / 8 * q + i) + 2 * h], d[4 * (CHUNK / 8 * q + i) + 2 * h + 1]);
    fence_proxy_async();   // my st.shared, before the copy engine reads the buffer
    warpgroup_barrier(c);  // everybody's
    if (leader) {
#pragma unroll
        for (int q = 0; q < BN / CHUNK; ++q)
            if (n0 + CHUNK * q < N) tma_store_2d(c_map, staging + q * CHUNK_BYTES, n0 + CHUNK * q, m0);
        tma_store_commit();
    }
}

// One persistent block per SM walks tiles as in ex33. Each stage is one
// 128-wide block of K, the block of the scales: the consumers compute it
// into a partial sum (four wgmma of K = 32, from zero), and once it is
// waited for, add it into `d` scaled by sa of the row and sb of the tile's
// block of B: the promotion, on the CUDA cores, in float.
__global__ void __launch_bounds__(THREADS, 1)
    gemm_fp8(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
             const __grid_constant__ CUtensorMap c_map, bool tma_store, const float* __restrict__ sa,
             const float* __restrict__ sb, float* __restrict__ C, int M, int N, int K)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
    unsigned char* as = smem;
    unsigned char* bs = smem + STAGES * A_BYTES;
    unsigned char* staging = smem + STAGES * STAGE_BYTES;  // on 1024 bytes, as the swizzle needs
    uint64_t* full = reinterpret_cast<uint64_t*>(staging + CONSUMERS * STAGING_BYTES);
    uint64_t* empty = full + STAGES;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], CONSUMERS);
        }
        fence_proxy_async();
    }
    __syncthreads();

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, tiles = tiles_m * tiles_n;
    const int kblocks = K / BK;
    if (threadIdx.x < 128) {  // the producer warpgroup
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            uint32_t it = 0;
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                int m0, n0;
                tile_at(tile, tiles_m, tiles_n, m0, n0);
                for (int kb = 0; kb < kblocks; ++kb, ++it) {
                    const int s = it % STAGES;
                    const uint32_t use = it / STAGES;
                    if (use > 0) mbar_wait(&empty[s], (use - 1) & 1);
                    mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
                    tma_load_2d(as + s * A_BYTES, &a_map, &full[s], kb * BK, m0);
                    tma_load_2d(bs + s * B_BYTES, &b_map, &full[s], kb * BK, n0);
                }
            }
        }
    } else {  // the consumers
        setmaxnreg_inc<232>();
        const int c = threadIdx.x / 128 - 1;
        const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
        float d[BN / 2], pa[BN / 2], pb[BN / 2];  // the accumulators, and the two partial sums
        uint32_t it = 0;                          // the ring's count of this warpgroup's k-blocks promoted
        // Block `at`'s product into p, from zero, once its stage has landed.
        auto issue = [&](float (&p)[BN / 2], uint32_t at) {
            const int s = at % STAGES;
            mbar_wait(&full[s], (at / STAGES) & 1);
            const unsigned char* a = as + s * A_BYTES + c * 64 * BK;
            const unsigned char* b = bs + s * B_BYTES;
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < BK / 32; ++ks)
                wgmma_m64n128k32_e4m3(p, make_desc(a + 32 * ks, LBO, SBO, SWIZZLE_128B),
                                      make_desc(b + 32 * ks, LBO, SBO, SWIZZLE_128B), ks > 0);
            wgmma_commit();
        };
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            int m0, n0;
            tile_at(tile, tiles_m, tiles_n, m0, n0);
            const int row = m0 + 64 * c + 16 * warp + lane / 4;  // this thread's rows: row and row + 8
            const float* sa0 = sa + min(row, M - 1);  // sa[kb * M + row]: M-major, as cuBLASLt takes it
            const float* sa1 = sa + min(row + 8, M - 1);
            const float* sbt = sb + (size_t)(n0 / 128) * kblocks;  // the tile is one 128-column block of B
            // Block kb's scales: loaded when kb is issued, used a block later, so
            // that they arrive while the products run.
            auto scales = [&](int kb, float (&sc)[3]) {
                sc[0] = __ldg(sa0 + (size_t)kb * M), sc[1] = __ldg(sa1 + (size_t)kb * M), sc[2] = __ldg(sbt + kb);
            };
            // p's block waited for: its stage back to the producer, then the promotion.
            auto promote = [&](float (&p)[BN / 2], const float (&sc)[3]) {
                fence_registers(p);
                if (threadIdx.x % 128 == 0) mbar_arrive(&empty[it % STAGES]);
                ++it;
                const float s0 = sc[0] * sc[2], s1 = sc[1] * sc[2];  // bit 1 of i: the thread's second row
#pragma unroll
                for (int i = 0; i < BN / 2; ++i) d[i] += p[i] * ((i & 2) ? s1 : s0);
            };
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
            float sc_a[3], sc_b[3];  // the scales of the blocks in pa and pb
            scales(0, sc_a);
            issue(pa, it);
            int kb = 0;
            for (; kb + 2 < kblocks; kb += 2) {  // pa: block kb in flight; blocks kb + 1 and kb + 2 exist
                scales(kb + 1, sc_b);
                issue(pb, it + 1);
                wgmma_wait<1>();  // kb done, kb + 1 still running
                promote(pa, sc_a);
                scales(kb + 2, sc_a);
                issue(pa, it + 1);
                wgmma_wait<1>();
                promote(pb, sc_b);
            }
            if (kb + 1 < kblocks) {  // two blocks left
                scales(kb + 1, sc_b);
                issue(pb, it + 1);
                wgmma_wait<1>();
                promote(pa, sc_a);
                wgmma_wait<0>();
                promote(pb, sc_b);
            } else {
                wgmma_wait<0>();
                promote(pa, sc_a);
            }
            if (tma_store)
                store_tile_tma(d, &c_map, staging + c * STAGING_BYTES, N, m0 + 64 * c, n0, c);
            else
                store_tile(d, C, M, N, m0 + 64 * c, n0);
        }
        // the block's shared memory outlives the stores that read it
        if (tma_store && threadIdx.x % 128 == 0) tma_store_wait_read<0>();
    }
}

}  // namespace

extern "C" void solve(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, const float* sa, const float* sb, float* C,
                      int M, int N, int K)
{
    if (M <= 0 || N <= 0 || K <= 0) return;
    const CUtensorMap a_map = e4m3_map(A, M, K, BM);
    const CUtensorMap b_map = e4m3_map(B, N, K, BN);
    static int sms = 0;
    if (!sms) {  // 225 KiB of dynamic shared memory (SMEM_BYTES) needs the opt-in
        cudaFuncSetAttribute(gemm_fp8, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    // TMA stores C where its rows are 16-byte aligned (N a multiple of 4);
    // elsewhere the threads store it.
    const bool tma_store = N % 4 == 0 && reinterpret_cast<uintptr_t>(C) % 16 == 0;
    CUtensorMap c_map = {};
    if (tma_store) c_map = f32_store_map(C, M, N);
    gemm_fp8<<<tiles < sms ? tiles : sms, THREADS, SMEM_BYTES>>>(a_map, b_map, c_map, tma_store, sa, sb, C, M, N, K);
}
