// expect: 5 requirement_not_met "loaded machine code at run time" -- the products come from a wgmma kernel without its wgmma.fence, linked into a cubin in memory (cuLinkCreate, cuLinkAddData, cuLinkComplete) and loaded from those bytes with cuModuleLoadData: cuobjdump reads only the fatbin, so the stored cubin is never seen; the runner records every module its process loads (CUPTI), and this one is none of the library's cubins (until issue 45: pass)
// Attack: the reference's kernel is compiled in and never launched (HGMMA in the library's SASS); solve launches the
// fence-less kernel from a cubin kept in the library's memory, every driver function reached by name.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>

// The reference's kernel, compiled in and never launched: the library's machine code has HGMMA and the fence.

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
constexpr uint32_t LBO = 128, SBO = 1024;  // see chunk_offset

// The no-swizzle K-major layout wgmma reads: the tile is cut into core
// matrices of 8 rows x 8 k, each 128 contiguous bytes (its 8 rows of 16
// bytes one after another). Core matrix (r / 8, j) (j = k / 8) is stored at
// chunk ((r / 8) * 8 + j) * 8: the 8 core matrices along K of one row group
// are neighbours, LBO = 128 bytes apart; row groups are SBO = 1024 bytes apart.
__device__ __forceinline__ int chunk_offset(int r, int j)
{
    return ((r / 8) * 8 + j) * 8 + r % 8;
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

    // Four k-steps of 16: each is two core matrices along K, so the start
    // address moves 2 * LBO = 256 bytes (16 chunks) per step.
    float d[32];
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < T / 16; ++ks)
        wgmma_m64n64k16(d, make_desc(as + 16 * ks, LBO, SBO, 0), make_desc(bs + 16 * ks, LBO, SBO, 0), ks > 0);
    wgmma_commit();
    wgmma_wait<0>();
    fence_registers(d);

    // The accumulator layout: d[4i + {0,1}] is row 16 * warp + lane / 4,
    // columns 8i + 2 (lane % 4) + {0,1}; d[4i + {2,3}] the same 8 rows down.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* c = C + t * T * T + (16 * warp + lane / 4) * T + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < T / 8; ++i) {
        *reinterpret_cast<float2*>(c + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
        *reinterpret_cast<float2*>(c + 8 * T + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
    }
}

}  // namespace


// The same kernel without wgmma_fence(), as PTX (nvcc 13.0 --ptx -arch=sm_90a): ptxas inserts the fence itself
// and says C7519, but here ptxas runs inside the driver, whose log nobody reads.
static const char kPtx[] = R"PTX(//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-36424714
// Cuda compilation tools, release 13.0, V13.0.88
// Based on NVVM 7.0.1
//

.version 9.0
.target sm_90a
.address_size 64

	// .globl	tile_products_jit
// _ZZ17tile_products_jitE2as has been demoted
// _ZZ17tile_products_jitE2bs has been demoted

