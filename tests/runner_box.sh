#!/bin/bash
# Untrusted code stays in its box (issue 44, items 1, 2, 3, 5 and 6), shown on
# the real student runner, without a GPU:
#   - runner-vector_add is the one gpucourse builds (`grade ex01` with a fake
#     GPU id and CUDA's stub driver builds the judge, the runner and the
#     reference, as tests/gpus.sh does);
#   - stand-ins for the CUDA runtime and driver (tests/standin/cudart.c,
#     cuda.c; what they do not write by hand is generated from the runner's
#     own imports and fails) let it start CUDA, enter its sandbox and load
#     the student's library;
#   - tests/standin/startup.c starts it as the judge does (argv, the judge's
#     environment, its socket at descriptor 3), with a pseudo-terminal as its
#     controlling terminal, and waits for MSG_READY;
#   - the student's library is tests/standin/hostile.c, put where gpucourse
#     put the student's build: its constructor tries each escape and prints
#     `probe NAME: blocked (...)` or `probe NAME: OPEN (...)`;
#   - the other end is real and checked too: listeners (tests/standin/
#     listeners.py), the terminal's input queue, ipcs; the files it reaches
#     for belong to the user who grades (the runner's user), so that only the
#     sandbox can refuse them.
# Run as root, the runner runs as a second user (gpucourse-probe, a system
# user made here when missing) who plays the instructor: RLIMIT_NPROC never
# binds root, so a thread limit can only show on another user. Skips only
# where this machine cannot run it: no nvcc, no python3, no Landlock.
. tests/lib.sh runner-box
unset GPUCOURSE_NO_GPU GPUCOURSE_LAUNCHER
S=$PWD/tests/standin
skip_all() { echo "1..0 # SKIP $1"; echo "ok 1 - runner box # SKIP $1"; exit 0; }
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip_all "no nvcc"
command -v python3 >/dev/null || skip_all "no python3"
command -v gcc >/dev/null || skip_all "no gcc"
landlock=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
[ "${landlock:-0}" -gt 0 ] 2>/dev/null || skip_all "this kernel has no Landlock (landlock_create_ruleset: $landlock)"
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
[ -f "$STUB" ] || STUB=$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so
[ -f "$STUB" ] || skip_all "no stub libcuda.so in the toolkit"

# the second user (root only); as another user the runner runs as that user
if [ "$(id -u)" = 0 ]; then
    USER_NAME=gpucourse-probe
    id "$USER_NAME" >/dev/null 2>&1 ||
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$USER_NAME" ||
        skip_all "running as root, and useradd cannot make the second user $USER_NAME"
    PUID=$(id -u "$USER_NAME") PGID=$(id -g "$USER_NAME")
else
    PUID=$(id -u) PGID=$(id -g)
fi

