// ex26 tma_tile_load -- reference solution
//
// The matrix cut into 64 x 64 tiles, each written whole to out, zeros where
// it sticks out past the matrix (kind tile_pack).
//
// One block per tile. Thread 0 initialises an mbarrier for one arrival,
// announces the 16384 bytes the load will deliver (arrive.expect_tx) and
// issues one TMA load of the 64 x 64 box; every thread waits for the
// barrier's first phase (parity 0) and copies the tile to out with
// float4 stores. The tensor map does the addressing, the bounds and the
// zero fill: the kernel has no index arithmetic for the input at all.
//
// Measured on the H100: 2893 GB/s, 0.98 of the same-run copy (docs/benchmarks.md).
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

constexpr int TILE = 64;                                       // the box: 64 x 64 floats
constexpr uint32_t TILE_BYTES = TILE * TILE * sizeof(float);   // 16384: what one load delivers
constexpr int THREADS = 256;

__global__ void __launch_bounds__(THREADS)
    pack_tiles(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int tiles_c)
{
    __shared__ __align__(128) float tile[TILE * TILE];
    __shared__ __align__(8) uint64_t bar;

    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);   // one arrival per phase: the thread that issues the load
        fence_proxy_async();  // the initialised barrier, as the TMA unit will see it
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        // the whole box's bytes, also when part of it lies outside the
        // matrix: TMA delivers those as zeros and counts them
        mbar_arrive_expect_tx(&bar, TILE_BYTES);
        tma_load_2d(tile, &in_map, &bar, blockIdx.x * TILE, blockIdx.y * TILE);
    }
    mbar_wait(&bar, 0);  // the barrier's first phase: parity 0

    // The tile is contiguous in out: 1024 float4, 4 per thread, coalesced.
    float4* dst = reinterpret_cast<float4*>(out + ((size_t)blockIdx.y * tiles_c + blockIdx.x) * TILE * TILE);
    const float4* src = reinterpret_cast<const float4*>(tile);
#pragma unroll
    for (int i = threadIdx.x; i < TILE * TILE / 4; i += THREADS) dst[i] = src[i];
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    // Sizes and coordinates innermost first: dimension 0 is the columns.
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};  // bytes from one row to the next
    const cuuint32_t box[2] = {TILE, TILE};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in), dims,
                                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    const int tiles_c = (cols + TILE - 1) / TILE, tiles_r = (rows + TILE - 1) / TILE;
    pack_tiles<<<dim3(tiles_c, tiles_r), THREADS>>>(map, out, tiles_c);
}
