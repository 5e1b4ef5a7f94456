#!/bin/sh
# Compiling the student's file when things go wrong around it: a compile
# killed half-way (kill -9, SIGTERM, its timeout) leaves nothing in $TMPDIR
# and its directory goes at the next compile; a huge compiled library is a
# clear compile error, not an abort, under a memory limit; a relative TMPDIR
# or an empty PATH is a setup error (exit 65) that names it; an #include
# from outside the compiler's box is a compile error that names the rule.
# Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh edges-compile

"$GC" list >/dev/null || exit 1
F=$T/ws/exercises/ex06_affine.cu
STAGING=$T/ws/.build/tmp
# in the exercise directory: the only one of the student's that the compiler may read
FIFO=$T/ws/exercises/fifo
mkfifo "$FIFO"
mkdir -p "$T/tmp"
# A compile that stays half-way: the host compiler waits on a FIFO that no
# one writes, with nvcc's first intermediate files already made.
hang_compile() { cp exercises/ex06_affine.cu "$F" && echo "#include \"$FIFO\"" >>"$F"; }
# nvcc is half-way once the host compiler's output (made before it reads the
# FIFO) exists, wherever nvcc puts it; newer than $T/mark: this round's
nvcc_started() { [ -n "$(find "$T/tmp" "$STAGING" -name '*.cpp4.ii' -newer "$T/mark" 2>/dev/null | head -1)" ]; }
# Starts a grade of the hanging file in the background ($pid) and waits
# until nvcc is half-way.
start_hung_grade() {
    touch "$T/mark"
    TMPDIR=$T/tmp "$GC" grade ex06 >"$T/got" 2>&1 &
    pid=$!
    for _ in $(seq 300); do nvcc_started && return 0; sleep 0.1; done
    echo "nvcc never started"; kill -9 $pid; return 1
}
tmp_empty() { [ -z "$(ls -A "$T/tmp")" ] || { echo "left in TMPDIR:"; ls -la "$T/tmp"; return 1; }; }
staging_empty() { [ -z "$(ls -A "$STAGING" 2>/dev/null)" ] || { echo "left in .build/tmp:"; ls -laR "$STAGING"; return 1; }; }

# gpucourse killed with -9 three times in the middle of nvcc: nothing lands
# in TMPDIR; what it left in .build/tmp goes at the next compile (each
# round's compile sweeps the round before).
t_kill9() {
    hang_compile || return 1
    for round in 1 2 3; do
        start_hung_grade || return 1
        kill -9 $pid
        wait $pid 2>/dev/null
    done
    sleep 1 # the guard kills what the compile left running
    tmp_empty || return 1
    [ -n "$(ls -A "$STAGING" 2>/dev/null)" ] || { echo "the killed compile left nothing to sweep: a test that tests nothing"; return 1; }
    cp exercises/ex06_affine.cu "$F" &&
        code_is 77 env TMPDIR="$T/tmp" "$GC" grade ex06 && has "compile    ok" && tmp_empty && staging_empty
}
check "a compile killed with -9 three times: TMPDIR gains nothing, the next compile sweeps its directories" t_kill9

t_term() {
    hang_compile && start_hung_grade || return 1
    kill -TERM $pid
    wait $pid
    code=$?
    [ $code = 130 ] || [ $code = 143 ] || { echo "exit $code"; cat "$T/got"; return 1; }
    tmp_empty && staging_empty
}
check "a compile ended by SIGTERM: nothing left in TMPDIR or .build/tmp" t_term

t_timeout() { hang_compile && code_is 4 env TMPDIR="$T/tmp" timeout 60 "$GC" --timeout 3 grade ex06 &&
              has "the compiler did not finish in 3 s" && tmp_empty && staging_empty; }
check "a compile stopped at --timeout: nothing left in TMPDIR or .build/tmp" t_timeout
cp exercises/ex06_affine.cu "$F"
rm -f "$FIFO"

