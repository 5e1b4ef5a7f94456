#!/bin/sh
# Bad input around the workspace's files, run with build/gpucourse and no GPU:
# huge (sparse) progress, chapter and stub files read under a memory limit,
# many progress entries, repeated and unknown keys in progress.yaml, file
# modes kept through writes and backups, attempts at their limit. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh edges-progress
umask 022
# bounded GC ...: gpucourse with 1 GB of address space and 20 s at most
bounded() { (ulimit -v 1000000; exec timeout 20 "$GC" "$@"); }
fresh() { rm -rf "$T/ws" && "$GC" list >/dev/null; } # a new workspace, every stub copied in
size_of() { stat -c %s "$1"; }
mode_of() { stat -c %a "$1"; }
BIG=32212254720 # 30 GiB

# A copy of the course to break.
mkdir -p "$T/course" && cp -R course exercises solutions harness "$T/course/"

# ------------------------------------------------------------ sizes (item 2)

t_big_progress() { fresh && truncate -s 30G "$T/ws/progress.yaml" &&
                   code_is 0 bounded list &&
                   has_err "warning: progress file was damaged ($T/ws/progress.yaml:1:1: the file has $BIG bytes, more than the limit of 4 MiB)" &&
                   [ ! -e "$T/ws/progress.yaml" ] && [ "$(size_of "$T"/ws/progress.yaml.damaged-*)" = $BIG ] &&
                   rm "$T"/ws/progress.yaml.damaged-*; }
check "a 30 GB progress.yaml: set aside whole, with file:line:col and the limit, in bounded memory" t_big_progress

t_big_chapter() { cp "$T/course/course/01-threads/chapter.yaml" "$T/chapter.good" &&
                  truncate -s 30G "$T/course/course/01-threads/chapter.yaml" &&
                  code_is 65 bounded --course "$T/course" list &&
                  has_err "course/01-threads/chapter.yaml:1:1: the file has $BIG bytes, more than the limit of 4 MiB"
                  rc=$?; cp "$T/chapter.good" "$T/course/course/01-threads/chapter.yaml"; return $rc; }
check "a 30 GB chapter.yaml: file:line:col and the limit, in bounded memory" t_big_chapter

t_big_stub() { stub=$T/course/exercises/ex02_flip_lr.cu && cp "$stub" "$T/stub.good" && truncate -s 30G "$stub" &&
               rm -rf "$T/wsb" && GPUCOURSE_WORKSPACE=$T/wsb code_is 65 bounded --course "$T/course" list &&
               has_err "cannot copy '$stub': the file has $BIG bytes, more than the limit of 64 MiB" &&
               [ ! -e "$T/wsb/exercises/ex02_flip_lr.cu" ] && [ -z "$(ls "$T/wsb/exercises" | grep tmp)" ] &&
               [ "$(size_of "$stub")" = $BIG ]
               rc=$?; cp "$T/stub.good" "$stub"; return $rc; }
check "a 30 GB stub: not copied into the workspace, a clear message, in bounded memory" t_big_stub

t_big_student() { fresh && mine=$T/ws/exercises/ex02_flip_lr.cu && truncate -s 30G "$mine" &&
                  code_is 65 bounded reset ex02 && has_err "cannot copy '$mine': the file has $BIG bytes" &&
                  [ "$(size_of "$mine")" = $BIG ] && [ -z "$(ls "$T/ws/backups")" ]; }
check "reset of a 30 GB student file: refused, the file kept, no backup left half made" t_big_student

t_copy_streams() { fresh && mine=$T/ws/exercises/ex02_flip_lr.cu && head -c 40000000 /dev/urandom >"$mine" &&
                   cp "$mine" "$T/mine.copy" && (ulimit -v 30000; exec timeout 20 "$GC" reset ex02) >"$T/got" 2>&1 &&
                   cmp -s "$T/mine.copy" "$T"/ws/backups/ex02_flip_lr.cu.* && cmp -s exercises/ex02_flip_lr.cu "$mine"; }
