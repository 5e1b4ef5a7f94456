#!/bin/sh
# Builds one harness kind and runs it with the reference as both contestants.
set -e
k=${1:-vector_add}; ex=${2:-ex01_vector_add}; shift 2 || true
mkdir -p /tmp/smoke
F="-O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -cudart shared -Xlinker=-rpath=/usr/local/cuda/lib64"
nvcc $F -Iharness -o /tmp/smoke/h-$k harness/main.cu harness/kinds/$k.cu -ldl
nvcc $F -shared -Xcompiler -fPIC -o /tmp/smoke/$ex.so solutions/$ex.cu
nvcc $F -shared -Xcompiler -fPIC -o /tmp/smoke/$ex-stub.so exercises/$ex.cu
/tmp/smoke/h-$k --student /tmp/smoke/$ex.so --reference /tmp/smoke/$ex.so --seed 7 "$@"
/tmp/smoke/h-$k --student /tmp/smoke/$ex-stub.so --reference /tmp/smoke/$ex.so --seed 7 "$@" || true
