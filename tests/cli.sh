#!/bin/sh
# Command-line behaviour of build/gpucourse without a GPU: exit codes, output,
# JSON and JUnit, hints, reset and its backup, progress (also damaged), the
# no-GPU path, compile errors, a missing nvcc, Ctrl-C, and check-course on
# the shipped course and on a broken one. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
T=$(mktemp -d /tmp/gpucourse-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1
n=0
check() { # check "name" command...: passes when the command succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | head -30; fi
}
code_is() { # code_is WANT command...: the command's exit code is WANT; output in $T/got
    want=$1; shift
    "$@" >"$T/got" 2>"$T/goterr"
    got=$?
    [ "$got" = "$want" ] || { echo "exit code $got, want $want"; cat "$T/got" "$T/goterr"; return 1; }
}
has() { grep -q -- "$1" "$T/got" || { echo "missing: $1"; cat "$T/got" "$T/goterr"; return 1; }; }
has_err() { grep -q -- "$1" "$T/goterr" || { echo "missing on stderr: $1"; cat "$T/goterr"; return 1; }; }

check "--help exits 0 and documents the exit codes" sh -c "code_is() { :; }; $GC --help | grep -q '77 no GPU (skipped)'"
check "--version" sh -c "$GC --version | grep -q '^gpucourse [0-9]'"
check "unknown command: usage error 64" sh -c "$GC frobnicate; test \$? = 64"
check "unknown option: usage error 64" sh -c "$GC --bogus list; test \$? = 64"
check "grade without an exercise: usage error 64" sh -c "$GC grade; test \$? = 64"
check "unknown exercise: usage error 64" sh -c "$GC show ex99 2>&1; test \$? = 64"
check "bad --format: usage error 64" sh -c "$GC grade ex01 --format xml; test \$? = 64"

t_list() { code_is 0 "$GC" list && has "Chapter 1: The thread hierarchy" && has "\[ \] ex01  vector_add" && has "Next: ex01"; }
check "list shows chapters, exercises and the next one" t_list
t_workspace() { test -f "$T/ws/exercises/ex01_vector_add.cu" && cmp -s exercises/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu"; }
check "the workspace gets a copy of every stub" t_workspace
t_show() { code_is 0 "$GC" show 3 && has "ex03 saxpy" && has "Your file:  $T/ws/exercises/ex03_saxpy.cu" && has "0 of 3 seen"; }
check "show by number" t_show
t_hint() { code_is 0 "$GC" hint ex01 && has "Hint 1 of" && ! grep -q "Hint 2" "$T/got" &&
           code_is 0 "$GC" hint vector_add && has "Hint 2 of .* (new)" &&
           grep -q "hints_seen: 2" "$T/ws/progress.yaml"; }
check "hint shows one more hint each time and records it" t_hint
t_solution() { code_is 64 "$GC" solution ex01 && has_err "opens once you passed it"; }
check "solution is closed before passing" t_solution

t_nogpu() { code_is 77 "$GC" grade ex01 && has "compile    ok" && has "^SKIPPED ex01: no GPU"; }
check "grade without a GPU compiles, then skips with exit 77" t_nogpu
t_json() { code_is 77 "$GC" grade ex01 --format json && has '"verdict": "skipped"' && has '"skipped": 1' &&
           python3 -c "import json,sys; json.load(open('$T/got'))"; }
check "grade --format json says skipped and is valid JSON" t_json

echo 'this is not CUDA' >>"$T/ws/exercises/ex02_flip_lr.cu"
t_compile() { code_is 3 "$GC" grade ex02 && has "compile    failed" && has "error" && has "^FAIL ex02: compile error"; }
check "a compile error: exit 3 with nvcc's message" t_compile
t_compile_json() { code_is 3 "$GC" grade ex02 --format json && has '"verdict": "compile_error"' &&
                   python3 -c "import json; d=json.load(open('$T/got')); assert 'error' in d['results'][0]['compile_log']"; }
check "a compile error in JSON carries nvcc's log" t_compile_json
t_junit() { code_is 3 "$GC" grade --chapter 1 --format junit && has '<testsuite name="gpucourse" tests="4" failures="1" skipped="3"' &&
            python3 -c "import xml.dom.minidom; xml.dom.minidom.parse('$T/got')"; }
check "grade --chapter 1 --format junit: valid XML, first failure's exit code" t_junit
t_progress() { code_is 0 "$GC" progress && has "ex02  flip_lr            attempted" && has "compile_error" && has "0 of [0-9]* exercises passed"; }
check "progress records the attempts" t_progress

t_reset() { code_is 0 "$GC" reset ex02 && has "Your previous file is kept as" &&
            cmp -s exercises/ex02_flip_lr.cu "$T/ws/exercises/ex02_flip_lr.cu" &&
            grep -q 'this is not CUDA' "$T"/ws/backups/ex02_flip_lr.cu.*; }
check "reset restores the stub and keeps a backup" t_reset

cp "$T/ws/progress.yaml" "$T/progress.good"
printf 'version: 1\nexercises:\n  ex01: {status: [\n' >"$T/ws/progress.yaml"
t_damaged() { code_is 0 "$GC" progress && has_err "warning: progress file was damaged" &&
              ls "$T/ws/" | grep -q '^progress.yaml.damaged-' && has "0 of [0-9]*"; }
check "a damaged progress file is kept aside and reported" t_damaged

t_no_nvcc() { GPUCOURSE_NVCC=/nonexistent/nvcc code_is 65 "$GC" grade ex01 && has "setup error" && has "GPUCOURSE_NVCC"; }
check "a missing nvcc: exit 65 and how to fix it" t_no_nvcc

t_interrupt() {
    "$GC" hint ex05 >/dev/null
    cp "$T/ws/progress.yaml" "$T/before"
    "$GC" grade ex03 >"$T/got" 2>&1 &
    pid=$!
    sleep 0.7
    kill -INT $pid
    wait $pid
    code=$?
    [ $code = 130 ] || { echo "exit $code"; cat "$T/got"; return 1; }
    has "interrupted" && cmp -s "$T/before" "$T/ws/progress.yaml" && ! pgrep -f "ex03_saxpy" >/dev/null
}
check "Ctrl-C during grading: exit 130, no child left, progress untouched" t_interrupt

t_doctor() { code_is 77 "$GC" doctor && has "nvcc" && has "MISSING  gpu" && has "fix:"; }
check "doctor says what is missing and how to fix it" t_doctor

mkdir -p "$T/bad/course/01-x" && cp -R harness exercises solutions "$T/bad/"
printf 'title: Bad\nchapters:\n  - 01-x\n' >"$T/bad/course/course.yaml"
printf 'title: X\nlesson: lesson.md\nexercises:\n  - id: ex01\n    name: add\n    titel: typo\n' >"$T/bad/course/01-x/chapter.yaml"
t_bad_course() { code_is 65 "$GC" --course "$T/bad" check-course &&
                 has "course/01-x/chapter.yaml:2:9: missing file: course/01-x/lesson.md" &&
                 has "course/01-x/chapter.yaml:6:5: unknown key 'titel' in an exercise" &&
                 has "course/01-x/chapter.yaml:4:5: missing key 'title' (in exercise 'ex01')"; }
check "check-course on a broken course: file:line:col messages, exit 65" t_bad_course
t_bad_course_grade() { code_is 65 "$GC" --course "$T/bad" list && has_err "run 'gpucourse check-course'"; }
check "other commands refuse a broken course with exit 65" t_bad_course_grade

t_check_course() { code_is 0 "$GC" check-course && has "YAML valid" && has "ex07 fused_axpy_relu" &&
                   has "GPU checks skipped" && has "check-course: ok"; }
[ -n "$QUICK" ] || check "check-course compiles every stub, reference and harness kind (no GPU)" t_check_course

# make install: the binary finds the course installed beside it, from any directory
t_install() { make -s install PREFIX=/usr DESTDIR="$T/root" >"$T/got" 2>&1 || { cat "$T/got"; return 1; }
              test -x "$T/root/usr/bin/gpucourse" && test -f "$T/root/usr/share/gpucourse/course/course.yaml" &&
              test -f "$T/root/usr/share/gpucourse/harness/main.cu" &&
              (cd / && unset GPUCOURSE_COURSE && code_is 0 "$T/root/usr/bin/gpucourse" list) && has "Chapter 1: The thread hierarchy"; }
check "make install (PREFIX, DESTDIR): the installed binary finds the installed course" t_install

echo "1..$n"
