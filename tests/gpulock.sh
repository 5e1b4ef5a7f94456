#!/bin/sh
# The GPU's lock against another user of the machine (issue 44, item 7):
# fake GPUs (GPUCOURSE_FAKE_GPUS, CUDA's stub driver, as tests/gpus.sh), a
# sticky lock directory like /tmp, and, when the test runs as root, two real
# users that it makes (useradd): an attacker who puts things at the lock's
# path, and a victim whose doctor and grade must neither hang, nor run
# beside another grading, nor write to a file they do not mean to.
#   - a FIFO, a 0600 file, a directory, a symbolic link at the path: the
#     victim takes the whole directory's lock instead, and waits for the
#     grading that holds it;
#   - a hard link to the victim's own file (protected_hardlinks=0 for the
#     test, restored): the file is left as it was;
#   - a lock directory others may change: the grade is marked unlocked in
#     its report, its JSON and the class gradebook; doctor says why;
#   - make install makes the shared directory, used when no
#     GPUCOURSE_LOCK_DIR is set.
. tests/lib.sh gpulock
unset GPUCOURSE_NO_GPU GPUCOURSE_LAUNCHER
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
[ -f "$STUB" ] || STUB=$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so
if [ ! -f "$STUB" ]; then echo "1..0 # SKIP no stub libcuda.so in the toolkit"; exit 0; fi
chmod 755 "$T"
mkdir -p "$T/cuda" "$T/locks"
chmod 1777 "$T/locks" # as /tmp: everyone may add, nobody take another's away
ln -s "$STUB" "$T/cuda/libcuda.so.1"
L=$T/locks
LOCK=$L/gpucourse-gpu-GPU-fake-a.lock
export LD_LIBRARY_PATH=$T/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUCOURSE_LOCK_DIR=$L GPUCOURSE_FAKE_GPUS=GPU-fake-a
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
echo "1..8"

# the two users, real ones, when we may make them
ATT=gpucourse-lockx VIC=gpucourse-lockv
why_no_users=
if [ "$(id -u)" != 0 ]; then why_no_users="not root: cannot make the attacker and the victim, two real users"
elif ! command -v setpriv >/dev/null || ! command -v useradd >/dev/null; then why_no_users="no setpriv or useradd"
else
    for u in $ATT $VIC; do
        id -u $u >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin $u ||
            why_no_users="useradd $u failed"
    done
fi
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"; }
if [ -z "$why_no_users" ]; then
    V=$T/victim # the victim's home, workspace and cache
    mkdir -p "$V" && chown $VIC:$VIC "$V" && chmod 755 "$V"
    victim() { as $VIC env HOME="$V" GPUCOURSE_WORKSPACE="$V/ws" XDG_CACHE_HOME="$V/cache" "$@"; }
    victim "$GC" list >/dev/null
    victim cp solutions/ex01_vector_add.cu "$V/ws/exercises/"
    # the victim's builds (its library, the judge) done now, with no lock held: the gradings below
    # then wait on the lock, not on a compile that a loaded machine can stretch past the holder's time
    victim timeout 600 "$GC" grade ex01 >/dev/null 2>&1
fi

# another grading holding the whole lock directory (as one does when a
# GPU's file cannot serve it) until killed: $! after it
hold_dir() {
    rm -f "$T/held"
    python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(600)' \
        "$L" "$T/held" &
    # up to a minute: python starts slowly while the rest of make test compiles on every core
    for i in $(seq 1200); do [ -e "$T/held" ] && return 0; sleep 0.05; done
    kill $! 2>/dev/null
    echo "the holder did not take the lock directory in 60 s"
    return 1
}

