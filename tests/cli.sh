#!/bin/sh
# Command-line behaviour of build/gpucourse without a GPU: exit codes, output,
# JSON and JUnit, hints, reset and its backup, progress (also damaged), the
# no-GPU path, compile errors, a missing nvcc, Ctrl-C, and check-course on
# the shipped course and on a broken one. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh cli

check "--help exits 0 and documents the exit codes" sh -c "code_is() { :; }; $GC --help | grep -q '77 no GPU (skipped)'"
check "--version" sh -c "$GC --version | grep -q '^gpucourse [0-9]'"
check "unknown command: usage error 64" sh -c "$GC frobnicate; test \$? = 64"
check "unknown option: usage error 64" sh -c "$GC --bogus list; test \$? = 64"
check "reset without an exercise: usage error 64 (show, hint, grade and why take the current one)" sh -c "$GC reset; test \$? = 64"
check "unknown exercise: usage error 64" sh -c "$GC show ex99 2>&1; test \$? = 64"
t_id_forms() { for k in ex7 ex07 EX07 7 07 ex007 fused_axpy_relu FUSED_AXPY_RELU; do
                   code_is 0 "$GC" show "$k" && has "^ex07 fused_axpy_relu" || { echo "for '$k'"; return 1; }; done; }
check "exercise ids as people type them: ex7, ex07, EX07, 7, 07, ex007, the name" t_id_forms
# (the rule goes on under itself at 80 columns: its lines joined)
t_pass_rule() { code_is 0 "$GC" show ex08 && sed -n '/^To pass:/,/^Hints:/p' "$T/got" | tr -s ' \n' '  ' >"$T/rule" &&
                grep -q "^To pass: correct at every size, and at least 0.65x the reference's throughput, 0.65x the copy bandwidth of the same run and 0.70x CUB DeviceSegmentedReduce::Sum's Hints:" "$T/rule" &&
                code_is 0 "$GC" show ex41 && sed -n '/^To pass:/,/^Hints:/p' "$T/got" | tr -s ' \n' '  ' >"$T/rule" &&
                grep -q "0.75x cuBLAS Sgemm FP32's, at each of its 4 timed sizes; and the technique it teaches" "$T/rule" ||
                { cat "$T/got"; return 1; }; }
check "show states every floor of the pass rule, the library by name" t_pass_rule
t_id_odd() { for k in +7 ' 7' 7x ''; do
                 code_is 64 "$GC" show "$k" && has_err "^gpucourse: no exercise '$k'\$" && has_err "Try 'gpucourse list'" ||
                     { echo "for '$k'"; return 1; }; done; }
check "odd ids (+7, ' 7', 7x, empty): usage error 64" t_id_odd
t_id_past() { code_is 64 "$GC" show ex99 && has_err "no exercise 'ex99': the course has ex01 to ex[0-9][0-9]\$"; }
check "a number past the course: its range of ids" t_id_past
t_id_typo() { code_is 64 "$GC" grade vector_ad && has_err "no exercise 'vector_ad'; did you mean ex01 (vector_add)?" &&
              code_is 64 "$GC" hint exx07 && has_err "did you mean ex07 (fused_axpy_relu)?"; }
check "a typo in a name or an id: the nearest one" t_id_typo
check "bad --format: usage error 64" sh -c "$GC grade ex01 --format xml; test \$? = 64"
t_seed_negative() { code_is 64 "$GC" grade ex01 --seed -5 && has_err "takes a positive number, not '-5'"; }
check "a negative --seed: usage error 64" t_seed_negative
t_missing_value() { code_is 64 "$GC" list --course && has_err "option '--course' needs a value"; }
check "an option without its value says so: usage error 64" t_missing_value
t_all_and_chapter() { code_is 64 "$GC" grade --all --chapter 1 && has_err "exclude each other"; }
check "--all with --chapter: usage error 64" t_all_and_chapter

t_list() { code_is 0 "$GC" list && has "Chapter 1: The thread hierarchy" && has "\[ \] ex01  vector_add" && has "Next: ex01" &&
           has "ex18  vectorized_transpose  float4"; } # the longest name sets the column
