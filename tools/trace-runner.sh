#!/bin/sh
# What the student's runner does once it is confined, under the real driver: the files it
# opens, the sockets, System V and shared memory, the terminal ioctls (the evidence for the
# runner's allow-list in harness/runner.cu and the filter in harness/sandbox.c; docs/harness.md).
#
#   tools/trace-runner.sh prepare   here (nvcc, no GPU): gpucourse, the build cache of ex01 and
#                                   ex26, and strace with its libraries into .probe/ (the GPU
#                                   machine has no strace; Debian 12's runs on Ubuntu 24.04)
#   tools/trace-runner.sh run       on the GPU machine (carry .verify, build, .probe): strace -f of
#                                   `grade ex01`, `grade ex26` (counters) and `why ex01` (the
#                                   sanitizer), each summarised by tools/trace-runner.py into
#                                   $OUT/NAME.txt: what the runner's tasks did after
#                                   landlock_restrict_self
set -u
cd "$(dirname "$0")/.." || exit 1
export GPUCOURSE_COURSE=$PWD XDG_CACHE_HOME=/tmp/xc GPUCOURSE_LOCK_DIR=/tmp GPUCOURSE_WORKSPACE=$PWD/.verify/trace
file_of() { sed -n "/id: $1\$/,/file:/s/^ *file: *//p" course/*/chapter.yaml | head -1; }

prepare() {
    set -e
    . tools/verify-lib.sh
    verify_start .verify
    mkdir -p .probe && { grep -qx "/.probe/" .git/info/exclude || echo "/.probe/" >>.git/info/exclude; }
    cp "$(command -v strace)" .probe/
    for lib in $(ldd "$(command -v strace)" | awk '/=> \// { print $3 }' | grep -v 'libc\.so'); do cp -L "$lib" .probe/; done
    build/gpucourse list >/dev/null
    for ex in ex01 ex26; do cp "solutions/$(file_of $ex)" "$GPUCOURSE_WORKSPACE/exercises/"; done
    prebuild build/gpucourse grade ex01 ex26
}

run() {
    out=${OUT:-.probe/out}
    mkdir -p "$out"
    st="env LD_LIBRARY_PATH=$PWD/.probe $PWD/.probe/strace"
    keep="-E LD_LIBRARY_PATH${LD_LIBRARY_PATH:+=$LD_LIBRARY_PATH}"  # the runner's own, not strace's
    trace="trace=%file,%network,%ipc,%memory,ioctl,landlock_restrict_self,seccomp,prctl,capset,setsid,personality,memfd_create,clone,clone3,fork,vfork,execve"
    for ex in ex01 ex26; do
        $st -f -tt -s 256 $keep -e "$trace" -o "/tmp/$ex.st" build/gpucourse grade $ex >"/tmp/$ex.out" 2>&1
        echo "grade $ex: exit $?"
        python3 tools/trace-runner.py "/tmp/$ex.st" >"$out/$ex.txt"
    done
    sh tests/fixture_source.sh tests/gpu/ex01_wrong_tail.cu "$GPUCOURSE_WORKSPACE/exercises/$(file_of ex01)"
    $st -f -tt -s 256 $keep -e "$trace" -o /tmp/why.st build/gpucourse why ex01 >/tmp/why.out 2>&1
    echo "why ex01: exit $?"
    python3 tools/trace-runner.py /tmp/why.st >"$out/why.txt"
    head -1 "$out"/*.txt
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*) echo "usage: tools/trace-runner.sh prepare | run" >&2; exit 64 ;;
esac
