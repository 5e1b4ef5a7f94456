#!/bin/sh
# The evidence checks of chapters 7-10 on a GPU machine, through gpucourse
# itself: each reference and each answer in DIR/src graded as the student's
# file, the verdict and the evidence lines printed as a table.
#
#   tools/verify-evidence.sh DIR [EX...]   DIR/src/EXnn__LABEL.cu: an answer to exercise EXnn
#                                          (make it with tests/fixture_source.sh); EX...: the
#                                          exercises whose references to grade (default ex23-ex42)
# Needs build/gpucourse (carry it); the workspace's build cache is made first
# by 8 gradings at a time (the GPU part of those is thrown away), then every
# grading runs alone.
set -u
cd "$(dirname "$0")/.." || exit 1
D=$1
shift
EXS=${*:-"ex23 ex24 ex25 ex26 ex27 ex28 ex29 ex30 ex31 ex32 ex33 ex34 ex35 ex36 ex37 ex38 ex39 ex40 ex41 ex42"}
export GPUCOURSE_WORKSPACE=/tmp/ws-evidence GPUCOURSE_COURSE=$PWD
OUTD=${OUT:-$D/out}
mkdir -p "$OUTD"
GC=$PWD/build/gpucourse
$GC list >/dev/null
file_of() { sed -n "/id: $1\$/,/file:/s/^ *file: *//p" course/*/chapter.yaml | head -1; }
t0=$(date +%s)
for ex in $EXS; do cp "solutions/$(file_of "$ex")" "$GPUCOURSE_WORKSPACE/exercises/"; done
echo $EXS | tr ' ' '\n' | xargs -P 8 -I{} sh -c "$GC grade {} >/dev/null 2>&1"
echo "# build cache made in $(( $(date +%s) - t0 )) s"

# grade EX LABEL SOURCE: one line of the table, the whole report in $D/out
grade() {
    cp "$3" "$GPUCOURSE_WORKSPACE/exercises/$(file_of "$1")"
    $GC grade "$1" >"$D/out/$2.txt" 2>&1
    rc=$?
    verdict=$(grep -E "^(PASS|FAIL|SKIPPED)" "$D/out/$2.txt" | tail -1 | cut -c1-150)
    echo "| $2 | $rc | $verdict |"
    sed -n 's/^  \(evidence\|          \) *\(TMA\|mma\|wgmma\|ldmatrix\|cp.async\|bank\|global\|tensor\)/    \2/p' "$D/out/$2.txt"
    grep "^  error " "$D/out/$2.txt"
}
mkdir -p "$D/out"
{
    for ex in $EXS; do grade "$ex" "${ex}_reference" "solutions/$(file_of "$ex")"; done
    for f in "$D"/src/*.cu; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .cu)
        grade "${name%%__*}" "$name" "$f"
    done
} | tee "$OUTD/table.txt"
