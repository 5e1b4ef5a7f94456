#!/bin/bash
# Runs test programs that speak TAP (cmocka with CMOCKA_MESSAGE_OUTPUT=TAP,
# and the shell tests) and ends with one line: N passed, N failed, N skipped.
#
#   tests/run.sh TEST... [--serial TEST...]
#
# The tests before --serial run TEST_JOBS at a time (default: the CPUs
# there are), each one's output printed whole as soon as it ends; those
# after it run alone, one after another, once the others are done: the
# tests that drive a terminal through tmux or start services, whose waits
# are bounded in wall time. Each program's output ends with a line of its
# counts and wall time ("# TEST done: N passed, N failed, N skipped (S s)"),
# so that a person sees the run go on, and a table of the times comes
# before the last line, so that where the time goes is plain.
#
# Ctrl-C (or TERM, HUP) ends every test program still running, with what it
# started (each runs in a process group of its own), so that their traps
# remove their temporary directories; then it exits 130.
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
# wall time into files; the status file last, so that it marks the end. Job
# control on for that one fork puts it in a process group of its own (pgid:
# pids[i]), which stop() can end whole; its input is /dev/null, as a
# background job's is without job control.
pids=()
start() {
    local i=$1 t=$2
    set -m
    (
        t0=$(date +%s)
        "$t" >"$out_dir/$i.out" 2>&1
        rc=$?
        echo $(($(date +%s) - t0)) >"$out_dir/$i.took"
        echo $rc >"$out_dir/$i.rc"
    ) </dev/null &
    pids[$i]=$!
    set +m
}

# On Ctrl-C: TERM to each running test's process group (its shell's traps
# then clean up), up to 10 s for them to end, then KILL to what is left.
stop() {
    trap '' INT TERM HUP
    local i left
    for i in "${!pids[@]}"; do [ -e "$out_dir/$i.rc" ] || kill -TERM -- "-${pids[$i]}" 2>/dev/null; done
    for _ in $(seq 100); do
        left=0
        for i in "${!pids[@]}"; do [ -e "$out_dir/$i.rc" ] || { kill -0 -- "-${pids[$i]}" 2>/dev/null && left=1; }; done
        [ $left = 0 ] && break
        sleep 0.1
    done
    for i in "${!pids[@]}"; do [ -e "$out_dir/$i.rc" ] || kill -KILL -- "-${pids[$i]}" 2>/dev/null; done
    echo "# interrupted: the test programs still running were stopped" >&2
    exit 130
}
trap stop INT TERM HUP

# Prints test i's output and counts its results.
report() {
    local i=$1 t=$2 rc took out p s f
    rc=$(cat "$out_dir/$i.rc") took=$(cat "$out_dir/$i.took")
    out=$(cat "$out_dir/$i.out")
    times="$times# $(printf '%5d s  %s' "$took" "$t")
"
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    s=$(printf '%s\n' "$out" | grep -c '^not ok .*# SKIP')
    f=$(printf '%s\n' "$out" | grep '^not ok ' | grep -vc '# SKIP')
    echo "# $t"
    printf '%s\n' "$out"
    echo "# $t done: $p passed, $f failed, $s skipped ($took s)"
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
# the last ones, each reported as it ends (not all after the slowest)
while report_ended; [ $? -gt 0 ]; do wait -n 2>/dev/null || sleep 0.1; done
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