.visible .entry tile_products_jit(
	.param .u64 tile_products_jit_param_0,
	.param .u64 tile_products_jit_param_1,
	.param .u64 tile_products_jit_param_2
)
.maxntid 128, 1, 1
{
	.reg .f32 	%f<353>;
	.reg .b32 	%r<222>;
	.reg .b64 	%rd<45>;
	// demoted variable
	.shared .align 128 .b8 _ZZ17tile_products_jitE2as[8192];
	// demoted variable
	.shared .align 128 .b8 _ZZ17tile_products_jitE2bs[8192];

	ld.param.u64 	%rd9, [tile_products_jit_param_0];
	ld.param.u64 	%rd10, [tile_products_jit_param_1];
	ld.param.u64 	%rd11, [tile_products_jit_param_2];
	cvta.to.global.u64 	%rd12, %rd10;
	cvta.to.global.u64 	%rd13, %rd9;
	mov.u32 	%r5, %ctaid.x;
	mul.wide.u32 	%rd14, %r5, 4096;
	shl.b64 	%rd15, %rd14, 1;
	add.s64 	%rd16, %rd13, %rd15;
	add.s64 	%rd17, %rd12, %rd15;
	mov.u32 	%r6, %tid.x;
	shr.s32 	%r7, %r6, 31;
	shr.u32 	%r8, %r7, 26;
	add.s32 	%r9, %r6, %r8;
	shr.s32 	%r10, %r9, 6;
	shl.b32 	%r11, %r10, 3;
	shr.u32 	%r12, %r7, 29;
	add.s32 	%r13, %r6, %r12;
	and.b32  	%r14, %r13, -8;
	sub.s32 	%r15, %r6, %r14;
	add.s32 	%r16, %r11, %r15;
	shr.s32 	%r17, %r13, 3;
	shr.s32 	%r18, %r13, 31;
	shr.u32 	%r19, %r18, 29;
	add.s32 	%r20, %r17, %r19;
	and.b32  	%r21, %r20, -8;
	sub.s32 	%r22, %r17, %r21;
	shl.b32 	%r23, %r16, 3;
	add.s32 	%r24, %r23, %r22;
	mul.wide.s32 	%rd18, %r24, 16;
	add.s64 	%rd19, %rd16, %rd18;
	ld.global.nc.v4.u32 	{%r25, %r26, %r27, %r28}, [%rd19];
	add.s64 	%rd20, %rd17, %rd18;
	ld.global.nc.v4.u32 	{%r33, %r34, %r35, %r36}, [%rd20];
	add.s32 	%r41, %r6, 128;
	shr.s32 	%r42, %r41, 31;
	shr.u32 	%r43, %r42, 26;
	add.s32 	%r44, %r41, %r43;
	shr.s32 	%r45, %r44, 6;
	shl.b32 	%r46, %r45, 3;
	shr.u32 	%r47, %r42, 29;
	add.s32 	%r48, %r41, %r47;
	and.b32  	%r49, %r48, -8;
	sub.s32 	%r50, %r41, %r49;
	add.s32 	%r51, %r46, %r50;
	shr.s32 	%r52, %r48, 3;
	shr.s32 	%r53, %r48, 31;
	shr.u32 	%r54, %r53, 29;
	add.s32 	%r55, %r52, %r54;
	and.b32  	%r56, %r55, -8;
	sub.s32 	%r57, %r52, %r56;
	shl.b32 	%r58, %r51, 3;
	add.s32 	%r59, %r58, %r57;
	mul.wide.s32 	%rd21, %r59, 16;
	add.s64 	%rd22, %rd16, %rd21;
	ld.global.nc.v4.u32 	{%r60, %r61, %r62, %r63}, [%rd22];
	add.s64 	%rd23, %rd17, %rd21;
	ld.global.nc.v4.u32 	{%r68, %r69, %r70, %r71}, [%rd23];
	add.s32 	%r76, %r6, 256;
	shr.s32 	%r77, %r76, 31;
	shr.u32 	%r78, %r77, 26;
	add.s32 	%r79, %r76, %r78;
	shr.s32 	%r80, %r79, 6;
	shl.b32 	%r81, %r80, 3;
	shr.u32 	%r82, %r77, 29;
	add.s32 	%r83, %r76, %r82;
	and.b32  	%r84, %r83, -8;
	sub.s32 	%r85, %r76, %r84;
	add.s32 	%r86, %r81, %r85;
	shr.s32 	%r87, %r83, 3;
	shr.s32 	%r88, %r83, 31;
	shr.u32 	%r89, %r88, 29;
	add.s32 	%r90, %r87, %r89;
	and.b32  	%r91, %r90, -8;
	sub.s32 	%r92, %r87, %r91;
	shl.b32 	%r93, %r86, 3;
	add.s32 	%r94, %r93, %r92;
	mul.wide.s32 	%rd24, %r94, 16;
	add.s64 	%rd25, %rd16, %rd24;
	ld.global.nc.v4.u32 	{%r95, %r96, %r97, %r98}, [%rd25];
	add.s64 	%rd26, %rd17, %rd24;
	ld.global.nc.v4.u32 	{%r103, %r104, %r105, %r106}, [%rd26];
	add.s32 	%r111, %r6, 384;
	shr.s32 	%r112, %r111, 31;
	shr.u32 	%r113, %r112, 26;
	add.s32 	%r114, %r111, %r113;
	shr.s32 	%r115, %r114, 6;
	shl.b32 	%r116, %r115, 3;
	shr.u32 	%r117, %r112, 29;
	add.s32 	%r118, %r111, %r117;
	and.b32  	%r119, %r118, -8;
	sub.s32 	%r120, %r111, %r119;
	add.s32 	%r121, %r116, %r120;
	shr.s32 	%r122, %r118, 3;
	shr.s32 	%r123, %r118, 31;
	shr.u32 	%r124, %r123, 29;
	add.s32 	%r125, %r122, %r124;
	and.b32  	%r126, %r125, -8;
	sub.s32 	%r127, %r122, %r126;
	shl.b32 	%r128, %r121, 3;
	add.s32 	%r129, %r128, %r127;
	mul.wide.s32 	%rd27, %r129, 16;
	add.s64 	%rd28, %rd16, %rd27;
	ld.global.nc.v4.u32 	{%r130, %r131, %r132, %r133}, [%rd28];
	add.s64 	%rd29, %rd17, %rd27;
	ld.global.nc.v4.u32 	{%r138, %r139, %r140, %r141}, [%rd29];
	cvta.to.global.u64 	%rd30, %rd11;
	shr.s32 	%r146, %r16, 31;
	shr.u32 	%r147, %r146, 29;
	add.s32 	%r148, %r16, %r147;
	and.b32  	%r149, %r148, -8;
	add.s32 	%r150, %r149, %r22;
	shl.b32 	%r151, %r150, 3;
	sub.s32 	%r152, %r16, %r149;
	add.s32 	%r153, %r151, %r152;
	shl.b32 	%r154, %r153, 4;
	mov.u32 	%r155, _ZZ17tile_products_jitE2as;
	add.s32 	%r156, %r155, %r154;
	mov.u32 	%r1, 0;
	st.shared.v4.u32 	[%r156], {%r25, %r26, %r27, %r28};
	mov.u32 	%r157, _ZZ17tile_products_jitE2bs;
	add.s32 	%r158, %r157, %r154;
	st.shared.v4.u32 	[%r158], {%r33, %r34, %r35, %r36};
	shr.s32 	%r159, %r51, 31;
	shr.u32 	%r160, %r159, 29;
	add.s32 	%r161, %r51, %r160;
	and.b32  	%r162, %r161, -8;
	add.s32 	%r163, %r162, %r57;
	shl.b32 	%r164, %r163, 3;
	sub.s32 	%r165, %r51, %r162;
	add.s32 	%r166, %r164, %r165;
	shl.b32 	%r167, %r166, 4;
	add.s32 	%r168, %r155, %r167;
	st.shared.v4.u32 	[%r168], {%r60, %r61, %r62, %r63};
	add.s32 	%r169, %r157, %r167;
	st.shared.v4.u32 	[%r169], {%r68, %r69, %r70, %r71};
	shr.s32 	%r170, %r86, 31;
	shr.u32 	%r171, %r170, 29;
	add.s32 	%r172, %r86, %r171;
	and.b32  	%r173, %r172, -8;
	add.s32 	%r174, %r173, %r92;
	shl.b32 	%r175, %r174, 3;
	sub.s32 	%r176, %r86, %r173;
	add.s32 	%r177, %r175, %r176;
	shl.b32 	%r178, %r177, 4;
	add.s32 	%r179, %r155, %r178;
	st.shared.v4.u32 	[%r179], {%r95, %r96, %r97, %r98};
	add.s32 	%r180, %r157, %r178;
	st.shared.v4.u32 	[%r180], {%r103, %r104, %r105, %r106};
	shr.s32 	%r181, %r121, 31;
	shr.u32 	%r182, %r181, 29;
	add.s32 	%r183, %r121, %r182;
	and.b32  	%r184, %r183, -8;
	add.s32 	%r185, %r184, %r127;
	shl.b32 	%r186, %r185, 3;
	sub.s32 	%r187, %r121, %r184;
	add.s32 	%r188, %r186, %r187;
	shl.b32 	%r189, %r188, 4;
	add.s32 	%r190, %r155, %r189;
	st.shared.v4.u32 	[%r190], {%r130, %r131, %r132, %r133};
	add.s32 	%r191, %r157, %r189;
	st.shared.v4.u32 	[%r191], {%r138, %r139, %r140, %r141};
	// begin inline asm
	fence.proxy.async.shared::cta;
	// end inline asm
	bar.sync 	0;
	and.b32  	%r192, %r155, 262016;
	shr.u32 	%r193, %r192, 4;
	cvt.u64.u32 	%rd31, %r193;
	or.b64  	%rd1, %rd31, 274878431232;
	and.b32  	%r194, %r157, 262016;
	shr.u32 	%r195, %r194, 4;
	cvt.u64.u32 	%rd32, %r195;
	or.b64  	%rd2, %rd32, 274878431232;
	// begin inline asm
	{
.reg .pred p;
setp.ne.b32 p, %r1, 0;
wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f129, %f130, %f131, %f132, %f133, %f134, %f135, %f136, %f137, %f138, %f139, %f140, %f141, %f142, %f143, %f144, %f145, %f146, %f147, %f148, %f149, %f150, %f151, %f152, %f153, %f154, %f155, %f156, %f157, %f158, %f159, %f160}, %rd1, %rd2, p, 1, 1, 0, 0;
}
	// end inline asm
	add.s32 	%r196, %r155, 256;
	and.b32  	%r197, %r196, 262016;
	shr.u32 	%r198, %r197, 4;
	cvt.u64.u32 	%rd33, %r198;
	or.b64  	%rd3, %rd33, 274878431232;
	add.s32 	%r199, %r157, 256;
	and.b32  	%r200, %r199, 262016;
	shr.u32 	%r201, %r200, 4;
	cvt.u64.u32 	%rd34, %r201;
	or.b64  	%rd4, %rd34, 274878431232;
	mov.u32 	%r4, 1;
	// begin inline asm
	{
.reg .pred p;
setp.ne.b32 p, %r4, 0;
wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f129, %f130, %f131, %f132, %f133, %f134, %f135, %f136, %f137, %f138, %f139, %f140, %f141, %f142, %f143, %f144, %f145, %f146, %f147, %f148, %f149, %f150, %f151, %f152, %f153, %f154, %f155, %f156, %f157, %f158, %f159, %f160}, %rd3, %rd4, p, 1, 1, 0, 0;
}
	// end inline asm
	add.s32 	%r202, %r155, 512;
	and.b32  	%r203, %r202, 262016;
	shr.u32 	%r204, %r203, 4;
	cvt.u64.u32 	%rd35, %r204;
	or.b64  	%rd5, %rd35, 274878431232;
	add.s32 	%r205, %r157, 512;
	and.b32  	%r206, %r205, 262016;
	shr.u32 	%r207, %r206, 4;
	cvt.u64.u32 	%rd36, %r207;
	or.b64  	%rd6, %rd36, 274878431232;
	// begin inline asm
	{
.reg .pred p;
setp.ne.b32 p, %r4, 0;
wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f129, %f130, %f131, %f132, %f133, %f134, %f135, %f136, %f137, %f138, %f139, %f140, %f141, %f142, %f143, %f144, %f145, %f146, %f147, %f148, %f149, %f150, %f151, %f152, %f153, %f154, %f155, %f156, %f157, %f158, %f159, %f160}, %rd5, %rd6, p, 1, 1, 0, 0;
}
	// end inline asm
	add.s32 	%r208, %r155, 768;
	and.b32  	%r209, %r208, 262016;
	shr.u32 	%r210, %r209, 4;
	cvt.u64.u32 	%rd37, %r210;
	or.b64  	%rd7, %rd37, 274878431232;
	add.s32 	%r211, %r157, 768;
	and.b32  	%r212, %r211, 262016;
	shr.u32 	%r213, %r212, 4;
	cvt.u64.u32 	%rd38, %r213;
	or.b64  	%rd8, %rd38, 274878431232;
	// begin inline asm
	{
.reg .pred p;
setp.ne.b32 p, %r4, 0;
wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f129, %f130, %f131, %f132, %f133, %f134, %f135, %f136, %f137, %f138, %f139, %f140, %f141, %f142, %f143, %f144, %f145, %f146, %f147, %f148, %f149, %f150, %f151, %f152, %f153, %f154, %f155, %f156, %f157, %f158, %f159, %f160}, %rd7, %rd8, p, 1, 1, 0, 0;
}
	// end inline asm
	// begin inline asm
	wgmma.commit_group.sync.aligned;
	// end inline asm
	// begin inline asm
	wgmma.wait_group.sync.aligned 0;
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	and.b32  	%r214, %r6, 31;
	shr.u32 	%r215, %r6, 1;
	and.b32  	%r216, %r215, 67108848;
	shr.u32 	%r217, %r214, 2;
	or.b32  	%r218, %r216, %r217;
	shl.b32 	%r219, %r218, 6;
	cvt.s64.s32 	%rd39, %r219;
	shl.b32 	%r220, %r6, 1;
	and.b32  	%r221, %r220, 6;
	cvt.u64.u32 	%rd40, %r221;
	or.b64  	%rd41, %rd14, %rd40;
	add.s64 	%rd42, %rd41, %rd39;
	shl.b64 	%rd43, %rd42, 2;
	add.s64 	%rd44, %rd30, %rd43;
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	// begin inline asm
	// end inline asm
	st.global.f32 	[%rd44], %f129;
	st.global.f32 	[%rd44+4], %f130;
	st.global.v2.f32 	[%rd44+2048], {%f131, %f132};
	st.global.v2.f32 	[%rd44+32], {%f133, %f134};
	st.global.v2.f32 	[%rd44+2080], {%f135, %f136};
	st.global.v2.f32 	[%rd44+64], {%f137, %f138};
	st.global.v2.f32 	[%rd44+2112], {%f139, %f140};
	st.global.v2.f32 	[%rd44+96], {%f141, %f142};
	st.global.v2.f32 	[%rd44+2144], {%f143, %f144};
	st.global.v2.f32 	[%rd44+128], {%f145, %f146};
	st.global.v2.f32 	[%rd44+2176], {%f147, %f148};
	st.global.v2.f32 	[%rd44+160], {%f149, %f150};
	st.global.v2.f32 	[%rd44+2208], {%f151, %f152};
	st.global.v2.f32 	[%rd44+192], {%f153, %f154};
	st.global.v2.f32 	[%rd44+2240], {%f155, %f156};
	st.global.v2.f32 	[%rd44+224], {%f157, %f158};
	st.global.v2.f32 	[%rd44+2272], {%f159, %f160};
	ret;

}

)PTX";

