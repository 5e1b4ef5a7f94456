#!/bin/sh
# Gradings spread over the GPUs of one host, tested without a GPU: fake GPU
# ids (GPUCOURSE_FAKE_GPUS) stand in for the driver's, the judges run for
# real with CUDA's stub driver (each says it found no GPU, naming the one it
# was pointed at), and the GPUs' locks are real files that this test holds
# (flock) to play the other gradings of a shared machine.
#   - grade with several exercises runs one grading per GPU at once, each
#     judge on its own GPU (CUDA_VISIBLE_DEVICES), reports in course order,
#     the same verdicts as one at a time, the throughput said;
#   - a GPU another grading holds is passed over, and all held is a wait
#     that ends at GPUCOURSE_GPU_WAIT with a setup error naming them all;
#   - --gpus N|all and its errors; one GPU is pointed at nothing;
#   - class grade: the students at once, the gradebook whole;
#   - Ctrl-C and kill -9 in the middle leave nothing running.
. tests/lib.sh gpus
unset GPUCOURSE_NO_GPU GPUCOURSE_LAUNCHER
STUB=/usr/local/cuda/lib64/stubs/libcuda.so
[ -f "$STUB" ] || STUB=$(dirname "$(command -v nvcc)")/../lib64/stubs/libcuda.so
if [ ! -f "$STUB" ]; then echo "1..0 # SKIP no stub libcuda.so in the toolkit"; exit 0; fi
mkdir -p "$T/cuda" "$T/locks"
ln -s "$STUB" "$T/cuda/libcuda.so.1"
export LD_LIBRARY_PATH=$T/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUCOURSE_LOCK_DIR=$T/locks
TWO=GPU-fake-a,GPU-fake-b
# another grading that holds GPU $1's lock until killed ($! after it), as gpucourse does: its file
# exclusive, the directory shared; back once it holds it
hold() {
    rm -f "$T/held-$1"
    python3 -c 'import fcntl, os, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX)
d = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY); fcntl.flock(d, fcntl.LOCK_SH)
open(sys.argv[2], "w").close(); time.sleep(60)' \
        "$T/locks/gpucourse-gpu-$1.lock" "$T/held-$1" &
    for i in $(seq 100); do [ -e "$T/held-$1" ] && return 0; sleep 0.05; done
}
"$GC" list >/dev/null
cp solutions/ex01_*.cu "$T/ws/exercises/"
echo "1..18"

# the GPU each result ran on, and its verdict: "ex01 skipped GPU-fake-a ..."
results() {
    python3 - "$T/got" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["results"]:
    named = r["reason"].split("CUDA_VISIBLE_DEVICES=")[1].split(")")[0] if "CUDA_VISIBLE_DEVICES=" in r["reason"] else "-"
    assert named == "-" or r["gpu"] == named, (r["gpu"], named)
    print(r["id"], r["verdict"], r["gpu"], named)
EOF
}

t_spread() {
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 --format json || return 1
    results >"$T/r" || return 1
    cat "$T/r"
    # each judge pointed at one of the GPUs, and said so when it found none
    [ "$(grep -c ' skipped GPU-fake-[ab] GPU-fake-[ab]$' "$T/r")" = 2 ] && [ "$(cut -d' ' -f1 "$T/r" | tr '\n' ' ')" = "ex01 ex03 " ]
}
check "grade ex01 ex03 on two GPUs: each judge pointed at one (CUDA_VISIBLE_DEVICES), in course order" t_spread

t_text() {
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 || return 1
    has "^2 gradings in [0-9.]* s, 2 at once on 2 GPUs: [0-9.]* a minute$" && [ "$(tail -1 "$T/got")" = "0 passed, 0 failed, 2 skipped" ] &&
        [ "$(grep '^SKIPPED ex0' "$T/got" | cut -d: -f1 | tr '\n' ' ')" = "SKIPPED ex01 SKIPPED ex03 " ]
}
check "text: the reports in course order, the throughput, the totals last" t_text

t_one_at_a_time() {
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 --gpus 1 || return 1
    has "^2 gradings in [0-9.]* s, one at a time on 2 GPUs" && GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 --gpus 2 &&
        has "2 at once on 2 GPUs" && GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 --gpus 8 &&
        has "2 at once on 2 GPUs" && has_err "gpucourse: --gpus 8: this machine has 2 GPUs; grading on 2 at once"
}
check "--gpus 1: one at a time; --gpus 8 on 2 GPUs: said, and 2" t_one_at_a_time

