#!/bin/sh
# tests/run.sh itself (issue 47, the newcomer audit's general item 1): each
# test program's results and a "done" line as soon as it ends, not after the
# slowest; the last line still the counts; Ctrl-C ends the programs still
# running, whose traps remove their temporary directories (tests/fixtures.sh
# among them). Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh run-progress

# fake NAME SCRIPT: a test program $T/NAME.sh
fake() { printf '#!/bin/sh\n%s\n' "$2" >"$T/$1.sh" && chmod +x "$T/$1.sh"; }
# signalled SIGNAL WAIT_FOR COMMAND...: starts COMMAND in a session of its
# own with the signals at their defaults (as a terminal's foreground job has
# them), waits until the path WAIT_FOR exists, sends SIGNAL to COMMAND's
# process alone (a terminal's Ctrl-C also reaches its group: the programs
# run.sh started are in groups of their own), and prints its exit code; at
# most 60 s of waiting in all
signalled() {
    python3 - "$@" <<'EOF'
import glob, os, signal, subprocess, sys, time
sig, wait_for, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
end = time.time() + 60
while not glob.glob(wait_for) and time.time() < end and p.poll() is None:
    time.sleep(0.1)
time.sleep(0.5)
p.send_signal(sig)
try:
    print(p.wait(max(1, end - time.time())))
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    print("still running")
EOF
}

fake slow 'sleep 4; echo "ok 1 - slow"'
fake fast 'echo "ok 1 - fast"; echo "not ok 2 - fast fails"; echo "not ok 3 - fast skips # SKIP no reason"'
t_progress() {
    TEST_JOBS=2 code_is 1 tests/run.sh "$T/slow.sh" "$T/fast.sh" || return 1
    cat "$T/got"
    # fast's results and its done line come while slow still runs: before slow's
    first=$(grep -n "^# $T/fast.sh done: 1 passed, 1 failed, 1 skipped ([0-9]* s)$" "$T/got" | cut -d: -f1)
    second=$(grep -n "^# $T/slow.sh done: 1 passed, 0 failed, 0 skipped ([0-9]* s)$" "$T/got" | cut -d: -f1)
    [ -n "$first" ] && [ -n "$second" ] && [ "$first" -lt "$second" ] &&
        [ "$(tail -1 "$T/got")" = "2 passed, 1 failed, 1 skipped" ]
}
check "each test program's results and a done line as it ends, the slowest last; the counts the last line" t_progress

# a test program that keeps a temporary directory until it is stopped
fake keeps 'T=$(mktemp -d "'"$T"'/kept-XXXXXX"); trap '\''rm -rf "$T"'\'' EXIT; trap '\''exit 130'\'' INT TERM HUP
sleep 60; echo "ok 1 - never"'
t_interrupt() {
    got=$(TEST_JOBS=2 signalled SIGINT "$T/kept-*" tests/run.sh "$T/keeps.sh" "$T/slow.sh")
    sleep 0.5
    [ "$got" = 130 ] || { echo "run.sh after Ctrl-C: $got, want 130"; return 1; }
    ! ls -d "$T"/kept-* 2>/dev/null || { echo "a test program's directory was left behind"; return 1; }
    ! pgrep -f "$T/keeps.sh" >/dev/null || { echo "a test program still runs"; return 1; }
}
check "Ctrl-C: run.sh ends the test programs still running (exit 130), their directories removed" t_interrupt

t_fixtures() {
    mkdir -p "$T/tmp" && got=$(TMPDIR=$T/tmp signalled SIGTERM "$T/tmp/gpucourse-fixtures-*/ws" tests/fixtures.sh)
    sleep 0.5
    [ "$got" = 130 ] && ! ls -d "$T"/tmp/gpucourse-fixtures-* 2>/dev/null ||
        { echo "tests/fixtures.sh stopped: $got, want 130 and no directory left"; return 1; }
}
check "tests/fixtures.sh stopped by a signal: its /tmp/gpucourse-fixtures-XXXXXX removed" t_fixtures

echo "1..$n"
