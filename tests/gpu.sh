#!/bin/sh
# The GPU tests (make test-gpu), run on an H100/H200. They print TAP and end
# with "N passed, N failed, N skipped"; without a GPU everything is skipped
# with the reason.
#
#  1. check-course: every reference passes its floors with margin, every stub fails
#  2. each solution in tests/gpu/ (a .cu, or a .patch: a reference with a small change, see
#     tests/fixture_source.sh) gets the verdict and exit code in its first line,
#     `// expect: CODE VERDICT ["TEXT"] -- why`: with "TEXT", the JSON result
#     (reason, program output) must contain TEXT too; a line `// env: NAME=VALUE` among the first
#     three sets those for its grade; a second line `// why: TEXT` runs
#     `gpucourse why` and its JSON must contain TEXT (the cause it names); after a fixture that
#     times out, the exercise's reference is graded again and must pass (the
#     GPU is usable after a hang)
#  3. the no-GPU path with GPUCOURSE_NO_GPU=1
#  4. the wall time of `gpucourse grade` once the harness is built
#  5. gpucourse bench: every reference against the same-run ceilings
#  6. grading through Slurm on this GPU: a single-node cluster (tests/slurm/cluster.sh, the GPU's
#     device files as its gres) started and stopped here; ex13's reference graded through srun
#     passes with the ratios of a grade here, and `class grade --slurm` grades two students in a
#     job array. Skipped, saying why, without root or Slurm; SLURM_TEST_PREFIX names a Slurm
#     packed by tests/slurm/bundle.sh on a machine where none can be installed.
#  7. gpucourse why ex35 --profile with ex34's naive SGEMM as the student's file (correct, too
#     slow: timed): the report it names exists, and `ncu --import REPORT --print-summary
#     per-kernel` lists the student's kernel (sgemm_naive) and the reference's
#     (sgemm_coalesced), each profiled in its sandboxed runner. Skipped, saying why, without ncu.
#
# GPU_TEST_PARTS='course fixtures wall bench slurm profile' (the default: all) runs only the
# parts named (1, 2-3, 4, 5, 6, 7), to fit a short GPU lease.
# GPU_TEST_ONLY='GLOB ...' runs only the tests/gpu/ solutions whose names
# match one of the globs (e.g. 'ex1[1-4]* ex20*'). GPU_TEST_CACHE=DIR starts the workspace's build cache
# from DIR (a workspace .build made by the same nvcc on another machine, with
# that machine's build records, $XDG_CACHE_HOME/gpucourse/builds/part-*,
# copied into DIR/.records: only a record of the grading user's marks a build
# as theirs, grader/libcache.h), so that a short GPU lease is not spent
# compiling harnesses. GPU_TEST_JOBS=N shares the fixtures
# among N copies of this script so that their compiles overlap (the grades still queue for the GPU).
cd "$(dirname "$0")/.." || exit 1
GC=$PWD/build/gpucourse
WS=$(mktemp -d /tmp/gpucourse-gpu-XXXXXX)
export GPUCOURSE_WORKSPACE=$WS GPUCOURSE_COURSE=$PWD
if [ -n "$GPU_TEST_CACHE" ]; then
    mkdir -p "$WS/.build" && cp -a "$GPU_TEST_CACHE/." "$WS/.build/"
    RECORDS=${XDG_CACHE_HOME:-$HOME/.cache}/gpucourse/builds
    if [ -d "$GPU_TEST_CACHE/.records" ]; then mkdir -p "$RECORDS" && cp -a "$GPU_TEST_CACHE/.records/." "$RECORDS/"; fi
    rm -rf "$WS/.build/.records"
fi
LOG=${GPU_TEST_LOG:-$WS/log}
n=0 pass=0 fail=0 skip=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

if ! "$GC" doctor >"$WS/doctor" 2>&1; then
    cat "$WS/doctor"
    echo "not ok 1 # SKIP no usable GPU: $(grep -m1 MISSING "$WS/doctor")"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
