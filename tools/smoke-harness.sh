#!/bin/sh
# Builds the judge and the student runner of one kind and runs the judge by
# hand, the reference as the student's code and then the stub, results on
# stdout:  tools/smoke-harness.sh [KIND EXERCISE_FILE_STEM] [judge options]
#   tools/smoke-harness.sh scan ex13_scan_then_propagate --samples 5
# SMOKE_BUILD_ONLY=1 builds without running (on a machine without a GPU).
set -e
k=${1:-vector_add}; ex=${2:-ex01_vector_add}; shift 2 || true
d=${SMOKE_DIR:-/tmp/smoke}
mkdir -p "$d"
F="-O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -cudart shared -Xlinker=-rpath=/usr/local/cuda/lib64"
# the files of grader/grader.c's judge_files and runner_files (main.cu #includes judge/*.cu)
H="harness/runner.cu harness/protocol.cu harness/sandbox.c harness/seccomp.c harness/counters.cu harness/modules.cu harness/kinds/$k.cu"
nvcc $F -Iharness -o "$d/harness-$k" harness/main.cu harness/rules.c harness/neighbours.c $H -lcuda -ldl \
    -Xlinker=--as-needed -lcublas -lcublasLt &
nvcc $F -Iharness -DGPUCOURSE_STUDENT_RUNNER -o "$d/runner-$k" $H -lcuda -ldl &
nvcc $F -shared -Xcompiler -fPIC -o "$d/reference-$ex.so" "solutions/$ex.cu" &
nvcc $F -shared -Xcompiler -fPIC -o "$d/stub-$ex.so" "exercises/$ex.cu" &
wait
[ -n "$SMOKE_BUILD_ONLY" ] && exit 0
for s in reference stub; do
    echo "# $s as the student's code"
    "$d/harness-$k" --student "$d/$s-$ex.so" --runner "$d/runner-$k" --reference "$d/reference-$ex.so" \
        --seed 7 "$@" || echo "# exit $?"
done
