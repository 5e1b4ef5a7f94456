#!/bin/sh
# The terminal app, driven for real in tmux (a private server, an 80x24
# window): the start screen, navigation, a rendered lesson, help, grading
# (the live log, a compile error through $EDITOR, the no-GPU message), hints,
# reset, a resize to 60x15, 20x10 and back, quitting, Ctrl-C, SIGTERM and
# SIGSEGV (the terminal restored each time), NO_COLOR, code colours, watch
# mode with and without a terminal, and every lesson paged to its end (tables
# drawn in columns). Runs on the shipped course without a GPU. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed"
    exit 0
fi
T=$(mktemp -d /tmp/gpucourse-tui-XXXXXX)
# A private tmux server; a new one (a new socket) for each fresh shell, so
# that one being killed never meets the next starting.
servers=0
SOCK=gpucourse-test-$$-0
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
    i=0
    while [ $i -le $servers ]; do tmux -L "gpucourse-test-$$-$i" kill-server 2>/dev/null; i=$((i + 1)); done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1 XDG_CACHE_HOME=$T/cache
unset VISUAL NO_COLOR
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# the toolkit that the slow nvcc below (a wrapper) runs, for the compiler's box
CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
export CUDA_HOME

# An editor that breaks the file it is given (nvcc's error is wider than the
# screen), and an nvcc that talks and takes its time before compiling (so the
# live log can be seen).
cat >"$T/editor" <<'EOF'
#!/bin/sh
echo 'static_assert(sizeof(float) == 2, "this is not CUDA, and the message of this error runs past the right edge to its very end");' >>"$1"
EOF
# a slow nvcc whose dry run says nothing, so that the library is built by nvcc itself (not by its
# phases at once, grader/toolchain.c), through this script and its live line
mkdir -p "$T/slow"
cat >"$T/slow/nvcc" <<EOF
#!/bin/sh
case "\$*" in *-dryrun*) exit 0 ;; *--version*) ;; *) echo "slow-nvcc: compiling, line one of the live log, long enough to run past the right edge to its last-word"; sleep 3 ;; esac
exec "$NVCC" "\$@"
EOF
chmod +x "$T/editor" "$T/slow/nvcc"

# The student has passed ex01 already: the app must start on ex02, which
# they tried once (a wrong answer: status compiles).
"$GC" list >/dev/null 2>&1
cat >"$T/ws/progress.yaml" <<'EOF'
version: 1
exercises:
  ex01:
    status: passed
    attempts: 2
    hints_seen: 0
    last_verdict: pass
  ex02:
    status: compiles
    attempts: 1
    last_verdict: wrong_answer
EOF

n=0
check() { # check "name" function: passes when the function succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | head -40; fi
}

. tests/tmux.sh
# The screen as last captured with wrapped lines joined again (a line
# continued from above starts with the marker; it was cut at a space).
unwrapped() { awk '/^ ↪ /{ sub(/^ ↪ /, ""); line = line " " $0; next } NR > 1 { print line } { line = $0 } END { print line }' "$T/screen"; }
# shows TEXT: the screen as last captured shows TEXT too
shows() { grep -qF -- "$1" "$T/screen" || { echo "the screen does not show: $1"; sed 's/^/|/' "$T/screen"; return 1; }; }
# gone TEXT: the screen (as just captured) does not show TEXT
gone() {
    screen >"$T/screen"
    ! grep -qF -- "$1" "$T/screen" || { echo "the screen still shows: $1"; sed 's/^/|/' "$T/screen"; return 1; }
}
# The pane runs a plain shell with a known prompt; the app is started from it.
start_shell() {
    tm kill-server 2>/dev/null
    servers=$((servers + 1))
    SOCK=gpucourse-test-$$-$servers
    tm new-session -d -x 80 -y 24 -s t \
        "env EDITOR='$T/editor' LANG=C.UTF-8 PS1='tui-test\$ ' $* sh" || return 1
    wait_for 'tui-test$'
}
start_app() { # start_app ARGS...: gpucourse in the pane
    keys "$GC $*" Enter
    wait_for "Enter open" 10
}
# The shell is back and the terminal works: what is typed is echoed, output shows.
restored() {
    wait_for 'tui-test$' 10 || return 1
    keys "echo restored-\$((40 + 2))" Enter
    wait_for 'echo restored-$((40 + 2))' 5 && wait_for 'restored-42' 5 && gone ' q quit'
}
app_pid() { pgrep -P "$(tm display -p -t t '#{pane_pid}')" -x gpucourse; }

