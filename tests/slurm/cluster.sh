#!/bin/bash
# A real single-node Slurm cluster on localhost, for tests: its own munged,
# slurmctld and slurmd, everything (key, configuration, state, spool, logs,
# pid files, sockets) under one directory the caller gives, ports of its own,
# so that a system Slurm or munge on the same machine is neither used nor
# touched.
#
#   tests/slurm/cluster.sh start DIR   DIR: a fresh, empty directory
#   tests/slurm/cluster.sh stop DIR
#
# After start (well under a second), `. DIR/env` (export SLURM_CONF=...)
# points srun, sbatch, squeue, scancel, scontrol and sinfo at this cluster.
# One node, this machine's short hostname at 127.0.0.1, in one partition
# `gpu` (the default, MaxTime 60 minutes), with a generic resource gpu:2 that
# has no real device behind it: `srun --gres=gpu:1 --partition=gpu --time=5
# CMD` runs without a GPU (with CUDA_VISIBLE_DEVICES=0 or 1). No accounting
# (no sacct); finished jobs leave squeue after 5 s. The daemons' logs are in
# DIR/log. stop ends this cluster's jobs and daemons and nothing else.
#
# Environment:
#   SLURM_TEST_CTLD_PORT, SLURM_TEST_SLURMD_PORT  ports (default: two free
#                                                 ones picked in 20000-29999)
#   SLURM_TEST_START_TIMEOUT  seconds start waits for the node to be idle (60)
#   SLURM_TEST_GPUS           how many (fake) GPUs the node has, 1-9 (2)
#   SLURM_TEST_GPU_FILES      the node's GPUs as device files instead, e.g.
#                             /dev/nvidia0 on a machine with one real GPU
#                             (space-separated; their number is the gpu count)
#   SLURM_TEST_MAX_ARRAY_SIZE the cluster's MaxArraySize (Slurm's default, 1001):
#                             a job array's indices are below it
#   SLURM_TEST_PREFIX         a Slurm and munge packed by tests/slurm/bundle.sh
#                             (for a machine where they cannot be installed):
#                             its bin and sbin go first in PATH, here and in
#                             DIR/env, its plugins are slurm.conf's PluginDir
#
# Needs root: slurmd starts each job's processes as the submitting user.
set -eu

