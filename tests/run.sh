#!/bin/sh
# Runs test programs that speak TAP (cmocka with CMOCKA_MESSAGE_OUTPUT=TAP,
# and the shell tests) and ends with one line: N passed, N failed, N skipped.
export CMOCKA_MESSAGE_OUTPUT=TAP
pass=0 fail=0 skip=0 broken=0
for t in "$@"; do
    echo "# $t"
    out=$("$t" 2>&1)
    rc=$?
    printf '%s\n' "$out"
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
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
