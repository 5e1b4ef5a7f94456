#!/bin/bash
# Grading through a real Slurm (issue 26), on a single-node cluster that this
# test starts and stops (tests/slurm/cluster.sh: munged, slurmctld, slurmd on
# localhost, a partition gpu with a gres gpu that has no device behind it):
#   - the launcher: `grade` with GPUCOURSE_LAUNCHER="srun --gres=gpu:1 ..."
#     compiles here and runs the judge through srun; with no GPU on the node
#     (the toolkit's stub libcuda) the verdict and its JSON are a local run's;
#   - a launcher that starts no judge is a setup error that shows why;
#   - `class grade --slurm`: three workspaces as a job array, into a
#     gradebook.csv that Python's csv module reads, with the flags;
#   - `class grade --gpus 2` through the launcher: two judges at once.
# The cluster's self-test (tests/slurm/selftest.sh) runs first. Prints TAP.
# Skips, saying why, where Slurm cannot run (not root, packages missing).
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
GC=$ROOT/build/gpucourse
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || sed 's/^/# /' "$2" | head -40; }
skip_all() { echo "1..0 # SKIP $1"; echo "ok 1 - slurm # SKIP $1"; exit 0; }

[ "$(id -u)" = 0 ] || skip_all "slurmd must run as root to start jobs"
for c in slurmctld slurmd srun sbatch munged; do
    PATH=$PATH:/usr/sbin:/sbin command -v $c >/dev/null || skip_all "$c is missing (tools/deps.sh test installs slurm-wlm and munge)"
done
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
[ -f "$STUB" ] || skip_all "no $STUB: the judge needs a libcuda to start"

