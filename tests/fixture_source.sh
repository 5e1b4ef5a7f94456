#!/bin/sh
# tests/fixture_source.sh FIXTURE OUT: writes the student file that a GPU
# fixture (tests/gpu/) stands for to OUT. A .cu fixture is that file. A
# .patch fixture is a reference solution with a small change: the diff
# against the solution its "--- solutions/..." line names (an earlier
# rung's, for "the previous exercise's answer submitted here"), else
# solutions/EXnn_*.cu, applied without fuzz, so that a fixture follows its
# reference and stops with an error the day the change no longer fits it.
# The first line of either is the fixture's "// expect:" line.
f=$1 out=$2
case $f in
*.cu) exec cp "$f" "$out" ;;
*.patch)
    name=$(basename "$f" .patch)
    sol=$(sed -n 's|^--- \(solutions/[A-Za-z0-9_]*\.cu\)$|\1|p' "$f" | head -1)
    [ -f "$sol" ] || sol=$(ls solutions/"${name%%_*}"_*.cu 2>/dev/null | head -1)
    [ -n "$sol" ] || { echo "$f: no reference solution for ${name%%_*}" >&2; exit 1; }
    command -v patch >/dev/null 2>&1 || { echo "$f: needs the patch command (Debian: apt-get install patch)" >&2; exit 1; }
    rej=$(mktemp)
    patch -s -F 0 -r "$rej" -o "$out" "$sol" <"$f" >&2
    rc=$?
    rm -f "$rej"
    exit $rc
    ;;
*) echo "$f: a fixture is a .cu or a .patch" >&2; exit 1 ;;
esac
