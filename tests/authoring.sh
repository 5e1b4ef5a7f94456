#!/bin/sh
# The guide cannot go stale: docs/authoring.md's worked example runs as
# written (its `sh worked-example` blocks, in order, in an empty directory:
# a course of its own, made with gpucourse new, with a kind of its own), then
# check-course passes on it; and every YAML key src/course.c accepts is in
# the guide's table. Prints TAP. QUICK=1 skips what compiles with nvcc.
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
T=$(mktemp -d /tmp/gpucourse-authoring-XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_NO_GPU=1 PATH="$ROOT/build:$PATH"
unset GPUCOURSE_COURSE
n=0
check() { # check "name" command...: passes when the command succeeds
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; sed 's/^/# /' "$T/out" | tail -40; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# Both variants: a course of its own (every block), and this repository's
# course (all but the new-course blocks).
awk '/^```sh worked-example( new-course)?$/ { on = 1; next } /^```$/ { on = 0 } on' docs/authoring.md >"$T/example.sh"
awk '/^```sh worked-example$/ { on = 1; next } /^```$/ { on = 0 } on' docs/authoring.md >"$T/example-repo.sh"
t_extracted() { grep -q "gpucourse new course" "$T/example.sh" && grep -q "gpucourse check-course" "$T/example.sh" &&
                ! grep -q "gpucourse new course" "$T/example-repo.sh" && grep -q "gpucourse check-course" "$T/example-repo.sh"; }
check "the guide has a worked example to run, in both variants" t_extracted

t_example() { mkdir "$T/scratch" && (cd "$T/scratch" && sh -ex "$T/example.sh") >"$T/run" 2>&1 ||
                  { cat "$T/run"; return 1; }
              grep -q "^check-course: ok" "$T/run" && grep -q "ex02 scale_rows .* compiles: stub, reference, kind row_scale" "$T/run" ||
                  { cat "$T/run"; return 1; }; }
if [ -n "$QUICK" ]; then skip "the guide's worked example runs and check-course passes" "QUICK: no nvcc"
else check "the guide's worked example runs as written, and check-course passes on it (its own kind built too)" t_example; fi

# "In this repository": the same blocks in a scratch copy of the repository's
# course, cut to its first chapter (check-course compiles all it has; the
# whole course is tests/cli.sh's), so the new chapter is 02-basics and its
# exercises ex05 and ex06: paths the guide must not spell as 01 and ex01.
# What the recipe made is exactly the chapter, its four files and the kind,
# nothing stray beside them (no solutions/ex01_add.cu, no chapter.yaml.new).
t_example_repo() {
    R=$T/repo && mkdir "$R" && (cd "$ROOT" && git ls-files -z course exercises solutions harness | xargs -0 cp --parents -t "$R") &&
    first=$(awk '/^  - / { print $2; exit }' "$R/course/course.yaml") &&
    sed -i "/^  - /{/ $first\$/!d}" "$R/course/course.yaml" && [ "$first" = 01-threads ] &&
    (cd "$R" && find . -type f | sort >"$T/before") &&
    (cd "$R" && GPUCOURSE_WORKSPACE=$T/ws-repo sh -ex "$T/example-repo.sh") >"$T/run" 2>&1 || { cat "$T/run"; return 1; }
    (cd "$R" && find . -type f | sort >"$T/after")
    comm -13 "$T/before" "$T/after" >"$T/made"
    printf '%s\n' ./course/02-basics/chapter.yaml ./course/02-basics/lesson.md ./exercises/ex05_add.cu \
        ./exercises/ex06_scale_rows.cu ./harness/kinds/row_scale.cu ./solutions/ex05_add.cu ./solutions/ex06_scale_rows.cu |
        sort >"$T/want"
    cmp -s "$T/made" "$T/want" || { echo "made, against what the recipe makes:"; diff "$T/want" "$T/made"; return 1; }
    grep -q "^check-course: ok" "$T/run" && grep -q "ex06 scale_rows .*compiles: .*kind row_scale" "$T/run" ||
        { cat "$T/run"; return 1; }; }
if [ -n "$QUICK" ]; then skip "the guide's worked example in this repository" "QUICK: no nvcc"
else check "the guide's worked example \"in this repository\" (a scratch copy): its paths, nothing stray, check-course passes" t_example_repo; fi

# The course it made: outside this repository, found with --course from anywhere.
C=$T/scratch/my-course
t_json() { [ -d "$C" ] || return 1
           (cd / && gpucourse --course "$C" check-course --format json) >"$T/json" || { cat "$T/json"; return 1; }
           python3 -c "
import json; d = json.load(open('$T/json'))
assert d['ok'] and d['exit_code'] == 0 and d['problems'] == [], d
assert [(r['id'], r['kind'], r['compiles']) for r in d['results']] == [('ex01', 'vector_add', True), ('ex02', 'row_scale', True)], d
assert d['gpu']['checked'] is False and d['gpu']['why_not'], d"; }
if [ -n "$QUICK" ]; then skip "check-course --format json on a course of its own" "QUICK: no nvcc"
else check "check-course --course DIR --format json on that course: ok, both kinds built" t_json; fi
t_calibrate() { [ -d "$C" ] || return 1
                gpucourse --course "$C" check-course --calibrate ex02 >"$T/cal"; rc=$?
                [ $rc = 77 ] && grep -q "needs a GPU" "$T/cal" || { echo "exit $rc"; cat "$T/cal"; return 1; }; }
if [ -n "$QUICK" ]; then skip "check-course --calibrate without a GPU" "QUICK"
else check "check-course --calibrate without a GPU: says so, exit 77" t_calibrate; fi

# check-course's build errors, each once, at the file's path in the course:
# a reference that does not compile (not again as "cannot build the
# reference solution"), and a kind of the course's own (harness/kinds/, not
# nvcc's kinds/).
t_build_errors() { [ -d "$C" ] || return 1
    cp -r "$C" "$T/broken" && cd "$T/broken" &&
    sed -i 's/if (i < (size_t)n)/if (i < (size_t)n) zz/' solutions/ex01_add.cu &&
    sed -i 's/return (size_t)d.d\[0\]; }/return (size_t)d.d[0] + nope; }/' harness/kinds/row_scale.cu &&
    grep -q nope harness/kinds/row_scale.cu && { gpucourse check-course >"$T/out" 2>&1; rc=$?; cd "$ROOT"; } &&
    [ $rc = 65 ] && [ "$(grep -c 'identifier "zz" is undefined' "$T/out")" = 1 ] &&
    ! grep -q "cannot build the reference solution" "$T/out" &&
    grep -q '^harness/kinds/row_scale.cu(6): error: identifier "nope" is undefined' "$T/out" &&
    ! grep -q "^kinds/" "$T/out" || { echo "exit $rc"; cat "$T/out"; return 1; }; }
if [ -n "$QUICK" ]; then skip "check-course's build errors" "QUICK: no nvcc"
else check "check-course: a reference that does not compile said once; a course's kind at harness/kinds/KIND.cu(LINE)" t_build_errors; fi

# One workspace per course: two courses whose exercise ex01 has the same file
# name (ex01_add.cu), with no --workspace, never see each other's file or
# progress; a workspace named for the wrong course is refused; and the
# course that comes with gpucourse keeps ~/gpucourse as it was (a workspace
# from before .course-id, with its progress, opened as it is).
t_two_courses() ( H=$T/home && mkdir -p "$T/two" "$H" && cd "$T/two" &&
    for c in one two; do
        HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse new course $c >/dev/null &&
        HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse --course $c new chapter basics >/dev/null &&
        HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse --course $c new exercise basics add --kind vector_add >/dev/null || return 1
    done
    gc() { HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse "$@"; }
    gc --course one hint ex01 >/dev/null 2>"$T/err" && grep -q "course 'one': a new workspace, $H/gpucourse/courses/one" "$T/err" &&
    echo "// one's student was here" >>"$H/gpucourse/courses/one/exercises/ex01_add.cu" &&
    gc --course one progress >"$T/p1" && grep -q "^ex01  add .* 1/1 " "$T/p1" &&
    gc --course two progress >"$T/p2" 2>/dev/null && grep -q "^ex01  add .* 0/1 " "$T/p2" &&
    grep -q "one's student" "$H/gpucourse/courses/one/exercises/ex01_add.cu" &&
    ! grep -q "one's student" "$H/gpucourse/courses/two/exercises/ex01_add.cu" &&
    [ ! -e "$H/gpucourse/exercises" ] && [ ! -e "$H/gpucourse/progress.yaml" ] ||
        { cat "$T/err" "$T/p1" "$T/p2"; return 1; }
    # the other's workspace, named: refused, nothing written to it
    cp "$H/gpucourse/courses/one/progress.yaml" "$T/before"
    GPUCOURSE_WORKSPACE=$H/gpucourse/courses/one HOME=$H gpucourse --course two hint ex01 >"$T/out" 2>&1; rc=$?
    [ $rc = 65 ] && grep -q "the workspace '$H/gpucourse/courses/one' holds course 'one' (its .course-id), not 'two'" "$T/out" &&
        cmp -s "$T/before" "$H/gpucourse/courses/one/progress.yaml" || { echo "exit $rc"; cat "$T/out"; return 1; }
    # this repository's course: ~/gpucourse, also one made before .course-id
    mkdir -p "$H/gpucourse/exercises" && echo "mine" >"$H/gpucourse/exercises/ex01_vector_add.cu" &&
    printf 'version: 1\nexercises:\n  ex01: {hints_seen: 1}\n' >"$H/gpucourse/progress.yaml" &&
    HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse --course "$ROOT" progress >"$T/p3" 2>"$T/err" &&
    grep -q "^ex01  vector_add .* 1/" "$T/p3" && [ "$(cat "$H/gpucourse/exercises/ex01_vector_add.cu")" = mine ] &&
    [ "$(cat "$H/gpucourse/.course-id")" = gpucourse ] && [ ! -s "$T/err" ] || { cat "$T/p3" "$T/err"; return 1; }; )
check "two courses, the same file name: a workspace each (~/gpucourse/courses/ID), progress never shared; ~/gpucourse kept" t_two_courses

# A new course's id is made from its directory's name, and names its
# workspace: the bundled course's id (gpucourse) is refused, and so is an id
# whose workspace another course holds (~/gpucourse/courses/ID/.course-id);
# nothing is made. Another name goes.
t_taken_ids() ( H=$T/home-ids && mkdir -p "$T/ids/a" "$T/ids/b" "$H" && cd "$T/ids/a" &&
    gc() { HOME=$H env -u GPUCOURSE_WORKSPACE gpucourse "$@"; }
    gc new course gpucourse >"$T/out" 2>&1; rc=$?
    [ $rc = 64 ] && grep -q "'gpucourse' is the id of the course that comes with gpucourse" "$T/out" &&
        [ ! -e gpucourse ] || { echo "exit $rc"; cat "$T/out"; return 1; }
    gc new course one >/dev/null && gc --course one new chapter basics >/dev/null &&
        gc --course one new exercise basics add --kind vector_add >/dev/null && gc --course one list >/dev/null 2>&1 &&
        [ "$(cat "$H/gpucourse/courses/one/.course-id")" = one ] || return 1
    cd "$T/ids/b" && gc new course one >"$T/out" 2>&1; rc=$?
    [ $rc = 64 ] && grep -q "a course with the id 'one' has its workspace at $H/gpucourse/courses/one already" "$T/out" &&
        [ ! -e one ] || { echo "exit $rc"; cat "$T/out"; return 1; }
    gc new course two >/dev/null && [ -f two/course/course.yaml ]; )
check "new course: the bundled course's id, or one whose workspace another course holds, refused (64), nothing made" t_taken_ids

# Every key the loader accepts (the keys[] lists of src/course.c) has a row
# in the guide's table: `key`, or `parent.key` for the nested ones.
t_keys() { python3 - "$ROOT/src/course.c" "$ROOT/docs/authoring.md" <<'PY'
import re, sys
src, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lists = re.findall(r'static const char \*const \w*keys\[\] = \{(.*?)\};', src, re.S)
keys = {k for l in lists for k in re.findall(r'"([a-z_]+)"', l)}
assert len(lists) >= 6 and len(keys) >= 20, (len(lists), keys)
rows = [l for l in doc.splitlines() if l.startswith('| `')]
missing = sorted(k for k in keys if not any(re.match(r'\| `(\w+\.)?%s`' % k, r) for r in rows))
assert not missing, 'not in docs/authoring.md\'s key table: %s' % ', '.join(missing)
PY
}
check "every YAML key src/course.c accepts has a row in docs/authoring.md" t_keys

echo "1..$n"