t_busy_one() { # another grading holds GPU a: every grading goes to b, at once
    hold GPU-fake-a
    holder=$!
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 ex03 --format json
    rc=$?
    kill $holder; wait $holder 2>/dev/null
    # the one wait there may be: for b, while the other of the two has it (said, as every wait is)
    [ $rc = 0 ] && results >"$T/r" && cat "$T/r" && [ "$(grep -c ' skipped GPU-fake-b GPU-fake-b$' "$T/r")" = 2 ] &&
        ! grep "waiting" "$T/goterr" | grep -v "all busy (GPU-fake-a: another grading run; GPU-fake-b: pid [0-9]* of uid [0-9]* grading ex0[13])"
}
check "a GPU another grading holds is passed over" t_busy_one

t_all_busy() { # both held: a wait, said, that ends at its bound with a setup error naming both
    hold GPU-fake-a
    a=$!
    hold GPU-fake-b
    b=$!
    GPUCOURSE_FAKE_GPUS=$TWO GPUCOURSE_GPU_WAIT=1 code_is 65 "$GC" grade ex01
    rc=$?
    kill $a $b; wait $a $b 2>/dev/null
    [ $rc = 0 ] && has "all 2 GPUs stayed busy with other gradings for 1 s"
}
check "all GPUs held: waits GPUCOURSE_GPU_WAIT, then a setup error naming them" t_all_busy

t_witnessed_alone() { # a witnessed exercise (ex23: tensor cores) has the machine to itself (grader/gpulock.h)
    cp solutions/ex23_*.cu "$T/ws/exercises/"
    hold GPU-fake-a # a grading on GPU a: b is free, and still the witnessed one waits for it
    a=$!
    GPUCOURSE_FAKE_GPUS=$TWO GPUCOURSE_GPU_WAIT=1 code_is 65 "$GC" grade ex23
    rc=$?
    kill $a; wait $a 2>/dev/null
    [ $rc = 0 ] && has "this machine stayed busy with other gradings for 1 s" &&
        has_err "ex23: waiting for the other gradings on this machine to end: ex23 is graded with the judge.s own counters" || return 1
    # a witnessed grading that holds the machine: a plain one waits, though both GPUs are free
    python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); f.write("pid 42 of uid 7 grading ex33\n"); f.flush()
open(sys.argv[2], "w").close(); time.sleep(60)' "$T/locks/gpucourse-machine.lock" "$T/held-machine" &
    m=$!
    for i in $(seq 100); do [ -e "$T/held-machine" ] && break; sleep 0.05; done
    GPUCOURSE_FAKE_GPUS=$TWO GPUCOURSE_GPU_WAIT=1 code_is 65 "$GC" grade ex01
    rc=$?
    kill $m; wait $m 2>/dev/null
    [ $rc = 0 ] && has_err "waiting: pid 42 of uid 7 grading ex33 has this machine to itself" || return 1
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex23 # all free: at once
}
check "a witnessed exercise waits for every grading on the machine, and every grading waits for it" t_witnessed_alone

t_one_gpu() { # one GPU: its judge is pointed at nothing (it sees that one as device 0)
    GPUCOURSE_FAKE_GPUS=GPU-fake-a code_is 77 "$GC" grade ex01 ex03 --format json || return 1
    results >"$T/r" && cat "$T/r" && [ "$(grep -c ' skipped GPU-fake-a -$' "$T/r")" = 2 ]
}
check "one GPU: no CUDA_VISIBLE_DEVICES of ours, one at a time" t_one_gpu

t_gpus_usage() {
    for bad in 0 -1 two 65 ""; do
        code_is 64 "$GC" grade ex01 ex03 --gpus "$bad" || return 1
        has_err "gpus takes how many GPUs to grade on at once (1 to 64) or all" || return 1
    done
    code_is 64 "$GC" list --gpus 2 && has_err "gpus goes with grade, class grade and check-course" &&
        GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" grade ex01 --gpus all
}
check "--gpus: a number 1 to 64 or all, with grade, class grade and check-course only" t_gpus_usage

t_no_gpu() { # no GPU at all: as before, compiled and skipped, one at a time
    GPUCOURSE_NO_GPU=1 code_is 77 "$GC" grade ex01 ex03 || return 1
    has "^2 gradings in [0-9.]* s: [0-9.]* a minute$" && has "no GPU: GPUCOURSE_NO_GPU is set"
}
check "no GPU: skipped, no GPUs named in the throughput" t_no_gpu

t_same_verdicts() { # the verdicts of a parallel run are those of a serial one
    printf 'int broken(\n' >"$T/ws/exercises/$(basename solutions/ex02_*.cu)"
    GPUCOURSE_FAKE_GPUS=$TWO code_is 3 "$GC" grade ex01 ex02 ex03 --format json && results >"$T/par" &&
        GPUCOURSE_FAKE_GPUS=$TWO code_is 3 "$GC" grade ex01 ex02 ex03 --format json --gpus 1 && results >"$T/ser" &&
        cut -d' ' -f1,2 "$T/par" >"$T/par2" && cut -d' ' -f1,2 "$T/ser" >"$T/ser2" && cat "$T/par2" &&
        cmp "$T/par2" "$T/ser2" && grep -q '^ex02 compile_error' "$T/par2"
}
check "three at once and one at a time: the same verdicts, the compile error in its place" t_same_verdicts