usage() { echo "usage: tests/slurm/cluster.sh start|stop DIR" >&2; exit 64; }
[ $# = 2 ] || usage
cmd=$1
DIR=$2
# the daemons are in /usr/sbin, which a test's PATH may lack
PATH=$PATH:/usr/sbin:/sbin
PREFIX=${SLURM_TEST_PREFIX:-}
if [ -n "$PREFIX" ]; then
    PREFIX=$(cd "$PREFIX" && pwd -P) || exit 1
    PATH=$PREFIX/bin:$PREFIX/sbin:$PATH
fi

# tail_logs: what the daemons said, for a start that failed
tail_logs() {
    local f
    for f in "$DIR"/log/munged.log "$DIR"/log/slurmctld.log "$DIR"/log/slurmd.log "$DIR"/log/*.out; do
        [ -s "$f" ] || continue
        echo "--- tail of $f" >&2
        tail -n 30 "$f" >&2
    done
}

fail() {
    echo "tests/slurm/cluster.sh: $*" >&2
    exit 1
}

# start_failed: on start's exit other than success (fail, or set -e): the
# logs, and what it started stopped, so that nothing is left running
start_failed() {
    local rc=$?
    set +e
    [ $rc = 0 ] && return
    tail_logs
    stop
    exit $rc
}

# listening PORT: a TCP socket listens on PORT (state 0A in /proc/net/tcp*;
# read there rather than connected to, which slurmctld would log as an error)
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }'
}

# pick_port AVOID: a free port in 20000-29999 other than AVOID; random, so
# that two clusters started at once (parallel tests) rarely pick the same
pick_port() {
    local p i
    for i in $(seq 50); do
        p=$((20000 + RANDOM % 10000))
        [ "$p" != "$1" ] && ! listening "$p" && { echo "$p"; return 0; }
    done
    return 1
}

# ours PID: PID is alive (not a zombie) and was started by this cluster's
# start: every daemon it starts, and the slurmstepd slurmd starts, carries
# SLURM_TEST_CLUSTER=DIR in its environment. A stale pid file whose pid now
# belongs to someone else (a system slurmd, say) is thus left alone.
ours() {
    local st
    st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] || return 1
    tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | grep -qxF "SLURM_TEST_CLUSTER=$DIR"
}

# end PID...: SIGTERM, up to 10 s to exit, then SIGKILL
end() {
    local pid i left
    for pid; do kill -TERM "$pid" 2>/dev/null || true; done
    for i in $(seq 100); do
        left=
        for pid; do ! ours "$pid" || left="$left $pid"; done
        [ -n "$left" ] || return 0
        sleep 0.1
    done
    for pid in $left; do kill -KILL "$pid" 2>/dev/null || true; done
    sleep 0.2
}

# stop_pid NAME: end the daemon whose pid is in DIR/run/NAME.pid, if ours
stop_pid() {
    local f=$DIR/run/$1.pid pid
    [ -s "$f" ] || return 0
    pid=$(cat "$f")
    case $pid in '' | *[!0-9]*) ;; *) ! ours "$pid" || end "$pid" ;; esac
    rm -f "$f"
}

# stepds: pids of this cluster's slurmstepd processes (they outlive slurmd)
stepds() {
    local d
    for d in /proc/[0-9]*; do
        [ "$(cat "$d/comm" 2>/dev/null)" = slurmstepd ] && ours "${d#/proc/}" && echo "${d#/proc/}"
    done
    return 0
}

stop() {
    [ -d "$DIR" ] || { echo "tests/slurm/cluster.sh: no directory $DIR" >&2; exit 1; }
    DIR=$(cd "$DIR" && pwd -P)
    local pids i
    # cancel what still runs, so that the steps end their processes
    if [ -s "$DIR/run/slurmctld.pid" ] && ours "$(cat "$DIR/run/slurmctld.pid")"; then
        SLURM_CONF=$DIR/slurm.conf timeout 10 scancel --partition=gpu 2>/dev/null || true
        for i in $(seq 50); do  # KillWait=2: they end within a few seconds
            [ -z "$(stepds)" ] && break
            sleep 0.1
        done
    fi
    stop_pid slurmd
    stop_pid slurmctld
    stop_pid munged
    # whatever step survived the cancellation
    pids=$(stepds)
    [ -z "$pids" ] || end $pids
}

start() {
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd -P)
    [ -z "$(ls -A "$DIR")" ] || fail "$DIR is not empty (start wants a fresh directory)"
    # slurm.conf has no quoting for a path with spaces; unix socket paths
    # (munge's, and slurmd's per step in spool/) hold at most 107 bytes
    case $DIR in *[[:space:]]* | *,* | *=*) fail "unusable directory name: $DIR" ;; esac
    local user host cpus gpus ctld_port slurmd_port p
    host=$(hostname -s)
    # DIR/spool/HOST_JOB.STEP: room for job and step ids
    [ $((${#DIR} + ${#host} + 30)) -le 107 ] || fail "directory path too long for unix sockets: $DIR"
    for p in munged mungekey slurmctld slurmd sinfo srun; do
        command -v $p >/dev/null || fail "$p not found (tools/deps.sh test installs slurm-wlm and munge)"
    done
    [ "$(id -u)" = 0 ] || fail "needs root: slurmd starts jobs as the submitting user"

    user=$(id -un)
    cpus=$(nproc)
    gpus=${SLURM_TEST_GPUS:-2}
    case $gpus in [1-9]) ;; *) fail "SLURM_TEST_GPUS must be 1 to 9, not $gpus" ;; esac
    local files=${SLURM_TEST_GPU_FILES:-} f
    if [ -n "$files" ]; then
        gpus=0
        for f in $files; do
            [ -e "$f" ] || fail "SLURM_TEST_GPU_FILES: no $f"
            gpus=$((gpus + 1))
        done
    fi
    ctld_port=${SLURM_TEST_CTLD_PORT:-$(pick_port 0)} || fail "no free port for slurmctld"
    slurmd_port=${SLURM_TEST_SLURMD_PORT:-$(pick_port "$ctld_port")} || fail "no free port for slurmd"
    for p in "$ctld_port" "$slurmd_port"; do
        case $p in '' | 0* | *[!0-9]*) fail "not a port: $p" ;; esac
        [ "$p" -le 65535 ] || fail "not a port: $p"
        ! listening "$p" || fail "port $p is in use"
    done
    [ "$ctld_port" != "$slurmd_port" ] || fail "slurmctld and slurmd need two ports, not $p twice"

    # from here on, a failure stops what was started
    trap start_failed EXIT

    # munged checks that no one else may write where its key and socket are;
    # others may reach the socket (x), as on a system munge
    chmod 0711 "$DIR"
    mkdir -m 0711 "$DIR/munge"
    mkdir -m 0700 "$DIR/run" "$DIR/log" "$DIR/state" "$DIR/spool" "$DIR/dev"
    # what stop looks for to know a process is this cluster's
    export SLURM_TEST_CLUSTER=$DIR

    mungekey --create --keyfile="$DIR/munge/munge.key" || fail "mungekey failed"
    chmod 0400 "$DIR/munge/munge.key"
    # --force: permissions munged deems insecure on the directories above
    # DIR (a group-writable TMPDIR, say) are warnings, not errors, for a
    # throwaway key
    munged --force --socket="$DIR/munge/munge.socket.2" --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munged.seed" >"$DIR/log/munged.out" 2>&1 ||
        fail "munged did not start"

    cat >"$DIR/slurm.conf" <<EOF
# written by tests/slurm/cluster.sh: a throwaway cluster under $DIR
ClusterName=gpucourse-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=root
# munge through our munged's socket, not the system one
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no systemd, no cgroups in a container: plain /proc process tracking
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
# a node that slurmd finds smaller or larger than this is taken as configured
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
${PREFIX:+PluginDir=$PREFIX/lib/slurm-wlm}
# quick cancellation: SIGKILL 2 s after SIGTERM (default 30)
KillWait=2
InactiveLimit=0
# finished jobs leave the queue after 5 s; below 6, sbatch --wait polls
# every 2 s instead of backing off to 8 s (10 s for a 1 s job)
MinJobAge=5
# batch jobs start at once, not on the next 3 s tick (batch_sched_delay)
SchedulerParameters=batch_sched_delay=0
MaxArraySize=${SLURM_TEST_MAX_ARRAY_SIZE:-1001}
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 Gres=gpu:$gpus State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=60 State=UP
EOF
    # Slurm 22.05 drops a gres/gpu without a File ("Removing file-less GPU"
    # in slurmd's log; the node then registers with gpu:0 and is INVALID),
    # so each fake GPU is a link to /dev/null: nothing opens it, and
    # task/none binds no device. Jobs get CUDA_VISIBLE_DEVICES=<index>.
    local i
    if [ -z "$files" ]; then
        for i in $(seq 0 $((gpus - 1))); do ln -s /dev/null "$DIR/dev/nvidia$i"; done
        files=$(printf "$DIR/dev/nvidia%s " $(seq 0 $((gpus - 1))))
    fi
    # No cgroup is used (proctrack/linuxproc, task/none), but slurmd 22.05
    # starts a cgroup plugin all the same: cgroup/v2's start wants systemd's
    # dbus or a cgroup2 tree of its own, which a container lacks ("cannot
    # initialize cgroup directory for stepds"); cgroup/v1's touches nothing.
    echo "CgroupPlugin=cgroup/v1" >"$DIR/cgroup.conf"
    {
        echo "AutoDetect=off"
        for f in $files; do echo "NodeName=$host Name=gpu File=$f"; done
    } >"$DIR/gres.conf"
    {
        echo "export SLURM_CONF=$DIR/slurm.conf"
        [ -z "$PREFIX" ] || echo "export PATH=$PREFIX/bin:$PREFIX/sbin:\$PATH"
    } >"$DIR/env"
    export SLURM_CONF=$DIR/slurm.conf

    local timeout=${SLURM_TEST_START_TIMEOUT:-60} t0=$SECONDS state=
    slurmctld >"$DIR/log/slurmctld.out" 2>&1 || fail "slurmctld did not start"
    # slurmd once slurmctld listens: a slurmd or client that finds no one
    # there waits a second or more to try again
    while ! listening "$ctld_port"; do
        [ $((SECONDS - t0)) -lt "$timeout" ] || fail "slurmctld not listening on port $ctld_port after ${timeout}s"
        sleep 0.05
    done
    slurmd ${PREFIX:+-d "$PREFIX/sbin/slurmstepd"} >"$DIR/log/slurmd.out" 2>&1 || fail "slurmd did not start"

    # wait until the node is idle: slurmd registered, jobs can start
    while [ $((SECONDS - t0)) -lt "$timeout" ]; do
        state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
        [ "$state" != idle ] || { trap - EXIT; return 0; }
        sleep 0.2
    done
    fail "node $host not idle after ${timeout}s (state: ${state:-none})"
}

case $cmd in
start) start ;;
stop) stop ;;
*) usage ;;
esac
