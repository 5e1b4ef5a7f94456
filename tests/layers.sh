#!/bin/sh
# The code's layers, from the bottom: src/ (the model: course, progress,
# workspace, and util and proc under everything), grader/ (compiling,
# judging, reports), tui/ (the terminal app), cli/ (the command line). Each
# folder includes only its own headers and those of the folders below it;
# harness/ is the GPU side, and the CPU code may use its sandbox and rules.
# Within tui/: the state (state.h) is below the views (views.h), which are
# below the main loop and actions (app.c, which has no header). Prints TAP.
cd "$(dirname "$0")/.." || exit 1
n=0
below() { # below FOLDER: the folders FOLDER may include from
    case $1 in
    src) echo "src" ;;
    grader) echo "src grader harness" ;;
    tui) echo "src grader harness tui" ;;
    cli) echo "src grader harness tui cli" ;;
    esac
}
for folder in src grader tui cli; do
    n=$((n + 1))
    wrong=
    for f in "$folder"/*.c "$folder"/*.h; do
        [ -f "$f" ] || continue
        for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
            case $inc in
            ../*/*) to=${inc#../}; to=${to%%/*} ;;
            */*) to=? ;;
            *) to=$folder ;;
            esac
            case " $(below "$folder") " in *" $to "*) ;; *) wrong="$wrong $f:$inc" ;; esac
        done
    done
    if [ -z "$wrong" ]; then echo "ok $n - $folder/ includes only from: $(below "$folder")"
    else echo "not ok $n - $folder/ reaches up or across:$wrong"; fi
done
n=$((n + 1))
upward=$(grep -l '#include "\(app\|views\)\.h"' tui/state.[ch] 2>/dev/null; grep -l '#include "app\.h"' tui/*.[ch])
if [ -z "$upward" ]; then echo "ok $n - tui/: the state is below the views, the views below the main loop (app.c)"
else echo "not ok $n - tui/: reaching up: $(echo $upward)"; fi
echo "1..$n"
