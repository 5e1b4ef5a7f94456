#!/bin/sh
# gpucourse why --profile (issue 47), what can be shown without a GPU or ncu:
# the option goes with why alone; without ncu it stops before grading and
# says where it looked and how to get it (exit 65); behind a launcher it
# stops too; with ncu (a stand-in on PATH that records being run) but no
# GPU, or a file that does not compile, the grade is as without --profile
# and the profile says why there is none, at 80 columns and in the JSON
# (results[].diagnosis.profile), and nothing more is recorded. The ncu
# command line, the runs under it and their failures: test_profile_run
# (tests/test_grader.c); the sandbox under it: tests/runner_box.sh; on the
# GPU: tests/gpu.sh profile. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh profile
unset GPUCOURSE_LAUNCHER

"$GC" list >/dev/null || exit 1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
TOOLKIT=$(dirname "$(dirname "$(realpath "$NVCC")")")
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$@" >>"%s/ncu.ran"\nexit 1\n' "$T" >"$T/bin/ncu" && chmod +x "$T/bin/ncu"
WITH_NCU=$T/bin:$PATH
# json EXPR: a Python assertion on the last code_is's first result (r)
json() { python3 -c "import json; r = json.load(open('$T/got'))['results'][0]; assert $1, r" || { cat "$T/got"; return 1; }; }

t_usage() { code_is 64 "$GC" grade ex01 --profile && has_err "^gpucourse: --profile goes with why$"; }
check "--profile goes with why alone (64)" t_usage

t_no_ncu() { code_is 65 env PATH="$(dirname "$NVCC"):/usr/bin:/bin" "$GC" why ex01 --profile &&
    has_err "^gpucourse: --profile needs Nsight Compute's ncu, and it is not installed here$" &&
    has_err "^Looked in PATH, $TOOLKIT/bin/ncu," && has_err "https://developer.nvidia.com/nsight-compute" &&
    fits_80 "$T/goterr" && [ ! -s "$T/got" ] && [ ! -e "$T/ws/.build/student-ex01.so" ]; }
if [ -x "$TOOLKIT/bin/ncu" ] || ls "$TOOLKIT"/nsight-compute-*/ncu >/dev/null 2>&1; then
    n=$((n + 1)); echo "ok $n - # SKIP no ncu: the toolkit has one ($TOOLKIT)"
else check "no ncu: said before anything is graded, with where it looked and how to get it (65, 80 columns)" t_no_ncu; fi

t_launcher() { code_is 65 env PATH="$WITH_NCU" GPUCOURSE_LAUNCHER="srun --gres=gpu:1" "$GC" why ex01 --profile &&
    has_err "GPU is behind the launcher (srun --gres=gpu:1)" && has_err "without GPUCOURSE_LAUNCHER"; }
check "behind GPUCOURSE_LAUNCHER: said before grading (65)" t_launcher

t_no_gpu() { code_is 77 env PATH="$WITH_NCU" "$GC" why ex01 --profile && has "^SKIPPED ex01" &&
    has_text "^profile ex01: no report: no GPU: a profile runs your kernels on the GPU" && fits_80 &&
    [ ! -e "$T/ncu.ran" ] && [ ! -d "$T/ws/profiles" ] &&
    code_is 77 env PATH="$WITH_NCU" "$GC" why ex01 --profile --format json &&
    json "r['diagnosis']['profile']['report'] is None and r['diagnosis']['profile']['not_done'].startswith('no GPU: ')" &&
    ! grep -q '^  ex01:' "$T/ws/progress.yaml" 2>/dev/null; }
check "no GPU: the grade as without --profile (77), the profile says why there is none (text, JSON); ncu not run" t_no_gpu

t_not_compiled() { echo 'this is not CUDA' >"$T/ws/exercises/ex01_vector_add.cu" &&
    code_is 3 env PATH="$WITH_NCU" "$GC" why ex01 --profile &&
    has_text "^profile ex01: no report: your file did not compile: there are no kernels to profile$" && fits_80 &&
    [ ! -e "$T/ncu.ran" ]; }
check "a file that does not compile: compile error (3), and no profile, said so" t_not_compiled

t_not_asked() { code_is 3 "$GC" why ex01 --format json && json "r['diagnosis']['profile'] is None" && ! has "^profile"; }
check "why without --profile: no profile, null in the JSON" t_not_asked

echo "1..$n"
