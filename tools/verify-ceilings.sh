#!/bin/sh
# Each timed size against the ceilings, on a GPU machine (issue 47): each
# named exercise's reference graded as the student's file in a scratch
# workspace, and a line a timed size from the JSON: the bound that applies,
# the share reached, the copy timed in the same run (memory-bound kinds), the
# peak at the clock NVML read as it ran, and what the text card says.
#
#   tools/verify-ceilings.sh [EX...]     default: ex01 ex13 ex23 ex33 ex41 ex45
#
# Needs build/gpucourse (carry it); prepare the build cache on the CPU
# machine with `tools/verify-ceilings.sh prepare` (nvcc, no GPU).
set -u
cd "$(dirname "$0")/.." || exit 1
export GPUCOURSE_WORKSPACE=${GPUCOURSE_WORKSPACE:-$PWD/.verify/ceilings-ws} GPUCOURSE_COURSE=$PWD
GC=$PWD/build/gpucourse
file_of() { sed -n "/id: $1\$/,/file:/s/^ *file: *//p" course/*/chapter.yaml | head -1; }
EXS="ex01 ex13 ex23 ex33 ex41 ex45"
if [ "${1:-}" = prepare ]; then
    . tools/verify-lib.sh
    verify_start .verify
    $GC list >/dev/null
    for ex in $EXS; do cp "solutions/$(file_of "$ex")" "$GPUCOURSE_WORKSPACE/exercises/"; done
    for ex in $EXS; do prebuild $GC grade "$ex"; done
    echo "build cache ready in $GPUCOURSE_WORKSPACE"
    exit 0
fi
[ $# -gt 0 ] && EXS=$*
$GC list >/dev/null
OUTD=${OUT:-$GPUCOURSE_WORKSPACE}
for ex in $EXS; do
    cp "solutions/$(file_of "$ex")" "$GPUCOURSE_WORKSPACE/exercises/"
    $GC grade "$ex" >"$OUTD/$ex.txt" 2>&1
    $GC grade "$ex" --format json >"$OUTD/$ex.json" 2>/dev/null
done
python3 - "$OUTD" $EXS <<'PY'
import json, sys
out, exs = sys.argv[1], sys.argv[2:]
print("%-5s %-16s %-8s %6s %9s %9s %8s %5s %s" % ("ex", "size", "bound", "share", "copy GB/s", "peak TF/s",
                                                  "flop/B", "MHz", "verdict"))
for ex in exs:
    try:
        r = json.load(open("%s/%s.json" % (out, ex)))["results"][0]
    except Exception as e:
        print("%-5s cannot read its JSON: %s" % (ex, e))
        continue
    for t in r.get("timed_sizes", []):
        c = t.get("ceiling")
        if not c:
            print("%-5s %-16s no ceiling placed" % (ex, t["size"]))
            continue
        print("%-5s %-16s %-8s %6.2f %9.0f %9.1f %8.3g %4d%s %s" % (
            ex, t["size"], c["bound"], c["fraction"], c["copy_gbps"], c["peak_tflops"], c["flops_per_byte"],
            c["clock_mhz"], "" if c["clock_measured"] else "*", r["verdict"]))
PY
echo "(* the clock was not read: the peak at the highest clock; the cards: $OUTD/EX.txt)"
grep -h -A6 "^  ceilings" "$OUTD"/*.txt | head -40
