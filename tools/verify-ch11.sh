#!/bin/sh
# Chapter 11 on the GPU in one device call (issue 29): its references and
# stubs graded through gpucourse, its fixtures, its floors.
#
#   tools/verify-ch11.sh prepare   on any machine with nvcc (no GPU needed): in .verify/ch11/ a
#                                  copy of the course (course, exercises, solutions, harness,
#                                  tests/gpu.sh with the fixtures of chapter 11 as its
#                                  tests/gpu/, gpucourse), and workspaces whose files are the
#                                  references and the stubs, every library built (a fake GPU and
#                                  CUDA's stub driver); then check-course of the copy without a
#                                  GPU (carry .verify/ch11)
#   tools/verify-ch11.sh run [N]   on the H100: the references graded N times (default 3) and the
#                                  stubs once (verdicts, each timed size's you/reference and
#                                  you/cuBLAS), their fixtures through tests/gpu.sh, floors from
#                                  check-course --calibrate
# .verify/ is listed in .git/info/exclude; nothing in it is committed.
set -u
cd "$(dirname "$0")/.." || exit 1
V=$PWD/.verify/ch11
EXERCISES=${EXERCISES:-"ex43 ex44 ex45"}
export XDG_CACHE_HOME=$V/cache GPUCOURSE_LOCK_DIR=$V/locks
. tools/verify-lib.sh

prepare() {
    set -e
    rm -rf "$V"
    verify_start "$V"
    mkdir -p "$V/tests/gpu" "$V/build" "$V/locks"
    cp -r course exercises solutions harness "$V/"
    cp tests/gpu.sh tests/fixture_source.sh "$V/tests/"
    cp tests/gpu/ex43_* tests/gpu/ex44_* tests/gpu/ex45_* "$V/tests/gpu/"
    cp build/gpucourse "$V/build/"
    export GPUCOURSE_COURSE=$V
    for ws in refs stubs; do
        "$V/build/gpucourse" --workspace "$V/$ws" list >/dev/null
    done
    for ex in $EXERCISES; do cp solutions/${ex}_*.cu "$V/refs/exercises/"; done
    for ws in refs stubs; do
        PREBUILD_LOG=$V/$ws.prepare prebuild "$V/build/gpucourse" --workspace "$V/$ws" grade $EXERCISES
    done
    GPUCOURSE_NO_GPU=1 "$V/build/gpucourse" --workspace "$V/check" check-course >"$V/check.prepare" 2>&1
    tail -3 "$V/check.prepare"
    rm -rf "$V/check"  # its builds are the whole course's: the GPU machine needs only chapter 11's
    du -sh "$V"
}

run() {
    n=${1:-3}
    out=$V/out
    rm -rf "$out" && mkdir -p "$out"
    export GPUCOURSE_COURSE=$V
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    for i in $(seq "$n"); do
        "$V/build/gpucourse" --workspace "$V/refs" grade $EXERCISES --format json >"$out/refs-$i.json" 2>/dev/null
    done
    "$V/build/gpucourse" --workspace "$V/stubs" grade $EXERCISES --format json >"$out/stubs.json" 2>/dev/null
    python3 - "$out" "$n" <<'PY'
import json, os, sys
out, n = sys.argv[1], int(sys.argv[2])
print("\n## References (%d grades) and stubs" % n)
print("| exercise | grade | verdict | size | you/reference | you/cuBLAS | TFLOP/s | reason |")
print("|---|---|---|---|---|---|---|---|")
for name in ["refs-%d.json" % i for i in range(1, n + 1)] + ["stubs.json"]:
    try:
        results = json.load(open(os.path.join(out, name)))["results"]
    except Exception as e:
        print("| %s | unreadable: %s |" % (name, e))
        continue
    for r in results:
        sizes = r.get("timed_sizes") or [{}]
        for s in sizes:
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r["id"], name.split(".")[0], r["verdict"], s.get("size", "-"),
                  "%.3f" % s["vs_reference"] if "vs_reference" in s else "-",
                  "%.3f" % s["vs_library"] if "vs_library" in s else "-",
                  "%.0f" % s["student"]["tflops"] if "tflops" in s.get("student", {}) else "-", (r.get("reason") or "")[:90]))
PY
    echo
    echo "## Fixtures of $EXERCISES (tests/gpu, through tests/gpu.sh)"
    (cd "$V" && GPU_TEST_PARTS=fixtures GPU_TEST_ONLY="$(echo $EXERCISES | sed 's/ex[0-9]*/&*/g')" GPU_TEST_CACHE=$V/refs/.build sh tests/gpu.sh) \
        >"$out/fixtures.txt" 2>&1
    grep -E '^(ok|not ok)|passed' "$out/fixtures.txt"
    echo
    echo "## Floors (check-course --calibrate)"
    "$V/build/gpucourse" --workspace "$V/refs" check-course --calibrate $EXERCISES --runs 3 >"$out/calibrate.txt" 2>&1
    tail -25 "$out/calibrate.txt"
    echo
    echo "## Evidence of the references (the first grade)"
    python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['results']:
    for l in r.get('evidence') or []:
        print(r['id'], '|', l.get('text'), '|', l.get('met'))" "$out/refs-1.json"
}

case "${1:-}" in
prepare) prepare ;;
run) shift; run "$@" ;;
*) echo "usage: tools/verify-ch11.sh prepare | run [N]" >&2; exit 64 ;;
esac
