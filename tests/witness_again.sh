#!/bin/sh
# A grading whose witness lost samples is graded once more, and that one
# decides (grader/grader.c, GradeResult.witness_lost): the judge's own
# counters lose samples while the machine's CPUs are busy, which the
# student's confined code cannot cause. Without a GPU: recorded judge
# outputs of ex23 (tests/data/witness_again/) stand in for the judge through
# a launcher that hands out one for the first grading and another for the
# second, and a stand-in cuobjdump shows ex23's HMMA. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh witness_again
unset GPUCOURSE_NO_GPU
mkdir -p "$T/bin"
printf '#!/bin/sh\n[ "$1" = -sass ] || exit 1\ncat "$SASS"\n' >"$T/bin/cuobjdump" && chmod +x "$T/bin/cuobjdump"
cp tests/data/sass_ex23_stub.txt "$T/bin/" # beside it: cuobjdump runs in the compiler's box
cat >"$T/launch" <<'LAUNCH'
#!/bin/sh
n=$(cat "$WR/count" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$WR/count"
if [ $n = 1 ]; then REPLAY=$RECORDS/$FIRST.txt; else REPLAY=$RECORDS/$SECOND.txt; fi
export REPLAY
exec "$GPUCOURSE_COURSE/tests/standin/replay.sh" "$@"
LAUNCH
chmod +x "$T/launch"
export PATH="$T/bin:$PATH" SASS="$T/bin/sass_ex23_stub.txt" GPUCOURSE_LAUNCHER="$T/launch" WR="$T" \
    RECORDS="$PWD/tests/data/witness_again"
"$GC" list >/dev/null
cp solutions/ex23_*.cu "$T/ws/exercises/"

# grade FIRST SECOND: ex23 graded, the launcher handing out FIRST's judge output, then SECOND's
grade() { rm -f "$T/count"; FIRST=$1 SECOND=$2 code_is "$3" "$GC" grade ex23 --format json; }
json() { python3 -c "import json; r = json.load(open('$T/got'))['results'][0]; assert $1, r" || { cat "$T/got"; return 1; }; }

t_again() {
    grade lost ok 0 && [ "$(cat "$T/count")" = 2 ] && json "r['verdict'] == 'pass'" &&
        json "'graded twice: the judge\\'s own counters lost samples in the first grading (a busy machine); this is the second' in r['notes']"
}
check "samples lost, then a grading that kept them: graded twice, the second passes, a note says so" t_again

t_twice() { # the machine's doing, not the student's: GPU busy (75), nothing recorded
    cat "$T/ws/progress.yaml" >"$T/progress.before" 2>/dev/null
    grade lost lost 75 && [ "$(cat "$T/count")" = 2 ] && json "r['verdict'] == 'gpu_busy'" &&
        json "'grade again when the machine is quieter' in r['reason']" &&
        json "'graded twice: the judge\\'s own counters lost samples both times' in r['notes']" &&
        { cat "$T/ws/progress.yaml" 2>/dev/null | cmp -s - "$T/progress.before" || { echo "progress changed"; return 1; }; }
}
check "samples lost twice: GPU busy, with the advice, nothing recorded, graded no third time" t_twice

t_not_lost() { # a witness that failed otherwise is decided at once
    grade none ok 5 && [ "$(cat "$T/count")" = 1 ] && json "r['verdict'] == 'requirement_not_met'" &&
        json "not any('twice' in n for n in r['notes'])"
}
check "a witness that failed for another reason: decided at once, no second grading" t_not_lost

echo "1..$n"