# a class of three, ex01 each
for s in alice bob carol; do
    mkdir -p "$T/class/$s/exercises"
    cp "$T/ws/exercises/"ex01_*.cu "$T/class/$s/exercises/"
done
t_class() {
    GPUCOURSE_FAKE_GPUS=$TWO code_is 77 "$GC" class grade "$T/class" ex01 --out "$T/grades" || return 1
    has_err "^3 gradings in [0-9.]* s, 2 at once on 2 GPUs" && [ "$(grep -c '^"[a-z]*",0,skipped,skipped,,' "$T/grades/gradebook.csv")" = 3 ] &&
        for s in alice bob carol; do python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["gpu"] in ("GPU-fake-a","GPU-fake-b"), r["gpu"]' "$T/grades/$s.json" || return 1; done
}
check "class grade: three students on two GPUs at once, every row in the gradebook" t_class

t_class_slurm_throttle() { # --slurm --gpus 2: the array runs at most 2 tasks at once
    mkdir -p "$T/bin"
    printf '#!/bin/sh\nprintf "%%s\\n" "$@" > %s/sbatch.args\necho 7\n' "$T" >"$T/bin/sbatch"
    chmod +x "$T/bin/sbatch"
    PATH=$T/bin:$PATH "$GC" class grade "$T/class" ex01 --out "$T/grades2" --slurm --gpus 2 >/dev/null 2>&1
    grep -qx -- "--array=0-2%2" "$T/sbatch.args" || { cat "$T/sbatch.args"; return 1; }
}
check "class grade --slurm --gpus 2: the array's throttle" t_class_slurm_throttle

# Ctrl-C and kill -9 while two gradings compile at once, their files stuck
# in an #include of a pipe nobody writes: their compilers wait until stopped
mkfifo "$T/ws/exercises/fifo" # the exercise directory: the one of the student's that the compiler may read
stuck() {
    for f in "$T"/ws/exercises/ex0[13]_*.cu; do printf '#include "%s"\n' "$T/ws/exercises/fifo" >"$f"; done
}
t_ctrl_c() {
    stuck
    cp "$T/ws/progress.yaml" "$T/progress.before"
    GPUCOURSE_FAKE_GPUS=$TWO "$GC" grade ex01 ex03 >"$T/got" 2>"$T/goterr" &
    pid=$!
    for i in $(seq 50); do [ "$(pgrep -f "$T/ws/.build" | wc -l)" -ge 2 ] && break; sleep 0.2; done
    kill -INT $pid
    wait $pid
    rc=$?
    sleep 0.5
    [ $rc = 130 ] || { echo "exit $rc"; cat "$T/got"; return 1; }
    has "interrupted" && cmp "$T/progress.before" "$T/ws/progress.yaml" && [ "$(pgrep -f "$T/ws" | wc -l)" = 0 ]
}
check "Ctrl-C mid-way: exit 130, nothing recorded, nothing left running" t_ctrl_c

# The judge started beside nvcc (the harness built, a GPU free): its context
# never ends here (tests/standin/slowctx.c, preloaded), so that a compile
# error, or Ctrl-C during the compile, finds it starting. It is stopped at
# once: the compile error said as always, nothing left, the GPU's lock free.
gcc -shared -fPIC -o "$T/ws/exercises/slowctx.so" tests/standin/slowctx.c # where the compiler's box may read it
lock_free() { python3 -c 'import fcntl, glob, sys
for p in glob.glob(sys.argv[1] + "/gpucourse-gpu-*.lock"): fcntl.flock(open(p, "a"), fcntl.LOCK_EX | fcntl.LOCK_NB)' "$T/locks"; }
early() { rm -f "$T/mark"; SLOWCTX_MARK=$T/mark LD_PRELOAD=$T/ws/exercises/slowctx.so GPUCOURSE_FAKE_GPUS=GPU-fake-a "$@"; }
t_early_compile_error() {
    cp solutions/ex01_*.cu "$T/ws/exercises/" && "$GC" grade ex01 >/dev/null 2>&1 # the harness built
    printf 'this is not C++\n' >>"$T/ws/exercises/ex01_vector_add.cu"
    start=$(date +%s)
    early "$GC" grade ex01 >"$T/got" 2>&1
    rc=$?
    [ $rc = 3 ] && has "nvcc could not compile" && [ -e "$T/mark" ] && [ $(($(date +%s) - start)) -lt 30 ] &&
        [ "$(pgrep -f "$T/ws/.build" | wc -l)" = 0 ] && lock_free || { echo "exit $rc"; cat "$T/got"; return 1; }
}
check "a compile error while the judge starts beside nvcc: said as always, the judge stopped, the lock free" t_early_compile_error
t_early_ctrl_c() {
    stuck
    rm -f "$T/mark"
    # (not through early(): the Ctrl-C is for gpucourse itself)
    SLOWCTX_MARK=$T/mark LD_PRELOAD=$T/ws/exercises/slowctx.so GPUCOURSE_FAKE_GPUS=GPU-fake-a "$GC" grade ex01 >"$T/got" 2>&1 &
    pid=$!
    for i in $(seq 100); do [ -e "$T/mark" ] && break; sleep 0.2; done
    sleep 1 # nvcc stuck on the pipe
    [ -e "$T/mark" ] || { echo "the judge did not start beside nvcc"; kill -INT $pid; wait $pid; return 1; }
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc = 130 ] && has "interrupted" && [ "$(pgrep -f "$T/ws" | wc -l)" = 0 ] && lock_free ||
        { echo "exit $rc"; cat "$T/got"; pgrep -af "$T/ws"; return 1; }
}
check "Ctrl-C while nvcc compiles and the judge starts beside it: exit 130, nothing left, the lock free" t_early_ctrl_c

