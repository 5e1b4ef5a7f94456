#!/bin/sh
# Bad input and edges of the terminal app and of what the CLI prints from
# course files: escape sequences in a course's text (titles, summaries,
# hints, a lesson, a build log) shown, never obeyed by the terminal; every
# screen at 80x24 (the smallest the app accepts) walked in tmux and compared
# with the same screens at 140x50, where nothing is cut; watch mode grading
# at once on entering instead of showing an old result. Runs without a GPU.
# Prints TAP.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux is not installed"
    exit 0
fi
T=$(mktemp -d /tmp/gc-edges-XXXXXX) # short: a workspace path fits an 80-column row
servers=0
SOCK=gpucourse-edges-$$-0
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
    i=0
    while [ $i -le $servers ]; do tmux -L "gpucourse-edges-$$-$i" kill-server 2>/dev/null; i=$((i + 1)); done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1 XDG_CACHE_HOME=$T/cache
# the course's size: its chapters and its last exercise (the walks go to the end)
chapters=$(GPUCOURSE_WORKSPACE=$T/ws-size "$GC" list | grep -c '^Chapter [0-9]*: ')
last_id=$(GPUCOURSE_WORKSPACE=$T/ws-size "$GC" list | sed -n 's/^  \[.\] \(ex[0-9]*\) .*/\1/p' | tail -1)
unset VISUAL NO_COLOR
E=$(printf '\033')
C1=$(printf '\302\233') # U+009B, the one-character CSI of 8-bit terminals

n=0
check() { # check "name" function: passes when the function succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | head -100; fi
}