[ -n "$GPU_TEST_SHARE" ] || cat "$WS/doctor"
"$GC" list >/dev/null  # the workspace's exercise files, which the fixtures replace one at a time

# part NAME: NAME is one of the parts to run
part() { case " ${GPU_TEST_PARTS:-course fixtures wall bench slurm profile} " in *" $1 "*) return 0 ;; esac; return 1; }

if part course; then
echo "# check-course (compiles everything, grades every reference and stub)"
# written where the log goes as it runs: a lease that ends mid-way keeps what was checked
if "$GC" check-course >"$LOG.check-course" 2>&1; then ok "check-course"; else not_ok "check-course"; fi
sed 's/^/# /' "$LOG.check-course"
fi

# wanted NAME: NAME matches one of the space-separated globs of GPU_TEST_ONLY
wanted() {
    set -f
    for glob in ${GPU_TEST_ONLY:-*}; do
        case $1 in $glob) set +f; return 0 ;; esac
    done
    set +f
    return 1
}

# survivors NAME: pids of processes that grading NAME left behind: anything whose command line names this
# workspace's build directory (the judge harness-KIND, the runners runner-KIND and "--serve-trusted
# .../reference-EX.so", a fork of them) or the fixture's own name (a marker the attack fixtures put into what they
# start), or that still has a file of the build directory mapped (e.g. the student's library after its process
# renamed itself). Not this shell, not pgrep/grep themselves.
# This script and the processes that started it (whose command lines may name a fixture, as
# GPU_TEST_ONLY does) are not survivors.
ancestors=$(p=$$; while [ "${p:-0}" -gt 1 ]; do echo "$p"; p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null); done)
survivors() {
    {
        pgrep -f -- "$WS/[.]build/|$1" 2>/dev/null
        for maps in /proc/[0-9]*/maps; do
            grep -qsF "$WS/.build/" "$maps" && { pid=${maps#/proc/}; echo "${pid%/maps}"; }
        done
    } | sort -un | grep -vx -e '' $(printf -- '-e %s ' $ancestors) | tr '\n' ' ' | sed 's/ *$//'
}

# GPU_TEST_JOBS=N (N > 1): the fixtures are shared out among N copies of this script, each with a
# workspace of its own, so that their compiles overlap; their grades still take the GPU one at a
# time (the GPU lock), as a class's would. Their lines come back in order, numbered again.
jobs=${GPU_TEST_JOBS:-1}
if part fixtures && [ "$jobs" -gt 1 ]; then
    i=0
    for f in tests/gpu/*.cu tests/gpu/*.patch; do
        name=$(basename "$f"); name=${name%.*}
        wanted "$name" || continue
        echo "$name" >>"$WS/share.$((i % jobs))"
        i=$((i + 1))
    done
    j=0
    while [ $j -lt "$jobs" ]; do
        [ -f "$WS/share.$j" ] && GPU_TEST_PARTS=fixtures GPU_TEST_JOBS=1 GPU_TEST_SHARE=1 \
            GPU_TEST_ONLY="$(tr '\n' ' ' <"$WS/share.$j")" sh "$0" >"$WS/share.$j.tap" 2>&1 &
        j=$((j + 1))
    done
    wait
    for tap in "$WS"/share.*.tap; do
        while IFS= read -r line; do
            case $line in
            "ok "*) n=$((n + 1)); pass=$((pass + 1)); echo "ok $n ${line#ok [0-9]* }" ;;
            "not ok "*) n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n ${line#not ok [0-9]* }" ;;
            "1.."* | *" passed, "*) ;;
            *) echo "$line" ;;
            esac
        done <"$tap"
    done
fi

for f in tests/gpu/*.cu tests/gpu/*.patch; do
    part fixtures && [ "$jobs" = 1 ] || break
    name=$(basename "$f"); name=${name%.*}
    wanted "$name" || continue
    ex=${name%%_*}
    set -- $(sed -n '1s#^// expect: \([0-9]*\) \([a-z_]*\).*#\1 \2#p' "$f")
    want_code=$1 want_verdict=$2
    want_text=$(sed -n '1s#^// expect: [0-9]* [a-z_]* "\([^"]*\)".*#\1#p' "$f")
    target=$(ls "$WS/exercises/${ex}_"*.cu 2>/dev/null | head -1)
    if [ -z "$target" ] || ! tests/fixture_source.sh "$f" "$target" 2>"$WS/$name.src"; then  # else the stub would be graded
        not_ok "$name: no exercise file for $ex in the workspace, or the fixture does not apply"
        sed 's/^/# /' "$WS/$name.src"
        "$GC" reset "$ex" >/dev/null 2>&1
        continue
    fi
    # a line '// env: NAME=VALUE ...' among the first three: the grade runs with those set (e.g. a
    # feature still off by default while it is being proven)
    fixture_env=$(sed -n '1,3s#^// env: ##p' "$f")
    # shellcheck disable=SC2086  # NAME=VALUE words
    env $fixture_env "$GC" grade "$ex" --timeout 15 --format json >"$WS/$name.json" 2>"$WS/$name.err"
    code=$?
    verdict=$(sed -n 's/.*"verdict": "\([a-z_]*\)".*/\1/p' "$WS/$name.json" | head -1)
    ratios=$(grep -o '"vs_reference": [0-9.]*, "vs_baseline": [0-9.]*' "$WS/$name.json" | tr -d '"')
    if [ "$code" = "$want_code" ] && [ "$verdict" = "$want_verdict" ] &&
        { [ -z "$want_text" ] || grep -qF -- "$want_text" "$WS/$name.json"; }; then
        ok "$name: $verdict, exit $code${want_text:+, says \"$want_text\"}${ratios:+ ($ratios)}"
    else
        not_ok "$name: want $want_verdict/$want_code${want_text:+ saying \"$want_text\"}, got $verdict/$code"
        sed 's/^/# /' "$WS/$name.json" "$WS/$name.err" | head -40
    fi
    # a second line '// why: TEXT' (the rest of the line): gpucourse why's JSON names the cause (a finding's class, a picture's
    # pattern, a hint's lesson section)
    why_text=$(sed -n '2s#^// why: ##p' "$f")
    if [ -n "$why_text" ]; then
        "$GC" why "$ex" --timeout 15 --format json >"$WS/$name.why.json" 2>"$WS/$name.why.err"
        took=$(sed -n 's/.*"wall_seconds": \([0-9.]*\)}.*/\1/p' "$WS/$name.why.json" | tail -1)
        if grep -qF -- "$why_text" "$WS/$name.why.json"; then ok "$name: why says \"$why_text\" (diagnosis ${took:-?} s)"
        else not_ok "$name: why does not say \"$why_text\""; sed -n 's/.*"diagnosis": //p' "$WS/$name.why.json" | sed 's/^/# /' | head -20; fi
    fi
    if [ "$want_verdict" = timeout ]; then  # the next grade, on the same GPU, still passes
        cp solutions/"${target##*/}" "$target"
        "$GC" grade "$ex" --format json >"$WS/$name.after.json" 2>&1
        after=$?
        if [ $after = 0 ]; then ok "$name: the reference passes right after the hang"
        else not_ok "$name: the reference after the hang: exit $after"; sed 's/^/# /' "$WS/$name.after.json" | head -20; fi
    fi
    # containment: nothing of this grading may outlive it (gpucourse kills and reaps what the run left behind
    # before it returns; a process that is still exiting gets 3 s)
    left=$(survivors "$name")
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        [ -z "$left" ] && break
        sleep 0.2
        left=$(survivors "$name")
    done
    if [ -n "$left" ]; then
        not_ok "$name: processes survived grading: $left"
        ps -o pid,ppid,pgid,sid,stat,etime,args -p "$(echo $left | tr ' ' ',')" 2>&1 | sed 's/^/# /'
        kill -9 $left 2>/dev/null
    fi
    "$GC" reset "$ex" >/dev/null
done

if part fixtures && [ -z "$GPU_TEST_SHARE" ]; then
GPUCOURSE_NO_GPU=1 "$GC" grade ex01 >"$WS/nogpu" 2>&1
code=$?
if [ $code = 77 ] && grep -q "^SKIPPED ex01: no GPU" "$WS/nogpu"; then ok "no-GPU path: exit 77"; else not_ok "no-GPU path: exit $code"; cat "$WS/nogpu"; fi

fi

if part wall; then
echo "# wall time of 'gpucourse grade ex01' (reference as the student's file, harness built)"
cp solutions/ex01_vector_add.cu "$WS/exercises/ex01_vector_add.cu"
"$GC" grade ex01 >/dev/null 2>&1
times=""
for i in 1 2 3 4 5; do
    t0=$(date +%s.%N)
    "$GC" grade ex01 >"$WS/timed" 2>&1
    code=$?
    t1=$(date +%s.%N)
    times="$times $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")"
done
median=$(printf '%s\n' $times | sort -n | sed -n 3p)
echo "# grade ex01 wall times (s):$times; median $median"
if [ $code = 0 ]; then ok "grade ex01 with the reference passes (median wall $median s)"; else not_ok "grade ex01 with the reference: exit $code"; cat "$WS/timed"; fi
sed 's/^/# /' "$WS/timed"

fi

if part bench; then
echo "# bench: every reference against the same-run ceilings"
"$GC" bench >"$WS/bench" 2>&1
sed 's/^/# /' "$WS/bench"
cp "$WS/bench" "$LOG.bench" 2>/dev/null
fi

if part profile; then
echo "# why ex35 --profile: ex34's naive SGEMM as the student's file, beside ex35's reference"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu 2>/dev/null | tail -1)
if [ -z "$NCU" ]; then
    n=$((n + 1)); skip=$((skip + 1)); echo "ok $n - why --profile # SKIP no ncu on PATH or in /usr/local/cuda"