listener='' victim='' ipc_ids=''
cleanup() {
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    [ -n "$victim" ] && kill "$victim" 2>/dev/null
    for id in $ipc_ids; do ipcrm "${id%%=*}" "${id#*=}" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT

# 1. the runner, as gpucourse builds it
mkdir -p "$T/cuda" "$T/locks"
ln -s "$STUB" "$T/cuda/libcuda.so.1"
LD_LIBRARY_PATH=$T/cuda GPUCOURSE_LOCK_DIR=$T/locks GPUCOURSE_FAKE_GPUS=GPU-fake-a "$GC" grade ex01 >"$T/grade.out" 2>&1
RUNNER=$T/ws/.build/runner-vector_add
t_built() { [ -x "$RUNNER" ] && [ -f "$T/ws/.build/reference-ex01.so" ] || { cat "$T/grade.out"; return 1; }; }
check "gpucourse built runner-vector_add (grade ex01, a fake GPU id, CUDA's stub driver)" t_built

# 2. the stand-ins, under the names and version tag the runner asks for.
# The runner finds libcudart through its RUNPATH (the toolkit's lib64):
# LD_LIBRARY_PATH comes before a RUNPATH (not before an old-style RPATH, which
# nvcc does not write: checked here), and the judge passes LD_LIBRARY_PATH on
# to its runners, so a directory of stand-ins first in it is what a judge
# would give.
mkdir -p "$T/standin"
build_standins() {
    readelf -d "$RUNNER" | grep -q '(RPATH)' && { echo "the runner has an RPATH: LD_LIBRARY_PATH would not win"; return 1; }
    cudart=$(readelf -d "$RUNNER" | sed -n 's/.*(NEEDED).*\[\(libcudart\.so[.0-9]*\)\].*/\1/p')
    [ -n "$cudart" ] || { echo "the runner needs no libcudart.so.N"; readelf -d "$RUNNER"; return 1; }
    tag=$(readelf -V -W "$RUNNER" | awk -v f="$cudart" '$4 == "File:" { mine = ($5 == f) } mine && $2 == "Name:" { print $3; exit }')
    syms=$(readelf --dyn-syms -W "$RUNNER" | awk '$4 == "FUNC" && $7 == "UND" { print $8 }')
    rt_needed=$(printf '%s\n' "$syms" | sed -n "s/@$tag\$//p; s/@$tag (.*//p")
    drv_needed=$(printf '%s\n' "$syms" | grep -E '^cu[A-Z][A-Za-z0-9_]*$')
    # stand-in name: hand-written file, needed functions -> the library
    one() {
        local name=$1 src=$2 needed=$3 extra=$4
        gcc -shared -fPIC -o "$T/standin/hand-$name" "$src" || return 1
        local have
        have=$(nm -D --defined-only "$T/standin/hand-$name" | awk '{ print $3 }')
        : >"$T/standin/gen-$name.c"
        for f in $needed; do
            printf '%s\n' "$have" | grep -qx "$f" || echo "int $f(void) { return 801; }" >>"$T/standin/gen-$name.c"
        done
        gcc -shared -fPIC -Wl,-soname,"$name" ${extra:+"$extra"} -o "$T/standin/$name" "$src" "$T/standin/gen-$name.c" || return 1
        have=$(nm -D --defined-only "$T/standin/$name" | awk '{ print $3 }' | sed 's/@.*//')
        for f in $needed; do printf '%s\n' "$have" | grep -qx "$f" || { echo "$name lacks $f"; return 1; }; done
    }
    [ -n "$tag" ] && echo "$tag { global: *; };" >"$T/standin/cudart.map" &&
        one "$cudart" "$S/cudart.c" "$rt_needed" "-Wl,--version-script=$T/standin/cudart.map" &&
        one libcuda.so.1 "$S/cuda.c" "$drv_needed" "" &&
        printf '#include "protocol.h"\n#include <cstdio>\nint main() { printf("%%zu", sizeof(Msg)); }\n' |
            g++ -std=c++17 -I harness -x c++ -o "$T/standin/msg-bytes" - && msg_bytes=$("$T/standin/msg-bytes") &&
        gcc -Wall -DMSG_BYTES="$msg_bytes" -o "$T/standin/startup" "$S/startup.c" && gcc -Wall -o "$T/standin/load" "$S/load.c" &&
        gcc -shared -fPIC -o "$T/standin/decoy.so" "$S/decoy.c"
}
check "stand-ins for the runner's libcudart.so.N and libcuda.so.1, with every function it imports" build_standins

# 3. what a grading user has around: their key, a classmate's workspace, the
# course's solutions, an agent's socket, a process with secrets in its
# environment; and what the student keeps in their own exercises/
mkdir -p "$T/home/.ssh" "$T/other/exercises" "$T/other/.build" "$T/course/solutions" "$T/arrived"
echo "-----BEGIN OPENSSH PRIVATE KEY----- (a fake key of tests/runner_box.sh)" >"$T/home/.ssh/id_rsa"
echo "// a classmate's ex01, their own work" >"$T/other/exercises/ex01_vector_add.cu"
cp "$T/standin/decoy.so" "$T/other/.build/reference-ex01.so"
cp solutions/ex01_vector_add.cu "$T/course/solutions/"
cp "$T/standin/decoy.so" "$T/ws/exercises/prebuilt.so"
libz_path=$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk '$1 == "libz.so.1" { print $NF; exit }')
[ -f "$libz_path" ] && cp "$(readlink -f "$libz_path")" "$T/ws/exercises/libmine.so"
chmod 600 "$T/home/.ssh/id_rsa"
chmod 700 "$T/home" "$T/home/.ssh"
chmod 755 "$T"  # the grading user lists where their files are (the sandbox's rules are made by listing)
chown -R "$PUID:$PGID" "$T/home" "$T/other" "$T/course" "$T/ws"
ABSTRACT=gpucourse-probe-$$
python3 "$S/listeners.py" "$T/arrived" "$T/agent/agent.sock" "$ABSTRACT" "$PUID" "$PGID" </dev/null >/dev/null \
    2>"$T/listeners.err" &
