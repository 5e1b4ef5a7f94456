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
. tests/tmux.sh
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

# 1.1: y's lines wrapped, as the compile log is, to their end (why's line
# after a compile error is longer than 80 columns)
t_why_wrapped() {
    cp "$T/ws/exercises/ex01_vector_add.cu" "$T/ex01.cu" && echo "a syntax error" >>"$T/ws/exercises/ex01_vector_add.cu" &&
        start && keys Enter && wait_for "ex01 vector_add: " && keys g && wait_for "compile error" 60 &&
        keys y && wait_for "no diagnosis: your file did not compile" 30 && wait_for "say where" &&
        grep -q '^ ↪ .*say where' "$T/screen"
    rc=$?
    cp "$T/ex01.cu" "$T/ws/exercises/ex01_vector_add.cu"
    return $rc
}
check "y on a card: its lines wrapped after a continuation mark, read to their end" t_why_wrapped

# 1.4: no GPU here, said from the start (the title bar and the status line);
# a launcher's GPU is elsewhere, so not then
t_no_gpu_start() {
    start && wait_for "[no GPU]" && wait_for "no GPU here: grading compiles only; D says why" &&
        wait_for "ex01 is next" &&
        start 80 24 GPUCOURSE_LAUNCHER=/bin/true && wait_for "ex01 is next" && sleep 0.5 && gone "no GPU"
}
check "no GPU: said in the title bar and the status line from the start (not with a launcher)" t_no_gpu_start

# 1.4: D shows gpucourse doctor's report in the app (here: no GPU, its fix
# said), scrolls, Esc goes back to where it was opened; D there runs it again
t_doctor_view() {
    start && keys Enter && wait_for "ex01 vector_add:" && keys D && wait_for "gpucourse doctor: what grading needs" &&
        wait_for "doctor: something is missing" && wait_for "nvcc" && keys G && wait_for "D runs it again" &&
        keys Escape && wait_for "ex01 vector_add:" && keys D && wait_for "gpucourse doctor: what grading needs" &&
        keys q && wait_for "ex01 vector_add:" && keys ? && wait_for "gpucourse: the keys" && keys D &&
        wait_for "gpucourse doctor: what grading needs" && keys Escape && wait_for "ex01 vector_add:"
}
check "D: gpucourse doctor's report in a view (MISSING and its fix), Esc or q back to the card, also through help" t_doctor_view

# 1.2 and 1.3: l on a card opens the lesson at the exercise's section; Esc
# and Enter come back to that card
t_lesson_place() {
    start && keys j j Enter && wait_for "ex03 saxpy: SAXPY" && keys l && wait_for "Chapter 1: The thread hierarchy" &&
        top "Grid-stride loops" && wait_for "at 'Grid-stride loops'" &&
        keys Escape && wait_for "ex03 saxpy: SAXPY with a grid-stride loop" && wait_for "Hints     0 of" &&
        keys l && top "Grid-stride loops" && keys Enter && wait_for "ex03 saxpy: SAXPY with a grid-stride loop" &&
        gone "ex01 vector_add" &&
        keys l && top "Grid-stride loops" && keys n && wait_for "Chapter 2: " && keys Escape &&
        wait_for "ex03 saxpy: SAXPY with a grid-stride loop" &&
        keys Left && wait_for "Enter open" && keys l && top "The thread hierarchy" && keys Escape &&
        wait_for "Enter open" && gone "Chapter 1: The thread hierarchy"
}
check "l on a card: the lesson at its section; Esc and Enter back to the card; from the list, its top" t_lesson_place

# 1.2: / searches the lesson (n, N), t lists its sections; help names both
t_lesson_search() {
    start && keys j j Enter && wait_for "ex03 saxpy" && keys l && top "Grid-stride loops" &&
        keys / && wait_for "/_" && keys "__BALLOT" && wait_for "/__BALLOT_" && keys Enter &&
        wait_for "/__BALLOT: line" && sed -n 2p "$T/screen" | grep -qi "__ballot" &&
        first=$(sed -n 2p "$T/screen") && keys n && sleep 0.5 && wait_for "/__BALLOT: line" &&
        sed -n 2p "$T/screen" | grep -qi "__ballot" && [ "$(sed -n 2p "$T/screen")" != "$first" ] &&
        keys N && top "$first" &&
        keys Escape && wait_for "search cleared" && keys / && keys "no such words here" Enter &&
        wait_for "not in this lesson" &&
        keys t && wait_for "Sections of chapter 1" && wait_for "Kernels and launches" && wait_for "Warp votes" &&
        keys G k Enter && top "Warp votes" &&
        keys '?' G && wait_for "its sections: j k select" && wait_for "search (Enter searches" && keys Escape &&
        keys Escape && wait_for "ex03 saxpy: SAXPY with a grid-stride loop"
}
check "lesson: / searches, n N go to the matches, t lists the sections to jump to; help names them" t_lesson_search

