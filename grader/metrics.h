/* The names of the H100's hardware counters that gpucourse reads (the
 * evidence checks, grader/evidence.c, and the diagnosis, grader/diagnose.c),
 * in one place. */
#ifndef GPUCOURSE_METRICS_H
#define GPUCOURSE_METRICS_H

/* The H100's counters (ncu --query-metrics --chip gh100), each a sum over
 * the whole GPU for the one call. Measured on the course's references and
 * plain-path answers with tools/evidence-probe.sh (docs/authoring.md). */
#define TMA_LOAD_BYTES "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"
/* TMA loads with .multicast::cluster: the bytes that landed in the blocks of
 * the mask (every block's, each counted; TMA_LOAD_BYTES counts them too) and
 * the requests to L2, at most 128 bytes each (ex44's reference: 1.07 GB
 * landed for 4.19 M requests at 4096^3; the same loads each sent to the own
 * block only: the same bytes for 8.39 M requests). */
#define TMA_MULTICAST_BYTES "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_dest_multicast.sum"
#define TMA_MULTICAST_REQUESTS "l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld_dest_multicast.sum"
#define TMA_STORE_BYTES "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum"
#define LOAD_SECTORS "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define LOAD_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define STORE_SECTORS "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
#define STORE_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
/* No sm__sass_* counter: one slowed the counted calls in proportion to what
 * it counts, as patched code would (an honest ex11, 5 shuffles an element,
 * ran 5.2x slower counted and failed the counted call's clock), so they
 * cannot be evidence. */
#define LDSM_INSTS "smsp__inst_executed_op_ldsm.sum"
#define SHARED_LOAD_INSTS "smsp__inst_executed_op_shared_ld.sum"
#define LDGSTS_INSTS "smsp__inst_executed_op_ldgsts.sum"
#define GLOBAL_LOAD_INSTS "smsp__inst_executed_op_global_ld.sum"
#define BANK_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
#define SHARED_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
/* The tensor pipe's busy cycles by instruction type: every 16-bit, 8-bit
 * and TF32 type, and FP64 (DMMA: products of floats are exact in double, so
 * a DMMA GEMM meets FP32's error bound). Not sm__pipe_tensor_cycles_active:
 * it read 9.8e-4 cycles per FLOP for ex36's FP32 SIMT reference. */
#define TENSOR_CYCLES "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.sum"
#define DMMA_CYCLES "sm__pipe_tensor_op_dmma_cycles_active.sum"
#define OPS(path, type) "sm__ops_path_tensor_op_" path "_src_" type ".sum"

/* The witness's (harness/judge/witness.cu): counters that PM sampling reads
 * in one pass on GH100 and the range profiler reads too, under the same
 * names, so that the judge's samples over the timed calls and the counted
 * calls can be compared. The tensor pipe's cycles on the HMMA/HGMMA/QGMMA
 * path: a count of the work issued, not of time (a cuBLAS BF16 GEMM read
 * exactly FLOPs / 1024 at 100 us and at 1 ms intervals on the H200); the
 * sectors the SMs asked of L2 (a multicast load asks once for two blocks). */
#define WITNESS_TENSOR "TPC.TriageCompute.sm__pipe_tensor_op_hmma_cycles_active_realtime.sum"
#define WITNESS_TENSOR_ALL "sm__pipe_tensor_cycles_active.sum"
#define WITNESS_L2_SECTORS "lts__t_sectors_srcunit_tex.sum"

/* For the diagnosis (gpucourse why). */
#define LOCAL_LOAD_SECTORS "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"
#define LOCAL_STORE_SECTORS "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
#define DRAM_READ_BYTES "dram__bytes_read.sum"
#define DRAM_WRITE_BYTES "dram__bytes_write.sum"
#define WARPS_ACTIVE_PCT "sm__warps_active.avg.pct_of_peak_sustained_active"
#define ISSUE_ACTIVE_PCT "sm__inst_issued.avg.pct_of_peak_sustained_active"
#define SM_CYCLES "sm__cycles_elapsed.sum"

#endif