listener=$!
for _ in $(seq 100); do [ -e "$T/arrived/ports" ] && break; sleep 0.05; done
read -r TCP_PORT UDP4_PORT UDP6_PORT <"$T/arrived/ports" 2>/dev/null
# (a simple command, so that $! is the process itself)
if [ "$PUID" != "$(id -u)" ]; then
    setpriv --reuid="$PUID" --regid="$PGID" --clear-groups env -i SECRET_TOKEN=the-grading-users-secret sleep 600 \
        </dev/null >/dev/null 2>&1 &
else env -i SECRET_TOKEN=the-grading-users-secret sleep 600 </dev/null >/dev/null 2>&1 &
fi
victim=$!

# 4. the hostile library, where gpucourse put the student's
HOSTILE=$T/ws/.build/student-ex01.so
t_hostile() {
    [ -n "$TCP_PORT" ] || { echo "the listeners did not start"; cat "$T/listeners.err"; return 1; }
    gcc -Wall -shared -fPIC -pthread -o "$HOSTILE" "$S/hostile.c" -DDECOY_SO="\"$T/standin/decoy.so\"" \
        -DOWN_WS="\"$T/ws\"" -DOTHER_WS="\"$T/other\"" -DVICTIM_HOME="\"$T/home\"" -DCOURSE_DIR="\"$T/course\"" \
        -DTCP_PORT="$TCP_PORT" -DUDP4_PORT="$UDP4_PORT" -DUDP6_PORT="$UDP6_PORT" \
        -DUNIX_PATH="\"$T/agent/agent.sock\"" -DABSTRACT_NAME="\"$ABSTRACT\"" && chown "$PUID:$PGID" "$HOSTILE"
}
check "the hostile library (tests/standin/hostile.c) built as the student's ex01" t_hostile

# 5. the control: the same library loaded by a plain program (tests/standin/
# load.c), started the same way as the same user, without the sandbox. What
# gets through there and is blocked in the runner was blocked by the sandbox;
# a probe this machine refuses even here (no IPv6 loopback, TIOCSTI off for
# users: dev.tty.legacy_tiocsti=0) shows nothing and is skipped below, with
# the reason. Its other end must see every probe that got through.
chmod -R a+rX "$T/standin"
LD_LIBRARY_PATH=$T/standin "$T/standin/startup" "$T/standin/load" "$HOSTILE" "$PUID" "$PGID" 120 >"$T/control" 2>&1
sleep 0.2  # the listener logs what the last probes sent
cp "$T/arrived/arrived" "$T/control.arrived" 2>/dev/null
: >"$T/arrived/arrived"  # the listener appends: the runner's arrivals start here
for id in $(sed -n 's/.*shmid=\([0-9]*\).*/-m=\1/p; s/.*msqid=\([0-9]*\).*/-q=\1/p; s/.*semid=\([0-9]*\).*/-s=\1/p' "$T/control"); do
    ipcrm "${id%%=*}" "${id#*=}"