typedef CUresult (*LoadDataFn)(CUmodule*, const void*);
typedef CUresult (*GetFunctionFn)(CUfunction*, CUmodule, const char*);
typedef CUresult (*LaunchFn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);

// A driver function by name through cuGetProcAddress: no import of it in the library, nothing to interpose.
static void* driver(const char* name)
{
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found;
    return cuGetProcAddress(name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS ? fn : nullptr;
}

volatile int never = 0;  // the decoy's launch, which the compiler cannot drop

typedef CUresult (*LinkCreateFn)(unsigned, CUjit_option*, void**, CUlinkState*);
typedef CUresult (*LinkAddDataFn)(CUlinkState, CUjitInputType, void*, size_t, const char*, unsigned, CUjit_option*,
                                  void**);
typedef CUresult (*LinkCompleteFn)(CUlinkState, void**, size_t*);

// A cubin as bytes in the library's own memory (cuLinkCreate, cuLinkAddData, cuLinkComplete make it from the
// PTX: a byte array compiled in by hand is the same to the driver), then loaded as a cubin: nothing of it is in
// the fatbin that cuobjdump reads.
static CUfunction jit_kernel(void)
{
    LinkCreateFn create = (LinkCreateFn)driver("cuLinkCreate");
    LinkAddDataFn add = (LinkAddDataFn)driver("cuLinkAddData");
    LinkCompleteFn complete = (LinkCompleteFn)driver("cuLinkComplete");
    LoadDataFn load = (LoadDataFn)driver("cuModuleLoadData");
    GetFunctionFn get = (GetFunctionFn)driver("cuModuleGetFunction");
    if (!create || !add || !complete || !load || !get) return nullptr;
    CUlinkState link;
    void* image = nullptr;
    size_t size = 0;
    if (create(0, nullptr, nullptr, &link) != CUDA_SUCCESS ||
        add(link, CU_JIT_INPUT_PTX, (void*)kPtx, sizeof kPtx, "tile", 0, nullptr, nullptr) != CUDA_SUCCESS ||
        complete(link, &image, &size) != CUDA_SUCCESS)
        return nullptr;
    static char cubin[1 << 20];  // the bytes, kept in the library's memory as a stored cubin would be
    if (size > sizeof cubin) return nullptr;
    memcpy(cubin, image, size);
    CUmodule m;
    CUfunction f;
    if (load(&m, cubin) != CUDA_SUCCESS || get(&f, m, "tile_products_jit") != CUDA_SUCCESS) return nullptr;
    return f;
}

extern "C" void solve(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int tiles)
{
    if (tiles <= 0) return;
    if (never) tile_products<<<tiles, THREADS>>>(A, B, C);
    static CUfunction f = jit_kernel();
    static LaunchFn launch = (LaunchFn)driver("cuLaunchKernel");
    if (!f || !launch) return;  // C stays poisoned: a wrong answer says the attack did not load
    void* args[] = {&A, &B, &C};
    launch(f, (unsigned)tiles, 1, 1, THREADS, 1, 1, 0, nullptr, args, nullptr);
}
