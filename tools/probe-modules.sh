#!/bin/sh
# What an honest grade loads at run time (issue 45), on a GPU: grades the
# reference of each exercise named (default: one of every chapter with
# evidence, and ex43, whose determinism check starts a second runner) in a
# fresh workspace, then takes every module the student's runner recorded
# (WORKSPACE/.build/student-EX.module-N.cubin, written by the judge) and
# says which cubin it is byte-identical to: the student's library, the
# runner, CUPTI or the CUDA runtime (cuobjdump -xelf all of each), or NONE.
# A NONE on an honest grade means the grader's rule (grader/loaded.h) would
# refuse that reference: the line shows the module's size, its hash and the
# kernels it holds (cuobjdump -elf's function symbols), to find out whose it is.
#
#   tools/probe-modules.sh [EX ...]      (from the repository, after make)
#
# Prints one line per module, then each grade's verdict; exits 1 when an
# honest grade loaded a module the rule does not know, or did not pass.
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
[ -x "$GC" ] || { echo "probe-modules: build gpucourse first (make)" >&2; exit 2; }
CUDA=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
CUOBJDUMP=$CUDA/bin/cuobjdump
[ -x "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump) || { echo "probe-modules: no cuobjdump" >&2; exit 2; }
WS=$(mktemp -d /tmp/gpucourse-modules-XXXXXX)
trap 'rm -rf "$WS"' EXIT
export GPUCOURSE_WORKSPACE=$WS GPUCOURSE_COURSE=$PWD
"$GC" list >/dev/null
status=0

# unpack NAME FILE: every cubin of FILE into $WS/cubins/NAME/
unpack() {
    mkdir -p "$WS/cubins/$1" && (cd "$WS/cubins/$1" && "$CUOBJDUMP" -xelf all "$2" >/dev/null 2>&1)
}

for ex in ${*:-ex23 ex26 ex30 ex33 ex42 ex43}; do
    src=$(ls solutions/"$ex"_*.cu 2>/dev/null | head -1)
    [ -n "$src" ] || { echo "$ex: no reference in solutions/"; status=1; continue; }
    cp "$src" "$WS/exercises/"
    "$GC" grade "$ex" --format json >"$WS/$ex.json" 2>"$WS/$ex.err"
    verdict=$(sed -n 's/.*"verdict": *"\([a-z_]*\)".*/\1/p' "$WS/$ex.json" | head -1)
    kind=$(ls "$WS/.build"/runner-* 2>/dev/null | sed 's|.*/runner-||' | grep -v '\.' | head -50)
    rm -rf "$WS/cubins"
    unpack student "$WS/.build/student-$ex.so"
    for k in $kind; do unpack "runner-$k" "$WS/.build/runner-$k"; done
    for lib in "$CUDA"/lib64/libcupti.so "$CUDA"/extras/CUPTI/lib64/libcupti.so "$CUDA"/lib64/libcudart.so; do
        [ -f "$lib" ] && unpack "$(basename "$lib")" "$(readlink -f "$lib")"
    done
    found=0
    for m in "$WS/.build/student-$ex".module-*.cubin; do
        [ -f "$m" ] || continue
        found=$((found + 1))
        match=NONE
        for c in "$WS"/cubins/*/*.cubin; do
            if cmp -s "$m" "$c"; then match=$(basename "$(dirname "$c")")/$(basename "$c"); break; fi
        done
        kernels=$("$CUOBJDUMP" -elf "$m" 2>/dev/null | sed -n 's/.*STT_FUNC.* \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' |
            head -5 | tr '\n' ' ')
        echo "$ex $(basename "$m") $(wc -c <"$m") bytes $(sha256sum "$m" | cut -c1-16) = $match  [$kernels]"
        [ "$match" = NONE ] && status=1
    done
    echo "$ex: verdict $verdict, $found modules recorded$( [ "$found" = 0 ] && echo ' (none: was the runner asked for counters?)')"
    grep -o '"reason": *"[^"]*"' "$WS/$ex.json" | head -1 | sed 's/^/  /'
    [ "$verdict" = pass ] || status=1
    rm -f "$WS/.build/student-$ex".module-*.cubin
done
exit $status
