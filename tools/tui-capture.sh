#!/bin/sh
# tools/tui-capture.sh: on a GPU machine, drive the terminal app in tmux
# through two real grading runs and print the screens, for a person to read:
#   1. PASS_EX graded with its reference solution as the student's file;
#   2. FAIL_EX graded as shipped (its stub).
# Usage: tools/tui-capture.sh [PASS_EX FAIL_EX [COLSxROWS]]   (default: ex14 ex07 80x24)
# The progress file marks every exercise before PASS_EX as passed, so the app
# opens on PASS_EX; FAIL_EX must come before it.
cd "$(dirname "$0")/.." || exit 1
PASS_EX=${1:-ex14} FAIL_EX=${2:-ex07} SIZE=${3:-80x24}
GC=$PWD/build/gpucourse
T=$(mktemp -d /tmp/gpucourse-capture-XXXXXX)
SOCK=gpucourse-capture-$$
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD
unset NO_COLOR

"$GC" list >/dev/null 2>&1
pass_n=${PASS_EX#ex}
fail_n=${FAIL_EX#ex}
{
    echo "version: 1"
    echo "exercises:"
    i=1
    while [ $i -lt "$pass_n" ]; do
        printf '  ex%02d:\n    status: passed\n    attempts: 1\n    hints_seen: 0\n    last_verdict: pass\n' $i
        i=$((i + 1))
    done
} >"$T/ws/progress.yaml"
cp solutions/"$PASS_EX"_*.cu "$T/ws/exercises/"

# wait_for TEXT SECONDS: polls the screen until it shows TEXT
wait_for() {
    tries=$(($2 * 10))
    while [ $tries -gt 0 ]; do
        tm capture-pane -t t -p >"$T/screen"
        grep -qF -- "$1" "$T/screen" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "(the screen never showed '$1')"
    return 1
}
show() {
    echo "---- $1 ($SIZE)"
    tm capture-pane -t t -p | sed 's/^/|/'
}

tm new-session -d -s t -x "${SIZE%x*}" -y "${SIZE#*x}" "$GC"
wait_for "$PASS_EX" 10
tm send-keys -t t Enter
sleep 0.5
tm send-keys -t t g
wait_for "$PASS_EX: " 120
sleep 0.3
show "$PASS_EX graded with the reference solution"

i=$pass_n
while [ "$i" -gt "$fail_n" ]; do tm send-keys -t t p; sleep 0.1; i=$((i - 1)); done
sleep 0.5
tm send-keys -t t g
wait_for "$FAIL_EX:" 120
sleep 0.3
show "$FAIL_EX graded as shipped (the stub)"
tm send-keys -t t q