# what the attacker put at the lock's path ($1, a command run as them);
# then the victim's doctor must end at once and say what it found, and
# the victim's grade must wait for the grading that holds the directory
squatted() {
    rm -rf "$LOCK"
    as $ATT sh -c "$1" || { echo "the attacker could not: $1"; return 1; }
    ls -la "$L"
    victim timeout 30 "$GC" doctor >"$T/got" 2>&1
    rc=$?
    [ $rc != 124 ] || { echo "doctor hung"; return 1; }
    joined "$T/got" | grep "gpu lock"
    joined "$T/got" | grep -q "^ok .*gpu lock .*the whole directory.* is $2 of uid $(id -u $ATT)" || return 1
    hold_dir || return 1
    holder=$!
    GPUCOURSE_GPU_WAIT=1 victim timeout 120 "$GC" grade ex01 >"$T/got" 2>&1
    rc=$?
    kill $holder 2>/dev/null; wait $holder 2>/dev/null
    cat "$T/got"
    [ $rc = 65 ] && joined "$T/got" | grep -q "stayed busy with other gradings for 1 s" || { echo "exit $rc, want 65: it ran"; return 1; }
    # that grading gone, the victim's runs, saying how it was locked
    GPUCOURSE_GPU_WAIT=1 victim timeout 120 "$GC" grade ex01 >"$T/got" 2>&1
    rc=$?
    [ $rc = 77 ] && joined "$T/got" | grep -q "^  note       the GPU's own lock could not serve (.* is $2 of uid" ||
        { echo "exit $rc, want 77, and the note"; cat "$T/got"; return 1; }
    # gone, root's doctor makes the file root's: every user's gradings lock it, not the whole directory
    rm -rf "$LOCK"
    "$GC" doctor >/dev/null 2>&1
    victim "$GC" doctor >"$T/got" 2>&1
    [ "$(stat -c %U "$LOCK")" = root ] && joined "$T/got" | grep -q "^ok       gpu lock  *$LOCK$" ||
        { grep "gpu lock" "$T/got"; return 1; }
    rm -f "$LOCK"
}

t_fifo() { squatted "mkfifo -m 644 '$LOCK'" "a FIFO"; }
t_private() { squatted "umask 077; : >'$LOCK'" "another user's file"; }
t_directory() { squatted "mkdir '$LOCK'" "a directory"; }
t_symlink() { squatted "ln -s /etc/passwd '$LOCK'" "a symbolic link"; }
if [ -n "$why_no_users" ]; then
    for what in "a FIFO" "a 0600 file" "a directory" "a symbolic link"; do
        skip "$what at the lock's path, another user's" "$why_no_users"
    done
else
    check "another user's FIFO at the lock's path: doctor ends, the grade takes the whole directory and waits" t_fifo
    check "another user's 0600 file there: the grade is not unlocked, it waits for the directory's holder" t_private
    check "another user's directory there: the same" t_directory
    check "another user's symbolic link there: the same" t_symlink
fi

# a hard link to the victim's own file, made by the attacker where the kernel allows it
t_hardlink() {
    rm -rf "$LOCK"
    victim sh -c "echo 'keep me' >'$V/precious'"
    old=$(cat /proc/sys/fs/protected_hardlinks)
    echo 0 >/proc/sys/fs/protected_hardlinks
    as $ATT ln "$V/precious" "$LOCK"
    made=$?
    echo "$old" >/proc/sys/fs/protected_hardlinks
    [ $made = 0 ] || { echo "the attacker could not link"; return 1; }
    victim timeout 30 "$GC" doctor >"$T/got" 2>&1
    grep "gpu lock" "$T/got"
    [ "$(cat "$V/precious")" = "keep me" ] || { echo "the victim's file was written: '$(cat "$V/precious")'"; return 1; }
    joined "$T/got" | grep -q "^ok .*gpu lock .*the whole directory.* is a file with another name too (a hard link) of uid $(id -u $VIC)"
    rm -f "$LOCK"
}
if [ -n "$why_no_users" ]; then skip "a hard link to the victim's file at the lock's path" "$why_no_users"
elif ! echo "$(cat /proc/sys/fs/protected_hardlinks)" >/proc/sys/fs/protected_hardlinks 2>/dev/null; then
    skip "a hard link to the victim's file at the lock's path" "/proc/sys/fs/protected_hardlinks cannot be set here"
