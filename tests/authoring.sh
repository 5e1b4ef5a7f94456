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

awk '/^```sh worked-example$/ { on = 1; next } /^```$/ { on = 0 } on' docs/authoring.md >"$T/example.sh"
t_extracted() { grep -q "gpucourse new course" "$T/example.sh" && grep -q "gpucourse check-course" "$T/example.sh"; }
check "the guide has a worked example to run" t_extracted

t_example() { mkdir "$T/scratch" && (cd "$T/scratch" && sh -ex "$T/example.sh") >"$T/run" 2>&1 ||
                  { cat "$T/run"; return 1; }
              grep -q "^check-course: ok" "$T/run" && grep -q "ex02 scale_rows .* compiles: stub, reference, kind row_scale" "$T/run" ||
                  { cat "$T/run"; return 1; }; }
if [ -n "$QUICK" ]; then skip "the guide's worked example runs and check-course passes" "QUICK: no nvcc"
else check "the guide's worked example runs as written, and check-course passes on it (its own kind built too)" t_example; fi

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
