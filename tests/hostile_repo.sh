#!/bin/sh
# A student's repository graded where it was checked out (a classroom CI on a
# self-hosted runner: `gpucourse grade` in the checkout, on the runner's
# account). Everything in it is the student's to choose, links included, so
# no link in it may lead gpucourse's reads or writes out of it: the runner's
# files are neither shown, moved, truncated nor written. Each case links to a
# file or directory beside the workspace, standing for the runner's home,
# and checks it is as it was. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh hostile

H=$T/home # the runner's account
# fresh: a workspace (the checkout) with the stubs, and the runner's files beside it
fresh() {
    rm -rf "$T/ws" "$H" && mkdir -p "$H/dir" && echo "RUNNER_TOKEN_abc123" >"$H/token" && cp "$H/token" "$H/dir/keep" &&
        "$GC" list >/dev/null
}
# untouched: the runner's files are as fresh made them, and nothing was added
untouched() {
    [ "$(cat "$H/token")" = RUNNER_TOKEN_abc123 ] && [ "$(cat "$H/dir/keep")" = RUNNER_TOKEN_abc123 ] &&
        [ "$(ls -A "$H" | tr '\n' ' ')" = "dir token " ] && [ "$(ls -A "$H/dir")" = keep ] &&
        ! grep -q RUNNER_TOKEN "$T/got" "$T/goterr" ||
        { echo "the runner's files changed or shown:"; ls -laR "$H"; cat "$T/got" "$T/goterr"; return 1; }
}

t_course_id() {
    fresh && rm "$T/ws/.course-id" && ln -s ../home/token "$T/ws/.course-id" &&
        code_is 65 "$GC" grade ex01 && untouched
}
check ".course-id linked to the runner's token: a setup error (65) that does not show it" t_course_id

t_progress() {
    fresh && rm -f "$T/ws/progress.yaml" && ln -s ../home/token "$T/ws/progress.yaml" &&
        code_is 65 "$GC" grade ex01 && has_err "outside its workspace" && untouched
}
check "progress.yaml linked to the runner's file: a setup error (65), the file neither read, moved aside nor written" t_progress

t_build_dir() {
    fresh && rm -rf "$T/ws/.build" && ln -s ../home/dir "$T/ws/.build" &&
        code_is 65 "$GC" grade ex01 && has_err "outside the workspace" && untouched
}
check ".build linked to the runner's directory: a setup error (65), nothing built there" t_build_dir

t_exercises_dir() {
    fresh && mv "$T/ws/exercises" "$T/ws/mine" && ln -s ../home/dir "$T/ws/exercises" &&
        code_is 65 "$GC" grade ex01 && has_err "outside the workspace" && untouched
}
check "exercises/ linked to the runner's directory: a setup error (65), no stub written there" t_exercises_dir

# inside .build: the compile's temporary directory, the library's temporary file (named after the
# process: a shell that execs gpucourse knows it) and its lock, each a link to the runner's files
t_build_inside() {
    fresh && mkdir -p "$T/ws/.build" && ln -s ../../home/dir "$T/ws/.build/tmp" &&
        ln -s ../../home/token "$T/ws/.build/student-ex01.so.lock" &&
        echo 'int broken' >>"$(ls "$T/ws/exercises/"ex01_*.cu)" &&
        code_is 3 sh -c 'ln -s ../../home/token "$GPUCOURSE_WORKSPACE/.build/student-ex01.so.tmp.$$"; exec "$0" grade ex01' "$GC" &&
        untouched && [ -d "$T/ws/.build/tmp" ] && [ ! -L "$T/ws/.build/tmp" ] || return 1
    cp solutions/ex01_vector_add.cu "$T/ws/exercises/" &&
        code_is 77 sh -c 'ln -s ../../home/token "$GPUCOURSE_WORKSPACE/.build/student-ex01.so.tmp.$$"; exec "$0" grade ex01' "$GC" &&
        untouched && [ -f "$T/ws/.build/student-ex01.so" ]
}
check "links planted in .build (its tmp/, the library's temporary file and lock): graded, the runner's files untouched" t_build_inside

t_file_link() {
    fresh && cp solutions/ex01_vector_add.cu "$H/dir/ex01_vector_add.cu" && rm "$T/ws/exercises/"ex01_*.cu &&
        ln -s ../../home/dir/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu" &&
        code_is 3 "$GC" grade ex01 && has_text "is, through a link, .*outside your workspace" &&
        rm "$H/dir/ex01_vector_add.cu" && untouched
}
check "an exercise file linked out of the repository: a compile error before nvcc (never someone else's file as theirs)" t_file_link

# A course in the checkout (course/course.yaml, its own harness and floors): gpucourse takes the
# course from the current directory when it holds one, and a CI runs it in the checkout
t_own_course() {
    fresh && cp -r course harness solutions "$T/ws/" &&
        (cd "$T/ws" && unset GPUCOURSE_COURSE && code_is 65 "$GC" grade ex01) && has_err "lies in the workspace" &&
        untouched
}
check "a course of the student's in the checkout, found in the current directory: refused (65)" t_own_course

# A judge planted in .build (its harness-KIND) with a stamp beside it made for its bytes: what
# runs as the judge runs unconfined, on the runner's account. Only a record in the grading user's
# own cache marks a build as theirs (grader/libcache.h): the planted one is built over. The
# judges run with CUDA's stub driver under a fake GPU (as in tests/gpus.sh).
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
[ -f "$STUB" ] || STUB=$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so
t_planted_judge() {
    fresh && mkdir -p "$T/cuda" && ln -sf "$STUB" "$T/cuda/libcuda.so.1" && cp solutions/ex01_vector_add.cu "$T/ws/exercises/" &&
        export LD_LIBRARY_PATH="$T/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" GPUCOURSE_FAKE_GPUS=GPU-fake-a GPUCOURSE_LOCK_DIR=$T &&
        unset GPUCOURSE_NO_GPU && code_is 77 "$GC" grade ex01 || return 1
    judge=$T/ws/.build/harness-vector_add
    printf '#!/bin/sh\ntouch "%s/PWNED"\n' "$H" >"$judge" && chmod +x "$judge" &&
        python3 - "$judge" <<'EOF2' || return 1
import sys
# a stamp beside it, where one is (the key kept, the hash of the planted bytes): FNV-1a, as src/util.c's
path = sys.argv[1]
h = 0xcbf29ce484222325
for b in open(path, "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
try:
    key = open(path + ".stamp").read().split()[0]
    open(path + ".stamp", "w").write("%s %016x\n" % (key, h))
except OSError:
    pass
EOF2
    code_is 77 "$GC" grade ex01 && [ ! -e "$H/PWNED" ] && ! grep -q PWNED "$judge" ||
        { echo "the planted judge ran, or was kept"; ls "$H"; return 1; }
}
if [ -f "$STUB" ]; then
    check "a judge planted in .build with a stamp made for it: built over, never run" t_planted_judge
else n=$((n + 1)); echo "ok $n - # SKIP no stub libcuda.so in the toolkit"; fi

echo "1..$n"