# A workspace path that nvcc's command lines cannot hold: nvcc's directory
# goes to TMPDIR then, and a stale one there (of a pid that cannot exist) is
# swept too; a link named like one is not followed (TMPDIR may be /tmp, where
# anyone can make one).
t_stale_in_tmpdir() {
    W="$T/odd \$HOME" && stale=gpucourse-nvcc.$(uname -n) && mkdir -p "$T/tmp2/$stale.2147483646.abcdef" "$T/keep" &&
        touch "$T/tmp2/$stale.2147483646.abcdef/tmpxft_00001234_00000000-5_x.cpp4.ii" "$T/keep/precious" &&
        ln -s "$T/keep" "$T/tmp2/$stale.2147483645.ghijkl" || return 1
    code_is 77 env GPUCOURSE_WORKSPACE="$W" TMPDIR="$T/tmp2" "$GC" grade ex01 && has "compile    ok" &&
        [ ! -e "$T/tmp2/$stale.2147483646.abcdef" ] && [ -e "$T/keep/precious" ] &&
        [ -z "$(ls -A "$T/tmp2" | grep -v "^$stale.2147483645.ghijkl\$")" ] || { ls -laR "$T/tmp2" "$T/keep"; return 1; }
}
check "a workspace path nvcc cannot take: nvcc's directory in TMPDIR, a stale one there swept, a link not followed" t_stale_in_tmpdir

# A student library of hundreds of MB: nvcc builds it (8 s here), and
# gpucourse, under a memory limit that reading it whole would break, says
# why it stops instead of aborting.
t_huge_library() {
    W=$T/wsbig && GPUCOURSE_WORKSPACE=$W "$GC" list >/dev/null &&
        cp exercises/ex01_vector_add.cu "$W/exercises/ex01_vector_add.cu" &&
        echo 'char gpucourse_huge[600 << 20] = {1};' >>"$W/exercises/ex01_vector_add.cu" || return 1
    (ulimit -v 900000; code_is 3 env GPUCOURSE_WORKSPACE="$W" timeout 300 "$GC" grade ex01); rc=$?
    left=$(ls "$W/.build"/student-ex01.so* 2>/dev/null)
    rm -rf "$W"
    [ $rc = 0 ] && has "compile error" && has_text "is 600 MiB, and the limit is 128 MiB" &&
        { [ -z "$left" ] || { echo "the library is kept: $left"; return 1; }; }
}
check "a 600 MB student library under ulimit -v: a compile error that names the limit, not an abort" t_huge_library

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
t_relative_tmpdir() { (cd "$T" && mkdir -p rel && code_is 65 env TMPDIR=rel "$GC" grade ex01) &&
                      has "setup error" && has "TMPDIR is 'rel'" && has "absolute"; }
check "a relative TMPDIR: setup error (exit 65) naming TMPDIR" t_relative_tmpdir
t_empty_path() { code_is 65 env PATH= GPUCOURSE_NVCC="$NVCC" "$GC" grade ex01 && has "setup error" && has "PATH is empty"; }
check "an empty PATH: setup error (exit 65) naming PATH" t_empty_path
t_unset_path() { code_is 65 env -u PATH GPUCOURSE_NVCC="$NVCC" "$GC" grade ex01 && has "setup error" && has "PATH is not set"; }
check "no PATH at all: setup error (exit 65) naming PATH" t_unset_path

