#!/bin/sh
# The command line at its edges, without a GPU: a JSON or JUnit document on
# stdout whatever went wrong (CI parses it), numbers parsed strictly, help and
# suggestions for what was mistyped, several exercises in one grade, counts
# in the singular, progress columns that line up. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh edges-cli

# --- item 8: a document on stdout for setup and usage errors ----------------
# json_error CODE [KEYS]: stdout is one JSON object with the top-level keys of
# a normal result (grade's by default) and an error member saying CODE.
json_error() {
    python3 - "$T/got" "$1" "${2:-gpucourse passed failed skipped results}" <<'EOF' || { cat "$T/got" "$T/goterr"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
code = int(sys.argv[2])
for key in sys.argv[3].split():
    assert key in d, "no %r in %s" % (key, sorted(d))
e = d["error"]
assert e["exit_code"] == code, e
assert e["kind"] == {64: "usage", 65: "setup"}[code], e
assert e["message"], e
EOF
}
# junit_error CODE: stdout is a JUnit test suite with one errored test case
junit_error() {
    python3 - "$T/got" "$1" <<'EOF' || { cat "$T/got" "$T/goterr"; return 1; }
import sys, xml.etree.ElementTree as E
suite = E.parse(sys.argv[1]).getroot()
assert suite.tag == "testsuite", suite.tag
assert suite.get("tests") == "1" and suite.get("errors") == "1" and suite.get("failures") == "0", suite.attrib
cases = suite.findall("testcase")
assert len(cases) == 1, cases
err = cases[0].find("error")
assert err is not None and err.get("message"), E.tostring(suite)
assert err.get("type") == {"64": "usage_error", "65": "setup_error"}[sys.argv[2]], err.attrib
EOF
}
# documents CODE args...: the same error as JSON and as JUnit, with CODE
documents() {
    want=$1; shift
    code_is "$want" "$GC" "$@" --format json && json_error "$want" &&
        code_is "$want" "$GC" "$@" --format junit && junit_error "$want"
}

t_doc_bad_course() { documents 65 --course "$T/nowhere" grade ex01 && has_err "no course in"; }
check "--format json|junit, a bad --course: a document with the error, exit 65" t_doc_bad_course
mkdir -p "$T/bad/course/01-x" && cp -R harness exercises solutions "$T/bad/"
printf 'title: Bad\nchapters:\n  - 01-x\n' >"$T/bad/course/course.yaml"
printf 'title: X\nlesson: lesson.md\nexercises:\n  - id: ex01\n    name: add\n    titel: typo\n' >"$T/bad/course/01-x/chapter.yaml"
t_doc_course_problems() { documents 65 --course "$T/bad" grade ex01 &&
                          code_is 65 "$GC" --course "$T/bad" grade ex01 --format json &&
                          python3 -c "import json; e=json.load(open('$T/got'))['error']; assert any(':6:5: unknown key' in p for p in e['details']), e"; }
check "--format json|junit, a course with problems: a document with them (file:line:col), exit 65" t_doc_course_problems
touch "$T/a-file"
t_doc_workspace_file() { documents 65 --workspace "$T/a-file" grade ex01; }
check "--format json|junit, a workspace that is a file: a document with the error, exit 65" t_doc_workspace_file
mkdir -p "$T/newer" && printf 'version: 99\nexercises: {}\n' >"$T/newer/progress.yaml"
t_doc_newer_progress() { documents 65 --workspace "$T/newer" grade ex01 &&
                         code_is 65 "$GC" --workspace "$T/newer" grade ex01 --format json &&
                         python3 -c "import json; m=json.load(open('$T/got'))['error']['message']; assert 'newer than this gpucourse' in m, m"; }
check "--format json|junit, a progress file of a newer version: a document with the error, exit 65" t_doc_newer_progress
t_doc_no_exercise() { documents 64 grade ex99 &&
                      code_is 64 "$GC" grade ex99 --format json &&
                      python3 -c "import json; d=json.load(open('$T/got')); assert d['results'] == [] and 'ex99' in d['error']['message'], d"; }
check "--format json|junit, grade ex99: a document with the error, exit 64" t_doc_no_exercise
t_doc_why() { documents 64 why ex99; }
check "--format json|junit, why ex99: a document with the error, exit 64" t_doc_why
t_doc_option() { code_is 64 "$GC" grade ex01 --seed 5x --format json && json_error 64 &&
                 code_is 64 "$GC" grade ex01 --format junit --seed 5x && junit_error 64 && has_err "^gpucourse: --seed"; }
check "--format json|junit after a bad option value (either order): a document, exit 64" t_doc_option
t_doc_typo_command() { documents 64 grde ex01; }
check "--format json|junit, a mistyped command: a document, exit 64" t_doc_typo_command
CC_KEYS="course ok exit_code chapters exercises problems gpu results"
t_doc_check_no_nvcc() { GPUCOURSE_NVCC=/nonexistent/nvcc code_is 65 "$GC" check-course --format json &&
                        json_error 65 "$CC_KEYS" &&
                        python3 -c "import json; d=json.load(open('$T/got')); assert d['ok'] is False and d['exit_code'] == 65, d"; }
check "check-course --format json without nvcc: its document with the error, exit 65" t_doc_check_no_nvcc
t_doc_check_no_course() { code_is 65 "$GC" --course "$T/nowhere" check-course --format json && json_error 65 "$CC_KEYS"; }
check "check-course --format json without a course: its document with the error, exit 65" t_doc_check_no_course
t_doc_check_junit() { code_is 64 "$GC" check-course --format junit && junit_error 64; }
check "check-course --format junit (not written by it): a JUnit document with the usage error, exit 64" t_doc_check_junit
t_doc_calibrate() { code_is 64 "$GC" check-course --calibrate ex99 --format json &&
                    json_error 64 "calibration ok exit_code"; }
check "check-course --calibrate --format json, an unknown exercise: its document with the error, exit 64" t_doc_calibrate
t_doc_normal_has_error_null() { code_is 77 "$GC" grade ex01 --format json &&
                                python3 -c "import json; d=json.load(open('$T/got')); assert d['error'] is None, d"; }
check "a normal grade document has \"error\": null (one shape for CI)" t_doc_normal_has_error_null
t_text_no_document() { code_is 64 "$GC" grade ex99 && [ ! -s "$T/got" ]; }
check "text: errors stay on stderr, stdout empty" t_text_no_document

# --- item 10: numbers parsed strictly ----------------------------------------
# bad_numbers OPTION RANGE args...: each odd value of OPTION is a usage error
# whose message names RANGE, before anything runs
bad_numbers() {
    opt=$1 range=$2; shift 2
    for v in 99999999999999999999999 18446744073709551616 -1 +5 ' 5' '5 ' 5x 0x10 '' 1e3 ; do
        code_is 64 "$GC" "$@" "$opt" "$v" && has_err "^gpucourse: .*'$v'" && has_err "$range" ||
            { echo "for $opt '$v'"; return 1; }
    done
}
t_seed_strict() { bad_numbers --seed "seeds are 1 to 18446744073709551615" grade ex01 &&
                  code_is 64 "$GC" grade ex01 --seed 0 && has_err "seeds are 1 to"; }
check "--seed: overflow, a sign, blanks, junk, 0: usage error naming 1 to 2^64-1" t_seed_strict
t_seed_max() { code_is 77 "$GC" grade ex01 --seed 18446744073709551615 --format json &&
               python3 -c "import json; assert json.load(open('$T/got'))['results'][0]['seed'] == 18446744073709551615"; }
check "--seed 18446744073709551615 (2^64-1) is a seed" t_seed_max
t_timeout_strict() { bad_numbers --timeout "(1 to 3600)" grade ex01 &&
                     code_is 64 "$GC" grade ex01 --timeout 3601 && has_err "(1 to 3600)"; }
check "--timeout: strict, 1 to 3600" t_timeout_strict
t_runs_strict() { bad_numbers --runs "(1 to 100)" check-course --calibrate &&
                  code_is 64 "$GC" check-course --calibrate --runs 101 && has_err "(1 to 100)"; }
check "--runs: strict, 1 to 100" t_runs_strict
t_task_strict() { printf 'alice %s\n' "$T/ws" >"$T/roster.txt" &&
                  bad_numbers --task "(0 to 1000000)" class grade "$T/roster.txt" ex01 --out "$T/grades" &&
                  code_is 64 "$GC" class grade "$T/roster.txt" ex01 --out "$T/grades" --task 1 &&
                  has_err "the roster has one student: 0"; }
check "--task: strict, 0 to 1000000, then the roster's range" t_task_strict
t_chapter_strict() { bad_numbers --chapter "chapters are 1 to 11" grade &&
                     code_is 64 "$GC" grade --chapter 4294967297 && has_err "no chapter '4294967297': chapters are 1 to 11" &&
                     ! grep -q "ex01" "$T/got" && code_is 64 "$GC" grade --chapter 0 && has_err "chapters are 1 to 11" &&
                     code_is 64 "$GC" check-course --calibrate --chapter 12 && has_err "chapters are 1 to 11" &&
                     code_is 64 "$GC" bench --chapter 2x && has_err "chapters are 1 to 11"; }
check "--chapter 4294967297 grades nothing: usage error naming chapters 1 to 11 (grade, calibrate, bench)" t_chapter_strict

# --- item 17: help, suggestions, several exercises, refusals -----------------
t_help_command() { code_is 0 "$GC" help && has "^usage: gpucourse" && has "77 no GPU (skipped)"; }
check "gpucourse help: the help, exit 0" t_help_command
t_suggest_prefix() { code_is 64 "$GC" show sgem &&
                     for i in 34 35 36 37 38 39 40 41 42; do has_err "ex$i (sgemm_" || return 1; done &&
                     ! grep -q "ex33" "$T/goterr"; }
check "show sgem: the nine sgemm_* exercises" t_suggest_prefix
t_suggest_contains() { code_is 64 "$GC" show transpos && has_err "ex15 (naive_transpose)" && has_err "ex21 (swizzled_transpose)" &&
                       code_is 64 "$GC" grade vector_ad && has_err "did you mean ex01 (vector_add)?" &&
                       code_is 64 "$GC" show vetcor_add && has_err "did you mean ex01 (vector_add)?"; }
check "a part of names, a swapped pair of letters: the exercises meant" t_suggest_contains
t_suggest_command() { code_is 64 "$GC" shwo ex01 && has_err "unknown command 'shwo'; did you mean 'show'?" &&
                      code_is 64 "$GC" chek-course && has_err "did you mean 'check-course'?" &&
                      code_is 64 "$GC" frobnicate && ! grep -q "did you mean" "$T/goterr"; }
check "a mistyped command: the nearest command" t_suggest_command
t_chapter_range() { code_is 64 "$GC" grade --chapter 12 && has_err "no chapter '12': chapters are 1 to 11"; }
check "grade --chapter 12: chapters are 1 to 11" t_chapter_range
t_solution_refused() { code_is 75 "$GC" solution ex02 && has_err "the reference solution of ex02 opens once you passed it" &&
                       [ ! -s "$T/got" ] && "$GC" --help | grep -q "75 not now: .*solution before a pass"; }
check "solution before a pass: a refusal with exit 75 (not now), not a usage error" t_solution_refused
t_grade_several() { code_is 77 "$GC" grade ex01 ex02 && has "^SKIPPED ex01" && has "^SKIPPED ex02" &&
                    has "0 passed, 0 failed, 2 skipped" &&
                    code_is 77 "$GC" grade ex01 2 ex1 --format json &&
                    python3 -c "import json; d=json.load(open('$T/got')); assert [r['id'] for r in d['results']] == ['ex01', 'ex02'], d"; }
check "grade ex01 ex02: both graded, one report each, the combined exit code (an exercise named twice once)" t_grade_several
t_grade_same_many() { code_is 77 timeout 60 sh -c 'ulimit -v 2000000; exec "$0" grade $(yes ex01 | head -50000) --format json' "$GC" &&
                      python3 -c "import json; d=json.load(open('$T/got')); assert len(d['results']) == 1, d['results']"; }
check "grade ex01 named 50000 times: graded once (timeout, ulimit -v)" t_grade_same_many
t_grade_several_bad() { code_is 64 "$GC" grade ex01 ex99 && has_err "no exercise 'ex99'" && ! grep -q "ex01" "$T/got" &&
                        code_is 64 "$GC" grade ex01 --all && has_err "exercises, --chapter N or --all"; }
check "grade ex01 ex99: nothing graded, usage error; exercises with --all: usage error" t_grade_several_bad
t_grade_several_exit() { mkdir -p "$T/wsx" && GPUCOURSE_WORKSPACE=$T/wsx "$GC" list >/dev/null &&
                         echo 'this is not CUDA' >>"$T/wsx/exercises/ex02_flip_lr.cu" &&
                         GPUCOURSE_WORKSPACE=$T/wsx code_is 3 "$GC" grade ex01 ex02 && has "^FAIL ex02: compile error"; }
check "grade ex01 ex02 with ex02 broken: exit 3, as --chapter would" t_grade_several_exit
t_empty_paths() { for opt in --workspace --course --out; do
                      code_is 64 "$GC" list "$opt" "" && has_err "$opt takes a directory, not an empty word" ||
                          { echo "for $opt"; return 1; }; done && [ ! -e /exercises ]; }
check "--workspace \"\" (and --course, --out): usage error 64" t_empty_paths

# --- item 18: counts in the singular, progress columns ----------------------
t_singular() { "$GC" new course "$T/one" >/dev/null && "$GC" --course "$T/one" new chapter first >/dev/null &&
               "$GC" --course "$T/one" new exercise first add --kind vector_add >/dev/null &&
               sed -i 's/TODO/Done/' "$T"/one/course/*/chapter.yaml "$T"/one/course/*/lesson.md "$T"/one/exercises/*.cu \
                   "$T"/one/solutions/*.cu &&
               GPUCOURSE_NVCC=/nonexistent/nvcc code_is 65 "$GC" --course "$T/one" check-course &&
               has "^course: 1 chapter, 1 exercise: YAML valid" &&
               GPUCOURSE_WORKSPACE=$T/ws1 code_is 0 "$GC" --course "$T/one" progress && has "^0 of 1 exercise passed" &&
               GPUCOURSE_WORKSPACE=$T/ws1 code_is 64 "$GC" --course "$T/one" grade --chapter 2 &&
               has_err "no chapter '2': the course has one chapter, 1"; }
check "one chapter, one exercise: said in the singular" t_singular
t_singular_class() { mkdir -p "$T/wsc" && GPUCOURSE_WORKSPACE=$T/wsc "$GC" list >/dev/null &&
                     printf 'alice %s\n' "$T/wsc" >"$T/one.txt" && code_is 77 "$GC" class grade "$T/one.txt" ex01 --out "$T/g1" &&
                     has "^1 student, 0 passes of 1 exercise,"; }
check "class grade of one student: 1 student" t_singular_class
t_progress_columns() { code_is 0 "$GC" progress && python3 - "$T/got" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
header = lines[0]
starts = {name: header.index(name) for name in ("name", "status", "attempts", "last verdict")}
rows = [l for l in lines[1:] if l.startswith("ex")]
assert len(rows) > 40, rows
for row in rows:
    words = row.split()
    status = row.index(" " + words[2] + " ") + 1 if words[2] != "not" else row.index(" not started") + 1
    assert status == starts["status"], (row, status, starts)
    assert row[starts["status"] - 2:starts["status"]] == "  " and row[starts["last verdict"] - 1] == " ", row
    assert row.rstrip().endswith(" " + row[starts["last verdict"]:].strip()), row
    # the attempts column ends where its header ends
    end = starts["attempts"] + len("attempts")
    assert row[end - 1].isdigit() and row[end] == " ", (row, end)
EOF
}
check "progress: columns line up (sgemm_double_buffer is longer than 18), two spaces after the longest name" t_progress_columns

# the waits' settings: a number of seconds, or a setup error that names the setting (not a silent default)
t_wait_settings() {
    for v in abc 1e999 -5 0 '10 s' 100000; do
        for var in GPUCOURSE_GPU_WAIT GPUCOURSE_LAUNCH_WAIT; do
            env "$var=$v" "$GC" grade ex01 >"$T/got" 2>&1; rc=$?
            [ $rc = 65 ] && joined "$T/got" | grep -qF "$var='$v' is not a number of seconds" ||
                { echo "$var='$v': exit $rc"; cat "$T/got"; return 1; }
        done
    done
    GPUCOURSE_GPU_WAIT=2.5 GPUCOURSE_LAUNCH_WAIT=30 "$GC" grade ex01 >"$T/got" 2>&1; rc=$?
    [ $rc = 77 ] || { echo "good values: exit $rc"; cat "$T/got"; return 1; }
}
check "GPUCOURSE_GPU_WAIT and GPUCOURSE_LAUNCH_WAIT: junk, overflow, 0 and negatives are setup errors naming them" t_wait_settings

# tools/clock-report.py on a call log the judge wrote on an H100
# (GPUCOURSE_CALL_LOG): it redoes the clock rule (harness/rules.c) and must
# land on the ratio that grading reported (0.980995), with 13 of the
# student's 21 samples judged by the wall clock.
t_clock_report() {
    python3 tools/clock-report.py tests/data/calls_ex01.log > "$T/got" 2>&1 || { cat "$T/got"; return 1; }
    grep -q '| 268435456 | 555 (31) | 573/639 | 521/548 | 503 | 13/1 of 21 | 0.9810 |' "$T/got" || { cat "$T/got"; return 1; }
    python3 tools/clock-report.py > "$T/got" 2>&1 && { echo "no log: exit 0"; return 1; }
    grep -q "Usage" "$T/got" || { cat "$T/got"; return 1; }
}
check "tools/clock-report.py: a recorded call log gives the judge's own ratio and clock counts" t_clock_report

# show, hint, grade and why with no exercise act on the current one (the
# first not passed), as rustlings' hint does; reset and solution still need
# one named (the newcomer audit, 2026-11-28)
t_current_exercise() (
    export GPUCOURSE_WORKSPACE="$T/current" &&
        code_is 0 "$GC" hint && has "Hint 1 of" && has_err "ex01, the first exercise not passed yet" &&
        code_is 0 "$GC" show && has "^ex01 vector_add" &&
        GPUCOURSE_NO_GPU=1 code_is 77 "$GC" grade && has "SKIPPED ex01" &&
        GPUCOURSE_NO_GPU=1 code_is 77 "$GC" why && has_err "ex01, the first exercise not passed yet" &&
        code_is 64 "$GC" reset && has_err "'reset' needs an exercise, like ex01" &&
        code_is 64 "$GC" solution && code_is 64 "$GC" hint ex01 ex02 && has_err "too many arguments"
)
check "show, hint, grade and why with no exercise: the first not passed (ex01); reset and solution need one (64)" t_current_exercise
t_other_courses_words() { code_is 64 "$GC" run && has_err "here it is 'grade'" && code_is 64 "$GC" verify &&
                         has_err "'grade'" && code_is 64 "$GC" next && has_err "here it is 'show'" &&
                         code_is 64 "$GC" status && has_err "here it is 'progress'" && code_is 64 "$GC" frobnicate &&
                         ! has_err "here it is" >/dev/null; }
check "rustlings' run, verify, next and status: usage error 64 naming the command that does it here" t_other_courses_words

# progress and doctor as JSON (what a CI wants; README.md, "progress and
# doctor as JSON"), the commands that print text refuse it (the newcomer audit 2.3)
t_progress_json() (
    export GPUCOURSE_WORKSPACE="$T/pj" &&
        code_is 0 "$GC" hint ex02 && code_is 77 "$GC" grade ex01 && code_is 0 "$GC" progress --format json &&
        python3 - "$T/got" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"course", "progress_file", "exercises", "passed", "total", "error"}, d.keys()
assert d["error"] is None and d["passed"] == 0 and d["total"] == len(d["exercises"]) > 40, d
one, two = d["exercises"][0], d["exercises"][1]
assert set(one) == {"id", "name", "chapter", "status", "attempts", "hints_seen", "hints", "best_vs_reference",
                    "last_verdict"}, one
# a skipped grade (no GPU) is no attempt and records nothing
assert (one["id"], one["name"], one["chapter"], one["status"], one["attempts"], one["last_verdict"]) == \
       ("ex01", "vector_add", 1, "not_started", 0, None), one
assert one["best_vs_reference"] is None and (two["hints_seen"], two["hints"]) == (1, 3), two
PY
)
check "progress --format json: every exercise's status, attempts, hints and last verdict, valid JSON" t_progress_json
t_doctor_json() {
    "$GC" doctor >/dev/null 2>&1; text=$?
    "$GC" doctor --format json >"$T/got" 2>"$T/goterr"; json=$?
    [ "$json" = "$text" ] || { echo "exit $json, text exit $text"; return 1; }
    python3 - "$T/got" "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == int(sys.argv[2]) and d["ok"] == (d["exit_code"] == 0) and d["error"] is None, d
checks = {c["check"]: c for c in d["checks"]}
assert {"nvcc", "gpu", "sandbox", "course"} <= set(checks), checks.keys()
for c in d["checks"]:
    assert set(c) == {"check", "ok", "detail", "fix"} and (c["fix"] is None or not c["ok"]), c
assert checks["gpu"]["ok"] or checks["gpu"]["fix"], checks["gpu"]
PY
}
check "doctor --format json: each check with ok, detail and fix; the text's exit code" t_doctor_json
t_json_errors() {
    code_is 65 "$GC" --course "$T/nowhere" progress --format json &&
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exercises"] == [] and d["error"]["exit_code"] == 65, d' "$T/got" &&
        code_is 64 "$GC" doctor --format json --seed -5 &&
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["checks"] == [] and d["error"]["kind"] == "usage", d' "$T/got" &&
        for cmd in list "show ex01" "hint ex01" "solution ex01"; do
            # shellcheck disable=SC2086
            code_is 64 "$GC" $cmd --format json && has_err "goes with grade, why, check-course, progress and doctor" &&
                [ ! -s "$T/got" ] || { echo "for $cmd"; return 1; }
        done &&
        code_is 64 "$GC" progress --format junit && has_err "progress writes text or json"
}
check "progress and doctor --format json after an error: their document with its error; list, show, hint, solution refuse json (64)" t_json_errors

# show prints the task as text, and lesson prints a chapter's lesson (the
# newcomer audit 2.4): the app's markdown renderer, without its styles
t_show_text() {
    code_is 0 "$GC" show ex02 && has "^\* Use 2D blocks (dim3 block(32, 8)) and a 2D grid" &&
        joined "$T/got" | grep -qF "(its lesson, at \"Two dimensions\": gpucourse lesson ex02)" &&
        ! sed -n '3,/^Your file:/p' "$T/got" | grep -n '`\|\*\*\|^#' || { cat "$T/got"; return 1; }
}
check "show: the task as text (no backticks, ** or #), and the lesson's command" t_show_text
t_lesson() {
    code_is 0 "$GC" lesson ex02 && has "^Chapter 1: The thread hierarchy\$" && has "^Kernels and launches\$" &&
        ! grep -q '^#\|`' "$T/got" && fits_80 &&
        for how in scans 04-scans "--chapter 4" ex11; do
            # shellcheck disable=SC2086
            code_is 0 "$GC" lesson $how && [ "$(head -1 "$T/got")" = "Chapter 4: Prefix scans" ] ||
                { echo "for lesson $how"; return 1; }
        done &&
        (export GPUCOURSE_WORKSPACE="$T/lesson-ws" && code_is 0 "$GC" lesson && has "^Chapter 1: " &&
            has_err "ex01, the first exercise not passed yet") &&
        code_is 64 "$GC" lesson nope && has_err "no exercise 'nope'" &&
        code_is 64 "$GC" lesson --chapter 3 ex01 && has_err "an exercise, a chapter or --chapter N" &&
        code_is 64 "$GC" lesson --chapter 99 && has_err "chapters are 1 to"
}
check "lesson EX, CHAPTER (04-scans, scans), --chapter N, or the current one: the lesson as text; bad ones 64" t_lesson
t_lesson_pager() {
    command -v script >/dev/null || { echo "# SKIP no script(1)"; return 0; }
    PAGER="sed s/^/paged:/" script -qc "'$GC' lesson ex01" /dev/null | tr -d '\r' >"$T/got" &&
        has "^paged:Chapter 1: The thread hierarchy\$" && has "^paged:Kernels and launches" &&
        PAGER=/nonexistent/pager script -qc "'$GC' lesson ex01" /dev/null | tr -d '\r' >"$T/got" &&
        has "the pager '/nonexistent/pager' did not run" && has "^Chapter 1: The thread hierarchy\$"
}
check "lesson on a terminal: through \$PAGER (split at blanks); one that does not run: said, the lesson printed" t_lesson_pager
# with no $PAGER, less opens an exercise's lesson at its section (a less of
# our own on the PATH says what it was asked), a chapter's at the top; show
# names the section
t_lesson_section() {
    command -v script >/dev/null || { echo "# SKIP no script(1)"; return 0; }
    mkdir -p "$T/pager" && printf '#!/bin/sh\nprintf "less:%%s\\n" "$@"\n' >"$T/pager/less" && chmod +x "$T/pager/less" &&
        env -u PAGER PATH="$T/pager:$PATH" script -qc "'$GC' lesson ex03" /dev/null | tr -d '\r' >"$T/got" &&
        has '^less:+/^Grid-stride loops\$$' &&
        env -u PAGER PATH="$T/pager:$PATH" script -qc "'$GC' lesson 01-threads" /dev/null | tr -d '\r' >"$T/got" &&
        ! has '^less:+/' && has '^less:-R$' &&
        code_is 0 "$GC" show ex03 && has 'its lesson, at "Grid-stride loops": gpucourse'
}
check "lesson EX with no \$PAGER: less opens at the exercise's section (a chapter's at the top); show names it" t_lesson_section

# the no-GPU text (the newcomer audit 2.6): grade names doctor as the app's
# card does, why says the reason once, the compile log's paths open anywhere
t_nogpu_text() (
    export GPUCOURSE_WORKSPACE="$T/nogpu" &&
        code_is 77 "$GC" grade ex01 && tr '\n' ' ' <"$T/got" | grep -q "this is not a failure" &&
        tr '\n' ' ' <"$T/got" | grep -q "'gpucourse doctor' says what is missing" &&
        { "$GC" why ex01 >"$T/got" 2>&1; :; } && has "^why ex01: no diagnosis: nothing ran: no GPU" &&
        [ "$(joined "$T/got" | grep -o 'no GPU: ' | wc -l)" = 1 ] || { cat "$T/got"; exit 1; }
)
check "no GPU: grade names 'gpucourse doctor'; why says the reason once" t_nogpu_text
t_log_paths() (
    export GPUCOURSE_WORKSPACE="$T/logpaths" && "$GC" list >/dev/null &&
        echo 'int broken = ;' >>"$T/logpaths/exercises/ex02_flip_lr.cu" &&
        code_is 3 "$GC" grade ex02 && has "| $T/logpaths/exercises/ex02_flip_lr.cu([0-9]*):" &&
        ! grep -q "| exercises/" "$T/got" &&
        code_is 3 "$GC" grade ex02 --format json && has "$T/logpaths/exercises/ex02_flip_lr.cu("
)
check "a compile error's log names the file by its absolute path (text and JSON)" t_log_paths

echo "1..$n"
