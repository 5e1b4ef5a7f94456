// ex31 wgmma_swizzled: the operands loaded by TMA in the 128-byte swizzle
//
// What this exercise teaches
//   The layout every fast Hopper GEMM uses: TMA writes each tile in the
//   128-byte swizzle (rows of 128 bytes, each 16-byte chunk moved to chunk
//   ^ (row % 8)), and the wgmma descriptor says "swizzled" so that the
//   tensor cores undo the same XOR. No thread touches the data: the copy
//   engine writes it and the tensor cores read it, both in the async proxy.
//
// The problem (kind wgmma_tiles, as in ex30)
//   C_t = A_t * B_t^T for 64 x 64 bf16 tiles, A_t M x K and B_t N x K,
//   C_t 64 x 64 floats, row-major, tiles one after another.
//
// What is given
//   The PTX wrappers, bf16_map (a tensor map of a bf16 matrix in boxes of
//   box_rows x 64, with the swizzle you pass), one block of one warpgroup
//   per tile, the 1024-byte-aligned tiles, the mbarrier and the two TMA
//   loads (the tiles lie one under another: a (64 * tiles) x 64 matrix),
//   the commit and wait, and ex30's store of the accumulators.
//
// What to fill in (the TODOs)
//   1. In solve: the swizzle of both tensor maps (CU_TENSOR_MAP_SWIZZLE_...).
//   2. The four wgmma: descriptors with swizzle mode 1 (128-byte), SBO the
//      bytes from one 8-row group to the next, LBO unused (16 will do), and
//      the start of k-step ks: 16 bf16 further along the 128-byte rows.
//      The swizzle is a function of the address bits, which is why the tile
//      must start on 1024 bytes and why moving the start 32 bytes works.
//   As shipped nothing is multiplied: a wrong answer.
//
// How it is graded
//   gpucourse grade ex31
//   As ex30: exact for 1 to 1000 tiles, then 65536 tiles timed against the
//   reference, a copy and cuBLAS. Your machine code must contain HGMMA and
//   UTMALDG.
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

// D (64 x 64, f32, 32 per thread) = A (64 x 16) * B (16 x 64) + (accumulate ? D : 0),
// A and B read from shared memory through their descriptors, both K-major.
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, 0;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// ---------------------------------------------------------------------------

namespace {

constexpr int T = 64;
constexpr int THREADS = 128;                 // one warpgroup
constexpr uint32_t TILE_BYTES = T * T * 2;   // 8192 per operand

__global__ void __launch_bounds__(THREADS) tile_products(const __grid_constant__ CUtensorMap a_map,
                                                         const __grid_constant__ CUtensorMap b_map,
                                                         float* __restrict__ C)
{
    __shared__ __align__(1024) __nv_bfloat16 as[T * T];  // the swizzle repeats every 1024 bytes
    __shared__ __align__(1024) __nv_bfloat16 bs[T * T];
    __shared__ __align__(8) uint64_t bar;
    const int t = blockIdx.x;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        fence_proxy_async();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(&bar, 2 * TILE_BYTES);
        tma_load_2d(as, &a_map, &bar, 0, t * T);
        tma_load_2d(bs, &b_map, &bar, 0, t * T);
    }
    mbar_wait(&bar, 0);

    float d[32] = {};
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < T / 16; ++ks) {
        // TODO: wgmma_m64n64k16(d, make_desc(A's k-step ks, LBO, SBO, swizzle mode),
        //       make_desc(B's, ...), ks > 0), with as and bs counting bf16.
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_registers(d);

    // The accumulator layout, as in ex30.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* c = C + (size_t)t * T * T + (16 * warp + lane / 4) * T + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < T / 8; ++i) {
        *reinterpret_cast<float2*>(c + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
        *reinterpret_cast<float2*>(c + 8 * T + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
    }
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    // The tiles one under another: a (64 tiles) x 64 matrix, one box per tile.
    // TODO: the swizzle both tiles are written in.
    const CUtensorMap a_map = bf16_map(A, tiles * T, T, T, CU_TENSOR_MAP_SWIZZLE_NONE);
    const CUtensorMap b_map = bf16_map(B, tiles * T, T, T, CU_TENSOR_MAP_SWIZZLE_NONE);
    tile_products<<<tiles, THREADS>>>(a_map, b_map, C);
}
