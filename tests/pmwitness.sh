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
LD_LIBRARY_PATH=$T "$T/witness" >"$T/out"
rc=$?
grep -v '^1\.\.' "$T/out"
n=$(grep -c '^\(not \)\{0,1\}ok ' "$T/out")

# One window against a stand-in CUPTI (tests/standin/fake_cupti.cc) whose
# decoder behaves as FAKE_PM says, and a driver whose cuInit succeeds: the
# window must end, in bounded time, with the samples the time holds or the
# reason it cannot.
check() { # NAME FAKE_PM WANT (a grep -E pattern of the window's one line)
    n=$((n + 1))
    got=$(FAKE_PM=$2 LD_LIBRARY_PATH=$T/sim timeout 30 "$T/window" 2>&1)
    code=$?
    if [ $code != 124 ] && echo "$got" | grep -qE "$3" && { [ "$3" != "$WHOLE" ] || whole "$got"; }; then echo "ok $n - $1 ($got)"
    else
        echo "not ok $n - $1"
        echo "# got (exit $code): $got"
        rc=1
    fi
}
# A window that ended with every sample: at least the 50 ms slept, at most
# the wall time the window took (a loaded machine stretches it), each sample
# summed (100 a sample).
WHOLE='^ok [0-9]+ samples [0-9]+ [0-9.]+$'
whole() { echo "$1" | awk '{ exit !($2 >= 450 && $2 <= $5 / 0.1 + 5 && $4 == 100 * $2) }'; }
mkdir -p "$T/sim"
printf 'int cuInit(unsigned flags) { (void)flags; return 0; }\n' >"$T/cuinit.c"
# shellcheck disable=SC2086  # CUPTI_INC is empty or one word
if cc -shared -fPIC -o "$T/sim/libcuda.so.1" "$T/cuinit.c" &&
    c++ -std=c++17 -shared -fPIC -I"$CUDA/include" $CUPTI_INC -o "$T/sim/libcupti.so" tests/standin/fake_cupti.cc \
        >"$T/log" 2>&1 &&
    "$NVCC" -std=c++17 -gencode arch=compute_90a,code=sm_90a $CUPTI_INC -Iharness -o "$T/window" \
        tests/pmwitness_window.cu harness/pmwitness.cu -L"$STUBS" -lcuda -ldl -Xlinker=-rpath="$CUDA/lib64" >>"$T/log" 2>&1; then
    # the H200's decoder (2026-11-28): OTHER whenever it has caught up, 2 ms a decode in which as many
    # samples come again; decoding again while that made progress never ended. 50 ms at 100 us: about 500
    check "a decoder that stops with OTHER while samples keep coming: the window ends, every sample summed" h200 "$WHOLE"
    check "a decoder that never says END_OF_RECORDS after the stop: two empty decodes end it" quiet "$WHOLE"
    # "samples were lost": the grader's words for a busy machine (grader/evidence.h WITNESS_LOST), graded once more
    check "a hole between two samples: not consecutive, said" gap 'failed: the samples are not consecutive.*: samples were lost$'
    check "the hardware buffer overflowed: said" overflow 'failed: .*overflowed: samples were lost'
    check "more samples than the window's time holds: not the GPU's" phantom 'failed: the sampler returned [0-9]+ samples .*not the GPU'
    check "an image full with no sample completed: said, not decoded for ever" fullnone 'failed: .*without completing one'
else
    n=$((n + 1))
    sed 's/^/# /' "$T/log"
    echo "not ok $n - the stand-in CUPTI and the window's test build"
    rc=1
fi
echo "1..$n"
exit $rc
