#!/bin/sh
# The judge's witness (harness/pmwitness.h) measured on a GPU, in one call:
# builds tools/probe-pmwitness.cu with the harness's pmwitness.cu and
# counters.cu (the flags of grader/toolchain.c, plus cuBLAS for the child's
# GEMMs) and runs it; its header comment says what it prints.
#
#   tools/probe-pmwitness.sh [METRICS [MS]]    (from anywhere; builds in build/probe-pmwitness)
#
# Output also goes to $OUT/probe-pmwitness.txt when OUT is set. Exit status:
# the probe's (0 every expectation held, 1 one did not, 2 no witness), 3
# when the build failed.
set -u
cd "$(dirname "$0")/.." || exit 3
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc) || { echo "probe-pmwitness: no nvcc" >&2; exit 3; }
B=build/probe-pmwitness
mkdir -p "$B"
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -cudart shared -Xlinker=-rpath=$CUDA/lib64"
# CUPTI lives in include/ and lib64/ since CUDA 13, under extras/CUPTI before
if [ -d "$CUDA/extras/CUPTI" ]; then
    FLAGS="$FLAGS -I$CUDA/extras/CUPTI/include -Xlinker=-rpath=$CUDA/extras/CUPTI/lib64"
fi
# shellcheck disable=SC2086  # FLAGS is a list of words
"$NVCC" $FLAGS -Iharness -o "$B/probe-pmwitness" tools/probe-pmwitness.cu harness/pmwitness.cu \
    harness/counters.cu -lcublas -lcuda -ldl || { echo "probe-pmwitness: build failed" >&2; exit 3; }
if [ -n "${OUT:-}" ]; then
    "$B/probe-pmwitness" "$@" >"$OUT/probe-pmwitness.txt" 2>&1
    rc=$?
    cat "$OUT/probe-pmwitness.txt"
    exit $rc
fi
exec "$B/probe-pmwitness" "$@"
