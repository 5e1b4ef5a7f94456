#!/bin/sh
# The counters behind the evidence rules (grader/evidence.c), measured on a
# GPU machine: every case of a cases file is graded by the judge directly,
# with every counter the rules use collected around one timed call, and the
# values printed as a table. A developer's tool for setting and checking the
# thresholds in the course's `evidence:` keys; it builds what it needs with
# nvcc in parallel (the flags of grader/toolchain.c).
#
#   tools/evidence-probe.sh DIR    DIR/cases.txt: "EXID LABEL KIND CHECK TIMING REL ABS" lines,
#                                  DIR/src/LABEL.cu the student file of each case (EXID_ref.cu
#                                  is the reference); results in DIR/out (or $OUT)
set -u
cd "$(dirname "$0")/.." || exit 1
D=$1
B=$D/build
R=$D/out
T=${OUT:-$R}
mkdir -p "$B" "$R"
H=$PWD/harness
CUDA=${CUDA_HOME:-/usr/local/cuda}
FLAGS="-O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -cudart shared -Xlinker=-rpath=$CUDA/lib64"
METRICS=${METRICS-l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed_op_global_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.sum}

t0=$(date +%s)
{
    for k in $(cut -d' ' -f3 "$D/cases.txt" | sort -u); do
        echo "nvcc $FLAGS -I$H -o $B/harness-$k $H/main.cu $H/runner.cu $H/protocol.cu $H/rules.c $H/sandbox.c $H/seccomp.c $H/counters.cu $H/modules.cu $H/kinds/$k.cu $H/neighbours.c -lcuda -ldl -Xlinker=--as-needed -lcublas -lcublasLt"
        echo "nvcc $FLAGS -DGPUCOURSE_STUDENT_RUNNER -I$H -o $B/runner-$k $H/runner.cu $H/protocol.cu $H/sandbox.c $H/seccomp.c $H/counters.cu $H/modules.cu $H/kinds/$k.cu -lcuda -ldl"
    done
    for f in "$D"/src/*.cu; do
        echo "nvcc $FLAGS -shared -Xcompiler -fPIC -o $B/$(basename "$f" .cu).so $f -Xlinker=--as-needed -lcuda"
    done
} | xargs -P "$(nproc)" -I{} sh -c '{} >/dev/null 2>&1 || echo "build failed: {}"' | cut -c1-200
echo "# built in $(( $(date +%s) - t0 )) s"

while read -r ex label kind check timing rel abs; do
    "$B/harness-$kind" --student "$B/$label.so" --runner "$B/runner-$kind" --reference "$B/${ex}_ref.so" --seed 7 \
        --check "$check" --timing "$timing" --rel "$rel" --abs "$abs" --samples 3 --warmup-ms 20 \
        ${METRICS:+--counters "$METRICS"} >"$R/$label.txt" 2>&1
    echo "== $label ($ex, $kind, $timing): $(grep -E '^(done|error|violation|counters: (un|fa))' "$R/$label.txt" | tr '\n' ' ')"
    grep -E '^time: (student|reference)' "$R/$label.txt" | sed 's/^/  /'
    grep -E '^(counters|counter):' "$R/$label.txt" | sed 's/^counter: /  /'
done <"$D/cases.txt" | tee "$T/table.txt"