check "list shows chapters, exercises and the next one" t_list
t_workspace() { test -f "$T/ws/exercises/ex01_vector_add.cu" && cmp -s exercises/ex01_vector_add.cu "$T/ws/exercises/ex01_vector_add.cu"; }
check "the workspace gets a copy of every stub" t_workspace
t_show() { code_is 0 "$GC" show 3 && has "ex03 saxpy" && has "Your file:  $T/ws/exercises/ex03_saxpy.cu" && has "0 of 3 seen"; }
check "show by number" t_show
t_hint() { code_is 0 "$GC" hint ex01 && has "Hint 1 of" && ! grep -q "Hint 2" "$T/got" &&
           code_is 0 "$GC" hint vector_add && has "Hint 2 of .* (new)" &&
           grep -q "hints_seen: 2" "$T/ws/progress.yaml"; }
check "hint shows one more hint each time and records it" t_hint
t_hint_end() { code_is 0 "$GC" hint ex01 && has "Hint 3 of 3 (new)" && has "That was the last hint" &&
               code_is 0 "$GC" hint ex01 && ! grep -q "(new)" "$T/got" && has "No more hints for ex01"; }
check "hint past the last one shows them all, none as new" t_hint_end
t_solution() { code_is 75 "$GC" solution ex01 && has_err "opens once you passed it"; }
check "solution is closed before passing (75: not yet)" t_solution

t_nogpu() { code_is 77 "$GC" grade ex01 && has "compile    ok" && has "^SKIPPED ex01: no GPU"; }
check "grade without a GPU compiles, then skips with exit 77" t_nogpu
# solve without extern "C": the compile error the README promises, also without a GPU
t_not_extern_c() { mkdir -p "$T/wsx" && GPUCOURSE_WORKSPACE=$T/wsx "$GC" list >/dev/null &&
                   sed 's/^extern "C" //' solutions/ex01_vector_add.cu >"$T/wsx/exercises/ex01_vector_add.cu" &&
                   grep -q '^void solve' "$T/wsx/exercises/ex01_vector_add.cu" &&
                   (export GPUCOURSE_WORKSPACE=$T/wsx; code_is 3 "$GC" grade ex01) &&
                   has_text "its solve is a C++ function (its name in the library is _Z5solve" && has "extern \"C\""; }
check "solve without extern \"C\": a compile error (exit 3), not a skip" t_not_extern_c
t_json() { code_is 77 "$GC" grade ex01 --format json && has '"verdict": "skipped"' && has '"skipped": 1' &&
           python3 -c "import json,sys; json.load(open('$T/got'))"; }
check "grade --format json says skipped and is valid JSON" t_json

t_kernels() { code_is 77 "$GC" grade ex01 && has "^  kernels    .*: [0-9]* registers, 0 B shared, no spills" &&
              ! grep -q "ptxas info" "$T/got"; }
check "the card says each kernel's registers, shared memory and spills (ptxas), and nvcc's log leaves them out" t_kernels
t_why_nogpu() { code_is 77 "$GC" why ex01 && has "^SKIPPED ex01" && has "^why ex01: no diagnosis: nothing ran: no GPU"; }
check "why without a GPU: the grade's exit code, and why nothing was diagnosed" t_why_nogpu
t_why_json() { code_is 77 "$GC" why ex01 --format json &&
               python3 -c "import json; d=json.load(open('$T/got'))['results'][0]; k=d['kernels'][0]; assert k['registers'] > 0 and k['spill_store_bytes'] == 0, k; assert d['diagnosis']['kind'] == 'none', d['diagnosis']; assert d['wrong_map'] is None"; }
check "why --format json: the diagnosis object, the kernels, no picture" t_why_json
t_explain() { code_is 77 "$GC" grade ex01 --explain && ! has "^why ex01" 2>/dev/null; }
check "grade --explain: a skipped grade is not explained" t_explain
t_class_usage() { code_is 64 "$GC" class && code_is 64 "$GC" class grade && code_is 64 "$GC" class grade r.txt &&
    code_is 64 "$GC" class grade r.txt ex01 --all && code_is 64 "$GC" list --slurm && has_err "go with class grade"; }