. tests/tmux.sh
# shows TEXT: the screen as last captured shows TEXT too
shows() { grep -qF -- "$1" "$T/screen" || { echo "the screen does not show: $1"; sed 's/^/|/' "$T/screen"; return 1; }; }
gone() {
    screen >"$T/screen"
    ! grep -qF -- "$1" "$T/screen" || { echo "the screen still shows: $1"; sed 's/^/|/' "$T/screen"; return 1; }
}
# start_shell [COLS ROWS [ENV...]]: a plain shell in a fresh tmux server, a
# window of COLSxROWS (80x24)
start_shell() {
    cols=${1:-80} rows=${2:-24}
    [ $# -ge 2 ] && shift 2
    tm kill-server 2>/dev/null
    servers=$((servers + 1))
    SOCK=gpucourse-edges-$$-$servers
    tm new-session -d -x "$cols" -y "$rows" -s t "env LANG=C.UTF-8 PS1='edges-test\$ ' $* sh" || return 1
    wait_for 'edges-test$'
}
start_app() { # start_app ARGS...: gpucourse in the pane
    keys "$GC $*" Enter
    wait_for "q quit" 10
}
restored() { wait_for 'edges-test$' 10; }

start_shell || { echo "1..0 # SKIP tmux cannot start a session here"; exit 0; }

# ------------------------------------------------------------ 13: escapes from course files

# A copy of the shipped course whose text carries escape sequences: a
# strikethrough (SGR 9) and a window title (OSC 2) that a terminal would
# obey, a C1 CSI, a DEL; in a chapter title, an exercise's title and summary,
# a hint, and the lesson (raw bytes, in a paragraph and in a code block).
# A terminal that obeyed them would show struck text or retitle the pane.
ESC_COURSE=$T/esc
mkdir -p "$ESC_COURSE" && cp -r course exercises solutions harness "$ESC_COURSE/"
ch1=$ESC_COURSE/course/01-threads/chapter.yaml
sed -i \
    -e 's/^title: The thread hierarchy$/title: "The thread\\e[9m hierarchy\\e]2;pwned-chapter\\a"/' \
    -e 's/^    title: Add two vectors, tail included$/    title: "Add two\\e[9m vectors\\u009b9m, tail\\x7f included"/' \
    -e 's/^    summary: One thread per element; index and tail guard.$/    summary: "One\\e[9m thread\\e[9m per\\e[9m element;\\e[9m index\\e[9m and\\e[9m tail\\e[9m guard,\\e[9m every\\e[9m one"/' \
    -e 's/^      - "Global index: /      - "\\e]2;pwned-hint\\a\\e[9mGlobal index: /' "$ch1"
printf 'A paragraph \033[9mstruck\033]2;pwned-lesson\007 here.\n\n```\ncode \033[9mstruck\n```\n' \
    >>"$ESC_COURSE/course/01-threads/lesson.md"

# raw: what went to the terminal contains none of the content's escapes
no_raw_escapes() {
    for seq in "$E[9m" "$E]2;pwned" "$C1"; do
        if grep -qF -- "$seq" "$1"; then echo "$1: a raw escape from the course: $(printf '%s' "$seq" | od -c | head -1)"; return 1; fi
    done
}
# Every body row of the screen ends before the last column: the visible
# form of an escape (^[ is two columns) is counted where rows are laid out.
rows_fit() {
    ! sed -n '2,22p' "$T/screen" | LC_ALL=C.UTF-8 grep -E '^.{79}[^ ]' || { echo "(rows that run to the last column)"; return 1; }
}

t_escapes_app() {
    grep -q 'e\[9m' "$ch1" && start_shell 80 24 "GPUCOURSE_COURSE=$ESC_COURSE" || return 1
    tm pipe-pane -t t -o "cat >>'$T/raw'"
    start_app && wait_for " 1  The thread^[[9m" && shows "One^[[9m thread^[[9m per" && rows_fit &&
        keys Enter && wait_for "Add two^[[9m vectors\u009b9m, tail^? included" &&
        shows "Chapter 1: The thread^[[9m hierarchy^[]2;pwned-chapter^G" && rows_fit && keys h && wait_for "^[]2;pwned-hint^G^[[9mGlobal index" &&
        rows_fit && keys l && wait_for "The thread hierarchy" && keys G && wait_for "A paragraph ^[[9mstruck^[]2;pwned-lesson^G here." 5 &&
        wait_for "code ^[[9mstruck" && rows_fit && tm capture-pane -t t -p -e >"$T/escapes.screen" && keys q && restored || return 1
    tm pipe-pane -t t
    no_raw_escapes "$T/raw" || return 1
    # the terminal obeyed nothing: no struck text, the pane's title its own
    ! grep -q "$E\[9m" "$T/escapes.screen" || { echo "struck text on the screen"; return 1; }
    title=$(tm display -p -t t '#{pane_title}')
    case "$title" in *pwned*) echo "the pane was retitled: $title"; return 1 ;; esac
}
check "escapes in course text (titles, a summary, a hint, the lesson): shown as ^[, never obeyed; rows still fit" t_escapes_app

t_escapes_cli() {
    (
        export GPUCOURSE_COURSE=$ESC_COURSE GPUCOURSE_WORKSPACE=$T/ws-esc
        "$GC" list && "$GC" show ex01 && "$GC" hint ex01 && "$GC" progress
    ) >"$T/cli.out" 2>&1 || { cat "$T/cli.out"; return 1; }
    no_raw_escapes "$T/cli.out" && grep -qF "Add two^[[9m vectors\\u009b9m, tail^? included" "$T/cli.out" &&
        grep -qF "^[]2;pwned-hint^G^[[9mGlobal index" "$T/cli.out"
}
check "list, show, hint print the escapes of course text visibly (^[, \\u009b), never raw" t_escapes_cli

