#!/bin/sh
# Grading on a machine with no GPU (issue 47, the newcomer audit's 1.4 and
# 1.5): the checks of the compiled code alone still run and decide. ex23
# requires HMMA: its stub passes the check and is skipped (exit 77) with a
# reason that says what was checked; with its mma call removed it is
# "requirement not met" (exit 5), which counts as an attempt; with no
# cuobjdump the check is said not run, never passed. A skipped grade is no
# attempt. The machine code is cuobjdump's where the toolkit has it, else
# the recorded output of the same files (tests/data/sass_ex23_*.txt) from a
# stand-in on PATH. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh nogpu

"$GC" list >/dev/null || exit 1
F=$T/ws/exercises/ex23_mma_fragments.cu
STUB=$PWD/exercises/ex23_mma_fragments.cu
# the toolkit's own cuobjdump comes first (grader/toolchain.c), where it has one
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
TOOLKIT_CUOBJDUMP=$(dirname "$(dirname "$(realpath "$NVCC")")")/bin/cuobjdump
mkdir -p "$T/bin"
printf '#!/bin/sh\n[ "$1" = -sass ] || exit 1\ncat "$SASS"\n' >"$T/bin/cuobjdump" && chmod +x "$T/bin/cuobjdump"
WITH_CUOBJDUMP=$T/bin:$PATH
# the stand-in's output for each file, when it is the one run: beside it, since cuobjdump runs in
# the compiler's box (it reads the system, the toolkit, its own directory and the library alone)
cp tests/data/sass_ex23_stub.txt tests/data/sass_ex23_no_mma.txt "$T/bin/"
export SASS=$T/bin/sass_ex23_stub.txt
no_mma() { sed 's/^        mma_16816(d, a, b);/        d[0] = (float)a[0];/' "$STUB" >"$F" && ! grep -q '^        mma_16816(d, a, b);' "$F"; }
# json EXPR: a Python assertion on the last code_is's JSON result (r)
json() { python3 -c "import json; r = json.load(open('$T/got'))['results'][0]; assert $1, r" || { cat "$T/got"; return 1; }; }
# progress_of EX: its entry in progress.yaml (nothing when it has none)
progress_of() { sed -n "/^  $1:/,/^  ex/p" "$T/ws/progress.yaml" 2>/dev/null; }

t_stub_checked() { cp "$STUB" "$F" && code_is 77 env PATH="$WITH_CUOBJDUMP" "$GC" grade ex23 &&
    has_text "^SKIPPED ex23: no GPU: GPUCOURSE_NO_GPU is set; your code compiled, uses no library the exercise forbids and its machine code has HMMA; nothing ran, so it is not graded yet$" &&
    code_is 77 env PATH="$WITH_CUOBJDUMP" "$GC" grade ex23 --format json &&
    json "r['skipped'] and r['static_checks'] == {'libraries': 'passed', 'machine_code': 'passed', 'compiler_repairs': 'passed'}" &&
    [ -z "$(progress_of ex23)" ]; }
check "no GPU: the stub's machine code has HMMA: skipped (77), saying what was checked; not an attempt" t_stub_checked

t_no_hmma() { no_mma && SASS=$T/bin/sass_ex23_no_mma.txt code_is 5 env PATH="$WITH_CUOBJDUMP" "$GC" grade ex23 &&
    has_text "^FAIL ex23: requirement not met: your machine code has no HMMA instruction: a tensor-core" &&
    has_text "found in your compiled code alone: nothing ran (no GPU: GPUCOURSE_NO_GPU is set), so whether its answer is right is not known yet$" &&
    SASS=$T/bin/sass_ex23_no_mma.txt code_is 5 env PATH="$WITH_CUOBJDUMP" "$GC" grade ex23 --format json &&
    json "r['verdict'] == 'requirement_not_met' and r['exit_code'] == 5 and r['static_checks'] == {'libraries': 'passed', 'machine_code': 'failed'}" &&
    progress_of ex23 | grep -q '^    attempts: 2$' && progress_of ex23 | grep -q '^    status: compiles$' &&
    progress_of ex23 | grep -q '^    last_verdict: requirement_not_met$' &&
    SASS=$T/bin/sass_ex23_no_mma.txt code_is 5 env PATH="$WITH_CUOBJDUMP" "$GC" why ex23 &&
    has_text "^why ex23: no diagnosis: nothing of yours ran: the verdict is your compiled code's alone"; }
check "no GPU: the mma call removed: requirement not met (5), an attempt (status compiles, not correct); why runs nothing" t_no_hmma

# a cache of its own: the machine code read by the grade before is kept with the library (grader/libcache.h)
t_no_cuobjdump() { no_mma && code_is 77 env XDG_CACHE_HOME="$T/cache2" PATH="$(dirname "$NVCC"):/usr/bin:/bin" "$GC" grade ex23 &&
    has_text "^SKIPPED ex23: .*; its machine code was not checked: cuobjdump not found; cuobjdump ships with the CUDA Toolkit" &&
    code_is 77 env XDG_CACHE_HOME="$T/cache2" PATH="$(dirname "$NVCC"):/usr/bin:/bin" "$GC" grade ex23 --format json &&
    json "r['static_checks']['machine_code'] == 'not_run' and 'cuobjdump not found' in r['static_not_run']"; }
# a cuobjdump of the toolkit's is found before PATH: it cannot be hidden
if [ -x "$TOOLKIT_CUOBJDUMP" ]; then n=$((n + 1)); echo "ok $n - # SKIP no cuobjdump: the toolkit has one ($TOOLKIT_CUOBJDUMP)"
else check "no GPU and no cuobjdump: the machine code is said not checked, never passed; still skipped (77)" t_no_cuobjdump; fi

# ptxas's word on a kernel's wgmma, read from the compile alone (ex45): the next block's issue under
# a condition makes ptxas insert a wait (C7517: requirement not met, exit 5) and serialize the
# wgmma (C7514: the kernels line says so, and the JSON); the reference has neither. The real nvcc's
# wording, so that a toolkit that words it otherwise fails here, not only tests/data's record.
E45=$T/ws/exercises/ex45_fp8_blockscaled.cu
t_serialized() { sh tests/fixture_source.sh tests/gpu/ex45_two_sums_serialized.patch "$E45" &&
    code_is 5 "$GC" grade ex45 && has "WGMMA SERIALIZED" && has_text "gemm_fp8: 168 registers, 0 B shared, no spills, WGMMA SERIALIZED (ptxas C7514)" &&
    has_text "^FAIL ex45: requirement not met: the compiler had to insert a wgmma wait" && has_text "(ptxas (C7517), in the compiler output)" &&
    code_is 5 "$GC" grade ex45 --format json && json "r['kernels'][0]['wgmma_serialized'] == 'C7514'" &&
    cp solutions/ex45_fp8_blockscaled.cu "$E45" && code_is 77 "$GC" grade ex45 && ! grep -q "SERIALIZED" "$T/got" &&
    code_is 77 "$GC" grade ex45 --format json && json "r['kernels'][0]['wgmma_serialized'] is None"; }
check "no GPU: ex45's issue under a condition: ptxas's C7517 is requirement not met (5), its C7514 on the kernels line; the reference has neither" t_serialized

t_skips_not_attempts() { code_is 77 "$GC" grade ex01 && code_is 77 "$GC" grade ex01 && [ -z "$(progress_of ex01)" ] &&
    code_is 0 "$GC" progress && has_text "ex01  vector_add  *not started"; }
check "skipped grades (no GPU) are no attempts: nothing recorded, ex01 still not started" t_skips_not_attempts

echo "1..$n"
