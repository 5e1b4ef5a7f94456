// ex29 tma_swizzle_read -- reference solution
//
// out[c][r] = in[r][c] (kind transpose), the tiles of in loaded by TMA with
// the 128-byte swizzle and read back down their columns.
//
// Block (x, y) loads the box of 32 columns (128 bytes) by 64 rows at
// (32x, 64y) with CU_TENSOR_MAP_SWIZZLE_128B into a 1024-byte-aligned tile:
// row r of the box is 128 bytes at r * 128, its 16-byte chunk h stored at
// chunk h ^ (r % 8) (ex22's image). Element (r, c) of the box is float
//   r * 32 + 4 * ((c / 4) ^ (r % 8)) + c % 4.
// Warp w writes out's rows c = 4w .. 4w + 3 of the tile, lane l the element
// (r, c) with c = 4w + l / 8 and r = 8i + l % 8 (i = 0..7): the 32 lanes
// read chunks w ^ (l % 8) (8 different ones) at offsets l / 8 inside them,
// 32 different banks, and write 4 rows x 8 consecutive floats (4 full
// 32-byte sectors) of out.
//
// Measured on the H100: 2688 GB/s, 0.91 of the same-run copy (docs/benchmarks.md).
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
constexpr uint32_t BOX_BYTES = BOX_C * BOX_R * sizeof(float);  // 8192
constexpr int THREADS = 256;

// Float offset of element (r, c) of a box loaded with the 128-byte swizzle.
__device__ __forceinline__ int swz128(int r, int c)
{
    return r * BOX_C + 4 * ((c / 4) ^ (r % 8)) + c % 4;
}

__global__ void __launch_bounds__(THREADS)
    transpose_tiles(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int rows, int cols)
{
    __shared__ __align__(1024) float tile[BOX_R * BOX_C];  // the swizzle repeats every 1024 bytes
    __shared__ __align__(8) uint64_t bar;
    const int c0 = blockIdx.x * BOX_C, r0 = blockIdx.y * BOX_R;

    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        fence_proxy_async();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(&bar, BOX_BYTES);
        tma_load_2d(tile, &in_map, &bar, c0, r0);
    }
    mbar_wait(&bar, 0);

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
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};
    const cuuint32_t box[2] = {BOX_C, BOX_R};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in), dims,
                                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    const dim3 grid((cols + BOX_C - 1) / BOX_C, (rows + BOX_R - 1) / BOX_R);
    transpose_tiles<<<grid, THREADS>>>(map, out, rows, cols);
}
