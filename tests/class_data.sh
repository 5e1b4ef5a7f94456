#!/bin/sh
# A class's data, without a GPU (issue 44, items 8 to 13): every student
# graded under a name that cannot take the reference's files, their results
# of an earlier run gone before they are graded, every roster entry graded
# or said to be skipped, a roster read as written (a NUL byte, a '#' in a
# path), a full disk a setup error, and class grade's exit code when the
# gradebook is not whole. The Slurm side (a frozen roster, MaxArraySize,
# '%' in --out) is in tests/slurm.sh. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh class-data

# ws DIR: a workspace with the stubs; ex01 DIR: its ex01 file
ws() { GPUCOURSE_WORKSPACE=$1 "$GC" list >/dev/null; }
ex01() { ls "$1"/exercises/ex01_*.cu; }
# row CSV NAME FIELD: the gradebook's FIELD for student NAME
row() {
    python3 -c 'import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
print(rows[sys.argv[2]][sys.argv[3]] if sys.argv[2] in rows else "NO ROW")' "$@"
}

# --- the students' side (docs/classroom.md): the recipe, as written ------
# Its `sh students-side` blocks, in order, in an empty directory: the
# starter made and committed, a student's clone worked in and committed with
# nothing left over (.gitignore has what gpucourse keeps), the class graded
# from a clone of theirs (77: no GPU here).
awk '/^```sh students-side$/ { on = 1; next } /^```$/ { on = 0 } on' docs/classroom.md >"$T/students.sh"
t_students_side() {
    command -v git >/dev/null || { echo "no git"; return 1; }
    grep -q "class starter" "$T/students.sh" && grep -q "class grade" "$T/students.sh" || return 1
    mkdir "$T/side" && (cd "$T/side" && GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
        GIT_COMMITTER_EMAIL=t@t GIT_CONFIG_GLOBAL=/dev/null PATH="$(dirname "$GC"):$PATH" sh -ex "$T/students.sh") \
        >"$T/side.out" 2>&1 || { cat "$T/side.out"; return 1; }
    git -C "$T/side/alice" ls-files | grep -qx "progress.yaml" && git -C "$T/side/alice" ls-files | grep -qx ".course-id" &&
        [ -z "$(git -C "$T/side/alice" status --short --ignored | grep -v '^!! \(.build/\|progress.yaml.lock\)$')" ] &&
        [ "$(ls "$T/side/cuda-class/exercises" | wc -l)" = "$(ls exercises | wc -l)" ] &&
        [ "$(row "$T/side/grades/gradebook.csv" alice graded)" = skipped ] ||
        { git -C "$T/side/alice" status --short --ignored; cat "$T/side.out"; return 1; }
}
check "docs/classroom.md's students' side runs as written: class starter, a student's clone committed clean, the class graded" t_students_side

# --- every bad line of a roster at once (not one per run), exit 65 --------
t_bad_lines() {
    mkdir -p "$T/cb/alice/exercises" &&
    printf 'alice alice\nbob\ncarol nowhere\nalice alice\n' >"$T/cb/roster.txt" &&
    code_is 65 "$GC" class grade "$T/cb/roster.txt" ex01 --out "$T/gb" &&
    has_err "roster.txt:2: a line is NAME PATH" && has_err "roster.txt:3: .*nowhere has no exercises/ directory" &&
    has_err "roster.txt:4: 'alice' is listed twice" && [ ! -e "$T/gb/gradebook.csv" ]
}
check "a roster with three bad lines: all three said at once (65), nothing graded" t_bad_lines

