#!/bin/sh
# The GPU fixtures (tests/gpu/) without a GPU (TAP): every one has a
# well-formed "// expect:" line, and every .patch still fits its reference
# solution and the file it makes compiles (graded with GPUCOURSE_NO_GPU=1:
# compiled by gpucourse's own toolchain, then skipped, exit 77; or, where
# the checks of the compiled code alone already fail it, the fixture's own
# "requirement not met" with its text, as on the GPU). So a changed
# reference that leaves its fixtures behind fails here, in CI, not first on
# a GPU.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
T=$(mktemp -d "${TMPDIR:-/tmp}/gpucourse-fixtures-XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1
"$GC" list >/dev/null
n=0
for f in tests/gpu/*.cu tests/gpu/*.patch; do
    n=$((n + 1))
    if ! head -1 "$f" | grep -qE '^// expect: [0-9]+ [a-z_]+( "[^"]*")? -- .'; then
        echo "not ok $n - $f: the first line is not '// expect: CODE VERDICT [\"TEXT\"] -- why'"
        continue
    fi
    case $f in *.cu) echo "ok $n - $f: expect line" && continue ;; esac
    name=$(basename "$f" .patch) ex=${name%%_*}
    target=$(ls "$T/ws/exercises/${ex}_"*.cu 2>/dev/null | head -1)
    if [ -z "$target" ] || ! tests/fixture_source.sh "$f" "$target" 2>"$T/log"; then
        echo "not ok $n - $f: does not apply to its reference solution"
        sed 's/^/# /' "$T/log"
        continue
    fi
    "$GC" grade "$ex" >"$T/log" 2>&1
    code=$?
    # the expected verdict, and its text if it has one
    expect=$(head -1 "$f" | sed -E 's/^\/\/ expect: ([0-9]+ [a-z_]+).*/\1/')
    text=$(head -1 "$f" | sed -nE 's/^\/\/ expect: [0-9]+ [a-z_]+ "([^"]*)".*/\1/p')
    if [ $code = 77 ]; then echo "ok $n - $f: applies to its reference and compiles"
    elif [ $code = 5 ] && [ "$expect" = "5 requirement_not_met" ] && grep -qF -- "$text" "$T/log"; then
        echo "ok $n - $f: applies to its reference, and its compiled code alone is requirement not met ($text)"
    else echo "not ok $n - $f: graded without a GPU, exit $code (77: compiled, not run; 5 only as the fixture expects)"; sed 's/^/# /' "$T/log" | tail -20; fi
done
echo "1..$n"
