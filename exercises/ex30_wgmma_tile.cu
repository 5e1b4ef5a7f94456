// ex30 wgmma_tile: one warpgroup, four wgmma, operands named by descriptors
//
// What this exercise teaches
//   The warpgroup MMA of Hopper: wgmma.mma_async multiplies a 64 x N x 16
//   piece with all four warps of a warpgroup, reading A and B straight from
//   shared memory. It finds them through descriptors, 64-bit words that
//   give a start address and two strides of a fixed layout of "core
//   matrices". This exercise builds that layout by hand, the descriptors
//   that describe it, and reads the accumulators back.
//
// The problem (kind wgmma_tiles)
//   A holds `tiles` row-major 64 x 64 bf16 tiles (M x K) one after another,
//   B as many 64 x 64 tiles given N x K (K contiguous, "K-major"): write
//   every C_t = A_t * B_t^T, 64 x 64 floats, row-major. The inputs are
//   small whole numbers, so C is checked exactly.
//
// What is given
//   The PTX wrappers (make_desc builds a descriptor; wgmma_m64n64k16 is the
//   instruction, its last argument 0 to overwrite the accumulators, 1 to
//   add to them), one block of 128 threads (one warpgroup) per tile, the
//   copy of both tiles into shared memory (16-byte chunks, in the order
//   that keeps shared-memory stores free of bank conflicts), the fences,
//   the commit and the wait.
//
// What to fill in (the TODOs)
//   1. chunk_offset(r, j): where the 16 bytes of row r, k = 8j .. 8j + 7
//      go in the no-swizzle K-major layout. A core matrix is 8 rows x 8 k,
//      its rows 16 bytes apart (128 contiguous bytes). Put the 8 core
//      matrices along K of one 8-row group next to each other, and the row
//      groups one after another; inside a core matrix, each row is one
//      chunk further (the lesson's table gives the byte offsets).
//   2. The four wgmma, one per 16 of K: the descriptors of A's and B's
//      k-step ks, with the leading-dimension byte offset (LBO: from a core
//      matrix to its neighbour along K), the stride-dimension byte offset
//      (SBO: from one 8-row group to the next) and no swizzle (0).
//   3. The store of the accumulators: d[4i + {0,1}] is row 16 * warp +
//      lane / 4, columns 8i + 2 (lane % 4) + {0,1}; d[4i + {2,3}] the same
//      columns 8 rows further down.
//   As shipped nothing is multiplied or written: a wrong answer.
//
// How it is graded
//   gpucourse grade ex30
//   Checked exactly for 1 to 1000 tiles, then 65536 tiles (2 GB moved)
//   timed against the reference, a device-to-device copy of the same bytes
//   and cuBLAS's strided batched GEMM. Your machine code must contain HGMMA
//   (wgmma): mma.sync (HMMA) or CUDA-core code cannot pass.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

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

constexpr int T = 64;                     // the tile: 64 x 64, and K = 64
constexpr int THREADS = 128;              // one warpgroup
constexpr int CHUNKS = T * T * 2 / 16;    // 16-byte chunks (8 bf16) of one tile: 512

// The 16-byte chunk of the shared tile that holds row r, k = 8j .. 8j + 7,
// in the no-swizzle K-major layout (see the TODO list at the top).
__device__ __forceinline__ int chunk_offset(int r, int j)
{
    // TODO: the chunk of core matrix (r / 8, j), then row r % 8 inside it.
    return r * 8 + j;  // plain row-major: not a layout wgmma can describe
}

__global__ void __launch_bounds__(THREADS) tile_products(const __nv_bfloat16* __restrict__ A,
                                                         const __nv_bfloat16* __restrict__ B, float* __restrict__ C)
{
    __shared__ __align__(128) uint4 as[CHUNKS], bs[CHUNKS];
    const size_t t = blockIdx.x;
    const uint4* a = reinterpret_cast<const uint4*>(A + t * T * T);  // row r, chunk j at r * 8 + j
    const uint4* b = reinterpret_cast<const uint4*>(B + t * T * T);

    // Chunk c of this loop is row r = (c / 64) * 8 + c % 8, k-group j =
    // (c / 8) % 8: eight neighbouring threads fill one core matrix, 128
    // contiguous bytes (no bank conflicts), and a warp reads 64 contiguous
    // bytes of each of 8 rows (whole 32-byte sectors).
    uint4 ra[CHUNKS / THREADS], rb[CHUNKS / THREADS];
#pragma unroll
    for (int i = 0; i < CHUNKS / THREADS; ++i) {
        const int c = threadIdx.x + THREADS * i, r = (c / 64) * 8 + c % 8, j = (c / 8) % 8;
        ra[i] = a[r * 8 + j];
        rb[i] = b[r * 8 + j];
    }
#pragma unroll
    for (int i = 0; i < CHUNKS / THREADS; ++i) {
        const int c = threadIdx.x + THREADS * i, r = (c / 64) * 8 + c % 8, j = (c / 8) % 8;
        as[chunk_offset(r, j)] = ra[i];
        bs[chunk_offset(r, j)] = rb[i];
    }
    fence_proxy_async();  // the stores above, before wgmma (the async proxy) reads them
    __syncthreads();

    float d[32] = {};
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < T / 16; ++ks) {
        // TODO: where A's k-step ks starts (as counts 16-byte chunks; a k-step
        //       of 16 is two core matrices along K), and B's.
        [[maybe_unused]] const uint4* a_step = as;
        [[maybe_unused]] const uint4* b_step = bs;
        // TODO: wgmma_m64n64k16(d, make_desc(a_step, LBO, SBO, 0), make_desc(b_step, LBO, SBO, 0), ks > 0),
        //       with LBO and SBO in bytes.
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_registers(d);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    (void)warp;
    (void)lane;
    // TODO: write d to tile t of C (64 x 64 floats, row-major) in the
    //       accumulator layout: for i < 8, d[4i], d[4i + 1] and, 8 rows
    //       further down, d[4i + 2], d[4i + 3] (pairs: one float2 store each).
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    tile_products<<<tiles, THREADS>>>(A, B, C);
}