check "class grade: ROSTER and one of EX, --chapter, --all; --out, --slurm, --task only with it (64)" t_class_usage
t_class_roster() { printf 'alice\n' >"$T/roster.txt" && code_is 65 "$GC" class grade "$T/roster.txt" ex01 --out "$T/grades" &&
    has_err "roster.txt:1: a line is NAME PATH" && code_is 65 "$GC" class grade "$T/nosuch.txt" ex01 --out "$T/grades"; }
check "class grade: a bad roster says file:line (65)" t_class_roster
check "--explain goes with grade only: usage error 64" sh -c "$GC list --explain; test \$? = 64"
check "solution without an exercise: usage error 64" sh -c "$GC solution; test \$? = 64"

echo 'this is not CUDA' >>"$T/ws/exercises/ex02_flip_lr.cu"
t_compile() { code_is 3 "$GC" grade ex02 && has "compile    failed" && has "error" && has "^FAIL ex02: compile error"; }
check "a compile error: exit 3 with nvcc's message" t_compile
t_compile_json() { code_is 3 "$GC" grade ex02 --format json && has '"verdict": "compile_error"' &&
                   python3 -c "import json; d=json.load(open('$T/got')); assert 'error' in d['results'][0]['compile_log']"; }
check "a compile error in JSON carries nvcc's log" t_compile_json
t_junit() { code_is 3 "$GC" grade --chapter 1 --format junit && has '<testsuite name="gpucourse" tests="4" failures="1" skipped="3"' &&
            python3 -c "import xml.dom.minidom; xml.dom.minidom.parse('$T/got')"; }
check "grade --chapter 1 --format junit: valid XML, first failure's exit code" t_junit
t_progress() { code_is 0 "$GC" progress && has "ex02  flip_lr  *attempted" && has "compile_error" && has "0 of [0-9]* exercises passed"; }
check "progress records the attempts" t_progress

t_reset() { code_is 0 "$GC" reset ex02 && has "Your previous file is kept as" &&
            cmp -s exercises/ex02_flip_lr.cu "$T/ws/exercises/ex02_flip_lr.cu" &&
            grep -q 'this is not CUDA' "$T"/ws/backups/ex02_flip_lr.cu.*; }
check "reset restores the stub and keeps a backup" t_reset

cp "$T/ws/progress.yaml" "$T/progress.good"
printf 'version: 1\nexercises:\n  ex01: {status: [\n' >"$T/ws/progress.yaml"
t_damaged() { code_is 0 "$GC" progress && has_err "warning: progress file was damaged" &&
              ls "$T/ws/" | grep -q '^progress.yaml.damaged-' && has "0 of [0-9]*"; }
check "a damaged progress file is kept aside and reported" t_damaged

t_no_nvcc() { GPUCOURSE_NVCC=/nonexistent/nvcc code_is 65 "$GC" grade ex01 && has "setup error" && has "GPUCOURSE_NVCC"; }
check "a missing nvcc: exit 65 and how to fix it" t_no_nvcc