check "reset's backup of a 40 MB file is streamed (30 MB of address space)" t_copy_streams

# a file that is still the stub has nothing to keep: two resets, one backup (the newcomer audit)
t_reset_twice() { fresh && echo '// mine' >>"$T/ws/exercises/ex02_flip_lr.cu" && code_is 0 "$GC" reset ex02 &&
                  has "kept as" && code_is 0 "$GC" reset ex02 && ! has "kept as" >/dev/null &&
                  [ "$(ls "$T/ws/backups" | wc -l)" = 1 ] && grep -q '// mine' "$T"/ws/backups/ex02_flip_lr.cu.*; }
check "reset twice: the second finds the stub, makes no backup (one in backups/)" t_reset_twice

# ------------------------------------------------------------ many entries (item 4)

t_many_entries() { fresh && { echo "version: 1"; echo "exercises:"; seq 1 49000 | sed 's/.*/  x&: {}/'; } >"$T/ws/progress.yaml" &&
                   code_is 0 timeout 3 "$GC" hint ex01 && has "Hint 1 of" &&
                   code_is 0 timeout 3 "$GC" hint ex01 && has "Hint 2 of" && [ ! -s "$T/goterr" ] &&
                   [ "$(grep -c '^  x[0-9]*: {}$' "$T/ws/progress.yaml")" = 49000 ]; }
check "hint with 49,000 progress entries: fast, and the file it writes reads back" t_many_entries

# ------------------------------------------------------------ repeated and unknown keys (item 5)

t_repeated_exercise() { fresh && cat >"$T/ws/progress.yaml" <<'EOF' &&
version: 1
exercises:
  ex01:
    status: passed
    passed_at: "2026-11-22T10:00:00+00:00"
  ex02:
    status: attempted
  ex01:
    status: attempted
EOF
                        cp "$T/ws/progress.yaml" "$T/repeated" &&
                        code_is 0 "$GC" progress &&
                        has_err "$T/ws/progress.yaml:8:3: 'ex01' is listed twice (first at 3:3)" &&
                        has "^ex02  *flip_lr  *attempted " && ! grep -q "^ex01 .*attempted" "$T/got" &&
                        cmp -s "$T/repeated" "$T"/ws/progress.yaml.damaged-* && ! grep -q "ex01" "$T/ws/progress.yaml"; }
check "an exercise listed twice in progress.yaml: left out, reported, the original kept aside" t_repeated_exercise

t_repeated_field() { fresh && printf 'version: 1\nexercises:\n  ex01: {status: passed, attempts: 2, status: attempted}\n  ex02: {attempts: 1}\n' >"$T/ws/progress.yaml" &&
                     code_is 0 "$GC" progress && has_err "progress.yaml:3:39: 'status' is listed twice in 'ex01' (first at 3:10)" &&
                     ls "$T/ws" | grep -q '^progress.yaml.damaged-' && ! grep -q "ex01" "$T/ws/progress.yaml" &&
                     grep -q "ex02" "$T/ws/progress.yaml"; }
check "a key twice in an entry: the entry left out, reported, the original kept aside" t_repeated_field

t_repeated_top() { fresh && printf 'version: 1\nexercises:\n  ex01: {status: passed}\nversion: 1\n' >"$T/ws/progress.yaml" &&
                   code_is 0 "$GC" progress && has_err "progress file was damaged ($T/ws/progress.yaml:4:1: 'version' is listed twice (first at 1:1))" &&
                   ls "$T/ws" | grep -q '^progress.yaml.damaged-'; }
check "a top-level key twice: the file is damaged, kept aside" t_repeated_top