done
got_through() { grep -q "^probe $1: OPEN (" "$T/control"; }
t_control() {
    local missing='' p what
    grep -q '^probe ready: ' "$T/control" && grep -q '^probe done' "$T/control" ||
        { echo "the control did not run every probe:"; cat "$T/control"; return 1; }
    grep ': blocked (' "$T/control"  # shown: what this machine refuses
    for what in tcp-connect:"tcp 127.0.0.1: data: b'tcp-connect" tcp-fastopen:"tcp 127.0.0.1: data: b'tcp-fastopen" \
        mptcp-connect:"tcp 127.0.0.1: data: b'mptcp-connect" udp4-sendto:"udp 127.0.0.1: a datagram: b'udp4-sendto" \
        udp6-sendto:"udp [::1]: a datagram: b'udp6-sendto" \
        unix-path-connect:"unix $T/agent/agent.sock: data: b'unix-path-connect" \
        unix-abstract-connect:"unix @$ABSTRACT: data: b'unix-abstract-connect"; do
        p=${what%%:*}
        got_through "$p" && ! grep -qF "${what#*:}" "$T/control.arrived" 2>/dev/null &&
            missing="$missing; $p said OPEN, but the listener never got it"
    done
    if got_through tty-dev || got_through tty-fds; then
        grep -q '^tty: [0-9]* bytes pushed' "$T/control" || missing="$missing; the probes said OPEN: $(grep '^tty:' "$T/control")"
    fi
    [ -z "$missing" ] || { echo "${missing#; }"; return 1; }
}
CHECK_LINES=40 check "control: without the sandbox the probes get through, and the listeners and the terminal see them" t_control

# 6. run it. A probe that ends the runner (a sandbox that kills on a refused
# call) is blocked; the runner is started again without it, until all ran.
: >"$T/probes"
skip=
for _ in $(seq 40); do
    LD_LIBRARY_PATH=$T/standin "$T/standin/startup" "$RUNNER" "$HOSTILE" "$PUID" "$PGID" 120 "$skip" \
        >"$T/round" 2>&1
    cat "$T/round" >>"$T/probes"
    grep -q '^probe done' "$T/round" && break
    last=$(sed -n 's/^trying //p' "$T/round" | tail -1)
    [ -n "$last" ] || break  # the library was not even loaded: said below
    grep -q "^probe $last: " "$T/round" ||
        echo "probe $last: blocked (the runner ended at it: $(grep -m1 '^runner:' "$T/round"))" >>"$T/probes"
    skip=${skip:+$skip,}$last
done
sleep 0.2
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=
# the SysV objects the probes made, to be looked for (and removed at exit)
ipc_ids=$(sed -n 's/.*shmid=\([0-9]*\).*/-m=\1/p; s/.*msqid=\([0-9]*\).*/-q=\1/p; s/.*semid=\([0-9]*\).*/-s=\1/p' "$T/probes")

t_loaded() {
    grep -Eq '^ready: (full|partial)' "$T/probes" && grep -q "^probe ready: pid [0-9]* uid $PUID\$" "$T/probes" &&
        grep -q '^probe done' "$T/probes" || { head -c 4000 "$T/probes"; return 1; }
    grep -m1 '^ready:' "$T/probes"
}
check "the runner entered its sandbox and loaded the library as the student's (uid $PUID), every probe ran" t_loaded

# one check per probe: blocked, or the OPEN line with what it got; skipped
# where it got nothing even without the sandbox
probe_check() {
    local item=$1 probe=$2
    if ! got_through "$probe"; then
        local line
        line=$(grep -m1 "^probe $probe: " "$T/control" | cut -d: -f2-)
        n=$((n + 1))
        echo "ok $n - item $item: $probe blocked # SKIP refused here even without the sandbox:" \
            "${line:- no result in the control run}"
        return
    fi
    t_probe() {
        local line
        line=$(grep -m1 "^probe $probe: " "$T/probes") || { echo "probe $probe: no result"; return 1; }
        echo "$line"
        [ "${line#"probe $probe: blocked "}" != "$line" ]
    }
    CHECK_LINES=3 check "item $item: $probe blocked" t_probe
}
for p in tty-dev tty-fds; do probe_check 1 $p; done
t_tty() { grep -q '^tty: nothing pushed' "$T/probes" || { grep '^tty:' "$T/probes"; return 1; }; }
check "item 1: nothing pushed into the grading user's terminal" t_tty

