#!/bin/sh
# The drafts that wait for the H100 still build (TAP): ex45's reference and
# stub, and its harness kind, compile for sm_90a, and its fixtures
# (tests/drafts/, the form of tests/gpu/) apply and compile (the course's
# check-course compiles only what the course holds; tools/verify-ch11.sh
# grades the drafts, applied to a copy by tools/apply-drafts.sh, on the GPU).
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "ok 1 - drafts build # SKIP no nvcc"
    echo "1..1"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
# the kind twice: as the judge's (with its library) and as the student's runner's (without)
for f in solutions/ex45_fp8_blockscaled.cu exercises/ex45_fp8_blockscaled.cu harness/kinds/gemm_fp8_blockscaled.cu \
    "harness/kinds/gemm_fp8_blockscaled.cu -DGPUCOURSE_STUDENT_RUNNER"; do
    n=$((n + 1))
    if "$NVCC" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iharness -c -o "$T/$n.o" $f >"$T/log" 2>&1; then
        echo "ok $n - draft $f compiles for sm_90a"
    else
        sed 's/^/# /' "$T/log" | head -20
        echo "not ok $n - draft $f compiles for sm_90a"
    fi
done
for f in tests/drafts/*.patch; do  # the drafts' fixtures, graded on the GPU by tools/verify-ch11.sh
    n=$((n + 1))
    if sh tests/fixture_source.sh "$f" "$T/fixture.cu" 2>"$T/log" &&
        "$NVCC" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -c -o "$T/fixture.o" "$T/fixture.cu" >>"$T/log" 2>&1; then
        echo "ok $n - draft fixture $f applies to its reference and compiles"
    else
        sed 's/^/# /' "$T/log" | head -20
        echo "not ok $n - draft fixture $f applies to its reference and compiles"
    fi
done
n=$((n + 1))
mkdir -p "$T/copy/course"
cp -r course/11-past-cublas "$T/copy/course/"
if sh tools/apply-drafts.sh "$T/copy" && grep -q '^  - id: ex45' "$T/copy/course/11-past-cublas/chapter.yaml" &&
    grep -q '^## FP8' "$T/copy/course/11-past-cublas/lesson.md" &&
    [ "$(grep -n '^## ' "$T/copy/course/11-past-cublas/lesson.md" | tail -1 | cut -d' ' -f2-)" = Checklist ]; then
    echo "ok $n - tools/apply-drafts.sh: ex45 at the end of chapter 11, FP8 before the checklist"
else
    echo "not ok $n - tools/apply-drafts.sh: ex45 at the end of chapter 11, FP8 before the checklist"
fi
echo "1..$n"