else
    cp solutions/ex34_sgemm_naive.cu "$WS/exercises/ex35_sgemm_coalesced.cu"
    t0=$(date +%s)
    "$GC" why ex35 --profile >"$WS/profile" 2>"$WS/profile.err"
    code=$?
    sed 's/^/# /' "$WS/profile" "$WS/profile.err" | tail -25
    report=$(sed -n 's|^ *\(/.*\.ncu-rep\)$|\1|p' "$WS/profile" | head -1)
    echo "# exit $code in $(($(date +%s) - t0)) s; report: ${report:-none}"
    if [ -n "$report" ] && [ -f "$report" ]; then
        "$NCU" --import "$report" --print-summary per-kernel >"$WS/summary" 2>&1
        grep -E 'sgemm_|Duration|Memory Throughput|Compute \(SM\) Throughput' "$WS/summary" | sed 's/^/# /' | head -20
        if grep -q sgemm_naive "$WS/summary" && grep -q sgemm_coalesced "$WS/summary" &&
            [ $code -ne 0 ] && [ $code -ne 65 ] && ! awk 'length > 80' "$WS/profile" | grep -q .; then
            ok "why ex35 --profile: the report lists the student's sgemm_naive and the reference's sgemm_coalesced"
        else
            not_ok "why ex35 --profile: the report lacks a kernel (exit $code)"
            sed 's/^/# /' "$WS/summary" | head -30
        fi
        cp "$report" "$LOG.ex35.ncu-rep" 2>/dev/null
    else
        not_ok "why ex35 --profile wrote no report (exit $code)"
    fi
