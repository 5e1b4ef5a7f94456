# Sourced by the shell tests that run build/gpucourse without a GPU
# (tests/cli.sh, tests/edges_*.sh): from the repository's root, GC is the
# binary, T a fresh directory removed on exit, the workspace $T/ws on the
# shipped course with GPUCOURSE_NO_GPU=1, the user's cache (records of
# built libraries, grader/libcache.h) in $T/cache, and the TAP helpers below.
#   . tests/lib.sh NAME        NAME: part of T's name
GC=$PWD/build/gpucourse
T=$(mktemp -d "/tmp/gpucourse-${1:-test}-XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP # dash runs the EXIT trap on exit, not when a signal kills it
export GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_COURSE=$PWD GPUCOURSE_NO_GPU=1 XDG_CACHE_HOME=$T/cache
n=0
# check "name" command...: passes when the command succeeds (TAP line; on a
# failure, the first CHECK_LINES lines of what it printed, default 30)
check() {
    name=$1; shift
    n=$((n + 1))
    if "$@" >"$T/out" 2>&1; then echo "ok $n - $name"; else
        echo "not ok $n - $name"
        sed 's/^/# /' "$T/out" | head -"${CHECK_LINES:-30}"
    fi
}
# code_is WANT command...: the command's exit code is WANT; output in $T/got, $T/goterr
code_is() {
    want=$1; shift
    "$@" >"$T/got" 2>"$T/goterr"
    got=$?
    [ "$got" = "$want" ] || { echo "exit code $got, want $want"; head -c 3000 "$T/got"; head -c 3000 "$T/goterr"; return 1; }
}
# has PATTERN, has_err PATTERN: the last code_is's stdout (stderr) matches PATTERN
has() { grep -q -- "$1" "$T/got" || { echo "missing: $1"; head -c 3000 "$T/got"; head -c 3000 "$T/goterr"; return 1; }; }
has_err() { grep -q -- "$1" "$T/goterr" || { echo "missing on stderr: $1"; head -c 3000 "$T/goterr"; return 1; }; }
# fits_80 [FILE]: every line of FILE (default: the last code_is's stdout) is
# at most 80 columns wide, counted in characters; else prints those that are not
fits_80() {
    perl -CSD -ne 'chomp; if (length > 80) { printf "%s:%d: %d columns: %s\n", $ARGV, $., length, $_; $wide = 1 }
                   END { exit($wide ? 1 : 0) }' "${1:-$T/got}"
}
# joined FILE: FILE with the lines that the command line broke to fit the
# screen (a line that goes on under itself, 4 or more blanks in) joined again
joined() { perl -0pe 's/\n {4,}(?=\S)/ /g' "$1"; }
# has_text PATTERN: as has, in the last code_is's stdout with its broken lines joined
has_text() { joined "$T/got" | grep -q -- "$1" || { echo "missing: $1"; head -c 3000 "$T/got"; head -c 3000 "$T/goterr"; return 1; }; }
