// ex29 tma_swizzle_read: the 128-byte swizzle, read back from a TMA tile
//
// What this exercise teaches
//   What CU_TENSOR_MAP_SWIZZLE_128B does to a tile on its way into shared
//   memory, and how to find an element in it again: the pattern of ex22,
//   now written by the copy engine. Reading a tile down its columns, as a
//   transpose does, is conflict-free in the swizzled layout.
//
// The problem (kind transpose, as in chapter 5)
//   out[c][r] = in[r][c]; in is row-major rows x cols floats, cols a
//   multiple of 4; out is cols x rows.
//
// What is given
//   The PTX wrappers, the grid (block (x, y) loads the box of 32 columns by
//   64 rows at column 32x, row 64y), the read-back loop (warp w writes out's
//   rows 4w .. 4w + 3 of the tile; lane l reads box element (r, c) with
//   c = 4w + l / 8, r = 8i + l % 8) and the guarded stores to out.
//
// What to fill in
//   1. In solve: the tensor map of `in` with a box of 32 x 64 floats and
//      CU_TENSOR_MAP_SWIZZLE_128B (its inner box may be at most 128 bytes).
//   2. The load, as in ex26, with this box's byte count.
//   3. swz128(r, c): the float offset of box element (r, c) in the tile. The
//      tile is aligned to 1024 bytes, so row r's 16-byte chunk h sits at
//      chunk h ^ (r % 8) of that row.
//   As shipped nothing is loaded: wrong answer. With the swizzle in the map
//   but not in swz128 (or the other way round) the answer is wrong too.
//
// How it is graded
//   gpucourse grade ex29
//   Checked exactly at shapes from 1 x 4 to 1000 x 996, then timed at
//   16384 x 16388 (2.1 GB moved) against the reference and a copy. Your
//   machine code must contain UTMALDG and SYNCS.
#include <cuda.h>          // the driver API: CUtensorMap, cuTensorMapEncodeTiled (linked with -lcuda)
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// ---------------------------------------------------------------------------
// Given: the PTX of TMA and mbarriers, one instruction per function.
// Shared-memory operands are 32-bit addresses in the shared window.

__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The barrier's first phase expects `count` arrivals.
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// Orders this thread's earlier shared-memory writes (ordinary stores, a
// barrier's init) before later operations of the async proxy (TMA).
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
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

// Waits until this thread's bulk groups have all finished reading shared
// memory (after this, the tile may be overwritten or the block may end).
__device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
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
// ---------------------------------------------------------------------------

namespace {

constexpr int BOX_C = 32;   // 32 floats: 128 bytes, the most SWIZZLE_128B allows
constexpr int BOX_R = 64;
[[maybe_unused]] constexpr uint32_t BOX_BYTES = BOX_C * BOX_R * sizeof(float);  // 8192
constexpr int THREADS = 256;

// Float offset of element (r, c) of a box loaded with the 128-byte swizzle.
__device__ __forceinline__ int swz128(int r, int c)
{
    // TODO: row r starts at float r * BOX_C; its 16-byte chunk c / 4 sits at
    //       chunk (c / 4) ^ (r % 8); the float's place in its chunk is c % 4.
    return r * BOX_C + c;
}

__global__ void __launch_bounds__(THREADS)
    transpose_tiles(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int rows, int cols)
{
    __shared__ __align__(1024) float tile[BOX_R * BOX_C];  // the swizzle repeats every 1024 bytes
    [[maybe_unused]] __shared__ __align__(8) uint64_t bar;
    const int c0 = blockIdx.x * BOX_C, r0 = blockIdx.y * BOX_R;

    // TODO: as in ex26: thread 0 initialises bar for one arrival and fences it;
    //       __syncthreads(); thread 0 announces BOX_BYTES and loads the box at
    //       (c0, r0) into tile; every thread waits for phase 0.
    (void)in_map;

    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int c = 4 * w + lane / 8;  // this lane's column of the box: a row of out
    const bool col_inside = c0 + c < cols;
    float* dst = out + (size_t)(c0 + c) * rows + r0;
#pragma unroll
    for (int i = 0; i < BOX_R / 8; ++i) {
        const int r = 8 * i + lane % 8;
        if (col_inside && r0 + r < rows) dst[r] = tile[swz128(r, c)];
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    CUtensorMap map{};
    // TODO: encode `in` as in ex26, with a box of BOX_C x BOX_R and
    //       CU_TENSOR_MAP_SWIZZLE_128B.
    (void)in;
    const dim3 grid((cols + BOX_C - 1) / BOX_C, (rows + BOX_R - 1) / BOX_R);
    transpose_tiles<<<grid, THREADS>>>(map, out, rows, cols);
}