# check-course on a one-exercise course whose stub's #error carries escapes:
# nvcc's log quotes them; the printed log shows them. And a name with an
# escape: the problem quoting it.
t_escapes_check_course() {
    cc=$T/cc
    mkdir -p "$cc" && cp -r course exercises solutions harness "$cc/" &&
        printf 'title: "one\\e[9m chapter"\nchapters:\n  - 01-threads\n' >"$cc/course/course.yaml" &&
        sed -i '/^  - id: ex02$/,$d' "$cc/course/01-threads/chapter.yaml" &&
        printf '#error "\033[9mstruck\033]2;pwned-log\007"\n' >>"$cc/exercises/ex01_vector_add.cu" || return 1
    GPUCOURSE_WORKSPACE=$T/ws-cc timeout 300 "$GC" --course "$cc" check-course >"$T/cc.out" 2>&1
    cat "$T/cc.out"
    no_raw_escapes "$T/cc.out" && grep -qF 'error: #error "^[[9mstruck^[]2;pwned-log^G"' "$T/cc.out" || return 1
    sed -i 's/^    name: vector_add$/    name: "vector\\e[9madd"/' "$cc/course/01-threads/chapter.yaml"
    GPUCOURSE_WORKSPACE=$T/ws-cc "$GC" --course "$cc" check-course >"$T/cc.out" 2>&1
    GPUCOURSE_WORKSPACE=$T/ws-cc "$GC" --course "$cc" list >>"$T/cc.out" 2>&1
    cat "$T/cc.out"
    no_raw_escapes "$T/cc.out" && grep -qF "name 'vector^[[9madd' must use only" "$T/cc.out"
}
check "check-course: a build log and a problem quoting course text show its escapes, never raw" t_escapes_check_course

# ------------------------------------------------------------ 15: nothing cut at 80x24