else check "a hard link to the victim's own file there (protected_hardlinks=0): the file is left alone" t_hardlink
fi

# a directory others may change: timed without the lock, and marked so
mkdir -p "$T/open"
chmod 777 "$T/open"
t_unlocked() {
    GPUCOURSE_LOCK_DIR=$T/open code_is 77 "$GC" grade ex01 --format json || return 1
    python3 - "$T/got" <<'EOF' || return 1
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["unlocked"], r["unlocked_reason"])
assert r["unlocked"] is True and "is writable by others and not sticky" in r["unlocked_reason"], r
EOF
    GPUCOURSE_LOCK_DIR=$T/open code_is 77 "$GC" grade ex01 && has "^  UNLOCKED   timed without the GPU's lock" || return 1
    GPUCOURSE_LOCK_DIR=$T/open "$GC" doctor >"$T/got" 2>&1
    has_text "^MISSING  gpu lock .*cannot be used, gradings are timed unlocked: the GPU lock directory $T/open cannot be trusted" ||
        return 1
    [ -z "$why_no_users" ] || return 0
    # one the attacker made for everyone (1777): theirs, so they could take any lock in it away
    mkdir -p "$T/theirs" && chown $ATT:$ATT "$T/theirs" && chmod 1777 "$T/theirs"
    GPUCOURSE_LOCK_DIR=$T/theirs victim "$GC" doctor >"$T/got" 2>&1
    has_text "^MISSING  gpu lock .*the GPU lock directory $T/theirs cannot be trusted: $T/theirs belongs to another user (owner uid $(id -u $ATT))"
}
"$GC" list >/dev/null
cp solutions/ex01_vector_add.cu "$T/ws/exercises/"
check "a lock directory others may change: the grade is marked unlocked (report, JSON), doctor says why" t_unlocked

t_gradebook() {
    mkdir -p "$T/class/alice/exercises" && cp solutions/ex01_vector_add.cu "$T/class/alice/exercises/" &&
        GPUCOURSE_LOCK_DIR=$T/open "$GC" class grade "$T/class" ex01 --out "$T/grades" >"$T/got" 2>&1
    cat "$T/grades/gradebook.csv"
    grep -q '^"alice",.*"ex01: timed without the GPU.s lock (alice.json says why)' "$T/grades/gradebook.csv" &&
        grep -q "flag: ex01: timed without the GPU's lock" "$T/got"
}
check "class grade with such a directory: the gradebook flags the student's unlocked grading" t_gradebook

# make install makes the shared directory; gpucourse uses it when no GPUCOURSE_LOCK_DIR is set
SHARED=/var/lib/gpucourse/locks
t_shared() {
    make -s install PREFIX=/usr DESTDIR="$T/root" >"$T/got" 2>&1 || { cat "$T/got"; return 1; }
    [ "$(stat -c %a:%U "$T/root$SHARED")" = 1777:root ] || { stat "$T/root$SHARED"; return 1; }
    made=
    if [ ! -e "$SHARED" ]; then
        [ -e /var/lib/gpucourse ] || made=/var/lib/gpucourse
        install -d -m 1777 "$SHARED" && made=${made:-$SHARED}
    fi
    (unset GPUCOURSE_LOCK_DIR; "$GC" doctor) >"$T/got" 2>&1
    [ -z "$made" ] || rm -rf "$made"
    has_text "^ok       gpu lock  *$SHARED/gpucourse-gpu-GPU-fake-a.lock$"
}
if [ "$(id -u)" != 0 ]; then skip "make install's shared lock directory, used by default" "not root: cannot make $SHARED"
else check "make install makes $SHARED (root's, 1777); gpucourse uses it by default" t_shared
fi
