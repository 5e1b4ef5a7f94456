#!/bin/sh
# The code's layers, from the bottom: src/ (the model: course, progress,
# workspace, and util and proc under everything), grader/ (compiling,
# judging, reports), tui/ (the terminal app), cli/ (the command line). Each
# folder includes only its own headers and those of the folders below it;
# harness/ is the GPU side, and the CPU code may use its sandbox and rules.
# Within tui/, the views draw the app's state and never reach back into the
# main loop (app.h). Prints TAP.
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
upward=$(grep -l '#include "app.h"' tui/*.c | grep -v '^tui/app.c$' | tr '\n' ' ')
if [ -z "$upward" ]; then echo "ok $n - tui/: only app.c includes app.h (the views do not call back into the main loop)"
else echo "not ok $n - tui/: app.h included by $upward"; fi
echo "1..$n"
