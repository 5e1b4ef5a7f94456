#!/bin/sh
# Every ```cuda block of every lesson compiles for sm_90a (TAP). A block
# compiles on its own, after the includes a lesson may take for granted
# (the CUDA runtime, bf16, fixed-width ints, stdio); a block whose fence
# says ```cuda continues is compiled after all the lesson's earlier blocks,
# the way the lesson builds it up; a block whose fence says ```cuda program
# is a whole file the student builds as shown, so it compiles with nothing
# before it. Without nvcc every block is skipped, with
# the reason. Every line of every block (code or diagram) also fits in 76
# columns, so that the app shows it whole at 80 x 24.
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
n=0
for lesson in course/*/lesson.md; do
    # one file per block: B<k>.cu holds the block, B<k>.mode "alone" or "continues", B<k>.line its line
    rm -f "$T"/B*
    awk -v dir="$T" '
        /^```cuda/ && !inside { inside = 1; k++; mode = ($2 == "continues" || $2 == "program") ? $2 : "alone";
                               print mode > (dir "/B" k ".mode"); print NR > (dir "/B" k ".line"); next }
        /^```/ && inside      { inside = 0; next }
        inside                { print > (dir "/B" k ".cu") }
    ' "$lesson"
    k=1
    while [ -f "$T/B$k.mode" ]; do
        n=$((n + 1))
        what="$lesson block $k (line $(cat "$T/B$k.line"))"
        if [ ! -x "$NVCC" ]; then
            echo "not ok $n - $what # SKIP no nvcc"
            k=$((k + 1))
            continue
        fi
        {
            [ "$(cat "$T/B$k.mode")" = program ] ||
                printf '#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cstdint>\n#include <cstdio>\n'
            if [ "$(cat "$T/B$k.mode")" = continues ]; then
                j=1
                while [ $j -lt $k ]; do cat "$T/B$j.cu" 2>/dev/null; j=$((j + 1)); done
            fi
            cat "$T/B$k.cu" 2>/dev/null
        } >"$T/snippet.cu"
        if "$NVCC" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -c -o "$T/snippet.o" "$T/snippet.cu" >"$T/log" 2>&1; then
            echo "ok $n - $what compiles"
        else
            echo "not ok $n - $what does not compile"
            grep -m5 error "$T/log" | sed 's/^/# /'
        fi
        k=$((k + 1))
    done
    n=$((n + 1))
    wide=$(awk '/^```/ { inside = !inside; next } inside && length($0) > 76 { print FILENAME ":" NR ": " length($0) " columns" }' "$lesson")
    if [ -z "$wide" ]; then echo "ok $n - $lesson: every code line fits in 76 columns"
    else echo "not ok $n - $lesson: code lines wider than 76 columns"; echo "$wide" | sed 's/^/# /'; fi
done
echo "1..$n"