# The student's runner of a judge started beside nvcc loads the grader's copy
# of the library (grader.c library_copy_take), filled in place before the go:
# here the judge finds no GPU after that. A second grading of the same file
# while one holds the copy starts its judge after nvcc.
t_early_copy() {
    cp solutions/ex01_*.cu "$T/ws/exercises/" && echo "// an edit" >>"$T/ws/exercises/ex01_vector_add.cu"
    GPUCOURSE_FAKE_GPUS=GPU-fake-a code_is 77 "$GC" grade ex01 --trace || return 1
    grep -q "the judge started beside it" "$T/goterr" || { echo "no judge beside nvcc:"; cat "$T/goterr"; return 1; }
    cmp "$T/ws/.build/student-ex01.so" "$T/ws/.build/student-ex01.run.so" || return 1
    rm -f "$T/held-copy"
    python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(60)' \
        "$T/ws/.build/student-ex01.run.so" "$T/held-copy" &
    holder=$!
    for i in $(seq 100); do [ -e "$T/held-copy" ] && break; sleep 0.05; done
    echo "// another edit" >>"$T/ws/exercises/ex01_vector_add.cu"
    GPUCOURSE_FAKE_GPUS=GPU-fake-a code_is 77 "$GC" grade ex01 --trace
    rc=$?
    kill $holder; wait $holder 2>/dev/null
    [ $rc = 0 ] && grep -q "compile your file (nvcc)" "$T/goterr" && ! grep -q "the judge started beside it" "$T/goterr" ||
        { echo "with the copy held:"; cat "$T/goterr"; return 1; }
}
check "the judge beside nvcc: its runner's copy of the library filled before the go; held by another grading, the judge after nvcc" t_early_copy

t_kill_9() {
    GPUCOURSE_FAKE_GPUS=$TWO "$GC" grade ex01 ex03 >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 50); do [ "$(pgrep -f "$T/ws/.build" | wc -l)" -ge 2 ] && break; sleep 0.2; done
    [ "$(pgrep -f "$T/ws/.build" | wc -l)" -ge 2 ] || { echo "the compilers did not start"; return 1; }
    kill -9 $pid
    wait $pid 2>/dev/null
    for i in $(seq 20); do [ "$(pgrep -f "$T/ws" | wc -l)" = 0 ] && return 0; sleep 0.3; done
    pgrep -af "$T/ws"
    return 1
}
check "kill -9 mid-way: the workers and their compilers die with it" t_kill_9

t_doctor() {
    GPUCOURSE_FAKE_GPUS=$TWO "$GC" doctor >"$T/got" 2>&1
    has_text "gpus.*2: a grading takes whichever is free" &&
        [ "$(joined "$T/got" | grep -c 'gpu lock.*gpucourse-gpu-GPU-fake-[ab].lock')" = 2 ] &&
        has_text "machine lock .*/gpucourse-machine.lock: a grading of a witnessed exercise .* runs alone" || return 1
    # a link planted there: said, and the witnessed gradings still alone (the directory), only not first in line
    rm -f "$T/locks/gpucourse-machine.lock" && ln -s /etc/passwd "$T/locks/gpucourse-machine.lock"
    GPUCOURSE_FAKE_GPUS=$TWO "$GC" doctor >"$T/got" 2>&1
    rc=$?
    rm -f "$T/locks/gpucourse-machine.lock"
    has_text "machine lock .*gpucourse-machine.lock is a symbolic link.* (others are not kept out while it waits)" &&
        [ $rc != 64 ]
}
check "doctor: the GPUs, each one's lock, and the machine's" t_doctor