# An unchanged file is not compiled again (grader/libcache.h): its library
# and compiler output as built before. A change to the file, to the library,
# a cache of its own (a classroom CI's fresh machine) or a local #include
# compiles it again. --trace says which.
reused() { has "compile    ok (unchanged since its last build)" && has_err "your library as built before"; }
compiled() { has "compile    ok ([0-9.]* s)" && has_err "compile your file (nvcc)"; }
t_reuse() {
    cp exercises/ex03_saxpy.cu "$T/ws/exercises/" &&
        code_is 77 "$GC" grade ex03 --trace && compiled &&
        code_is 77 "$GC" grade ex03 --trace && reused || return 1
    echo "// a comment" >>"$T/ws/exercises/ex03_saxpy.cu"
    code_is 77 "$GC" grade ex03 --trace && compiled && code_is 77 "$GC" grade ex03 --trace && reused || return 1
    printf 'junk' >>"$T/ws/.build/student-ex03.so"
    code_is 77 "$GC" grade ex03 --trace && compiled || return 1
    code_is 77 env XDG_CACHE_HOME="$T/cache2" "$GC" grade ex03 --trace && compiled || return 1
    echo 'int shared_value = 1;' >"$T/ws/exercises/mine.h"
    sed -i '1i #include "mine.h"' "$T/ws/exercises/ex03_saxpy.cu"
    code_is 77 "$GC" grade ex03 --trace && compiled && code_is 77 "$GC" grade ex03 --trace && compiled
}
check "an unchanged file is not compiled again; a changed file or library, another cache, a local #include are" t_reuse

# The compiler's box (grader/toolchain.h): nvcc and everything it starts
# read only the toolkit, the system and the student's exercise directory. An
# #include of a key, of a classmate's exercise or of the course's solution
# is a compile error that names the rule, and what the file holds never
# reaches the log; a normal file compiles as before, in the box.
E1=$T/ws/exercises/ex01_vector_add.cu
include_in_ex01() { cp exercises/ex01_vector_add.cu "$E1" && printf '#include "%s"\n' "$1" >>"$E1"; }
refused() { has_text "includes '$1', which the compiler may not read: it reads only the toolkit, the system's headers and your exercise directory"; }
t_include_key() {
    mkdir -p "$T/home/.ssh" && printf 'KEYLINE-fa1c0n-not-for-students\nKEYLINE-2\n' >"$T/home/.ssh/id_rsa" &&
        include_in_ex01 "$T/home/.ssh/id_rsa" && code_is 3 "$GC" grade ex01 && has "compile error" &&
        refused "$T/home/.ssh/id_rsa" && has "Permission denied" || return 1
    code_is 3 "$GC" grade ex01 --format json || return 1
    ! grep -r KEYLINE "$T/got" "$T/goterr" "$T/ws" "$T/cache" || { echo "the key's contents reached the output"; return 1; }
}
check "an #include of a key outside: a compile error naming the rule, the key's contents nowhere" t_include_key
t_include_classmate() {
    GPUCOURSE_WORKSPACE=$T/bob "$GC" list >/dev/null && cp solutions/ex01_vector_add.cu "$T/bob/exercises/" &&
        include_in_ex01 "$T/bob/exercises/ex01_vector_add.cu" && code_is 3 "$GC" grade ex01 &&
        refused "$T/bob/exercises/ex01_vector_add.cu" &&
        include_in_ex01 "$PWD/solutions/ex01_vector_add.cu" && code_is 3 "$GC" grade ex01 &&
        refused "$PWD/solutions/ex01_vector_add.cu" || return 1
    # a link out of the workspace: refused before nvcc, saying where it leads
    rm -f "$E1" && ln -s "$T/bob/exercises/ex01_vector_add.cu" "$E1" && code_is 3 "$GC" grade ex01 &&
        has_text "ex01_vector_add.cu is, through a link, .*outside your workspace" || { rm -f "$E1"; return 1; }
    # a link to elsewhere in the workspace: the compiler's box reads the exercise directory only
    mkdir -p "$T/ws/elsewhere" && cp solutions/ex01_vector_add.cu "$T/ws/elsewhere/" &&
        rm -f "$E1" && ln -s "$T/ws/elsewhere/ex01_vector_add.cu" "$E1" && code_is 3 "$GC" grade ex01 &&
        has_text "ex01_vector_add.cu is a link to a file outside your exercise directory, which the compiler may not read"
    rc=$?
    rm -f "$E1"
    [ $rc = 0 ] || return 1
    # the whole exercises/ linked to the course's solutions (a classroom CI grading the student's
    # repository where gpucourse is installed): the workspace is refused, the reference never
    # compiled as theirs
    mv "$T/ws/exercises" "$T/ws/exercises.mine" && ln -s "$PWD/solutions" "$T/ws/exercises" &&
        code_is 65 "$GC" grade ex01 && has_err "exercises' is a link to $PWD/solutions, outside the workspace"
    rc=$?
    rm -f "$T/ws/exercises" && mv "$T/ws/exercises.mine" "$T/ws/exercises"
    return $rc
}
check "an #include of a classmate's exercise or of the course's solution, or a link to one: a compile error naming the rule; exercises/ linked to the solutions: refused (65)" t_include_classmate
t_confined_compile() {
    cp exercises/ex01_vector_add.cu "$E1" && echo '#define MINE 1' >"$T/ws/exercises/mine.h" &&
        sed -i '1i #include "mine.h"' "$E1" && code_is 77 "$GC" grade ex01 --format json &&
        has '"verdict": "skipped"' && has '"compiler_confined": true' &&
        { ! grep -q "unconfined" "$T/got" || { echo "a note says unconfined"; return 1; }; }
}
check "a normal file, with an #include from its own directory: compiles in the box" t_confined_compile