start_shell || { echo "1..0 # SKIP tmux cannot start a session here"; exit 0; }

t_start() {
    start_app && wait_for "gpucourse: CUDA from the thread hierarchy" &&
        wait_for "1  The thread hierarchy" && wait_for "1/4 passed" && wait_for "[x] ex01  vector_add" &&
        wait_for "[c] ex02  flip_lr" && wait_for "2  Memory and coalescing" &&
        wait_for "ex02 is next" && wait_for "Enter open" && wait_for " q quit"
}
check "start screen: chapters, progress, marks, the next unfinished exercise, keys" t_start

# Every exercise row on the screen shows its summary whole, or whole words
# and an ellipsis (as in 'gpucourse list', where summaries are whole).
summaries_whole() {
    "$GC" list | sed -n 's/^  \[.\] \(ex[0-9]*\)  [^ ]* *\(.*\)$/\1 \2/p' >"$T/summaries"
    grep -o 'ex[0-9][0-9]  .*' "$T/screen" | while read -r id name rest; do
        full=$(grep "^$id " "$T/summaries" | cut -d' ' -f2-)
        case "$rest" in
        "$full") ;;
        *…) case "$full" in "${rest%…}"[\ ,\;:]*) ;; *) echo "$id: cut inside a word: $rest"; exit 1 ;; esac ;;
        *) echo "$id: cut without an ellipsis: $rest"; exit 1 ;;
        esac
    done
}
t_course_rows() {
    last=$("$GC" list | sed -n 's/^  \[.\] \(ex[0-9]*  [a-z0-9_]*\) .*/\1/p' | tail -1)  # the course's last row
    summaries_whole && grep -q '…$' "$T/screen" && keys G && wait_for "$last" && summaries_whole &&
        shows "[ ] ex41  sgemm_double_buffer   Double-buffered tiles" &&
        shows "[ ] ex34  sgemm_naive           One thread per element of C" &&
        keys Home && keys j && wait_for "1  The thread hierarchy"
}
check "course rows: the name column fits the longest name; summaries cut at a word, with an ellipsis" t_course_rows

t_navigate() {
    keys Enter && wait_for "ex02 flip_lr: Mirror the rows of a matrix" && wait_for "Task" &&
        wait_for "Hints     0 of 3 seen" &&
        keys Escape && wait_for "the course" && keys j && keys Enter && wait_for "ex03 saxpy: SAXPY" &&
        keys p && wait_for "ex02 flip_lr: Mirror" && keys Left && wait_for "2  Memory and coalescing"
}
check "navigation: Enter opens the selected exercise, j moves, p goes back, Escape returns" t_navigate

t_lesson() {
    keys l && wait_for "Chapter 1: The thread hierarchy" && wait_for "Kernels and launches" &&
        wait_for "  __global__ void hello(int* out)" && wait_for "1-21 of" && gone '```' && gone '## ' &&
        for i in 1 2 3 4 5 6; do
            screen | grep -qF " index:   0  1  2  3    4  5  6  7    8  9 10 11" && break
            keys Space
            sleep 0.2
        done &&
        wait_for " block:      0             1             2" &&
        wait_for " index:   0  1  2  3    4  5  6  7    8  9 10 11" && keys Escape && wait_for "Enter open"
}
check "lesson: a rendered heading, a code block kept as is, an ASCII diagram intact, scrolling" t_lesson

t_help() {
    keys '?' && wait_for "gpucourse: the keys" && wait_for "open the exercise in \$VISUAL or \$EDITOR" &&
        wait_for "Esc ? q close" && keys Escape && wait_for "Enter open" && gone "gpucourse: the keys"
}
check "help: ? shows the keys, Escape closes it" t_help

