#!/bin/sh
# Runs test programs that speak TAP (cmocka with CMOCKA_MESSAGE_OUTPUT=TAP,
# and the shell tests) and ends with one line: N passed, N failed, N skipped.
# Each program's wall time follows its output, and a table of them comes
# before the last line, so that where the time goes is plain.
export CMOCKA_MESSAGE_OUTPUT=TAP
pass=0 fail=0 skip=0 broken=0 times=
for t in "$@"; do
    echo "# $t"
    t0=$(date +%s)
    out=$("$t" 2>&1)
    rc=$?
    took=$(($(date +%s) - t0))
    times="$times# $(printf '%5d s  %s' "$took" "$t")
"
    printf '%s\n' "$out"
    echo "# $t: $took s"
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    s=$(printf '%s\n' "$out" | grep -c '^not ok .*# SKIP')
    f=$(printf '%s\n' "$out" | grep '^not ok ' | grep -vc '# SKIP')
    pass=$((pass + p)) skip=$((skip + s)) fail=$((fail + f))
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "# $t exited with $rc without a failing test: counted as a failure"
        broken=$((broken + 1))
    fi
done
fail=$((fail + broken))
echo "# wall time of each:"
printf '%s' "$times"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
