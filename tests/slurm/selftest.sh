#!/bin/bash
# tests/slurm/cluster.sh, checked for real: start a cluster in a temp dir,
# run jobs through srun and sbatch (with --gres=gpu:1 although there is no
# GPU), interrupt and cancel jobs, stop it, and check that nothing of it is
# left, while a second cluster beside it (a stand-in for a system Slurm)
# keeps running. Prints ok/FAIL lines and the time each part took; exits 1 on a
# failure. Needs root and the packages of tools/deps.sh test.
set -u
cd "$(dirname "$0")/../.." || exit 1
CLUSTER=$PWD/tests/slurm/cluster.sh

T=$(mktemp -d /tmp/slurm-selftest-XXXXXX)
T=$(cd "$T" && pwd -P)  # as cluster.sh names it in SLURM_TEST_CLUSTER
C=$T/c  # the cluster's directory (short: unix socket paths live in it)
B=$T/b  # the bystander's
failed=0
started=
cleanup() {
    [ -z "$started" ] || "$CLUSTER" stop "$C" >/dev/null 2>&1
    [ ! -d "$B" ] || "$CLUSTER" stop "$B" >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
t_all=$(now)
t_step=$t_all
# took: dt = seconds since the last call (or the start), as 0.00
took() { local t; t=$(now); dt=$(awk -v a="$t_step" -v b="$t" 'BEGIN { printf "%.2f", b - a }'); t_step=$t; }
ok() { took; echo "ok   $1 ($dt s)"; }
fail() { took; echo "FAIL $1 ($dt s)"; shift; for l; do printf '     %s\n' "$l"; done; failed=1; }

# sleeps no other process has on its command line, to look for: the sleep
# itself (argv[0] sleep or /usr/bin/sleep), not the srun that names it
m1=100.${$}1
m2=100.${$}2
running() { pgrep -f "^([^ ]*/)?sleep $1\$" >/dev/null; }
gone() { ! running "$1"; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS
wait_for() {
    local n=$(($1 * 10)); shift
    while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
    return 1
}

# daemons DIR: the pids of DIR's daemons that are alive (zombies are dead:
# init reaps them when it will)
daemons() {
    local f p st
    for f in "$1"/run/*.pid; do
        p=$(cat "$f" 2>/dev/null) || continue
        st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) || continue
        [ "$st" = Z ] || echo "$p"
    done
}

# 0. the bystander, which stop must leave alone
if ! "$CLUSTER" start "$B" >"$T/start-b.log" 2>&1; then
    fail "cluster.sh start (bystander)" "$(cat "$T/start-b.log")"
    exit 1
fi
b_pids=$(daemons "$B")
ok "cluster.sh start: a bystander cluster"

# 1. start
if "$CLUSTER" start "$C" >"$T/start.log" 2>&1; then
    started=1
    ok "cluster.sh start: node idle"
else
    fail "cluster.sh start" "$(cat "$T/start.log")"
    exit 1
fi
. "$C/env"
SRUN=(srun --gres=gpu:1 --partition=gpu --time=5)

# 2. a job on the fake GPU
out=$(timeout 60 "${SRUN[@]}" hostname 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "$(hostname)" ]; then ok "srun --gres=gpu:1 hostname: $out"
else fail "srun --gres=gpu:1 hostname" "exit $rc, output:" "$out"; fi

# 3. stdout and stderr apart, the exit status through srun
timeout 60 "${SRUN[@]}" sh -c 'echo out; echo err >&2; exit 3' >"$T/o" 2>"$T/e"
rc=$?
if [ $rc = 3 ] && [ "$(cat "$T/o")" = out ] && grep -qx err "$T/e" && ! grep -q out "$T/e"; then
    ok "srun exit 3, stdout 'out', stderr 'err'"
else
    fail "srun exit status and streams" "exit $rc (want 3), stdout: $(cat "$T/o")" "stderr: $(cat "$T/e")"
fi

# 4. a job array through sbatch --wait
timeout 60 sbatch --wait --array=0-2 --gres=gpu:1 --partition=gpu --time=5 \
    --output="$T/out-%a.txt" --wrap 'echo task $SLURM_ARRAY_TASK_ID' >"$T/sbatch.log" 2>&1
rc=$?
bad=
for i in 0 1 2; do [ "$(cat "$T/out-$i.txt" 2>/dev/null)" = "task $i" ] || bad="$bad $i"; done
if [ $rc = 0 ] && [ -z "$bad" ]; then ok "sbatch --wait --array=0-2: task 0, task 1, task 2"
else fail "sbatch --wait --array=0-2" "exit $rc, wrong outputs:$bad" "$(cat "$T/sbatch.log" "$T"/out-*.txt 2>&1)"; fi

# 5. Ctrl-C: srun ends its step on two SIGINTs within a second
"${SRUN[@]}" sleep "$m1" >"$T/int.log" 2>&1 &
pid=$!
if wait_for 20 running "$m1"; then
    took
    kill -INT $pid; sleep 0.3; kill -INT $pid
    if wait_for 5 eval "! kill -0 $pid 2>/dev/null"; then wait $pid 2>/dev/null; rc=$?
    else kill -KILL $pid; wait $pid 2>/dev/null; rc="none: srun still ran after 5 s"; fi
    if wait_for 5 gone "$m1" && [ "$rc" != 0 ] && [ "$rc" -gt 0 ] 2>/dev/null; then ok "srun sleep, SIGINT twice: ended (exit $rc), sleep gone"
    else fail "srun sleep, SIGINT twice" "exit $rc; sleep still there: $(pgrep -af "sleep $m1")" "$(cat "$T/int.log")"; fi
else
    kill $pid 2>/dev/null
    fail "srun sleep did not start" "$(cat "$T/int.log")"
fi

# 6. scancel of a batch job
job=$(sbatch --parsable --gres=gpu:1 --partition=gpu --time=5 --output=/dev/null --wrap "sleep $m2" 2>&1)
if wait_for 20 running "$m2"; then
    took
    scancel "$job"
    if wait_for 5 gone "$m2"; then ok "scancel $job: sleep gone"
    else fail "scancel $job" "sleep still there: $(pgrep -af "sleep $m2")"; fi
else
    fail "sbatch sleep did not start" "$job"
fi

# 7. stop: the daemons (by the pids start wrote) and the steps are gone
pids=$(daemons "$C")
if "$CLUSTER" stop "$C" >"$T/stop.log" 2>&1; then
    started=
    left=
    for p in $pids; do
        st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) || continue
        [ "$st" = Z ] || left="$left $p"
    done
    for d in /proc/[0-9]*; do
        st=$(cut -d' ' -f3 "$d/stat" 2>/dev/null) || continue
        [ "$st" != Z ] && tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -qxF "SLURM_TEST_CLUSTER=$C" &&
            left="$left ${d#/proc/}"
    done
    if [ -z "$left" ]; then ok "cluster.sh stop: no daemon left (${pids//$'\n'/ })"
    else fail "cluster.sh stop: processes left" "$(ps -o pid,stat,args -p "${left# }" 2>&1)"; fi
else
    fail "cluster.sh stop" "$(cat "$T/stop.log")"
fi

# 8. the bystander still runs, and runs jobs
out=$(SLURM_CONF=$B/slurm.conf timeout 60 "${SRUN[@]}" echo alive 2>&1)
if [ "$(daemons "$B")" = "$b_pids" ] && [ "$out" = alive ]; then ok "the other cluster untouched: daemons up, srun works"
else fail "the other cluster" "daemons before: $b_pids, now: $(daemons "$B")" "$out"; fi
if "$CLUSTER" stop "$B" >"$T/stop-b.log" 2>&1 && [ -z "$(daemons "$B")" ]; then rm -rf "$B"
else fail "cluster.sh stop (bystander)" "$(cat "$T/stop-b.log")" "left: $(daemons "$B")"; fi

t_step=$t_all
took
if [ $failed = 0 ]; then echo "ok   all ($dt s)"; else echo "FAIL some ($dt s)"; fi
exit $failed