# The walk visits every screen and keeps each document whole, each of its
# lines once (paged by the position "A-B of C" at the bottom right).
#
# What "cut" means here: the same screens are walked at 80x24 and at 140x50
# (a text width of 100 columns: nothing walked is wider). A word of a
# screen at 140x50 that its screen at 80x24 does not show (text dropped at
# the right edge instead of wrapped), or a word at 80x24 that is only part
# of one at 140x50 (cut inside it), is a cut. So is a position that
# promises more below ("A-B of C" with B < C, and the arrow) where no key
# reaches the end.
position() { sed -n "$(($1 - 1))p" "$T/screen" | grep -o ' [0-9]*-[0-9]* of [0-9]*' | tail -1; }
# page_doc FILE: the document on the screen, from its top (Home) to its end
page_doc() {
    keys Home
    sleep 0.3
    : >"$1.lines"
    screen >"$T/screen"
    sed -n "1p;${rows}p" "$T/screen" | sed 's/[0-9]*\/[0-9]* passed *$//' >"$1.top" # the top bar, the keys
    i=0
    while [ $i -lt 100 ]; do
        at=$(position "$rows")
        if [ -z "$at" ]; then # it fits: every row between the bars (with the status line)
            sed -n "2,$((rows - 1))p" "$T/screen" >>"$1.lines"
            break
        fi
        set -- "$1" $(echo "$at" | tr -- '-' ' ')
        sed -n "2,$(($3 - $2 + 2))p" "$T/screen" | awk -v first="$2" '{ printf "%06d\t%s\n", first + NR - 1, $0 }' >>"$1.lines"
        [ "$3" = "$5" ] && break
        keys Space
        tries=50
        while [ "$(screen >"$T/screen"; position "$rows")" = "$at" ] && [ $tries -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
        [ $tries -gt 0 ] || { echo "$1: paging stopped at$at"; return 1; }
        i=$((i + 1))
    done
    sort -u "$1.lines" | sed 's/^[0-9]*\t//' >"$1"
}
# The walk's workspace: ex01 and ex41 passed (their solutions open), ex41
# with every best ratio there is (the longest "Best" line).
walk() { # walk COLS ROWS DIR
    out=$3
    rm -rf "$out" "$T/ws-walk" && mkdir -p "$out" "$T/ws-walk" || return 1
    cat >"$T/ws-walk/progress.yaml" <<'EOF'
version: 1
exercises:
  ex01:
    status: passed
    attempts: 1
    hints_seen: 0
    last_verdict: pass
  ex41:
    status: passed
    attempts: 12
    hints_seen: 0
    best_vs_reference: 1.02
    best_vs_baseline: 0.95
    best_vs_library: 0.91
    best_tflops: 45.2
    last_verdict: pass
EOF
    start_shell "$1" "$2" "GPUCOURSE_WORKSPACE=$T/ws-walk" && start_app || return 1
    keys '?' && wait_for "gpucourse: the keys" && page_doc "$out/help" && keys Escape && wait_for "Enter open" || return 1
    keys w && wait_for "[watch]" && wait_for "watch mode" 60 || return 1
    screen >"$T/screen"
    if grep -q ": result" "$T/screen"; then page_doc "$out/card-watch" && keys Escape || return 1; fi
    keys Escape && wait_for "Enter open" && keys l && wait_for "Chapter 1: " || return 1 # from the list: at its top
    for ch in $(seq "$chapters"); do
        wait_for "Chapter $ch: " && page_doc "$out/lesson-$ch" || return 1
        [ "$ch" = "$chapters" ] || keys n
    done
    keys Escape && wait_for "Enter open" && keys Home && sleep 0.2 && keys Enter && wait_for "ex01 vector_add: " || return 1
    for id in $("$GC" list | sed -n 's/^  \[.\] \(ex[0-9]*\) .*/\1/p'); do
        wait_for "$id " && keys h h h h h && wait_for "that was the last one" && sleep 0.2 &&
            page_doc "$out/exercise-$id" || return 1
        if [ "$id" = ex01 ] || [ "$id" = ex41 ]; then
            keys s && wait_for "The reference solution of $id" && page_doc "$out/solution-$id" && keys Escape || return 1
        fi
        [ "$id" = "$last_id" ] || keys n
    done
    for i in $(seq $((${last_id#ex} - 41))); do keys p; done  # back to ex41
    wait_for "ex41 " && keys g && wait_for "ex41 sgemm_double_buffer: result" 60 && page_doc "$out/card-ex41" || return 1
    keys q && restored
}
# words [WHOLE] FILE...: the words of the files (with a letter or a digit),
# one a line, sorted; the mark of a continued line left out, durations made
# one, and the app's name and [no GPU] in the top bar too (they give way to a long title).
# With WHOLE (a file of words, one a line), a word of a line that is not in
# WHOLE and a word of the next line that together make one of WHOLE are
# that word: a word wider than its line or its table column, broken where
# it had to be, is not cut. A table too narrow for its words is a list that
# names each cell's column (its header's words again on every row, with a
# colon): the words are compared as a set, a colon after one left out.
words() {
    whole=/dev/null
    case "$1" in *.words) whole=$1; shift ;; esac
    sed -e 's/↪//g' -e 's/[0-9][0-9.]* s\b/N s/g' -e '1s/^ gpucourse │ //' -e '1s/\[no GPU\] //' "$@" | awk -v whole_file="$whole" '
        BEGIN { while ((getline word < whole_file) > 0) whole[word] = 1 }
        {
            n = 0
            for (i = 1; i <= NF; i++) if ($i ~ /[[:alnum:]]/) w[++n] = $i # not rules, bars, table lines
            for (i = 1; i <= n; i++)
                for (k = 1; k <= held; k++)
                    if (piece[k] != "" && ((piece[k] w[i]) in whole)) { print piece[k] w[i]; piece[k] = w[i] = ""; break }
            for (k = 1; k <= held; k++) if (piece[k] != "") print piece[k]
            held = 0
            for (i = 1; i <= n; i++) if (w[i] != "") { if (w[i] in whole || whole_file == "/dev/null") print w[i]; else piece[++held] = w[i] }
        }
        END { for (k = 1; k <= held; k++) print piece[k] }' | sed 's/:$//' | sort -u
}
# uncut NAME...: the screens NAME (files of the walks) lost no word at 80x24
uncut() {
    bad=0
    for doc in "$@"; do
        [ -f "$T/w140/$doc" ] || { echo "$doc: not walked at 140x50"; bad=1; continue; }
        words "$T/w140/$doc.top" "$T/w140/$doc" >"$T/w140.words"
        words "$T/w140.words" "$T/w80/$doc.top" "$T/w80/$doc" >"$T/w80.words"
        if ! cmp -s "$T/w80.words" "$T/w140.words"; then
            bad=1
            echo "$doc: cut at 80x24 (< lost, > only at 80x24):" $(diff "$T/w140.words" "$T/w80.words" | grep '^[<>]' | head -12)
            sed 's/^/  bars|/' "$T/w80/$doc.top"
        fi
    done
    return $bad
}

t_walk() { walk 140 50 "$T/w140" && walk 80 24 "$T/w80"; }
check "walk every screen at 140x50 and at 80x24: help, watch mode, every lesson to its end, every exercise with all its hints, two solutions, result cards" t_walk
check "help at 80x24: nothing cut (the status marks)" uncut help
t_lessons_uncut() { uncut $(for ch in $(seq "$chapters"); do echo "lesson-$ch"; done); }
check "every lesson at 80x24 in watch mode: nothing cut (the top bar, the end-of-lesson line)" t_lessons_uncut
t_exercises_uncut() { uncut $(cd "$T/w140" && ls exercise-ex[0-9][0-9]); }
check "every exercise view with its hints at 80x24: nothing cut (ex41's title, its best ratios)" t_exercises_uncut
t_cards_uncut() { uncut card-ex41 solution-ex01 solution-ex41 $( [ -f "$T/w140/card-watch" ] && echo card-watch); }
check "result cards and reference solutions at 80x24: nothing cut" t_cards_uncut

# The course list: the end of the document (the key to the status marks)
# is reached, so the position stops promising more; every summary is whole,
# or cut after a whole word with an ellipsis.
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
t_course_end() {
    start_shell && start_app || return 1
    summaries_whole || return 1
    for k in G End; do
        keys Home && sleep 0.2 && keys "$k" && wait_for "[ ] $last_id" && sleep 0.3 && screen >"$T/screen" &&
            summaries_whole && shows "[x] passed" || return 1
        at=$(position 24)
        set -- $(echo "$at" | tr -- '-' ' ')
        [ "$2" = "$4" ] || { echo "after $k the position is$at: more promised below"; sed 's/^/|/' "$T/screen"; return 1; }
        ! grep -q '↓' "$T/screen" || { echo "an arrow promises more"; sed 's/^/|/' "$T/screen"; return 1; }
    done
    keys q && restored
}
check "course list at 80x24: the last exercise brings the key to the marks into view; the position reaches its end" t_course_end

# ------------------------------------------------------------ 16: watch mode shows a fresh result

# An editor that breaks the file; then the file is mended while watch mode
# is off: entering watch mode must not show the old compile error as the
# result, but grade at once.
cat >"$T/break" <<'EOF'
#!/bin/sh
echo 'this is not CUDA;' >>"$1"
EOF
chmod +x "$T/break"
t_watch_fresh() {
    start_shell 80 24 "EDITOR=$T/break" && start_app && keys Enter && wait_for "ex01 vector_add: " && keys e &&
        wait_for "back from" && keys g && wait_for "COMPILE ERROR" 60 &&
        cp exercises/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu" && keys w && wait_for "[watch]" &&
        wait_for "SKIPPED: no GPU" 60 && gone "COMPILE ERROR" && shows "ex01 vector_add: result" &&
        keys q && restored
}
check "w on an old compile error: watch mode grades at once, the card shows the fresh result" t_watch_fresh

t_watch_start() { # gpucourse watch EX, its last result recorded a compile error
    cp exercises/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu" && echo 'not CUDA;' >>"$T/ws/exercises/ex01_vector_add.cu" &&
        "$GC" grade ex01 >/dev/null 2>&1
    grep -q "last_verdict: compile_error" "$T/ws/progress.yaml" || { echo "no compile error recorded"; return 1; }
    cp exercises/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu" &&
        start_shell && keys "$GC watch ex01" Enter && wait_for "[watch]" && wait_for "SKIPPED: no GPU" 60 &&
        shows "ex01 vector_add: result" && gone "did not compile" && keys q && restored
}
check "gpucourse watch EX: graded at once, not the last try's compile error" t_watch_start

echo "1..$n"
