// expect: 4 timeout "likely here: a full or empty barrier" -- the empty barriers are initialised for every thread of the block, but only the 128 consumer threads arrive: their first phase never completes, and from the fifth tile of a block on the producer waits forever (at 3000 x 3004 every block has five or more)
// ex28 tma_pipeline -- reference solution
//
// The tile_pack problem of ex26 (64 x 64 tiles, zero-filled at the edges),
// at the speed of a copy: persistent blocks, a ring of 4 stages and warps
// with one job each.
//
// Each block walks tiles t = blockIdx.x, + gridDim.x, ...; its k-th tile
// goes to stage s = k % STAGES. Two mbarriers per stage:
//   full[s]   1 arrival (the producer's arrive.expect_tx) + 16384 bytes:
//             completes when the tile has landed;
//   empty[s]  128 arrivals, one per consumer thread: completes when the
//             consumers have read the stage and it may be refilled.
// Use k of a stage is that stage's use u = k / STAGES, so the phase to wait
// for has parity u % 2: consumers wait full[s] with parity u % 2; the
// producer, before refilling a stage for its use u >= 1, waits empty[s] for
// the phase that the consumers completed during use u - 1, parity
// (u - 1) % 2 = (u % 2) ^ 1.
//
// Warp 0 (one lane) is the producer: it issues TMA loads up to 4 tiles
// ahead. Warps 1-4 are the consumers: each thread reads 8 float4 of the
// stage into registers, releases the stage (arrive on empty), then stores
// them to out: the next load into the stage overlaps the stores.
// 64 KB of ring per block, as many blocks per SM as fit (3 on an H100).
//
// Measured on the H100: to be measured (docs/benchmarks.md).
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

constexpr int TILE = 64;
constexpr uint32_t TILE_BYTES = TILE * TILE * sizeof(float);  // 16384
constexpr int STAGES = 4;
constexpr int CONSUMERS = 128;                    // 4 warps
constexpr int THREADS = 32 + CONSUMERS;           // + the producer warp
constexpr int PER_THREAD = TILE * TILE / 4 / CONSUMERS;  // float4 per consumer thread and tile
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
            mbar_init(&empty[s], THREADS);  // every thread of the block, producer warp included
        }
        fence_proxy_async();
    }
    __syncthreads();

    if (threadIdx.x < 32) {  // the producer warp: one lane issues, the others are done
        if (threadIdx.x == 0) {
            int k = 0;
            for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++k) {
                const int s = k % STAGES;
                const uint32_t use = k / STAGES;
                if (use > 0) mbar_wait(&empty[s], (use & 1) ^ 1);  // consumers done with use - 1
                mbar_arrive_expect_tx(&full[s], TILE_BYTES);
                tma_load_2d(ring + s * TILE * TILE, &in_map, &full[s], (t % tiles_c) * TILE, (t / tiles_c) * TILE);
            }
        }
        return;
    }

    const int ct = threadIdx.x - 32;  // 0 .. CONSUMERS - 1
    int k = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++k) {
        const int s = k % STAGES;
        const uint32_t use = k / STAGES;
        mbar_wait(&full[s], use & 1);
        const float4* src = reinterpret_cast<const float4*>(ring + s * TILE * TILE);
        float4 v[PER_THREAD];
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) v[i] = src[ct + i * CONSUMERS];
        mbar_arrive(&empty[s]);  // the stage is in registers: the producer may refill it
        float4* dst = reinterpret_cast<float4*>(out + (size_t)t * TILE * TILE);
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) dst[ct + i * CONSUMERS] = v[i];
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

    // Persistent blocks: as many as fit on the GPU at once, or one per tile.
    static int per_sm = 0;
    if (per_sm == 0) {
        cudaFuncSetAttribute(pack_tiles_pipelined, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pack_tiles_pipelined, THREADS, SMEM_BYTES);
        if (per_sm < 1) per_sm = 1;
    }
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int tiles_c = (cols + TILE - 1) / TILE, tiles = tiles_c * ((rows + TILE - 1) / TILE);
    const int blocks = tiles < per_sm * sms ? tiles : per_sm * sms;
    pack_tiles_pipelined<<<blocks, THREADS, SMEM_BYTES>>>(map, out, tiles_c, tiles);
}
