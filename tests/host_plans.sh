#!/bin/sh
# What the references decide on the host, before any kernel runs (TAP):
# tests/host_plans.cu includes the solutions, walks ex43's split-K plan for
# many shapes and checks ex33's and ex44's choice of the tile's width. The
# program links CUDA's stub driver (the solutions' solve names driver calls it
# never makes here).
cd "$(dirname "$0")/.." || exit 1
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "not ok 1 - host plans # SKIP no nvcc"
    echo "1..1"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
STUBS=$(dirname "$NVCC")/../lib64/stubs
if ! "$NVCC" -std=c++17 -gencode arch=compute_90a,code=sm_90a -o "$T/plan" tests/host_plans.cu -L"$STUBS" -lcuda \
    >"$T/log" 2>&1; then
    sed 's/^/# /' "$T/log"
    echo "not ok 1 - host plans: tests/host_plans.cu compiles"
    echo "1..1"
    exit 0
fi
ln -s "$(cd "$STUBS" && pwd)/libcuda.so" "$T/libcuda.so.1"
# ex33's and ex44's sizes as their chapters' YAML gives them (checked and timed alike), "EX M N" each
sizes=$(python3 - <<'PY'
import ast
for path, ex in (("course/09-wgmma/chapter.yaml", "ex33"), ("course/11-past-cublas/chapter.yaml", "ex44")):
    text = open(path).read()
    block = text[text.index("- id: " + ex + "\n"):]
    for key in ("check:", "timing:"):
        line = block[block.index(key):].split("\n", 1)[0]
        for size in ast.literal_eval(line.split(":", 1)[1].strip()):
            print(ex, size[0], size[1])
PY
)
# shellcheck disable=SC2086 # one argument a word
LD_LIBRARY_PATH=$T "$T/plan" $sizes