# --- the summary at 80 columns, and a file not submitted -------------------
# A count per verdict and only the non-passes listed (not one exNN:verdict
# per exercise on one line); a deleted exercise file is `missing`, not a
# setup error, in the summary and the gradebook.
ws "$T/cm/alice" && ws "$T/cm/bob" && rm "$T"/cm/bob/exercises/ex02_*.cu && echo zz >>"$(ex01 "$T/cm/alice")"
printf 'alice alice\nbob bob\n' >"$T/cm/roster.txt"
t_summary_missing() {
    code_is 77 "$GC" class grade "$T/cm/roster.txt" ex01 ex02 --out "$T/gm" &&
    has "^alice  *0/2 passed: 1 compile_error, 1 skipped$" && has "^  compile_error: ex01$" &&
    has "^bob  *0/2 passed: 1 skipped, 1 missing$" && has "^  missing: ex02$" && ! grep -q "setup_error" "$T/got" &&
    [ "$(row "$T/gm/gradebook.csv" bob ex02)" = missing ] && [ "$(row "$T/gm/gradebook.csv" bob "ex02 vs_reference")" = "" ] &&
    ! grep -v 'gradebook: /' "$T/got" | awk 'length > 80' | grep -q .
}
check "class grade's summary: a count per verdict, the non-passes listed, 80 columns; a deleted file is missing" t_summary_missing
# --all: a student with no file at all, 47 ids wrapped under their verdict;
# every line of the summary within 80 columns, the totals' too
ws "$T/cm/carol" && rm "$T"/cm/carol/exercises/*.cu && printf 'carol carol\n' >"$T/cm/carol.txt"
t_summary_all() {
    code_is 65 "$GC" class grade "$T/cm/carol.txt" --all --out "$T/gall" &&
    has "^carol  *0/47 passed: 47 missing$" && has "^  missing: ex01 ex02 " && has "^    ex15 ex16 " &&
    has "ex46 ex47$" && ! awk 'length > 80' "$T/got" | grep -q . &&
        tr -s " \n" "  " <"$T/got" | grep -qF "gradebook: $T/gall/gradebook.csv" || { cat "$T/got"; return 1; }
}
check "class grade --all: a student's 47 missing files listed in lines of 80 columns, the totals too" t_summary_all

# --- OUT holds this roster's students only --------------------------------
t_others_removed() {
    code_is 77 "$GC" class grade "$T/cm/roster.txt" ex01 --out "$T/go" && [ -e "$T/go/alice.xml" ] &&
    echo mine >"$T/go/notes.json" && printf 'bob bob\n' >"$T/cm/bob-only.txt" &&
    code_is 77 "$GC" class grade "$T/cm/bob-only.txt" ex01 --out "$T/go" &&
    [ ! -e "$T/go/alice.xml" ] && [ ! -e "$T/go/alice.json" ] && [ ! -e "$T/go/alice.tsv" ] &&
    [ -e "$T/go/bob.xml" ] && [ "$(cat "$T/go/notes.json")" = mine ] &&
    [ "$(row "$T/go/gradebook.csv" alice graded)" = "NO ROW" ]
}
check "class grade into an OUT of another roster: the others' results removed, files not its own kept" t_others_removed

# --- item 8: a student named reference never writes the reference's library
ws "$T/c8/reference" && ws "$T/c8/alice"
echo 'const char *gpucourse_test_marker = "STUDENT-NAMED-REFERENCE";' >>"$(ex01 "$T/c8/reference")"
printf 'reference reference\nalice alice\n' >"$T/c8/roster.txt"
t_reference_name() {
    code_is 77 "$GC" class grade "$T/c8/roster.txt" ex01 --out "$T/g8" || return 1
    # the course's names in the build directory are the course's alone
    for f in "$T"/g8/build/reference-* "$T"/g8/build/harness-* "$T"/g8/build/runner-*; do
        [ -e "$f" ] && { echo "a student's grading wrote $f"; return 1; }
    done
    grep -q STUDENT-NAMED-REFERENCE "$T/g8/build/student-reference-ex01.so" &&
        [ "$(row "$T/g8/gradebook.csv" reference graded)" = skipped ] && [ -s "$T/g8/reference.json" ]
}
CHECK_LINES=60 check "a student named reference: their library is build/student-reference-ex01.so, never the reference's path" t_reference_name

# --- item 9: last run's results never stand in for this run's -------------
ws "$T/c9/alice" && ws "$T/c9/bob"
printf 'alice alice\nbob bob\n' >"$T/c9/roster.txt"
t_old_results() {
    code_is 77 "$GC" class grade "$T/c9/roster.txt" ex01 --out "$T/g9" &&
        [ "$(row "$T/g9/gradebook.csv" alice graded)" = skipped ] || return 1
    # this time alice's grading cannot finish (her JSON's place is taken):
    # her row must say "not graded", not last run's result, and the exit says so
    rm "$T/g9/alice.json" && mkdir "$T/g9/alice.json"
    code_is 65 "$GC" class grade "$T/c9/roster.txt" ex01 --out "$T/g9" || return 1
    [ "$(row "$T/g9/gradebook.csv" alice graded)" = no ] && [ "$(row "$T/g9/gradebook.csv" bob graded)" = skipped ] &&
        [ ! -e "$T/g9/alice.tsv" ] && has "^alice  *NOT GRADED" && has_err "1 of 2 students not graded"
}
check "a student whose grading dies this run: not graded (exit 65), never last run's result" t_old_results

# --- item 10: a directory roster grades every workspace, says what it skips
for s in alice "zoë" "mary ann" "o'brien" .hidden; do ws "$T/c10/$s" || exit 1; done
mkdir -p "$T/c10/notes" && echo hi >"$T/c10/README.md"
t_dir_names() {
    code_is 77 "$GC" class grade "$T/c10" ex01 --out "$T/g10" || return 1
    for s in alice "zoë" "mary ann" "o'brien" .hidden; do
        [ "$(row "$T/g10/gradebook.csv" "$s" graded)" = skipped ] || { echo "$s: $(row "$T/g10/gradebook.csv" "$s" graded)"; return 1; }
    done
    has "^5 students," && has_err "skipped README.md: not a directory" && has_err "skipped notes: no exercises/ directory" &&
        [ -s "$T/g10/alice.tsv" ] && ls "$T/g10" | grep -q '^zo_*-[0-9a-f]\{8\}\.tsv$' &&
        ls "$T/g10" | grep -q '^mary_ann-[0-9a-f]\{8\}\.tsv$' && ls "$T/g10" | grep -q '^_hidden-[0-9a-f]\{8\}\.json$' &&
        ! ls "$T/g10" | grep -q "[^A-Za-z0-9._-]"
}
check "a directory roster: zoë, mary ann, o'brien, .hidden graded (safe file names), the rest skipped with a reason" t_dir_names
t_nul() {
    ws "$T/c10b/alice" && ws "$T/c10b/bob" || return 1
    printf 'alice alice\nbob\000 bob\ncarol carol\n' >"$T/c10b/roster.txt"
    code_is 65 "$GC" class grade "$T/c10b/roster.txt" ex01 --out "$T/g10b" && has_err "roster.txt:2: a NUL byte" &&
        [ ! -e "$T/g10b/gradebook.csv" ]
}
check "a NUL byte in a roster file: an error at its line (65), nothing graded" t_nul
t_hash() {
    ws "$T/c10c/a" && ws "$T/c10c/a#b" || return 1
    echo 'this is not CUDA' >>"$(ex01 "$T/c10c/a#b")"
    printf '# the class\nalice a#b   # her repository\n\n  bob a # his\n' >"$T/c10c/roster.txt"
    code_is 77 "$GC" class grade "$T/c10c/roster.txt" ex01 --out "$T/g10c" &&
        [ "$(row "$T/g10c/gradebook.csv" alice ex01)" = compile_error ] && [ "$(row "$T/g10c/gradebook.csv" bob ex01)" = skipped ]
}
check "a roster line: '#' inside a path is part of it, a comment starts at a blank or the line's start" t_hash
t_space_path() {
    ws "$T/c10d/mary ann" || return 1
    printf 'mary mary ann\n' >"$T/c10d/roster.txt"
    code_is 77 "$GC" class grade "$T/c10d/roster.txt" ex01 --out "$T/g10d" && [ "$(row "$T/g10d/gradebook.csv" mary graded)" = skipped ]
}
check "a roster line: the path is the rest of the line (spaces in it)" t_space_path

# --- item 11 (here): a class where nobody's code got past compiling -------
ws "$T/c11/alice" && ws "$T/c11/bob"
for s in alice bob; do echo 'this is not CUDA' >>"$(ex01 "$T/c11/$s")"; done
printf 'alice alice\nbob bob\n' >"$T/c11/roster.txt"
t_nobody() {
    code_is 65 "$GC" class grade "$T/c11/roster.txt" ex01 --out "$T/g11" && has_err "nobody's code could be graded" &&
        [ "$(row "$T/g11/gradebook.csv" alice ex01)" = compile_error ] && has "^2 students,"
}
check "class grade where every grading is a compile error: exit 65, the gradebook written" t_nobody

# --- issue 47 (newcomer audit, part 3 item 1): a class graded where there is
# no GPU says that nothing ran, exits 77 as grade does, and marks no row graded
ws "$T/cng/a" && ws "$T/cng/b" && ws "$T/cng/c"
cp solutions/ex01_vector_add.cu "$T/cng/a/exercises/" && echo 'this is not CUDA' >>"$(ex01 "$T/cng/b")"
printf 'a a\nb b\nc c\n' >"$T/cng/roster.txt"
t_no_gpu() {
    code_is 77 "$GC" class grade "$T/cng/roster.txt" ex01 --out "$T/gng" &&
        has "^no GPU: nothing was run; set GPUCOURSE_LAUNCHER or run on a GPU node$" &&
        [ "$(row "$T/gng/gradebook.csv" a graded)" = skipped ] && [ "$(row "$T/gng/gradebook.csv" c graded)" = skipped ] &&
        [ "$(row "$T/gng/gradebook.csv" a "ex01 vs_reference")" = "" ] &&
        [ "$(row "$T/gng/gradebook.csv" b graded)" = yes ] && [ "$(row "$T/gng/gradebook.csv" b ex01)" = compile_error ]
}
check "class grade with no GPU: 'no GPU: nothing was run' (exit 77), graded skipped, no ratio" t_no_gpu

# --- a student's file that is a pipe (or one beside it that it includes), or a link out of their
# directory (their exercise, their progress.yaml): the TA's run neither waits on the one (the
# compiler's bound, 300 s a file) nor reads the other
ws "$T/cpipe/pat" && ws "$T/cpipe/lee" && ws "$T/cpipe/kim"
rm "$(ex01 "$T/cpipe/pat")" && mkfifo "$T/cpipe/pat/exercises/ex01_vector_add.cu"
echo "the TA's key" >"$T/cpipe/secret" && rm "$(ex01 "$T/cpipe/lee")" &&
    ln -s "$T/cpipe/secret" "$T/cpipe/lee/exercises/ex01_vector_add.cu" &&
    rm -f "$T/cpipe/lee/progress.yaml" && ln -s "$T/cpipe/secret" "$T/cpipe/lee/progress.yaml"
ws "$T/cpipe/ray" && mkfifo "$T/cpipe/ray/exercises/pipe.h" && echo '#include "pipe.h"' >>"$(ex01 "$T/cpipe/ray")"
printf 'pat pat\nlee lee\nkim kim\nray ray\n' >"$T/cpipe/roster.txt"
t_pipe_and_link() {
    start=$(date +%s)
    timeout 120 "$GC" class grade "$T/cpipe/roster.txt" ex01 --out "$T/gpipe" --timeout 5 >"$T/got" 2>"$T/goterr"
    took=$(($(date +%s) - start))
    [ "$took" -lt 60 ] || { echo "class grade took $took s"; return 1; }
    [ "$(row "$T/gpipe/gradebook.csv" pat ex01)" = setup_error ] && grep -q "is not a regular file" "$T/gpipe/pat.json" &&
        [ "$(row "$T/gpipe/gradebook.csv" lee ex01)" = compile_error ] && [ "$(row "$T/gpipe/gradebook.csv" kim graded)" = skipped ] &&
        [ "$(row "$T/gpipe/gradebook.csv" ray ex01)" = timeout ] &&
        ! grep -rq "the TA's key" "$T/gpipe" || { cat "$T/got" "$T/goterr"; grep -rl "the TA's key" "$T/gpipe"; return 1; }
}
check "a student's file that is a pipe (setup error), one that includes a pipe (timeout at --timeout, not preprocessed again for the flags), a link to the TA's key (compile error; progress.yaml too): the key read nowhere" t_pipe_and_link

# --- item 12: a full disk is the machine's setup error, never a compile error
t_disk_full() {
    [ "$(id -u)" = 0 ] || { echo "# SKIP mounting a tmpfs needs root"; return 0; }
    ws "$T/c12/alice" && printf 'alice alice\n' >"$T/c12/roster.txt" && mkdir -p "$T/g12/build" "$T/ws12/.build" || return 1
    mount -t tmpfs -o size=1m gpucourse-test "$T/g12/build" || { echo "# SKIP cannot mount a tmpfs"; return 0; }
    mount -t tmpfs -o size=1m gpucourse-test "$T/ws12/.build" || { umount "$T/g12/build"; echo "# SKIP cannot mount a tmpfs"; return 0; }
    ws "$T/ws12"
    GPUCOURSE_WORKSPACE=$T/ws12 "$GC" grade ex01 >"$T/one" 2>&1; one=$?
    "$GC" class grade "$T/c12/roster.txt" ex01 --out "$T/g12" >"$T/got" 2>"$T/goterr"; class=$?
    umount "$T/g12/build"; umount "$T/ws12/.build"
    cat "$T/one"
    [ $one = 65 ] && grep -q "setup error: the disk was full while nvcc compiled" "$T/one" && ! grep -q "compile error" "$T/one" &&
        [ ! -e "$T/ws12/progress.yaml" ] || { echo "grade: exit $one"; return 1; }
    [ $class = 65 ] && [ "$(row "$T/g12/gradebook.csv" alice ex01)" = setup_error ] || { echo "class: exit $class"; cat "$T/got" "$T/goterr"; return 1; }
    # gcc's preprocessor can end on a failed write without a word: an nvcc
    # that fills the disk and says nothing is the disk's doing too
    mkdir -p "$T/silent" && printf '#!/bin/sh
case "$*" in *--version*) exec "%s" "$@" ;; *-dryrun*) exit 0 ;; esac
cat /dev/zero >"$TMPDIR/fill" 2>/dev/null
exit 1
' \
        "$(command -v nvcc)" >"$T/silent/nvcc" && chmod +x "$T/silent/nvcc" || return 1
    mount -t tmpfs -o size=1m gpucourse-test "$T/ws12/.build" || return 1
    GPUCOURSE_NVCC=$T/silent/nvcc GPUCOURSE_WORKSPACE=$T/ws12 "$GC" grade ex01 >"$T/one" 2>&1; one=$?
    umount "$T/ws12/.build"
    cat "$T/one"
    [ $one = 65 ] && grep -q "setup error: the disk was full while nvcc compiled" "$T/one" && grep -q "nvcc said: gpucourse: nvcc failed with" "$T/one" ||
        { echo "silent nvcc on a full disk: exit $one"; return 1; }
}
check "nvcc's temporaries on a full disk (a 1 MiB tmpfs): a setup error (65), not recorded, never a compile error; also when nvcc says nothing of it" t_disk_full

# --- item 13: --format works or is refused on every command ---------------
t_format_refused() {
    for cmd in doctor progress list "show ex01" "hint ex01" "class grade $T/c9/roster.txt ex01 --out $T/g13"; do
        for f in json junit; do
            case "$cmd $f" in "doctor json" | "progress json") continue ;; esac # documents of their own (edges_cli.sh)
            # shellcheck disable=SC2086
            code_is 64 "$GC" $cmd --format $f && has_err "text" || { echo "for $cmd --format $f"; return 1; }
        done
    done
    [ ! -e "$T/g13" ] && code_is 0 "$GC" progress --format text
}
check "--format json|junit on class grade and the text commands, junit on doctor and progress: usage error 64" t_format_refused

# --- a kernel that cannot confine students' code: refused unless allowed --
t_partial_sandbox() {
    GPUCOURSE_SANDBOX_PROBE=none code_is 65 "$GC" class grade "$T/c9/roster.txt" ex01 --out "$T/gp" &&
        has_err "cannot confine the students' code" && has_err "allow-partial-sandbox" && [ ! -e "$T/gp/gradebook.csv" ] || return 1
    GPUCOURSE_SANDBOX_PROBE=none code_is 77 "$GC" class grade "$T/c9/roster.txt" ex01 --out "$T/gp" --allow-partial-sandbox &&
        has_err "confined less on this machine" && [ "$(row "$T/gp/gradebook.csv" alice graded)" = skipped ]
}
check "no Landlock or seccomp here: class grade refuses (65) unless --allow-partial-sandbox" t_partial_sandbox

echo "1..$n"
