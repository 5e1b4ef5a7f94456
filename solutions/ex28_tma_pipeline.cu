// ex28 tma_pipeline -- reference solution
//
// The tile_pack problem of ex26 (64 x 64 tiles, zero-filled at the edges),
// at the speed of a copy: each block streams a run of RUN tiles through a
// ring of STAGES shared-memory stages; one warp loads (TMA), one warp stores
// (bulk copies), and no thread touches the data.
//
// Block b owns tiles t = RUN b .. RUN b + RUN - 1 (neighbours along a tile
// row); its k-th tile goes to stage s = k % STAGES, that stage's use
// u = k / STAGES. Two mbarriers per stage:
//   full[s]   1 arrival (the producer's arrive.expect_tx) + 16384 bytes:
//             completes when the tile has landed;
//   empty[s]  1 arrival (the consumer's): completes when the bulk store of
//             the tile has read it, so the stage may be refilled.
// The phase to wait for in use u has parity u % 2: the consumer waits
// full[s] with parity u % 2; the producer, before refilling a stage for
// use u >= 1, waits empty[s] for the phase completed in use u - 1, parity
// (u - 1) % 2 = (u % 2) ^ 1.
//
// The consumer keeps up to STORES_READING stores reading shared memory and
// releases a stage only once its store has read it (wait_group.read): the
// next load may not overwrite a tile that is still being read.
//
// Why runs of neighbouring tiles, and why no thread copies:
// - A run walks along a 64-row band of the matrix, so each block's loads
//   stay in the same DRAM rows. Blocks that take every gridDim-th tile
//   (persistent blocks) measured 0.82-0.85 of the copy: a block's tiles are
//   fixed in advance, so the slowest block sets the time. Short runs leave
//   the balancing to the block scheduler.
// - Consumer warps that read the stage with ordinary loads and stored with
//   ordinary stores measured 0.88-0.90 of the copy, and needed a
//   fence.proxy.async between their reads and the next TMA write to the
//   stage (a write-after-read across proxies: without it 9 of 2000 launches
//   had wrong elements).
//
// Measured on the H100: 2770 GB/s, 0.94 of the same-run copy (docs/benchmarks.md).
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

// Bulk store: `bytes` contiguous bytes of shared memory at src to global
// memory at dst (both 16-byte aligned, bytes a multiple of 16), through the
// copy engine, like a TMA store without a tensor map.
__device__ __forceinline__ void bulk_store(void* dst, const void* src, uint32_t bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)),
                 "r"(bytes)
                 : "memory");
}

// Closes this thread's bulk stores issued so far into one bulk group.
__device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most N of this thread's bulk groups are still reading
// shared memory: the older ones are done with their tiles, which may be
// overwritten (their writes to global memory may still be on the way).
template <int N>
__device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
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

constexpr int TILE = 64;
constexpr uint32_t TILE_BYTES = TILE * TILE * sizeof(float);  // 16384
constexpr int STAGES = 6;                                     // 96 KB of ring: two blocks per SM
constexpr int RUN = 16;                                       // tiles per block: each stage used 2-3 times
constexpr int STORES_READING = 2;                             // stores the consumer lets read at once
constexpr int THREADS = 64;                                   // warp 0 produces, warp 1 consumes
constexpr size_t SMEM_BYTES = STAGES * TILE_BYTES + 2 * STAGES * sizeof(uint64_t);

__global__ void __launch_bounds__(THREADS)
    pack_tiles_pipelined(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int tiles_c, int tiles)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float* ring = reinterpret_cast<float*>(smem);                                // STAGES tiles
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + STAGES * TILE_BYTES);   // STAGES barriers
    uint64_t* empty = full + STAGES;                                             // STAGES barriers

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 1);
        }
        fence_proxy_async();
    }
    __syncthreads();

    const int first = blockIdx.x * RUN;
    const int last = first + RUN < tiles ? first + RUN : tiles;

    if (threadIdx.x == 0) {  // the producer
        for (int t = first, k = 0; t < last; ++t, ++k) {
            const int s = k % STAGES;
            const uint32_t use = k / STAGES;
            if (use > 0) mbar_wait(&empty[s], (use & 1) ^ 1);  // the store of use - 1 has read it
            mbar_arrive_expect_tx(&full[s], TILE_BYTES);
            tma_load_2d(ring + s * TILE * TILE, &in_map, &full[s], (t % tiles_c) * TILE, (t / tiles_c) * TILE);
        }
    } else if (threadIdx.x == 32) {  // the consumer
        for (int t = first, k = 0; t < last; ++t, ++k) {
            const int s = k % STAGES;
            mbar_wait(&full[s], (k / STAGES) & 1);
            bulk_store(out + (size_t)t * TILE * TILE, ring + s * TILE * TILE, TILE_BYTES);
            bulk_commit();
            bulk_wait_read<STORES_READING>();  // the stores before the last STORES_READING have read their tiles
            if (k >= STORES_READING) mbar_arrive(&empty[(k - STORES_READING) % STAGES]);
        }
        bulk_wait_read<0>();  // the block's shared memory must outlive every store's read
    }
}

}  // namespace

extern "C" void solve(const float* in, float* out, int rows, int cols)
{
    if (rows <= 0 || cols <= 0) return;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};
    const cuuint32_t box[2] = {TILE, TILE};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    check_driver(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in), dims,
                                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                 "cuTensorMapEncodeTiled");
    static bool configured = false;  // 96 KB of dynamic shared memory needs the opt-in
    if (!configured) {
        cudaFuncSetAttribute(pack_tiles_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        configured = true;
    }
    const int tiles_c = (cols + TILE - 1) / TILE, tiles = tiles_c * ((rows + TILE - 1) / TILE);
    pack_tiles_pipelined<<<(tiles + RUN - 1) / RUN, THREADS, SMEM_BYTES>>>(map, out, tiles_c, tiles);
}
