#!/bin/sh
# The measured ladders the lessons cite (tools/*-ladder.cu, GPU benchmarks)
# still build against the references they include, and keep the property
# their tables rest on (TAP). Run on the GPU: make build/mma-ladder
# build/fp8-ladder, then each program.
#  - mma-ladder (chapter 7) builds with ex25's reference;
#  - fp8-ladder (chapter 11) builds with ex45's, and its kernel with two
#    partial sums compiles without spills and without ptxas serializing its
#    wgmma (C7514): the reason its loop is peeled, and the rung it measures.
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
build() {  # build NAME LIBS: the ladder's program, ptxas's report in $T/NAME.ptxas
    "$NVCC" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o "$T/$1" "tools/$1.cu" $2 \
        2>"$T/$1.ptxas" || { cat "$T/$1.ptxas"; return 1; }
}
clean_ptxas() {
    if grep -E "C7514|C7510|[1-9][0-9]* bytes spill" "$T/fp8-ladder.ptxas"; then return 1; fi
    grep -q "gemm_fp8" "$T/fp8-ladder.ptxas" || { echo "no ptxas report for the reference's gemm_fp8"; return 1; }
}
desc="tools/mma-ladder.cu builds with ex25's reference" check build mma-ladder -lcublas
desc="tools/fp8-ladder.cu builds with ex45's reference" check build fp8-ladder "-lcuda -lcublasLt"
desc="fp8-ladder: no spill, and ptxas does not serialize the wgmma of the two partial sums (C7514)" check clean_ptxas
echo "1..$n"
