#!/bin/sh
# The split-K plan of ex43's reference, on the host (TAP): tests/split_k_plan.cu
# includes the solution and walks its plan for many shapes. The program links
# CUDA's stub driver (the solution's solve names driver calls it never makes here).
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "not ok 1 - split-K plan # SKIP no nvcc"
    echo "1..1"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
STUBS=$(dirname "$NVCC")/../lib64/stubs
if ! "$NVCC" -std=c++17 -gencode arch=compute_90a,code=sm_90a -o "$T/plan" tests/split_k_plan.cu -L"$STUBS" -lcuda \
    >"$T/log" 2>&1; then
    sed 's/^/# /' "$T/log"
    echo "not ok 1 - split-K plan: tests/split_k_plan.cu compiles"
    echo "1..1"
    exit 0
fi
ln -s "$(cd "$STUBS" && pwd)/libcuda.so" "$T/libcuda.so.1"
LD_LIBRARY_PATH=$T "$T/plan"