# Without Landlock (a seccomp filter makes landlock_create_ruleset ENOSYS,
# as on a kernel built without it) nvcc still runs, and the grade says
# that it ran unconfined.
no_landlock() {
    python3 - "$@" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
# BPF: load nr; nr == 444 (landlock_create_ruleset, x86_64 and aarch64) -> ERRNO(ENOSYS); else allow
ins = [(0x20, 0, 0, 0), (0x15, 0, 1, 444), (0x06, 0, 0, 0x00050000 | 38), (0x06, 0, 0, 0x7fff0000)]
buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in ins))
prog = struct.pack("HxxxxxxQ", len(ins), ctypes.addressof(buf))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.c_char_p(prog), 0, 0):  # NO_NEW_PRIVS, SECCOMP filter
    sys.exit("seccomp: %s" % os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])
PY
}
t_unconfined_note() {
    cp exercises/ex01_vector_add.cu "$E1" && code_is 77 no_landlock "$GC" grade ex01 &&
        has "compile    ok" && has "note       the compiler ran unconfined (no Landlock on this kernel)" &&
        code_is 77 no_landlock "$GC" grade ex01 --format json && has '"compiler_confined": false'
}
check "no Landlock: the compile runs, and the grade notes that the compiler ran unconfined" t_unconfined_note

# The class's similarity is computed on the sources as compiled: bob's ex01
# is one #include of a copy of alice's work in his own directory (which the
# box allows), and is flagged as the same code as hers.
t_class_included_copy() {
    for s in alice bob; do GPUCOURSE_WORKSPACE=$T/class/$s "$GC" list >/dev/null || return 1; done
    A=$T/class/alice/exercises/ex01_vector_add.cu
    cp solutions/ex01_vector_add.cu "$A" && printf 'int alice_own(int x) { return x * 3 + 1; }\n' >>"$A" &&
        cp "$A" "$T/class/bob/exercises/helper.cuh" &&
        echo '#include "helper.cuh"' >"$T/class/bob/exercises/ex01_vector_add.cu" &&
        printf 'alice alice\nbob bob\n' >"$T/class/roster.txt" &&
        code_is 77 "$GC" class grade "$T/class/roster.txt" ex01 --out "$T/class/out" &&
        has "flag: ex01: the same code as alice's"
}
check "class grade: a classmate's file copied beside the exercise and included is flagged as theirs" t_class_included_copy

echo "1..$n"