fi
fi

# slurm_reason: why the Slurm part cannot run here, or nothing
slurm_reason() {
    [ "$(id -u)" = 0 ] || { echo "slurmd must run as root to start jobs"; return; }
    for c in slurmctld slurmd srun sbatch munged; do
        PATH=${SLURM_TEST_PREFIX:+$SLURM_TEST_PREFIX/bin:$SLURM_TEST_PREFIX/sbin:}$PATH:/usr/sbin:/sbin command -v $c >/dev/null ||
            { echo "$c is missing (tools/deps.sh test installs slurm-wlm and munge; SLURM_TEST_PREFIX for a packed one)"; return; }
    done
    ls /dev/nvidia[0-9]* >/dev/null 2>&1 || echo "no /dev/nvidia0 to give the cluster as its GPU"
}

# ratios FILE: "you/reference R, you/copy C" of each timed size in a grade's JSON
ratios() { sed "s/.*\"timed_sizes\"//" "$1" | grep -o '"vs_reference": [0-9.]*, "vs_baseline": [0-9.]*' | sed 's/"vs_reference": /you\/reference /; s/"vs_baseline": /you\/copy /' | tr '\n' ';'; }

if part slurm; then
why_not=$(slurm_reason)
if [ -n "$why_not" ]; then
    n=$((n + 1)); skip=$((skip + 1)); echo "ok $n - grading through Slurm # SKIP $why_not"
