#!/bin/sh
# The judge's witness (harness/pmwitness.cu) on the host (TAP): what it
# refuses without a GPU. tests/pmwitness.cu links CUDA's stub driver, which
# answers every call with an error, as a machine without a GPU does.
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "not ok 1 - witness # SKIP no nvcc"
    echo "1..1"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CUDA=$(cd "$(dirname "$NVCC")/.." && pwd)
STUBS=$CUDA/lib64/stubs
CUPTI_INC=
[ -d "$CUDA/extras/CUPTI/include" ] && CUPTI_INC=-I$CUDA/extras/CUPTI/include
# shellcheck disable=SC2086  # CUPTI_INC is empty or one word
if ! "$NVCC" -std=c++17 -gencode arch=compute_90a,code=sm_90a $CUPTI_INC -Iharness -o "$T/witness" \
    tests/pmwitness.cu harness/pmwitness.cu -L"$STUBS" -lcuda -ldl -Xlinker=-rpath="$CUDA/lib64" >"$T/log" 2>&1; then
    sed 's/^/# /' "$T/log"
    echo "not ok 1 - witness: tests/pmwitness.cu compiles"
    echo "1..1"
    exit 0
fi
ln -s "$STUBS/libcuda.so" "$T/libcuda.so.1"
LD_LIBRARY_PATH=$T "$T/witness"
