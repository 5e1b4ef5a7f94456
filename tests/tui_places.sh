#!/bin/sh
# The app in tmux (80x24 unless said), as a newcomer finds it (the audit of
# 2026-11-28): y's lines wrapped to their end, the lesson opened at the
# exercise's section and left back to its card, search and contents in the
# lesson, the no-GPU line from the start, paging and chapter jumps on the
# list, the editor named, the list at 120 columns. Runs without a GPU.
# Prints TAP.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed"
    exit 0
fi
T=$(mktemp -d /tmp/gc-places-XXXXXX)
servers=0
SOCK=gpucourse-places-$$-0
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
    i=0
    while [ $i -le $servers ]; do tmux -L "gpucourse-places-$$-$i" kill-server 2>/dev/null; i=$((i + 1)); done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1 XDG_CACHE_HOME=$T/cache
unset VISUAL EDITOR NO_COLOR GPUCOURSE_LAUNCHER

n=0
check() { # check "name" function: passes when the function succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | head -60; fi
}
screen() { tm capture-pane -t t -p; }
keys() { tm send-keys -t t "$@"; }
# wait_for TEXT [SECONDS]: polls the screen until it shows TEXT (fixed string)
wait_for() {
    tries=$(( ${2:-15} * 10 ))
    while [ $tries -gt 0 ]; do
        screen >"$T/screen"
        grep -qF -- "$1" "$T/screen" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "the screen never showed: $1"
    sed 's/^/|/' "$T/screen"
    return 1
}
# gone TEXT: the screen (as just captured) does not show TEXT
gone() {
    screen >"$T/screen"
    ! grep -qF -- "$1" "$T/screen" || { echo "the screen still shows: $1"; sed 's/^/|/' "$T/screen"; return 1; }
}
# top TEXT: the first row of the body (under the title bar) shows TEXT
top() {
    tries=50
    while [ $tries -gt 0 ]; do
        screen >"$T/screen"
        sed -n 2p "$T/screen" | grep -qF -- "$1" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "the body's first row is not: $1"
    sed 's/^/|/' "$T/screen"
    return 1
}
# start [WIDTH HEIGHT [ENV...]]: a fresh server running the app (the shell
# stays, so that the app's exit shows)
start() {
    w=${1:-80} h=${2:-24}
    [ $# -ge 2 ] && shift 2
    tm kill-server 2>/dev/null
    servers=$((servers + 1))
    SOCK=gpucourse-places-$$-$servers
    tm new-session -d -x "$w" -y "$h" -s t "env LANG=C.UTF-8 PS1='places\$ ' $* sh" || return 1
    wait_for 'places$' || return 1
    keys "$GC" Enter
    wait_for "Enter open" 10
}

"$GC" list >/dev/null 2>&1 # the workspace
start || { echo "1..0 # SKIP tmux cannot start a session here"; exit 0; }

# 1.1: y's lines wrapped, as the compile log is, to their end
t_why_wrapped() {
    start && keys Enter && wait_for "ex01 vector_add: Add two vectors" && keys g && wait_for "SKIPPED: no GPU" 60 &&
        keys y && wait_for "no diagnosis: nothing ran: no GPU" 30 && wait_for "compiled but was not run" &&
        grep -q '^ ↪ .*compiled but was not run' "$T/screen"
}
check "y on a card: its lines wrapped after a continuation mark, read to their end" t_why_wrapped

echo "1..$n"