else
    SC=$(mktemp -d /tmp/gpucourse-cl-XXXXXX)  # short: the cluster's unix sockets live under it
    echo "# grading through Slurm: a cluster in $SC whose gres gpu is $(ls /dev/nvidia[0-9]* | tr '\n' ' ')"
    if SLURM_TEST_GPU_FILES="$(ls /dev/nvidia[0-9]* | tr '\n' ' ')" tests/slurm/cluster.sh start "$SC/c" >"$WS/cluster" 2>&1; then
        ok "a Slurm cluster with this GPU starts"
        (
            . "$SC/c/env"
            cp solutions/ex13_*.cu "$WS/exercises/"
            "$GC" grade ex13 --format json >"$WS/ex13.here.json" 2>&1
            here=$?
            GPUCOURSE_LAUNCHER="srun --gres=gpu:1 --partition=gpu --time=5" "$GC" grade ex13 --format json >"$WS/ex13.srun.json" 2>"$WS/ex13.srun.err"
            there=$?
            echo "# here:         exit $here: $(ratios "$WS/ex13.here.json")"
            echo "# through srun: exit $there: $(ratios "$WS/ex13.srun.json")"
            if [ $here = 0 ] && [ $there = 0 ] && grep -q '"verdict": "pass"' "$WS/ex13.srun.json"; then
                echo "ok"; else sed 's/^/# /' "$WS/ex13.srun.json" "$WS/ex13.srun.err" | head -30; echo "not ok"; fi
        ) >"$WS/slurm.grade"
        grep '^#' "$WS/slurm.grade"
        if [ "$(tail -1 "$WS/slurm.grade")" = ok ]; then ok "ex13's reference through srun on this GPU: passed"
        else not_ok "ex13's reference through srun on this GPU"; fi
        # a class of two: alice has the reference, bob the stub
        mkdir -p "$SC/class"
        for s in alice bob; do
            GPUCOURSE_WORKSPACE=$SC/class/$s "$GC" list >/dev/null
        done
        cp solutions/ex13_*.cu "$SC/class/alice/exercises/"
        printf 'alice alice\nbob bob\n' >"$SC/class/roster.txt"
        (. "$SC/c/env"; GPUCOURSE_SBATCH="--gres=gpu:1 --partition=gpu --time=10" \
            "$GC" class grade "$SC/class/roster.txt" ex13 --slurm --out "$SC/grades") >"$WS/class" 2>&1
        code=$?
        sed 's/^/# /' "$WS/class" | tail -8
        if grep -q '^"alice",1,yes,pass,' "$SC/grades/gradebook.csv" 2>/dev/null && grep -q '^"bob",0,yes,' "$SC/grades/gradebook.csv"; then
            ok "class grade --slurm on this GPU: alice's reference passed, bob's stub did not"
        else not_ok "class grade --slurm on this GPU (exit $code)"; sed 's/^/# /' "$SC/grades/gradebook.csv" 2>&1 | head; fi
    else
        not_ok "a Slurm cluster with this GPU starts"
        sed 's/^/# /' "$WS/cluster" | tail -30
    fi
    tests/slurm/cluster.sh stop "$SC/c" >/dev/null 2>&1
    rm -rf "$SC"
fi
fi

echo "1..$n"
rm -rf "$WS"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
