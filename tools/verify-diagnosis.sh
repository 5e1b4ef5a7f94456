#!/bin/sh
# gpucourse why on a GPU machine, on answers whose fault is known: each
# answer in DIR/src graded as the student's file, then diagnosed; the
# diagnosis and its time printed, a summary table last.
#
#   tools/verify-diagnosis.sh DIR      DIR/src/EXnn__LABEL.cu: an answer to exercise EXnn
#                                      (make it with tests/fixture_source.sh)
# Needs build/gpucourse (carry it). The workspace's build cache is made
# first, 8 gradings of references at a time; then every answer runs alone.
set -u
cd "$(dirname "$0")/.." || exit 1
D=$1
export GPUCOURSE_WORKSPACE=${GPUCOURSE_WORKSPACE:-/tmp/ws-diagnosis} GPUCOURSE_COURSE=$PWD
OUTD=${OUT:-$D/out}
mkdir -p "$OUTD" "$D/out"
GC=$PWD/build/gpucourse
$GC list >/dev/null
file_of() { sed -n "/id: $1\$/,/file:/s/^ *file: *//p" course/*/chapter.yaml | head -1; }
EXS=$(ls "$D"/src/*.cu | xargs -n1 basename | sed 's/__.*//' | sort -u)
t0=$(date +%s)
for ex in $EXS; do cp "solutions/$(file_of "$ex")" "$GPUCOURSE_WORKSPACE/exercises/"; done
echo $EXS | tr ' ' '\n' | xargs -P 8 -I{} sh -c "$GC grade {} >/dev/null 2>&1"
echo "# build cache made in $(( $(date +%s) - t0 )) s"
for f in "$D"/src/*.cu; do
    name=$(basename "$f" .cu)
    ex=${name%%__*}
    cp "$f" "$GPUCOURSE_WORKSPACE/exercises/$(file_of "$ex")"
    s=$(date +%s)
    $GC why "$ex" >"$D/out/$name.txt" 2>&1
    rc=$?
    verdict=$(grep -E "^(PASS|FAIL|SKIPPED)" "$D/out/$name.txt" | tail -1 | cut -c1-90)
    echo "=== $name (rc $rc, $(( $(date +%s) - s )) s): $verdict"
    sed -n '/^  where /,/^ \{0,12\}[^ ]/p' "$D/out/$name.txt" | sed '$d' | cut -c1-120 | head -22
    sed -n '/^why /,$p' "$D/out/$name.txt" | cut -c1-220 | head -30
done | tee "$OUTD/diagnoses.txt"
