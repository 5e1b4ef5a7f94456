// ex44 cluster_multicast -- reference solution
//
// ex33's GEMM (kind gemm_bf16_kmajor) in clusters of two blocks whose tiles
// sit one above the other (tile rows 2p and 2p + 1, the same column): both
// need the same 256 x 64 tile of B at every stage, and each block loads half
// of it with one TMA load multicast to both. Each block's `full` barrier
// expects its A box and both halves of B; each `empty` barrier counts the
// consumers of both blocks (a stage may be refilled only when both are done
// with it, since either producer's next load writes into both); a cluster
// barrier after the barriers' initialisation and before the end. The tile is
// 240 columns wide where that takes as many rounds of pairs as 256 would
// (pick_width; each half of B is still whole 8-row blocks of the swizzle).
//
// Measured on the H100: see docs/benchmarks.md (chapter 11).
#include <cuda.h>          // the driver API: CUtensorMap, cuTensorMapEncodeTiled (linked with -lcuda)
#include <cuda_bf16.h>
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

// The tensor map of a row-major bf16 matrix, rows x cols (cols a multiple of
// 8: every row starts on 16 bytes), read in boxes of box_rows rows by 64
// columns (128 bytes), zero-filled past the edges.
[[maybe_unused]] static CUtensorMap bf16_map(const void* base, int rows, int cols, int box_rows,
                                             CUtensorMapSwizzle swizzle)
{
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
    const cuuint32_t box[2] = {64, (cuuint32_t)box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims,
                                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    return map;
}

// D (64 x 256, f32, 128 per thread) = A (64 x 16) * B (16 x 256) + (accumulate ? D : 0),
// A and B read from shared memory through their descriptors, both K-major.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 0;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// The same with 240 columns (120 per thread), for the narrow tile.
__device__ __forceinline__ void wgmma_m64n240k16(float (&d)[120], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %122, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n240k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119"
        "}, %120, %121, p, 1, 1, 0, 0;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// One wgmma k-step of a tile BN columns wide.
template <int BN>
__device__ __forceinline__ void wgmma_k16(float (&d)[BN / 2], uint64_t desc_a, uint64_t desc_b, int accumulate);
template <>
__device__ __forceinline__ void wgmma_k16<256>(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    wgmma_m64n256k16(d, desc_a, desc_b, accumulate);
}
template <>
__device__ __forceinline__ void wgmma_k16<240>(float (&d)[120], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    wgmma_m64n240k16(d, desc_a, desc_b, accumulate);
}

// ---------------------------------------------------------------------------

// Given: clusters (chapter 8). This block's rank in its cluster.
__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// Every thread of both blocks arrives and waits: what either did before
// (barrier initialisation, loads into the other, arrivals on its barriers)
// is done and seen by both after.
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Makes this thread's mbarrier initialisations visible to the cluster (the
// partner's multicast loads and arrivals reach them).
__device__ __forceinline__ void fence_barrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival on the barrier at the same offset in block `rank` of the cluster.
// Its ordering is the default, a release at the block's scope: what it must
// order before the partner's next load into this stage are the reads of
// wgmma, already finished (wgmma_wait). A release at the cluster's scope
// (.release.cluster) made the whole GEMM 30% slower on the H100.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(bar)), "r"(rank));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

// TMA load of the box at (x, y) into shared memory at dst in every block of
// the cluster named by the bits of `mask`, at the same offset in each; the
// bytes count against the barrier at bar's offset in each of them.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y,
                                                      uint16_t mask)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar)), "h"(mask)
        : "memory");
}

// ---------------------------------------------------------------------------