t_hint() {
    keys Enter && wait_for "ex02 flip_lr" && keys h && wait_for "Hint 1 of 3 (new)" &&
        wait_for "Column: blockIdx.x * blockDim.x + threadIdx.x" && wait_for "Hint 1 of 3 (h again for the next)" &&
        grep -q "hints_seen: 1" "$T/ws/progress.yaml"
}
check "hint: h shows the next hint and records it" t_hint

t_no_gpu() {
    keys g && wait_for "SKIPPED: no GPU" 60 && wait_for "GPUCOURSE_NO_GPU is set" &&
        wait_for "this is not a failure" && gone "COMPILE ERROR" && ! grep -q "last_verdict: skipped" "$T/ws/progress.yaml" &&
        grep -q "attempts: 1$" "$T/ws/progress.yaml"
}
check "grading without a GPU: the no-GPU message, not a failure, and no attempt" t_no_gpu

t_why() {
    wait_for " y why" && keys y && wait_for "no diagnosis (below the card)" 30 &&
        wait_for "no diagnosis: nothing ran: no GPU" && keys G && wait_for "Kernels" && wait_for "registers, 0 B shared"
}
check "y on the result card: why, below the card (without a GPU: why nothing ran); the kernels' figures" t_why

t_edit_compile_error() {
    keys Escape && wait_for "Hints     1 of 3 seen" && keys e && wait_for "back from" &&
        grep -q 'this is not CUDA' "$T/ws/exercises/ex02_flip_lr.cu" &&
        keys g && wait_for "COMPILE ERROR" 60 && wait_for "nvcc says" && wait_for "): error" &&
        wait_for "this is not CUDA" && wait_for "ex02: compile error" &&
        unwrapped | grep -F 'error: static assertion failed with "this is not CUDA, and the message of this error runs past the right edge to its very end"'
}
check "e runs \$EDITOR and comes back; g shows the compile error with nvcc's message, wrapped to its end" t_edit_compile_error

t_last_try() {
    keys Escape && wait_for "Last try  did not compile (Enter shows the card)" &&
        shows "Status    [c] compiles (your best so far), 2 attempts" && gone "compile_error" &&
        keys Enter && wait_for "ex02 flip_lr: result"
}
check "exercise view: the last try in words, the status marked as the best so far" t_last_try

t_reset() {
    keys Escape && keys r && wait_for "Reset ex02 to its stub?" && keys y && wait_for "ex02 is the stub again" &&
        cmp -s exercises/ex02_flip_lr.cu "$T/ws/exercises/ex02_flip_lr.cu" &&
        backup=$(ls "$T/ws/backups") && wait_for "$T/ws/backups/$backup" && grep -q ' 1-[0-9]* of [0-9]' "$T/screen"
}
check "r asks, then restores the stub and shows the whole backup path beside the position" t_reset

t_resize() {
    tm resize-window -t t -x 60 -y 15 && wait_for "terminal too small" && wait_for "60x15" && gone "Hints" &&
        tm resize-window -t t -x 20 -y 10 && wait_for "20x10; gpucourse" && shows "needs 80x24" &&
        shows "terminal too small" && shows "make it larger, or" && shows "press q to quit" &&
        tm resize-window -t t -x 80 -y 24 && wait_for "Hints     1 of 3 seen" && wait_for " q quit" &&
        gone "terminal too small"
}
check "resize to 60x15 and 20x10: too small, said in full; back to 80x24: the app again" t_resize

t_quit() { keys q && restored; }
check "q quits and the terminal is restored" t_quit

t_live_log() {
    start_shell && keys "GPUCOURSE_NVCC=$T/slow/nvcc $GC" Enter && wait_for "ex02 is next" && keys g &&
        wait_for "slow-nvcc: compiling, line one of the live log" && shows "last-word" &&
        shows "Grading ex02 flip_lr: compiling" && shows "Ctrl-C cancel" && wait_for "SKIPPED: no GPU" 60 && keys q && restored
}
check "grading streams the compile log live, long lines wrapped" t_live_log

t_ctrl_c() {
    start_shell && start_app && keys C-c && restored && ! app_pid >/dev/null
}
check "Ctrl-C restores the terminal" t_ctrl_c

