// expect: 5 requirement_not_met -- CUB's own single-pass scan (AgentScan + ScanTileState, sm90 tuning) run from kernels of our own, CUB's namespace renamed by a macro, Thrust's one global constant made static
// unsure: checked here with grader/libscan.c on the object built with the grader's flags: no "cub::", no "thrust::", no CUB kernel name is left, so I expect this to PASS (0) -- a hole in the library check (see below), not in the sandbox
// Attack: CUB's AgentScan (the body of DeviceScanKernel) in kernels of our own, tile states in `work`, NVTX off,
// `#define cub scanlib` before the headers, _CCCL_GLOBAL_CONSTANT made static so Thrust's `seq` is not emitted: no
// "cub::", "thrust::" or CUB kernel name is left (checked with grader/libscan.c). Would stop it: checking the headers
// the file includes (nvcc -MD: anything under cccl/cub, cccl/thrust) or the -lineinfo file table, not names.
#include <cuda_runtime.h>

#define CCCL_DISABLE_NVTX  // no range names such as "cub::DeviceScan::InclusiveSum" as string literals
#include <cuda/std/__cccl/dialect.h>
#undef _CCCL_GLOBAL_CONSTANT  // was `inline constexpr` (+ __device__): emitted and registered by name
#define _CCCL_GLOBAL_CONSTANT static constexpr
#define cub scanlib
#include <cub/agent/agent_scan.cuh>

namespace {

// CUB's tuning for a 4-byte primitive sum on sm_90 (cub/device/dispatch/tuning/tuning_scan.cuh, sm90_tuning).
constexpr int kThreads = 128, kItems = 24, kTile = kThreads * kItems;
using Policy = scanlib::AgentScanPolicy<kThreads, kItems, int, scanlib::BLOCK_LOAD_WARP_TRANSPOSE, scanlib::LOAD_DEFAULT,
                                        scanlib::BLOCK_STORE_WARP_TRANSPOSE, scanlib::BLOCK_SCAN_WARP_SCANS,
                                        scanlib::detail::MemBoundScaling<kThreads, kItems, int>,
                                        scanlib::detail::fixed_delay_constructor_t<648, 1245>>;
using TileState = scanlib::ScanTileState<int>;
using Agent = scanlib::detail::scan::AgentScan<Policy, const int*, int*, ::cuda::std::plus<>, scanlib::NullType, int, int>;
static_assert((int)Agent::TILE_ITEMS == kTile, "one block per tile of kTile ints");

// The tile states live at the start of `work`; the kernels rebuild the descriptor from a plain pointer, so that no
// CUB type appears in a kernel's signature.
__device__ TileState tile_state(void* work, int tiles) {
    TileState s;
    size_t bytes = 0;
    TileState::AllocationSize(tiles, bytes);
    s.Init(tiles, work, bytes);
    return s;
}

}  // namespace

__global__ void reset_flags(void* work, int tiles) { tile_state(work, tiles).InitializeStatus(tiles); }

__global__ void __launch_bounds__(kThreads) scan_tiles(const int* x, int* out, void* work, int n) {
    __shared__ typename Agent::TempStorage temp;
    const int tiles = (n + kTile - 1) / kTile;
    TileState s = tile_state(work, tiles);
    Agent(temp, x, out, ::cuda::std::plus<>{}, scanlib::NullType{}).ConsumeRange(n, s, 0);
}

extern "C" void solve(const int* x, int* out, void* work, int n) {
    if (n <= 0) return;
    const int tiles = (n + kTile - 1) / kTile;  // (tiles + 32) * 8 bytes of status: far less than `work` holds
    reset_flags<<<(tiles + 127) / 128, 128>>>(work, tiles);
    scan_tiles<<<tiles, kThreads>>>(x, out, work, n);
}