for p in tcp-connect tcp-fastopen mptcp-connect udp4-sendto udp6-sendto unix-path-connect unix-abstract-connect; do
    probe_check 2 $p
done
t_arrived() { [ ! -s "$T/arrived/arrived" ] || { cat "$T/arrived/arrived"; return 1; }; }
check "item 2: nothing reached the listeners (TCP, UDP, unix path, abstract)" t_arrived

for p in read-ssh-key read-classmate-source dlopen-classmate-reference dlopen-own-reference dlopen-exercise-so \
    read-solutions read-proc-environ read-proc1-cmdline memfd-dlopen memfd-exec tmpfile; do
    probe_check 3 $p
done
probe_check 5 dlopen-renamed-syslib  # skipped (by the control) where there is no libz.so.1 to copy

for p in sysv-shm sysv-msg sysv-sem posix-mq renice-move sigio-owner threads shared-anon shared-devzero shared-fixed-outside shared-fixed-long; do
    probe_check 6 $p
done
probe_check 3 write-own-library
t_ipc() {
    local left=
    for id in $ipc_ids; do ipcs "${id%%=*}" -i "${id#*=}" >/dev/null 2>&1 && left="$left $id"; done
    # as the second user, anything of theirs at all
    [ "$PUID" != "$(id -u)" ] && ipcs -a 2>/dev/null | awk -v u="$USER_NAME" '$3 == u' | grep -q . &&
        left="$left (and of $USER_NAME: $(ipcs -a | awk -v u="$USER_NAME" '$3 == u { print $2 }' | tr '\n' ' '))"
    [ -z "$left" ] || { echo "SysV objects that outlived the runner:$left"; return 1; }
}
check "item 6: no SysV object outlived the runner" t_ipc

# what got through, together, for the report
if grep -q ': OPEN (' "$T/probes"; then
    echo "# OPEN probes:"
    grep ': OPEN (' "$T/probes" | sed 's/^/#   /'
fi
# 7. the runner's profile mode (gpucourse why --profile, grader/profile.h):
# under ncu the runner's allow-list gains ncu's injected libraries'
# directory (read) and the run's own lock directory (make files there), and
# nothing else; the same library without the sandbox (the control) gets
# everything it asks for, and the runner without --profile not even those
P=$T/prof LOCK=$T/prof/tmp/nvidia/nsight_compute
PROBE=$T/ws/.build/student-profile.so
run_as() { if [ "$PUID" != "$(id -u)" ]; then setpriv --reuid="$PUID" --regid="$PGID" --clear-groups "$@"; else "$@"; fi; }
reset_profile() {
    rm -rf "$P" && mkdir -p "$LOCK" "$P/ncu/target" "$P/ncu/other" "$P/outside" &&
        cp "$T/standin/decoy.so" "$P/ncu/target/libinjection.so" && echo secret >"$P/ncu/other/secret" &&
        echo victim >"$LOCK/victim" && chown -R "$PUID:$PGID" "$P"
}
profile_probes() { # OUT [--profile]: the probe library in the runner's diagnose mode (or the control)
    local out=$1 mode=$2
    reset_profile || return 1
    if [ "$mode" = control ]; then
        run_as env LD_LIBRARY_PATH="$T/standin" CUDA_INJECTION64_PATH="$P/ncu/target/libinjection.so" \
            "$T/standin/load" --student "$PROBE" >"$out" 2>&1
    else
        run_as env LD_LIBRARY_PATH="$T/standin" CUDA_INJECTION64_PATH="$P/ncu/target/libinjection.so" \
            timeout 60 "$RUNNER" --student "$PROBE" --diagnose 1000 --seed 1 $mode >"$out" 2>&1
    fi
    grep -q '^probe done' "$out" || { cat "$out"; return 1; }
}
t_profile_built() {
    gcc -Wall -shared -fPIC -o "$PROBE" "$S/profile_probe.c" -DLOCK_DIR="\"$LOCK\"" -DINJECT_DIR="\"$P/ncu/target\"" \
        -DSIBLING_DIR="\"$P/ncu/other\"" -DOUTSIDE="\"$P/outside\"" -DSSH_KEY="\"$T/home/.ssh/id_rsa\"" &&
        chown "$PUID:$PGID" "$PROBE" && profile_probes "$T/profile.control" control &&
        profile_probes "$T/profile.plain" "" && profile_probes "$T/profile.probes" "--profile $LOCK"
}
check "profile mode: the probe library (tests/standin/profile_probe.c) ran in the control and in the runner" \
    t_profile_built
