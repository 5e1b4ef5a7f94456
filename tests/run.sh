#!/bin/bash
# Runs test programs that speak TAP (cmocka with CMOCKA_MESSAGE_OUTPUT=TAP,
# and the shell tests) and ends with one line: N passed, N failed, N skipped.
#
#   tests/run.sh TEST... [--serial TEST...]
#
# The tests before --serial run TEST_JOBS at a time (default: the CPUs
# there are), each one's output printed whole when it ends; those after it
# run alone, one after another, once the others are done: the tests that
# drive a terminal through tmux or start services, whose waits are bounded
# in wall time. Each program's wall time follows its output, and a table of
# them comes before the last line, so that where the time goes is plain.
export CMOCKA_MESSAGE_OUTPUT=TAP
pool=() serial=()
for t in "$@"; do
    if [ "$t" = --serial ]; then in_serial=1
    elif [ -n "${in_serial:-}" ]; then serial+=("$t")
    else pool+=("$t"); fi
done
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
out_dir=$(mktemp -d "${TMPDIR:-/tmp}/gpucourse-run-XXXXXX")
trap 'rm -rf "$out_dir"' EXIT
pass=0 fail=0 skip=0 broken=0 times=

# Test number i (program t) in the background: its output, exit status and
# wall time into files; the status file last, so that it marks the end.
start() {
    local i=$1 t=$2
    (
        t0=$(date +%s)
        "$t" >"$out_dir/$i.out" 2>&1
        rc=$?
        echo $(($(date +%s) - t0)) >"$out_dir/$i.took"
        echo $rc >"$out_dir/$i.rc"
    ) &
}

# Prints test i's output and counts its results.
report() {
    local i=$1 t=$2 rc took out p s f
    rc=$(cat "$out_dir/$i.rc") took=$(cat "$out_dir/$i.took")
    out=$(cat "$out_dir/$i.out")
    times="$times# $(printf '%5d s  %s' "$took" "$t")
"
    echo "# $t"
    printf '%s\n' "$out"
    echo "# $t: $took s"
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    s=$(printf '%s\n' "$out" | grep -c '^not ok .*# SKIP')
    f=$(printf '%s\n' "$out" | grep '^not ok ' | grep -vc '# SKIP')
    pass=$((pass + p)) skip=$((skip + s)) fail=$((fail + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "# $t exited with $rc without a failing test: counted as a failure"
        broken=$((broken + 1))
    fi
}

# Reports every started test that has ended; returns how many still run.
reported=()
report_ended() {
    local i running=0
    for i in "${!started[@]}"; do
        [ -n "${reported[$i]:-}" ] && continue
        if [ -e "$out_dir/$i.rc" ]; then report "$i" "${started[$i]}"; reported[$i]=1
        else running=$((running + 1)); fi
    done
    return $running
}

started=()
t0_all=$(date +%s)
for i in "${!pool[@]}"; do
    while report_ended; [ $? -ge "$jobs_max" ]; do wait -n 2>/dev/null || sleep 0.1; done
    started[$i]=${pool[$i]}
    start "$i" "${pool[$i]}"
done
wait
report_ended
for t in "${serial[@]}"; do
    i=${#started[@]}
    started[$i]=$t
    start "$i" "$t"
    wait
    report_ended
done
fail=$((fail + broken))
echo "# wall time of each ($jobs_max at a time, then the serial ones alone); of all: $(($(date +%s) - t0_all)) s"
printf '%s' "$times"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