t_interrupt() {
    "$GC" hint ex05 >/dev/null
    cp "$T/ws/progress.yaml" "$T/before"
    # an nvcc that takes its time, so that the Ctrl-C lands in the middle of
    # grading however fast or loaded this machine is
    # (in the compiler's box it may write only its own directory, nvcc's TMPDIR)
    mkdir -p "$T/slow"
    printf '#!/bin/sh\ncase "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88" ;;\n*) echo $$ >"$TMPDIR/pid"; exec sleep 60 ;; esac\n' >"$T/slow/nvcc"
    chmod +x "$T/slow/nvcc"
    GPUCOURSE_NVCC=$T/slow/nvcc "$GC" grade ex03 >"$T/got" 2>&1 &
    pid=$!
    slow=
    for _ in $(seq 200); do slow=$(cat "$T"/ws/.build/tmp/*/pid 2>/dev/null) && [ -n "$slow" ] && break; sleep 0.1; done # compiling now
    kill -INT $pid
    wait $pid
    code=$?
    [ $code = 130 ] || { echo "exit $code"; cat "$T/got"; return 1; }
    has "interrupted" && cmp -s "$T/before" "$T/ws/progress.yaml" && [ -n "$slow" ] && ! kill -0 "$slow" 2>/dev/null
}
check "Ctrl-C during grading: exit 130, no child left, progress untouched" t_interrupt

t_doctor() { code_is 77 "$GC" doctor && has "nvcc" && has "MISSING  gpu" && has "fix:"; }
check "doctor says what is missing and how to fix it" t_doctor
# ex45's baseline needs CUDA 12.9 (cuBLASLt's block scale modes): doctor says so for an older toolkit
# an nvcc that says it is CUDA 12.4
nvcc_12_4() {
    mkdir -p "$T/cuda12.4/bin"
    printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$T/cuda12.4/bin/nvcc"
    chmod +x "$T/cuda12.4/bin/nvcc"
}
t_doctor_fp8() {
    nvcc_12_4
    GPUCOURSE_NVCC=$T/cuda12.4/bin/nvcc code_is 77 "$GC" doctor &&
        has "MISSING  FP8 scales   ex45's cuBLASLt baseline needs CUDA 12.9 or later" &&
        code_is 77 "$GC" doctor && has "ok       FP8 scales   CUDA 12.9 or later"
}
# the judge's witness (PM sampling) needs CUDA 12.6
t_doctor_witness() {
    nvcc_12_4
    GPUCOURSE_NVCC=$T/cuda12.4/bin/nvcc code_is 77 "$GC" doctor &&
        has "MISSING  witness      the judge's own counters (PM sampling) need CUDA 12.6" &&
        code_is 77 "$GC" doctor && has "ok       witness      CUDA 12.6 or later"
}
check "doctor: the toolkit version the witness needs" t_doctor_witness
check "doctor: the toolkit version ex45's baseline needs" t_doctor_fp8

mkdir -p "$T/bad/course/01-x" && cp -R harness exercises solutions "$T/bad/"
printf 'title: Bad\nchapters:\n  - 01-x\n' >"$T/bad/course/course.yaml"
printf 'title: X\nlesson: lesson.md\nexercises:\n  - id: ex01\n    name: add\n    titel: typo\n' >"$T/bad/course/01-x/chapter.yaml"
t_bad_course() { code_is 65 "$GC" --course "$T/bad" check-course &&
                 has "course/01-x/chapter.yaml:2:9: missing file: course/01-x/lesson.md" &&
                 has "course/01-x/chapter.yaml:6:5: unknown key 'titel' in an exercise" &&
                 has "course/01-x/chapter.yaml:4:5: missing key 'title' (in exercise 'ex01')"; }
check "check-course on a broken course: file:line:col messages, exit 65" t_bad_course
t_bad_course_grade() { code_is 65 "$GC" --course "$T/bad" list && has_err "run 'gpucourse check-course'"; }
check "other commands refuse a broken course with exit 65" t_bad_course_grade
t_cwd_first() { (cd "$T/bad" && unset GPUCOURSE_COURSE && code_is 65 "$GC" list) && has_err "run 'gpucourse check-course'"; }
check "the current directory's course comes before the build tree's" t_cwd_first

# gpucourse new: exit 64 for what cannot be done as asked, 0 and the files otherwise
t_new() { code_is 0 "$GC" new course "$T/nc" && has "created course/course.yaml" &&
          code_is 0 "$GC" --course "$T/nc" new chapter first && has "updated course/course.yaml" &&
          code_is 65 "$GC" --course "$T/nc" check-course && has "add one: gpucourse new exercise 01-first NAME --kind KIND" &&
          code_is 0 "$GC" --course "$T/nc" new exercise first add --kind vector_add && has "created exercises/ex01_add.cu" &&
          grep -q 'extern "C" void solve(const float\* a, const float\* b, float\* c, int n)' "$T/nc/solutions/ex01_add.cu" &&
          code_is 0 "$GC" --course "$T/nc" --workspace "$T/ws-nc" list && has "ex01  add"; }
check "new course, chapter and exercise: a course that loads" t_new
t_new_refused() { code_is 64 "$GC" --course "$T/nc" new exercise first add --kind vector_add && has_err "exists already" &&
                  code_is 64 "$GC" --course "$T/nc" new exercise first other --kind nope && has_err "no kind 'nope'" &&
                  code_is 64 "$GC" --course "$T/nc" new exercise first other && has_err "needs --kind KIND" &&
                  code_is 64 "$GC" --course "$T/nc" new course "$T/nc" && has_err "never overwrites" &&
                  code_is 64 "$GC" new thing && has_err "makes one of" &&
                  code_is 64 "$GC" list --kind vector_add && has_err "go with new"; }
check "new refuses to overwrite, unknown kinds and bad usage: exit 64, saying why" t_new_refused
t_check_json_bad() { code_is 65 "$GC" --course "$T/bad" check-course --format json &&
                     python3 -c "import json; d=json.load(open('$T/got')); assert not d['ok'] and d['exit_code'] == 65 and any('titel' in p for p in d['problems'])"; }
check "check-course --format json on a broken course: its problems, exit 65" t_check_json_bad
t_check_usage() { code_is 64 "$GC" check-course ex01 && has_err "only with --calibrate" &&
                  code_is 64 "$GC" check-course --format junit && code_is 64 "$GC" check-course --runs 3 &&
                  code_is 77 "$GC" check-course --calibrate ex01 && has "needs a GPU"; }
check "check-course: usage errors 64, --calibrate without a GPU 77" t_check_usage

t_check_course() { code_is 0 "$GC" check-course && has "YAML valid" && has "ex07 fused_axpy_relu" &&
                   has "GPU checks skipped" && has "check-course: ok" && fits_80; } # 80 columns: tests/columns.sh
[ -n "$QUICK" ] || check "check-course compiles every stub, reference and harness kind (no GPU)" t_check_course
# its GPU checks on two GPUs at once (fake ones, tests/gpus.sh: every judge finds none, so every
# reference fails), the reports in course order, one line per exercise
t_check_two_gpus() {
    mkdir -p "$T/cuda" "$T/locks" && ln -sf /usr/local/cuda/lib64/stubs/libcuda.so "$T/cuda/libcuda.so.1" &&
        (unset GPUCOURSE_NO_GPU; LD_LIBRARY_PATH=$T/cuda GPUCOURSE_LOCK_DIR=$T/locks GPUCOURSE_FAKE_GPUS=GPU-a,GPU-b \
            code_is 65 "$GC" check-course) &&
        has "^checking on 2 GPUs at once$" && has "CUDA_VISIBLE_DEVICES=GPU-a" && has "CUDA_VISIBLE_DEVICES=GPU-b" &&
        [ "$(grep -o '^ex[0-9]* [a-z0-9_]* *reference: FAIL' "$T/got" | cut -c1-4 | tr -d '\n')" = \
          "$("$GC" list | grep -o '^ *\[.\] ex[0-9]*' | grep -o 'ex[0-9]*' | tr -d '\n')" ] && has "check-course: FAILED"
}
[ -n "$QUICK" ] || [ ! -f /usr/local/cuda/lib64/stubs/libcuda.so ] || check "check-course on two GPUs at once: every exercise, in course order" t_check_two_gpus

# make install: the binary finds the course installed beside it, from any directory
t_install() { make -s install PREFIX=/usr DESTDIR="$T/root" >"$T/got" 2>&1 || { cat "$T/got"; return 1; }
              test -x "$T/root/usr/bin/gpucourse" && test -f "$T/root/usr/share/gpucourse/course/course.yaml" &&
              test -f "$T/root/usr/share/gpucourse/harness/main.cu" &&
              for cited in $(grep -rhoE "(docs/[a-z_-]+\.md|tools/[a-z_-]+\.cu)" course exercises solutions | sort -u); do
                  test -f "$T/root/usr/share/gpucourse/$cited" || { echo "cited but not installed: $cited"; return 1; }; done &&
              (cd / && unset GPUCOURSE_COURSE && code_is 0 "$T/root/usr/bin/gpucourse" list) && has "Chapter 1: The thread hierarchy"; }
check "make install (PREFIX, DESTDIR): the installed binary finds the installed course; what lessons cite is installed" t_install

# build/gpucourse finds the course beside itself from any directory (also
# through a link, as from ~/bin); a copy elsewhere finds none
mkdir -p "$T/bin" && cp "$GC" "$T/bin/copy" && ln -s "$GC" "$T/bin/link"
t_build_tree() { (cd / && unset GPUCOURSE_COURSE && code_is 0 "$GC" list) && has "Chapter 1: The thread hierarchy" &&
                 (cd / && unset GPUCOURSE_COURSE && code_is 0 "$T/bin/link" show ex01) && has "ex01 vector_add"; }
check "build/gpucourse (or a link to it) finds its course from any directory" t_build_tree
t_copy_elsewhere() { (cd / && unset GPUCOURSE_COURSE && code_is 65 "$T/bin/copy" list) && has_err "no course found"; }
check "a copy of the binary outside the build tree finds no course: exit 65" t_copy_elsewhere

# Compiler output that is not UTF-8 and carries escapes (a student's #error,
# cut in the middle of a character): strict JSON, well-formed XML, and text
# with nothing a terminal would obey.
printf '#error bad \377 byte \200 \033]0;pwned\007\033[2J caf\303\251 \346\274\242 \177 cut \342\202\n' \
    >>"$T/ws/exercises/ex04_warp_count.cu"
t_hostile_json() { code_is 3 "$GC" grade ex04 --format json &&
                   python3 -c "import json; d=json.load(open('$T/got', encoding='utf-8', errors='strict'))['results'][0]
log=d['compile_log']; assert '\ufffd' in log and '\x1b]0;pwned\x07' in log and 'caf\u00e9 \u6f22' in log, log
assert d['compile_log_dropped_bytes'] == 0"; }
check "a compile log with bytes that are not UTF-8 and escapes: valid JSON" t_hostile_json
t_hostile_junit() { code_is 3 "$GC" grade ex04 --format junit &&
                    python3 -c "import xml.etree.ElementTree as E; f=E.parse('$T/got').find('testcase/failure')
assert '^[]0;pwned^G' in f.text and '\ufffd' in f.text and 'caf\u00e9 \u6f22' in f.text, f.text"; }
check "a compile log with bytes that are not UTF-8 and escapes: well-formed JUnit XML" t_hostile_junit
t_hostile_text() { code_is 3 "$GC" grade ex04 && grep -qF '^[]0;pwned^G^[[2J' "$T/got" && has "caf$(printf '\303\251') $(printf '\346\274\242')" &&
                   ! grep -q "$(printf '[\033\007\177\r]')" "$T/got" && python3 -c "open('$T/got', encoding='utf-8').read()"; }
check "a compile log with escapes in text: shown, not obeyed" t_hostile_text

# Compiling has bounds of its own (README): time (--timeout S, else 300 s)
# and memory (address space of nvcc and of each program it starts). A
# ulimit is the safety net should the memory bound be missing.
F=$T/ws/exercises/ex06_affine.cu
FIFO=$T/ws/exercises/fifo # in the exercise directory: the only one of the student's that the compiler may read
mkfifo "$FIFO"
t_compile_timeout() { cp exercises/ex06_affine.cu "$F" && echo "#include \"$FIFO\"" >>"$F" && start=$(date +%s) &&
                      code_is 4 timeout 60 "$GC" --timeout 3 grade ex06 && has "timeout: the compiler did not finish in 3 s" &&
                      [ $(($(date +%s) - start)) -le 15 ] || { echo "took $(($(date +%s) - start)) s"; return 1; }; }
check "a compile that hangs (#include of a FIFO): stopped at --timeout, exit 4" t_compile_timeout
# a 4 GiB file of zeros (sparse: no disk) beside it, which the compiler reads whole: /dev/zero
# itself is outside what the compiler's box lets it read
truncate -s 4G "$T/ws/exercises/zeros.h"
t_compile_memory() { cp exercises/ex06_affine.cu "$F" && echo '#include "zeros.h"' >>"$F" &&
                     (ulimit -v 8000000; python3 -c "
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=open('$T/got', 'w'), stderr=open('$T/goterr', 'w'), timeout=120)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
assert p.returncode == 3, 'exit code %d' % p.returncode
assert rss < 1500000, 'a process of the compile grew to %d MB' % (rss // 1000)" "$GC" grade ex06) &&
                     has_text "the compiler ran out of memory on ex06_affine.cu (the limit is 2 GiB"; }
check "#include of a 4 GiB file: stopped at the memory bound with a clear message, exit 3" t_compile_memory

# nvcc hands its steps to sh: '$', '`' and '"' in the workspace's path must not matter
t_odd_path() { W="$T/odd \$HOME \`id\` \"q\"" && (export GPUCOURSE_WORKSPACE="$W"; code_is 77 "$GC" grade ex01) &&
               has "compile    ok" && test -f "$W/.build/student-ex01.so"; }
check "a workspace path with \$, a backtick and a double quote compiles" t_odd_path

# A workspace that cannot be written is a setup error, not a compile error
# in the student's code. chmod does not stop root: then .build is a file.
t_readonly() { W="$T/ro" && GPUCOURSE_WORKSPACE="$W" "$GC" list >/dev/null &&
               if [ "$(id -u)" = 0 ]; then rm -rf "$W/.build" && touch "$W/.build"; else chmod a-w "$W/.build"; fi &&
               (export GPUCOURSE_WORKSPACE="$W"; code_is 65 "$GC" grade ex01); rc=$?; chmod -R u+w "$W" 2>/dev/null
               [ $rc = 0 ] && has "setup error: cannot write in '$W/.build'"; }
check "a read-only workspace: setup error (exit 65) naming the path" t_readonly

# Ctrl-C while nvcc --version runs (before the compile): exit 130, nothing recorded
printf '#!/bin/sh\n[ "$1" = --version ] && sleep 5\necho not nvcc; exit 1\n' >"$T/slow-nvcc"
chmod +x "$T/slow-nvcc"
t_interrupt_version() {
    cp "$T/ws/progress.yaml" "$T/before"
    GPUCOURSE_NVCC=$T/slow-nvcc "$GC" grade ex01 >"$T/got" 2>&1 &
    pid=$!
    sleep 0.5
    kill -INT $pid
    wait $pid
    code=$?
    [ $code = 130 ] || { echo "exit $code"; cat "$T/got"; return 1; }
    has "interrupted" && cmp -s "$T/before" "$T/ws/progress.yaml"
}
check "Ctrl-C during nvcc --version: exit 130, progress untouched" t_interrupt_version

# gpucourse killed with SIGKILL during a compile: nvcc and its children go
# too. The compile's processes are those with its TMPDIR: nvcc's directory
# in the workspace's .build/tmp.
compile_procs() { for p in /proc/[0-9]*; do [ "${p#/proc/}" != "$1" ] &&
                  { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -q "^TMPDIR=$T/ws/.build/tmp/" && echo "${p#/proc/}"; done; }
t_kill9() { mkdir -p "$T/tmp" && cp exercises/ex06_affine.cu "$F" && echo "#include \"$FIFO\"" >>"$F" || return 1
            TMPDIR=$T/tmp "$GC" grade ex06 >/dev/null 2>&1 &
            pid=$!
            for i in $(seq 100); do [ -n "$(compile_procs $pid)" ] && break; sleep 0.1; done
            [ -n "$(compile_procs $pid)" ] || { echo "nvcc never started"; kill -9 $pid; return 1; }
            kill -9 $pid
            wait $pid 2>/dev/null
            sleep 1
            left=$(compile_procs)
            [ -z "$left" ] || { echo "left running:"; ps -o pid,ppid,cmd -p "$(echo $left | tr ' ' ,)"; kill -9 $left; return 1; }; }
check "gpucourse killed with -9 while compiling: nothing of the compile outlives it" t_kill9
cp exercises/ex06_affine.cu "$F"
rm -f "$FIFO"

echo "1..$n"