t_unknown_kept() { fresh && cat >"$T/ws/progress.yaml" <<'EOF' &&
version: 1
streak: {days: 3, since: "2026-11-20", "123": [1, "2", '3', !!float 4]}
exercises:
  ex01:
    status: attempted
    attempts: 2
    future_key: kept
    notes:
      - first
      - {a: b}
  x99: {}
EOF
                   code_is 0 "$GC" hint ex01 && [ ! -s "$T/goterr" ] &&
                   python3 - "$T/ws/progress.yaml" <<'EOF' && code_is 0 "$GC" progress && [ ! -s "$T/goterr" ]
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["streak"] == {"days": 3, "since": "2026-11-20", "123": [1, "2", "3", 4.0]}, d["streak"]
e = d["exercises"]["ex01"]
assert e["future_key"] == "kept" and e["notes"] == ["first", {"a": "b"}] and e["hints_seen"] == 1 and e["attempts"] == 2, e
assert d["exercises"]["x99"] in ({}, None), d["exercises"]
EOF
}
check "unknown keys (a newer gpucourse's) survive a rewrite, nested and typed as they were" t_unknown_kept

# ------------------------------------------------------------ file modes (item 6)

t_mode_progress() { fresh && "$GC" hint ex01 >/dev/null && chmod 600 "$T/ws/progress.yaml" &&
                    "$GC" hint ex01 >/dev/null && [ "$(mode_of "$T/ws/progress.yaml")" = 600 ] &&
                    chmod 640 "$T/ws/progress.yaml" && "$GC" hint ex01 >/dev/null && [ "$(mode_of "$T/ws/progress.yaml")" = 640 ]; }
check "progress.yaml keeps its mode (0600, 0640) through a rewrite" t_mode_progress

t_mode_backup() { fresh && mine=$T/ws/exercises/ex03_saxpy.cu && echo "my secret solution" >"$mine" && chmod 600 "$mine" &&
                  code_is 0 "$GC" reset ex03 && [ "$(mode_of "$T"/ws/backups/ex03_saxpy.cu.*)" = 600 ] &&
                  [ "$(mode_of "$mine")" = 600 ] && grep -q "my secret solution" "$T"/ws/backups/ex03_saxpy.cu.*; }
check "reset: a 0600 student file is backed up 0600 and stays 0600" t_mode_backup

t_mode_umask() { rm -rf "$T/wsu" && chmod 444 "$T/course/exercises/ex01_vector_add.cu" &&
                 (umask 077; export GPUCOURSE_WORKSPACE=$T/wsu; "$GC" --course "$T/course" hint ex01 >/dev/null) &&
                 [ "$(mode_of "$T/wsu/exercises/ex01_vector_add.cu")" = 600 ] && [ "$(mode_of "$T/wsu/progress.yaml")" = 600 ] &&
                 rm -rf "$T/wsu" && (export GPUCOURSE_WORKSPACE=$T/wsu; "$GC" --course "$T/course" hint ex01 >/dev/null) &&
                 [ "$(mode_of "$T/wsu/exercises/ex01_vector_add.cu")" = 644 ] && [ "$(mode_of "$T/wsu/progress.yaml")" = 644 ]
                 rc=$?; chmod 644 "$T/course/exercises/ex01_vector_add.cu"; return $rc; }
check "new files follow the umask, not the course's modes (a 0444 stub gives a writable file)" t_mode_umask

# ------------------------------------------------------------ attempts at their limit (item 7)

# (a compile error: an attempt; a skipped grade, no GPU, is none)
t_attempts_max() { fresh && printf 'version: 1\nexercises:\n  ex01:\n    status: attempted\n    attempts: 1000000000\n' >"$T/ws/progress.yaml" &&
                   echo 'this is not CUDA' >>"$T/ws/exercises/ex01_vector_add.cu" && code_is 3 "$GC" grade ex01 && code_is 0 "$GC" progress && [ ! -s "$T/goterr" ] &&
                   grep -q '^    attempts: 1000000000$' "$T/ws/progress.yaml" && ! ls "$T/ws" | grep -q damaged; }
check "attempts at the limit: one more grade keeps the limit, the file stays valid" t_attempts_max

echo "1..$n"
