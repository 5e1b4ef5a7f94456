#!/bin/sh
# A library is built by nvcc's own commands with the host's and the device's
# front ends at once (grader/toolchain.c, phases_script; issue 47): the
# module id given beforehand (its anonymous namespace mangles to it, where
# nvcc's own id would read _HASH_LEN_NAME_), and what the student reads is
# nvcc's: a syntax error both front ends find said once, an error only the
# device's finds said, ptxas's repairs found. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh phases

"$GC" list >/dev/null || exit 1
F=$T/ws/exercises/ex01_vector_add.cu
echo "1..4"

log() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["compile_log"])' "$T/got"; }

t_built() {
    cp solutions/ex01_vector_add.cu "$F" && grep -q "^namespace {" "$F" &&
        code_is 77 "$GC" grade ex01 &&
        strings "$T/ws/.build/student-ex01.so" | grep -Eq "_GLOBAL__N__[0-9a-f]{16}[0-9]+vector_add_kernel" ||
        { echo "no kernel mangled with the id given beforehand:"; strings "$T/ws/.build/student-ex01.so" | grep GLOBAL__N | head -3; return 1; }
}
check "the reference builds with both front ends at once (its anonymous namespace named by the id given beforehand)" t_built

t_syntax_once() {
    cp solutions/ex01_vector_add.cu "$F" && sed -i 's/threadIdx\.x;$/threadIdx.x/' "$F" &&
        code_is 3 "$GC" grade ex01 --format json && [ "$(log | grep -c 'error: expected a ";"')" = 1 ] ||
        { echo "the syntax error, not once:"; log | head -20; return 1; }
}
check "a syntax error both front ends find is said once, as nvcc says it" t_syntax_once

t_device_only() {
    cp solutions/ex01_vector_add.cu "$F" &&
        printf 'int host_fn() { return 1; }\n__global__ void uses_host(int *o) { *o = host_fn(); }\n' >>"$F" &&
        code_is 3 "$GC" grade ex01 --format json && log | grep -q 'calling a __host__ function("host_fn()") from a __global__ function' ||
        { log | head -20; return 1; }
}
check "an error only the device's front end finds is said" t_device_only

t_repairs() {
    "$GC" list >/dev/null && tests/fixture_source.sh tests/gpu/ex30_no_wgmma_fence.patch "$T/ws/exercises/ex30_wgmma_tile.cu" &&
        code_is 5 "$GC" grade ex30 --format json && grep -q '"compiler_repairs": "failed"' "$T/got"
}
check "ptxas's repairs, from the device's chain, still decide" t_repairs
