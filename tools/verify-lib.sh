# Sourced by the tools/verify-*.sh scripts, from the repository's root: what
# their `prepare` steps share, on a machine with nvcc and no GPU.
#
#   verify_start DIR       .verify/ ignored by git, gpucourse built, DIR/stub holding CUDA's stub
#                          driver as libcuda.so.1
#   prebuild GPUCOURSE ARGS...
#                          runs a gpucourse command (grade, class grade) with a fake GPU and the
#                          stub driver: every grading goes through its builds (the student's
#                          library, the reference, the judge) to a judge that finds no GPU, so
#                          that the GPU machine's time goes to the gradings. Its output goes to
#                          $PREBUILD_LOG (default: nowhere); it never fails the caller.

verify_start() {
    mkdir -p .git/info && { grep -qx "/.verify/" .git/info/exclude 2>/dev/null || echo "/.verify/" >>.git/info/exclude; }
    make
    mkdir -p "$1/stub"
    ln -sf /usr/local/cuda/lib64/stubs/libcuda.so "$1/stub/libcuda.so.1"
    VERIFY_STUB=$1/stub
}

prebuild() {
    LD_LIBRARY_PATH=$VERIFY_STUB GPUCOURSE_FAKE_GPUS=GPU-prepare "$@" >"${PREBUILD_LOG:-/dev/null}" 2>&1 || true
}