namespace {

constexpr int BM = 128, BK = 64;             // the tile's rows, and K per stage
constexpr int WIDE = 256, NARROW = 240;      // the tile's widths (pick_width), columns of C
constexpr int STAGES = 4;                    // 4 x 48 KB of ring (the wide tile)
constexpr int CONSUMERS = 2;                 // warpgroups, 64 rows of the tile each
constexpr int THREADS = 128 * (1 + CONSUMERS);
constexpr int GROUP_M = 16;                  // tile rows walked before moving right (L2 reuse)
constexpr int CLUSTER = 2;                   // blocks per cluster, one above the other
constexpr uint32_t A_BYTES = BM * BK * 2;
template <int BN>
constexpr uint32_t STAGE_BYTES = A_BYTES + BN * BK * 2;
template <int BN>
constexpr size_t SMEM_BYTES = 1024 + STAGES * STAGE_BYTES<BN> + 2 * STAGES * sizeof(uint64_t);  // 1024: alignment
constexpr uint32_t LBO = 16, SBO = 1024, SWIZZLE_128B = 1;

// The register file is split by role: 384 threads start with 168 registers
// each; the producer needs few and gives most back, the consumers take them
// (128 accumulators each). 128 x 40 + 256 x 232 = 64512 of the SM's 65536.
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

// The order in which the persistent clusters take pairs of tiles (tile rows
// 2p and 2p + 1, one column): ex33's, on the grid of pairs, down GROUP_M / 2
// pair rows, then one column right. Returns the pair's top row and column.
template <int BN>
__device__ __forceinline__ void pair_at(int pair, int pairs_m, int tiles_n, int& pm, int& n0)
{
    constexpr int GROUP = GROUP_M / CLUSTER;
    const int per_group = GROUP * tiles_n;
    const int first = pair / per_group * GROUP;
    const int rows = min(GROUP, pairs_m - first);
    const int r = pair % per_group;
    pm = first + r % rows;
    n0 = r / rows * BN;
}

// C = alpha * D + beta * C for this warpgroup's 64 x BN part of the tile at
// (m0, n0), in batches of 8 groups of 8 columns (the narrow tile's last batch
// has 6). Lane l of warp w holds rows m0 + 16w + l / 4 (+ 8) and column
// pairs n0 + 8i + 2 (l % 4): four lanes cover 32 contiguous bytes of a row,
// a whole sector. Inside tiles (and an even N, so that pairs are 8-byte
// aligned) read 16 old pairs at once, then write; edge tiles go element by
// element.
template <int R>
__device__ __forceinline__ void store_tile(const float (&d)[R], float* __restrict__ C, int M, int N, int m0, int n0,
                                           float alpha, float beta)
{
    constexpr int WIDTH = 2 * R, GROUPS = R / 4;  // the tile's columns, in groups of 8
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const int row = m0 + 16 * warp + lane / 4, col = n0 + 2 * (lane % 4);
    if (m0 + 64 <= M && n0 + WIDTH <= N && N % 2 == 0) {
        float* p = C + (size_t)row * N + col;
#pragma unroll
        for (int i0 = 0; i0 < GROUPS; i0 += 8) {
            float2 old[8][2];
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    if (i0 + i < GROUPS)
                        old[i][h] = *reinterpret_cast<const float2*>(p + (size_t)8 * h * N + 8 * (i0 + i));
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    if (i0 + i < GROUPS)
                        *reinterpret_cast<float2*>(p + (size_t)8 * h * N + 8 * (i0 + i)) =
                            make_float2(alpha * d[4 * (i0 + i) + 2 * h] + beta * old[i][h].x,
                                        alpha * d[4 * (i0 + i) + 2 * h + 1] + beta * old[i][h].y);
        }
        return;
    }
    // At an edge of C, element by element; still 32 loads of C before their
    // stores (one element loaded, then stored, then the next: each waits for
    // L2, and an edge tile took 4 times as long as a whole one).
#pragma unroll
    for (int i0 = 0; i0 < GROUPS; i0 += 8) {
        float old[8][2][2];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int r = row + 8 * h, c = col + 8 * (i0 + i) + e;
                    old[i][h][e] = i0 + i < GROUPS && r < M && c < N ? C[(size_t)r * N + c] : 0.f;
                }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int r = row + 8 * h, c = col + 8 * (i0 + i) + e;
                    if (i0 + i < GROUPS && r < M && c < N)
                        C[(size_t)r * N + c] = alpha * d[4 * (i0 + i) + 2 * h + e] + beta * old[i][h][e];
                }
    }
}