t_profile_mode() {
    local p bad=
    for p in lock-file inject-read lock-parent outside-tmp lock-mkdir lock-unlink inject-sibling read-ssh-key; do
        grep -q "^probe $p: OPEN" "$T/profile.control" || bad="$bad; control: $(grep "^probe $p:" "$T/profile.control")"
    done
    for p in lock-file inject-read; do
        grep -q "^probe $p: OPEN" "$T/profile.probes" || bad="$bad; --profile: $(grep "^probe $p:" "$T/profile.probes")"
        grep -q "^probe $p: blocked" "$T/profile.plain" || bad="$bad; plain: $(grep "^probe $p:" "$T/profile.plain")"
    done
    for p in lock-parent outside-tmp lock-mkdir lock-unlink inject-sibling read-ssh-key; do
        grep -q "^probe $p: blocked" "$T/profile.probes" || bad="$bad; --profile: $(grep "^probe $p:" "$T/profile.probes")"
    done
    [ -f "$LOCK/victim" ] && [ ! -e "$P/tmp/nvidia/escape" ] && [ ! -e "$P/outside/escape" ] ||
        bad="$bad; files changed outside the lock directory"
    [ -z "$bad" ] || { echo "${bad#; }"; return 1; }
    grep '^probe' "$T/profile.probes"
}
CHECK_LINES=20 check "profile mode: ncu's lock directory and injected libraries' directory only, the rest of the box as before" \
    t_profile_mode

# 8. the early start (grader.c library_copy_take): the judge starts the
# student's runner while nvcc compiles, its sandbox naming a file that holds
# no library yet, and the grader then writes the library into that same
# file. The sandbox's rule holds the file (its inode), so a library put
# there as a new file, renamed over it as nvcc writes one, is refused: the
# copy must be filled in place.
EARLY=$T/ws/.build/student-ex01.run.so
early_start() { # HOW OUT
    rm -f "$EARLY" && : >"$EARLY" && chmod 644 "$EARLY" && chown "$PUID:$PGID" "$EARLY" &&
        STARTUP_FILL=$1:$T/standin/decoy.so LD_LIBRARY_PATH=$T/standin \
            "$T/standin/startup" "$RUNNER" "$EARLY" "$PUID" "$PGID" 60 >"$2" 2>&1
}
t_early() {
    early_start inplace "$T/early.inplace" && grep -q '^ready: full' "$T/early.inplace" ||
        { echo "filled in place:"; cat "$T/early.inplace"; return 1; }
    early_start rename "$T/early.rename" && grep -q "^fail: load: cannot load the student's code" "$T/early.rename" ||
        { echo "renamed over it:"; cat "$T/early.rename"; return 1; }
    grep -h '^ready\|^fail' "$T/early.inplace" "$T/early.rename"
}
check "early start: the runner confined before its library is there loads it when written into the file its sandbox named, not when renamed over it" t_early

[ -n "${RUNNER_BOX_KEEP:-}" ] && cp "$T/probes" "$RUNNER_BOX_KEEP" && cat "$T/profile.probes" "$T/profile.plain" >>"$RUNNER_BOX_KEEP"
echo "1..$n"
