#!/bin/sh
# The measured ladders the lessons cite (tools/*-ladder.cu, GPU benchmarks)
# still build against the references they include, and keep the property
# their tables rest on (TAP). Run on the GPU: make build/mma-ladder
# build/fp8-ladder, then each program.
#  - mma-ladder (chapter 7) builds with ex25's reference;
#  - fp8-ladder (chapter 11) builds with ex45's, the fixture with one partial
#    sum, the reference storing C from its threads (tools/ex45_threads_store.patch
#    still applies) and the harness kind whose call and library it times, and no kernel
#    of it spills or has its wgmma serialized by ptxas (C7514): the reason
#    the reference's loop is peeled, and the rung it measures;
#  - splitk-ladder (chapter 11) builds with ex43's reference, its whole-waves
#    fixture and the copy with the hand-over left out (tools/ex43_no_handover.patch
#    still applies to the reference), and no kernel of it spills.
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "ok 1 - the ladders build # SKIP no nvcc"
    echo "1..1"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
n=0
check() {
    n=$((n + 1))
    if "$@" >"$T/why" 2>&1; then echo "ok $n - $desc"; else sed 's/^/# /' "$T/why" | head -40; echo "not ok $n - $desc"; fi
}
build() {  # build NAME: the Makefile's rule (its flags, its fixture), ptxas's report in $T/NAME.ptxas
    make -s B="$T" NVCC="$NVCC" "$T/$1" || { cat "$T/$1.ptxas"; return 1; }
}
clean_ptxas() {
    if grep -E "C7514|C7510|[1-9][0-9]* bytes spill" "$T/fp8-ladder.ptxas"; then return 1; fi
    grep -q "gemm_fp8" "$T/fp8-ladder.ptxas" || { echo "no ptxas report for the reference's gemm_fp8"; return 1; }
}
no_spill() {  # no_spill NAME: ptxas reported kernels for NAME, none with a spill
    if grep -E "[1-9][0-9]* bytes spill" "$T/$1.ptxas"; then return 1; fi
    grep -q "Compiling entry" "$T/$1.ptxas" || { echo "no ptxas report in $1.ptxas"; return 1; }
}
desc="tools/mma-ladder.cu builds with ex25's reference" check build mma-ladder
desc="tools/fp8-ladder.cu builds with ex45's reference, its one-partial-sum fixture, the threads' store and the harness kind" check build fp8-ladder
desc="fp8-ladder: no spill, and ptxas does not serialize the wgmma of the two partial sums (C7514)" check clean_ptxas
desc="tools/splitk-ladder.cu builds with ex43's reference, its whole-waves fixture and the hand-over left out" check build splitk-ladder
desc="splitk-ladder: no kernel spills" check no_spill splitk-ladder
echo "1..$n"