T=$(mktemp -d /tmp/gpucourse-slurm-XXXXXX)
T=$(cd "$T" && pwd -P)
C=$T/c
cleanup() { tests/slurm/cluster.sh stop "$C" >/dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if tests/slurm/selftest.sh >"$T/selftest" 2>&1; then ok "the test cluster's self-test"; else notok "the test cluster's self-test" "$T/selftest"; fi
if SLURM_TEST_MAX_ARRAY_SIZE=2 tests/slurm/cluster.sh start "$C" >"$T/start" 2>&1; then ok "a cluster starts"; else notok "a cluster starts" "$T/start"; exit 0; fi
. "$C/env"

# The node has no GPU driver: the toolkit's stub libcuda, which the judge
# loads and which answers "stub library", as on a node whose driver is gone.
mkdir -p "$T/cuda"
ln -s "$STUB" "$T/cuda/libcuda.so.1"
export LD_LIBRARY_PATH=$T/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPUCOURSE_COURSE=$ROOT XDG_CACHE_HOME=$T/cache
unset GPUCOURSE_LAUNCHER GPUCOURSE_NO_GPU

# a workspace with ex01's reference in it
ws() { GPUCOURSE_WORKSPACE=$1 "$GC" list >/dev/null && cp "$ROOT"/solutions/ex01_*.cu "$1/exercises/"; }
ws "$T/ws"

# the launcher: the same verdict and JSON as here, the judge having run in a job
GPUCOURSE_WORKSPACE=$T/ws "$GC" grade ex01 --format json >"$T/local.json" 2>"$T/local.err"
local_rc=$?
GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_LAUNCHER="srun --gres=gpu:1 --partition=gpu --time=5" \
    "$GC" grade ex01 --format json >"$T/srun.json" 2>"$T/srun.err"
srun_rc=$?
if [ $local_rc = 77 ] && [ $srun_rc = 77 ]; then ok "through srun, exit 77 as here"; else
    echo "# here $local_rc, through srun $srun_rc"; notok "through srun, exit 77 as here" "$T/srun.err"; fi
if python3 - "$T/local.json" "$T/srun.json" >"$T/cmp" 2>&1 <<'EOF'
import json, sys
here, there = (json.load(open(p))["results"][0] for p in sys.argv[1:3])
# what changes from run to run: times, the seed, the reason's words on why
# there is no GPU (here: the grader's probe; there: the judge's CUDA), and
# the output, where srun adds its line about the judge's exit code
vary = {"wall_seconds", "compile_seconds", "seed", "reason", "program_output", "trace"}
assert set(here) == set(there), set(here) ^ set(there)
for k in here:
    if k not in vary:
        assert here[k] == there[k], (k, here[k], there[k])
assert there["verdict"] == "skipped" and there["reason"].startswith("no GPU: "), there["reason"]
print("same keys and values:", ", ".join(sorted(set(here) - vary))[:200])
EOF
then ok "through srun, the JSON of a local run"; else notok "through srun, the JSON of a local run" "$T/cmp"; fi
grep -q "the launcher" "$T/srun.json" && notok "no launcher message on a run that worked" "$T/srun.json" || ok "no launcher message on a run that worked"

# the app in watch mode, in a real terminal (tmux): a save is graded through
# the launcher (a wrapper on the node notes the job), its card shown
if command -v tmux >/dev/null 2>&1; then
    cat >"$T/mark" <<EOF
#!/bin/sh
echo "job \$SLURM_JOB_ID" >>"$T/jobs"
exec "\$@"
EOF
    chmod +x "$T/mark"
    tm() { tmux -L "gpucourse-slurm-$$" -f /dev/null "$@"; }
    tm new-session -d -s t -x 100 -y 30 "GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_LAUNCHER='srun --gres=gpu:1 --partition=gpu --time=5 $T/mark' $GC watch ex01; sleep 60"
    shows() { # shows TEXT: the screen shows TEXT within 60 s
        i=600
        while [ $i -gt 0 ]; do tm capture-pane -t t -p >"$T/screen"; grep -qF -- "$1" "$T/screen" && return 0; sleep 0.1; i=$((i - 1)); done
        echo "the screen never showed: $1"; sed 's/^/|/' "$T/screen"; return 1
    }
    {
        shows "[watch]" && shows "ex01" && sleep 0.5 && echo "// saved" >>"$(ls "$T"/ws/exercises/ex01_*.cu)" &&
            shows "saved, graded ex01" && shows "SKIPPED: no GPU" && grep -q "^job [0-9]" "$T/jobs" &&
            tm send-keys -t t q && sleep 0.5
    } >"$T/tmux" 2>&1
    if [ $? = 0 ]; then ok "watch mode in a terminal: a save graded through srun"; else notok "watch mode in a terminal: a save graded through srun" "$T/tmux"; fi
    tm kill-server 2>/dev/null
else
    ok "watch mode in a terminal: a save graded through srun # SKIP tmux is not installed"
fi

# a launcher that runs no judge: a setup error that shows what srun said (its
# lines joined where the report broke them to fit 80 columns)
GPUCOURSE_WORKSPACE=$T/ws GPUCOURSE_LAUNCHER="srun --partition=nosuch --time=5" GPUCOURSE_LAUNCH_WAIT=60 \
    "$GC" grade ex01 >"$T/bad.out" 2>&1
rc=$?
if [ $rc = 65 ] && perl -0pe 's/\n {4,}(?=\S)/ /g' "$T/bad.out" | grep -q "the launcher (srun --partition=nosuch --time=5) ran no judge" &&
   grep -qi "partition" "$T/bad.out"; then ok "a bad partition: setup error (65) with srun's words"; else
    echo "# exit $rc"; notok "a bad partition: setup error (65) with srun's words" "$T/bad.out"; fi

# a class of three as a job array: alice has the reference, bob the same code
# respaced, carol the untouched stub
for s in alice bob carol; do ws "$T/class/$s"; done
GPUCOURSE_WORKSPACE=$T/class/carol "$GC" reset ex01 >/dev/null 2>&1
sed -i 's/;$/ ;/' "$T"/class/bob/exercises/ex01_*.cu
printf '# name  workspace\nalice alice\nbob   bob\ncarol carol\n' >"$T/class/roster.txt"
touch "$T/before-class"
GPUCOURSE_SBATCH="--gres=gpu:1 --partition=gpu --time=5" \
    "$GC" class grade "$T/class/roster.txt" ex01 --slurm --out "$T/grades" >"$T/class.out" 2>"$T/class.err"
rc=$?
if [ $rc = 77 ] && [ -f "$T/grades/class.sbatch" ] && grep -q "^no GPU: nothing was run; the Slurm tasks found none" "$T/class.out" && ls "$T"/grades/log/task-*.txt >/dev/null 2>&1; then
    ok "class grade --slurm ran a job array"; else echo "# exit $rc"; cat "$T/class.err" >>"$T/class.out"; notok "class grade --slurm ran a job array" "$T/class.out"; fi
if python3 - "$T/grades/gradebook.csv" >"$T/csv" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [r["student"] for r in rows] == ["alice", "bob", "carol"], rows
for r in rows:
    assert r["graded"] == "skipped" and r["ex01"] == "skipped" and r["ex01 vs_reference"] == "" and r["passed"] == "0", r
    assert float(r["ex01 seconds"]) > 0, r
assert "the same code as the reference solution" in rows[0]["flags"], rows[0]
assert "ex01: the same code as" in rows[1]["flags"], rows[1]
assert rows[2]["flags"] == "", rows[2]  # the stub is nobody's work
print("gradebook:", len(rows), "rows,", len(rows[0]), "columns")
EOF
then ok "the gradebook reads as CSV, with the flags"; else notok "the gradebook reads as CSV, with the flags" "$T/csv"; fi
for s in alice bob carol; do
    [ -s "$T/grades/$s.json" ] && [ -s "$T/grades/$s.xml" ] || { notok "per-student JSON and JUnit" "$T/class.err"; break; }
    [ $s = carol ] && ok "per-student JSON and JUnit"
done
grep -q "3 students" "$T/class.out" && ok "the summary" || notok "the summary" "$T/class.out"
grep -q "the cluster's MaxArraySize is 2: 2 arrays" "$T/class.err" && [ -s "$T/grades/log/task-0.txt" ] &&
    [ -s "$T/grades/log/task-2+0.txt" ] && ok "three students past MaxArraySize 2: two arrays, one after another" ||
    notok "three students past MaxArraySize 2: two arrays, one after another" "$T/class.err"
grep -q "^Slurm job [0-9][0-9]* (squeue -j [0-9]* shows its tasks)$" "$T/class.err" && ok "the job array named by its id" ||
    notok "the job array named by its id" "$T/class.err"
# the students' own files: never written by the class's grading
find "$T/class" -newer "$T/before-class" >"$T/changed"
if [ ! -s "$T/changed" ] && [ ! -e "$T/class/alice/progress.yaml" ]; then ok "students' workspaces untouched"; else
    notok "students' workspaces untouched" "$T/changed"; fi

# the class here, its judges through srun two at once (--gpus 2): the same gradebook
GPUCOURSE_LAUNCHER="srun --gres=gpu:1 --partition=gpu --time=5" \
    "$GC" class grade "$T/class/roster.txt" ex01 --gpus 2 --out "$T/grades2" >"$T/class2.out" 2>"$T/class2.err"
rc=$?
if [ $rc = 77 ] && grep -q "^3 gradings in [0-9.]* s, 2 at once on 2 GPUs" "$T/class2.err" &&
   grep -q "^no GPU: nothing was run; the launcher's jobs found none" "$T/class2.out" &&
   [ "$(cut -d, -f1-4 "$T/grades2/gradebook.csv")" = "$(cut -d, -f1-4 "$T/grades/gradebook.csv")" ]; then
    ok "class grade --gpus 2 through srun: two judges at once, the job array's gradebook"; else
    echo "# exit $rc"; cat "$T/class2.err" >>"$T/class2.out"
    notok "class grade --gpus 2 through srun: two judges at once, the job array's gradebook" "$T/class2.out"; fi
# row CSV NAME FIELD: the gradebook's FIELD for student NAME
row() {
    python3 -c 'import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
print(rows[sys.argv[2]][sys.argv[3]] if sys.argv[2] in rows else "NO ROW")' "$@"
}

# the roster frozen at submission: a directory of two, the job held while a
# workspace that sorts first (aaron) is added, then released; the tasks grade
# the two that were there, by the frozen copy
mkdir -p "$T/dir"
ws "$T/dir/alice" && ws "$T/dir/bob"
GPUCOURSE_SBATCH="--hold --gres=gpu:1 --partition=gpu --time=5" \
    "$GC" class grade "$T/dir" ex01 --slurm --out "$T/gfrozen" >"$T/frozen.out" 2>"$T/frozen.err" &
class_pid=$!
added=
for i in $(seq 600); do
    kill -0 $class_pid 2>/dev/null || break
    held=$(squeue -h -t PD -o %F 2>/dev/null | sort -u)
    if [ -n "$held" ]; then
        [ -n "$added" ] || { ws "$T/dir/aaron"; added=1; }
        for j in $held; do scontrol release "$j" >/dev/null 2>&1; done
    fi
    sleep 0.1
done
wait $class_pid
rc=$?
if [ $rc = 77 ] && [ -n "$added" ] && [ "$(row "$T/gfrozen/gradebook.csv" alice graded)" = skipped ] &&
   [ "$(row "$T/gfrozen/gradebook.csv" bob graded)" = skipped ] && [ "$(row "$T/gfrozen/gradebook.csv" aaron graded)" = "NO ROW" ] &&
   [ ! -e "$T/gfrozen/aaron.tsv" ] && grep -q "^2 students" "$T/frozen.out"; then
    ok "--slurm: the roster frozen at submission (a workspace added while queued is not graded, nobody is lost)"; else
    echo "# exit $rc, added: ${added:-no}"; cat "$T/frozen.err" >>"$T/frozen.out"
    notok "--slurm: the roster frozen at submission (a workspace added while queued is not graded, nobody is lost)" "$T/frozen.out"; fi

# a '%' in --out is a character, not one of sbatch's patterns (%j: the job id)
GPUCOURSE_SBATCH="--gres=gpu:1 --partition=gpu --time=5" \
    "$GC" class grade "$T/dir" ex01 --slurm --out "$T/g%j%a" >"$T/pct.out" 2>"$T/pct.err"
rc=$?
if [ $rc = 77 ] && [ -s "$T/g%j%a/log/task-0.txt" ] && [ "$(row "$T/g%j%a/gradebook.csv" aaron graded)" = skipped ] &&
   [ "$(row "$T/g%j%a/gradebook.csv" bob graded)" = skipped ]; then ok "--slurm --out with a '%': its logs and results there"; else
    echo "# exit $rc"; cat "$T/pct.err" >>"$T/pct.out"; notok "--slurm --out with a '%': its logs and results there" "$T/pct.out"; fi

# sbatch that fails: exit 65, the gradebook says nobody was graded
GPUCOURSE_SBATCH="--partition=nosuch --time=5" \
    "$GC" class grade "$T/class/roster.txt" ex01 --slurm --out "$T/gfail" >"$T/fail.out" 2>"$T/fail.err"
rc=$?
if [ $rc = 65 ] && grep -q "sbatch ended with exit code" "$T/fail.err" && [ "$(row "$T/gfail/gradebook.csv" alice graded)" = no ]; then
    ok "--slurm where sbatch fails: exit 65, the students not graded"; else
    echo "# exit $rc"; cat "$T/fail.err" >>"$T/fail.out"; notok "--slurm where sbatch fails: exit 65, the students not graded" "$T/fail.out"; fi
echo "1..$n"