# 1.12: a small heading has a dotted rule under it (it reads as one without bold)
t_h3() {
    start && keys 3 && keys l && wait_for "Chapter 3: " && keys / "The last warp" Enter &&
        top "The last warp: no lockstep" && sed -n 3p "$T/screen" | grep -q '^ ·······'
}
check "lesson: a small heading (###) underlined with dots" t_h3

# 1.11: a lesson's table at 80x24 in aligned columns within the screen;
# rules between the body's rows only where a body row takes two lines
# (chapter 11's "parts" table: only its header wraps)
t_tables() {
    start && keys 1 1 && wait_for "chapter 11: " && keys l && wait_for "Chapter 11: " &&
        keys / "each plan forced" Enter && wait_for "(ex33's waves)" && wait_for "/each plan forced: line" &&
        perl -CSD -ne 'chomp; exit 1 if length > 80' "$T/screen" &&
        grep -Eq "^ *1 \(ex33's waves\) +│ 588 +│ 693 +│ 576\s*\$" "$T/screen" &&
        grep -A1 "(ex33's waves)" "$T/screen" | tail -1 | grep -Eq "^ *2 +│ 664 +│ 631 +│ 536" &&
        grep -B1 "(ex33's waves)" "$T/screen" | head -1 | grep -q "─┼─" ||
        { sed 's/^/|/' "$T/screen"; return 1; }
}
check "lesson at 80x24: a table in columns, rules between body rows only where one wraps" t_tables

# 1.6: Space, b, PgDn and PgUp page the list; digits jump to a chapter;
# Home shows the course's title
t_list_paging() {
    start && keys Space && wait_for "Enter open" && gone "1  The thread hierarchy" && keys b &&
        wait_for "1  The thread hierarchy" && keys NPage && gone "1  The thread hierarchy" && keys PPage &&
        wait_for "1  The thread hierarchy" &&
        keys 9 && wait_for "chapter 9: WGMMA" && keys Enter && wait_for "ex30 wgmma_tile" && keys Escape &&
        keys 1 1 && wait_for "chapter 11: " && keys Enter && wait_for "ex43 split_k" && keys Escape &&
        keys Home && wait_for "gpucourse: CUDA from the thread hierarchy" && keys G && keys Home &&
        top "gpucourse: CUDA from the thread hierarchy"
}
check "list: Space b PgDn PgUp page it, a chapter's number jumps there, Home shows the title" t_list_paging

# 1.6: / on the list finds an exercise by its id, name, title or summary (ex47's
# says "swizzled"); Enter on an empty search goes to the next one, round the
# course; one that none has says so
t_list_search() {
    start && keys Home && top "gpucourse: CUDA from the thread hierarchy" && keys / "swizzled" Enter && wait_for "/swizzled: ex21 swizzled_transpose" && keys Enter &&
        wait_for "ex21 swizzled_transpose: 16-byte shared" && keys Escape && keys / Enter &&
        wait_for "/swizzled: ex29 tma_swizzle_read" && keys / Enter && wait_for "/swizzled: ex31 wgmma_swizzled" &&
        keys / Enter && wait_for "/swizzled: ex47 tma_store_epilogue" && keys / Enter &&
        wait_for "/swizzled: ex21 swizzled_transpose" &&
        keys / "no such thing" Enter && wait_for "/no such thing: no exercise's id, name, title or summary has it" &&
        keys / "EX44" Enter && wait_for "/EX44: ex44 cluster_multicast" && keys Enter && wait_for "ex44 cluster_multicast:" &&
        keys Escape && keys / "x" Escape && wait_for "search cancelled"
}
check "list: / finds an exercise by id, name, title or summary; Enter on an empty search the next; none found: said" t_list_search

# 1.10: the card names the editor e runs
t_editor() {
    start && keys Enter && wait_for "Editor    vi (e opens the file in it" &&
        start 80 24 EDITOR=nano && keys Enter && wait_for "Editor    nano (e opens"
}
check "the exercise card names the editor e opens (vi when neither VISUAL nor EDITOR is set)" t_editor

# 1.9: at 120 columns the list's summaries use the width; a name and its
# summary always two spaces apart
t_wide_list() {
    start 120 40 && wait_for "vectorized_transpose  " && grep -Eq 'vectorized_transpose  [^ ]' "$T/screen" &&
        ! grep -E '\[.\] ex[0-9][0-9].*…' "$T/screen"
}
check "list at 120 columns: no summary cut, two spaces after the longest name" t_wide_list

echo "1..$n"