// ex33's kernel, a cluster of two blocks per pair of tiles: block `rank`
// takes tile row 2p + rank (past M when the tile rows are odd: TMA fills its
// A with zeros and it stores nothing, but it still loads its half of B for
// its partner). The clusters walk the pairs cluster, cluster + clusters, ...
template <int BN>
__global__ void __launch_bounds__(THREADS, 1)
    gemm_multicast(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                   float* __restrict__ C, int M, int N, int K, float alpha, float beta)
{
    constexpr int HALF_BN = BN / CLUSTER;  // the rows of B each block loads for both
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
    __nv_bfloat16* as = reinterpret_cast<__nv_bfloat16*>(smem);
    __nv_bfloat16* bs = reinterpret_cast<__nv_bfloat16*>(smem + STAGES * A_BYTES);
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * STAGE_BYTES<BN>);
    uint64_t* empty = full + STAGES;
    const uint32_t rank = cluster_rank(), partner = rank ^ 1;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);                     // this block's producer, and every byte that lands here
            mbar_init(&empty[s], CLUSTER * CONSUMERS);  // the consumers of both blocks
        }
        fence_barrier_init();
    }
    cluster_sync();  // both blocks' barriers exist before either loads into the other

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pairs_m = (tiles_m + CLUSTER - 1) / CLUSTER, pairs = pairs_m * tiles_n;
    const int cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const int kblocks = (K + BK - 1) / BK;
    if (threadIdx.x < 128) {  // the producer warpgroup
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            uint32_t it = 0;
            for (int pair = cluster; pair < pairs; pair += clusters) {
                int pm, n0;
                pair_at<BN>(pair, pairs_m, tiles_n, pm, n0);
                const int m0 = (CLUSTER * pm + (int)rank) * BM;
                for (int kb = 0; kb < kblocks; ++kb, ++it) {
                    const int s = it % STAGES;
                    const uint32_t use = it / STAGES;
                    if (use > 0) mbar_wait(&empty[s], (use - 1) & 1);  // both blocks' consumers are done with s
                    mbar_arrive_expect_tx(&full[s], STAGE_BYTES<BN>);  // A, and both halves of B
                    tma_load_2d(as + s * BM * BK, &a_map, &full[s], kb * BK, m0);
                    tma_load_2d_multicast(bs + s * BN * BK + rank * HALF_BN * BK, &b_map, &full[s], kb * BK,
                                          n0 + (int)rank * HALF_BN, 0b11);
                }
            }
        }
    } else {  // the consumers
        setmaxnreg_inc<232>();
        const int c = threadIdx.x / 128 - 1;
        const bool leader = threadIdx.x % 128 == 0;
        float d[BN / 2];
        uint32_t it = 0;
        for (int pair = cluster; pair < pairs; pair += clusters) {
            int pm, n0;
            pair_at<BN>(pair, pairs_m, tiles_n, pm, n0);
            const int m0 = (CLUSTER * pm + (int)rank) * BM;
            for (int kb = 0; kb < kblocks; ++kb, ++it) {
                const int s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);
                const __nv_bfloat16* a = as + s * BM * BK + c * 64 * BK;
                const __nv_bfloat16* b = bs + s * BN * BK;
                wgmma_fence();
#pragma unroll
                for (int ks = 0; ks < BK / 16; ++ks)
                    wgmma_k16<BN>(d, make_desc(a + 16 * ks, LBO, SBO, SWIZZLE_128B),
                                  make_desc(b + 16 * ks, LBO, SBO, SWIZZLE_128B), kb > 0 || ks > 0);
                wgmma_commit();
                wgmma_wait<1>();
                if (kb > 0 && leader) {  // the previous stage, released in both blocks
                    mbar_arrive(&empty[(it - 1) % STAGES]);
                    mbar_arrive_cluster(&empty[(it - 1) % STAGES], partner);
                }
            }
            wgmma_wait<0>();
            fence_registers(d);
            if (leader) {
                mbar_arrive(&empty[(it - 1) % STAGES]);
                mbar_arrive_cluster(&empty[(it - 1) % STAGES], partner);
            }
            store_tile(d, C, M, N, m0 + 64 * c, n0, alpha, beta);
        }
    }
    cluster_sync();  // neither block exits while the other may still load into it or arrive on its barriers
}