t_cancel() {
    # a change, so that the file is compiled again (an unchanged one is not)
    echo "// changed" >>"$T/ws/exercises/ex02_flip_lr.cu"
    start_shell && keys "GPUCOURSE_NVCC=$T/slow/nvcc $GC" Enter && wait_for "ex02 is next" && keys g &&
        wait_for "slow-nvcc: compiling" && keys C-c && wait_for "grading cancelled" && wait_for "Enter open" &&
        keys q && restored
}
check "Ctrl-C while grading cancels the run and keeps the app" t_cancel

t_sigterm() {
    start_shell && start_app && pid=$(app_pid) && [ -n "$pid" ] && kill -TERM "$pid" && restored
}
check "SIGTERM restores the terminal" t_sigterm

t_crash() {
    start_shell && start_app && pid=$(app_pid) && [ -n "$pid" ] && kill -SEGV "$pid" && restored
}
check "a crash (SIGSEGV) restores the terminal" t_crash

t_no_color() {
    start_shell && keys "NO_COLOR=1 $GC" Enter && wait_for "Enter open" && tm capture-pane -t t -p -e >"$T/esc" &&
        ! grep -q "$(printf '\033')\[\(3\|4\)[0-7]m" "$T/esc" && grep -q "$(printf '\033')\[7m" "$T/esc" &&
        keys q && restored && keys "$GC" Enter && wait_for "Enter open" && tm capture-pane -t t -p -e >"$T/esc" &&
        grep -q "$(printf '\033')\[\(3\|4\)[0-7]m" "$T/esc" && keys q && restored
}
check "NO_COLOR: no colours, reverse video instead; colours otherwise" t_no_color

t_damaged_progress() {
    mkdir -p "$T/ws-damaged" && echo 'version: [' >"$T/ws-damaged/progress.yaml" && start_shell &&
        keys "GPUCOURSE_WORKSPACE=$T/ws-damaged $GC" Enter && wait_for "progress starts" &&
        aside=$(ls "$T/ws-damaged" | grep damaged) && shows "1-17 of " &&
        sed 's/^ //' "$T/screen" | tr '\n' ' ' | tr -s ' ' |
        grep -F "it was kept as '$T/ws-damaged/$aside' and progress starts afresh" && keys q && restored
}
check "a damaged progress file: the warning shown whole, on rows of its own" t_damaged_progress

t_code_colours() {
    E=$(printf '\033')
    start_shell && keys "NO_COLOR=1 $GC" Enter && wait_for "Enter open" && keys l && wait_for "__global__ void hello" &&
        tm capture-pane -t t -p -e >"$T/esc" && grep -q "^   $E\[1m__global__" "$T/esc" &&
        ! grep -q "$E\[\(3\|4\)[0-7]m" "$T/esc" && keys q && restored &&
        keys "$GC" Enter && wait_for "Enter open" && keys l && wait_for "__global__ void hello" &&
        tm capture-pane -t t -p -e >"$T/esc" && grep -q "$E\[35m__global__.*$E\[32mvoid" "$T/esc" && keys q && restored
}
check "lesson code: CUDA coloured as in an editor; NO_COLOR: keywords in bold, no colours" t_code_colours

t_watch_app() {
    start_shell && keys "$GC watch ex03" Enter && wait_for "[watch]" && wait_for "ex03 saxpy: SAXPY" &&
        echo "// saved" >>"$T/ws/exercises/ex03_saxpy.cu" && wait_for "ex03 saxpy: result" 60 &&
        wait_for "SKIPPED: no GPU" && wait_for "saved, graded ex03" && keys q && restored
}
check "gpucourse watch EX on a terminal: the app grades on save" t_watch_app

t_pass_rule() {
    start_shell && keys "$GC watch ex08" Enter && wait_for "ex08 segment_sum: result" 60 && keys Escape && wait_for "To pass" &&
        shows "0.65x the copy bandwidth" && shows "DeviceSegmentedReduce::Sum's" && keys q && restored
}
check "the exercise view states every floor (the library's too)" t_pass_rule

