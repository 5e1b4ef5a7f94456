#!/bin/sh
# The two rungs of issue 46 on the GPU: ex46 (ping-pong consumers) and ex47
# (the epilogue through TMA) beside ex33, whose kernel both change, in one
# device call each step.
#
#   tools/verify-rungs.sh prepare   on any machine with nvcc (no GPU needed): in .verify/rungs/ a
#                                   copy of the course (course, exercises, solutions, harness,
#                                   gpucourse) and workspaces, every library built with a fake GPU
#                                   and CUDA's stub driver: refs (the references of ex33, ex46,
#                                   ex47), stubs (ex46's and ex47's stubs) and one per fixture of
#                                   tests/gpu/ex46_* and ex47_* (the file the fixture stands for)
#                                   (carry .verify/rungs and build)
#   tools/verify-rungs.sh run [N]   on the H100/H200: each reference and each fixture graded N
#                                   times (default 2), the stubs once; one table: verdict,
#                                   you/reference and you/cuBLAS at each timed size, the reason,
#                                   and for a fixture whether its verdict is the one its
#                                   "// expect:" line names; then the references' evidence
#                                   (VERIFY_PARTS="refs stubs fixtures" picks parts, to fit a
#                                   device call's 10 minutes)
#
# What to look for: ex46's and ex47's references pass, with you/cuBLAS at or
# above ex33's at each size (the floors, library 0.88, are provisional: set
# them from these ratios); every fixture "as expected". .verify/ is listed
# in .git/info/exclude; nothing in it is committed.
set -u
cd "$(dirname "$0")/.." || exit 1
V=$PWD/.verify/rungs
REFS="ex33 ex46 ex47"
STUBS="ex46 ex47"
export XDG_CACHE_HOME=$V/cache GPUCOURSE_LOCK_DIR=$V/locks
. tools/verify-lib.sh

# EXTRA_FIXTURES: more fixtures of tests/gpu/ (paths) graded the same way
fixtures() { ls tests/gpu/ex46_*.patch tests/gpu/ex47_*.patch ${EXTRA_FIXTURES:-} 2>/dev/null; }

prepare() {
    set -e
    rm -rf "$V"
    verify_start "$V"
    mkdir -p "$V/tests/gpu" "$V/build" "$V/locks"
    cp -r course exercises solutions harness "$V/"
    cp tests/fixture_source.sh "$V/tests/"
    cp $(fixtures) "$V/tests/gpu/"
    cp build/gpucourse "$V/build/"
    export GPUCOURSE_COURSE=$V
    "$V/build/gpucourse" --workspace "$V/refs" list >/dev/null
    "$V/build/gpucourse" --workspace "$V/stubs" list >/dev/null
    for ex in $REFS; do cp solutions/${ex}_*.cu "$V/refs/exercises/"; done
    PREBUILD_LOG=$V/refs.prepare prebuild "$V/build/gpucourse" --workspace "$V/refs" grade $REFS
    mkdir -p "$V/stubs/.build" && cp -a "$V/refs/.build/." "$V/stubs/.build/"
    PREBUILD_LOG=$V/stubs.prepare prebuild "$V/build/gpucourse" --workspace "$V/stubs" grade $STUBS
    for f in $(fixtures); do
        name=$(basename "$f" .patch) ex=${name%%_*}
        ws=$V/fx/$name
        "$V/build/gpucourse" --workspace "$ws" list >/dev/null
        target=$(ls "$ws/exercises/${ex}_"*.cu)
        tests/fixture_source.sh "$f" "$target"
        # the harness and the references are built once, in refs (as tests/gpu.sh's GPU_TEST_CACHE)
        mkdir -p "$ws/.build" && cp -a "$V/refs/.build/." "$ws/.build/"
        PREBUILD_LOG=$ws.prepare prebuild "$V/build/gpucourse" --workspace "$ws" grade "$ex"
    done
    grep -h "no GPU\|requirement not met\|error" "$V"/refs.prepare "$V"/stubs.prepare "$V"/fx/*.prepare | head -20 || true
    du -sh "$V"
}

part() { case " ${VERIFY_PARTS:-refs stubs fixtures} " in *" $1 "*) return 0 ;; esac; return 1; }

run() {
    n=${1:-2}
    out=$V/out
    mkdir -p "$out"
    export GPUCOURSE_COURSE=$V
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    if part refs; then
        for i in $(seq "$n"); do
            "$V/build/gpucourse" --workspace "$V/refs" grade $REFS --format json >"$out/refs-$i.json" 2>/dev/null
        done
    fi
    if part stubs; then
        "$V/build/gpucourse" --workspace "$V/stubs" grade $STUBS --format json >"$out/stubs.json" 2>/dev/null
    fi
    if part fixtures; then
        for f in $V/tests/gpu/*.patch; do
            name=$(basename "$f" .patch) ex=${name%%_*}
            head -1 "$f" >"$out/fx-$name.expect"
            for i in $(seq "$n"); do
                "$V/build/gpucourse" --workspace "$V/fx/$name" grade "$ex" --format json >"$out/fx-$name-$i.json" 2>/dev/null
            done
        done
    fi
    python3 - "$out" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
print("\n| graded | run | verdict | size | you/reference | you/cuBLAS | TFLOP/s | expected | reason |")
print("|---|---|---|---|---|---|---|---|---|")
def rows(path, label, expect=None):
    try:
        results = json.load(open(path))["results"]
    except Exception as e:
        print("| %s | %s | unreadable: %s | | | | | | |" % (label, os.path.basename(path), e))
        return
    run = re.sub(r"\.json$", "", os.path.basename(path)).split("-")[-1]
    for r in results:
        verdict, reason = r.get("verdict", "?"), (r.get("reason") or "").replace("|", "/")
        mark = ""
        if expect:  # "// expect: CODE VERDICT ["TEXT"] -- why"
            m = re.match(r'// expect: \d+ ([a-z_]+)(?: "([^"]*)")?', expect)
            ok = m and m.group(1) == verdict and (not m.group(2) or m.group(2) in json.dumps(r))
            mark = "as expected" if ok else "NOT as expected (%s)" % (m.group(1) if m else "?")
        for s in r.get("timed_sizes") or [{}]:
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label if label else r["id"], run, verdict, s.get("size", "-"),
                "%.3f" % s["vs_reference"] if "vs_reference" in s else "-",
                "%.3f" % s["vs_library"] if "vs_library" in s else "-",
                "%.0f" % s["student"]["tflops"] if "tflops" in s.get("student", {}) else "-", mark, reason[:100]))
for p in sorted(glob.glob(os.path.join(out, "refs-*.json"))):
    rows(p, "")
for p in sorted(glob.glob(os.path.join(out, "stubs.json"))):
    rows(p, "stub")
for e in sorted(glob.glob(os.path.join(out, "fx-*.expect"))):
    name = os.path.basename(e)[3:-7]
    for p in sorted(glob.glob(os.path.join(out, "fx-%s-*.json" % name))):
        rows(p, name, open(e).read().strip())
first = os.path.join(out, "refs-1.json")
if os.path.exists(first):
    print("\nThe references' evidence (the first grade):")
    for r in json.load(open(first))["results"]:
        for l in r.get("evidence") or []:
            print(r["id"], "|", l.get("text"), "|", l.get("met"))
PY
}

case "${1:-}" in
prepare) prepare ;;
run) shift; run "$@" ;;
*) echo "usage: tools/verify-rungs.sh prepare | run [N]" >&2; exit 64 ;;
esac