// The tile's width for this shape (ex33's pick_width, on pairs of tiles and
// clusters): the clusters take the pairs in rounds, and a round takes about
// as long as a tile is wide. 5000 x 3000: 256 wide, 240 pairs, 3.64 rounds
// of 66 clusters, so 4; 240 wide, 260 pairs, 3.94, still 4. At 8192^3 240
// too (17 rounds against 16: 4080 against 4096), measured as fast as 256.
int pick_width(int M, int N, int clusters)
{
    const long long pairs_m = ((M + BM - 1) / BM + CLUSTER - 1) / CLUSTER;
    const long long rounds_wide = (pairs_m * ((N + WIDE - 1) / WIDE) + clusters - 1) / clusters;
    const long long rounds_narrow = (pairs_m * ((N + NARROW - 1) / NARROW) + clusters - 1) / clusters;
    return rounds_narrow * NARROW < rounds_wide * WIDE ? NARROW : WIDE;
}

// How many clusters of two fit at once (both widths: one block an SM).
int clusters_at_once(cudaLaunchConfig_t config)
{
    int clusters = 0;
    config.gridDim = dim3(CLUSTER);
    if (cudaOccupancyMaxActiveClusters(&clusters, gemm_multicast<WIDE>, &config) != cudaSuccess || clusters < 1) {
        int device = 0, sms = 0;
        cudaGetLastError();
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        clusters = sms / CLUSTER;
    }
    return clusters;
}

template <int BN>
void launch(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha, float beta,
            cudaLaunchConfig_t config, int clusters)
{
    const CUtensorMap a_map = bf16_map(A, M, K, BM, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map = bf16_map(B, N, K, BN / CLUSTER, CU_TENSOR_MAP_SWIZZLE_128B);  // half a tile of B per load
    config.dynamicSmemBytes = SMEM_BYTES<BN>;
    const int pairs = ((M + BM - 1) / BM + CLUSTER - 1) / CLUSTER * ((N + BN - 1) / BN);
    config.gridDim = dim3(CLUSTER * (pairs < clusters ? pairs : clusters));
    cudaLaunchKernelEx(&config, gemm_multicast<BN>, a_map, b_map, C, M, N, K, alpha, beta);
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, float alpha,
                      float beta)
{
    if (M <= 0 || N <= 0 || K <= 0) return;
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute cluster_dims;
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = CLUSTER;
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = SMEM_BYTES<WIDE>;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    static int clusters = 0;
    if (!clusters) {  // 185 KB (narrow) or 193 KB (wide) of dynamic shared memory needs the opt-in
        cudaFuncSetAttribute(gemm_multicast<WIDE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES<WIDE>);
        cudaFuncSetAttribute(gemm_multicast<NARROW>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)SMEM_BYTES<NARROW>);
        clusters = clusters_at_once(config);
    }
    if (pick_width(M, N, clusters) == NARROW)
        launch<NARROW>(A, B, C, M, N, K, alpha, beta, config, clusters);
    else
        launch<WIDE>(A, B, C, M, N, K, alpha, beta, config, clusters);
}