t_watch_text() {
    "$GC" watch ex04 >"$T/watch.out" 2>&1 </dev/null &
    pid=$!
    tries=100
    until grep -q "watching" "$T/watch.out" || [ $tries = 0 ]; do sleep 0.1; tries=$((tries - 1)); done
    d=$T/ws/exercises
    echo x >"$d/.ex04_warp_count.cu.swp"; echo x >"$d/4913"; echo x >"$d/ex04_warp_count.cu~"
    echo x >"$d/.#ex04_warp_count.cu"; echo "// other" >>"$d/ex05_col_scale.cu"
    sleep 1.5
    before=$(grep -c "^SKIPPED ex04" "$T/watch.out")
    echo "// saved" >>"$d/ex04_warp_count.cu"
    tries=300
    until grep -q "^SKIPPED ex04" "$T/watch.out" || [ $tries = 0 ]; do sleep 0.1; tries=$((tries - 1)); done
    echo "// saved again" >>"$d/ex04_warp_count.cu"; echo "// and again" >>"$d/ex04_warp_count.cu"
    tries=300
    until [ "$(grep -c '^SKIPPED ex04' "$T/watch.out")" -ge 2 ] || [ $tries = 0 ]; do sleep 0.1; tries=$((tries - 1)); done
    sleep 1
    kill -TERM $pid # (an asynchronous command of a script ignores SIGINT)
    wait $pid
    cat "$T/watch.out"
    [ "$before" = 0 ] && [ "$(grep -c '^SKIPPED ex04' "$T/watch.out")" = 2 ] && ! grep -q "ex05" "$T/watch.out"
}
check "gpucourse watch EX without a terminal: swap files ignored, saves debounced, a report per save" t_watch_text

# every_page: pages the lesson on the screen down to its end (the footer's
# "A-B of C" with B = C), each page appended to $T/pages
position() { screen | grep -o ' [0-9]*-[0-9]* of [0-9]*' | tail -1; }
every_page() {
    i=0
    while [ $i -lt 80 ]; do
        screen >"$T/screen"
        cat "$T/screen" >>"$T/pages"
        at=$(grep -o ' [0-9]*-[0-9]* of [0-9]*' "$T/screen" | tail -1)
        set -- $(echo "$at" | tr -- '-' ' ')
        [ -n "$2" ] && [ "$2" = "$4" ] && return 0
        keys Space
        tries=50
        while [ "$(position)" = "$at" ] && [ $tries -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
        [ $tries -gt 0 ] || { echo "paging stopped at$at"; return 1; }
        i=$((i + 1))
    done
    echo "more than 80 pages"
    return 1
}
t_every_lesson() {
    : >"$T/pages"
    start_shell && start_app && keys l && wait_for "Chapter 1: The thread hierarchy" || return 1
    for ch in 1 2 3 4 5 6 7 8 9 10; do
        wait_for "Chapter $ch: " && every_page || return 1
        [ $ch = 10 ] || keys n
    done
    keys q && restored || return 1
    # a table is drawn in columns (rules crossing), never left as markdown's pipes
    grep -q -- "─┼─" "$T/pages" || { echo "no table drawn in columns"; return 1; }
    if grep -E '\|[ :]*---[-: ]*\|' "$T/pages" | head -5 | grep .; then echo "a markdown table left as pipes"; return 1; fi
    grep -q " resource per SM │ H100 " "$T/pages" && grep -q " argument  *│ what it is" "$T/pages"
}
check "every lesson at 80x24, paged to its end: tables in columns, no raw pipes" t_every_lesson

t_not_a_tty() { "$GC" </dev/null | cat >"$T/got" && grep -q "Chapter 1: The thread hierarchy" "$T/got" && grep -q "Next: ex02" "$T/got"; }
check "gpucourse off a terminal prints the course as text" t_not_a_tty

t_no_term() {
    start_shell && keys "clear; TERM=dumb $GC; echo dumb-rc=\$?" Enter && wait_for "dumb-rc=0" &&
        shows "Next: ex02" && gone " q quit" &&
        keys "clear; env -u TERM $GC; echo unset-rc=\$?" Enter && wait_for "unset-rc=0" &&
        shows "Next: ex02" && gone "TERM"
}
check "on a terminal with TERM=dumb or TERM unset: the course as text, exit 0" t_no_term

echo "1..$n"
