// The judge: checks and times one exercise's `solve` against the reference,
// without ever loading the student's code.
//
// Built once per kind (this file with its parts in judge/ + runner.cu +
// harness/kinds/KIND.cu) by the grader, and run as
//
//   harness-KIND --student S.so --runner runner-KIND --reference R.so --seed N
//                --check 1000 --check 65537 --timing 268435456 [--timing ...]
//                [--rel X] [--abs Y] [--deterministic 1] [--samples N] [--warmup-ms N]
//                [--counters METRIC,...] [--witness METRIC,...]
//
// Each --timing size is checked, then timed on its own; its lines follow a
// `timed: SIZE` line.
//
// It starts two runners (protocol.h): the student's (runner-KIND, which
// loads S.so inside a sandbox) and a trusted one (this binary again, with
// --serve-trusted) for the reference, the vendor library and the copy. The
// judge owns the inputs, the outputs and the clock: it hands each contestant
// its own copy of the inputs, checks every output itself, checks that the
// student's inputs and the bytes past each array's end were left alone, and
// times every call by its own clock (request to an idle GPU) against the
// runner's own events (rules.h).
//
// Results go to the descriptor named by GPUCOURSE_RESULT_FD as `key: value`
// lines (grader/judge.c reads them); no runner holds that descriptor.
//
// This file is the grading's outline: the judge's options, then main (the
// setup, the check sizes, the timed sizes, the end). Each part is a file of
// its own in judge/, #included below in the order they build on each other,
// so the judge stays one translation unit: one nvcc compile, and what the
// parts share stays static. docs/harness.md says which file holds what.
#include "harness.h"
#include "inputs.h"
#include "modules.h"
#include "neighbours.h"
#include "pmwitness.h"
#include "protocol.h"
#include "rules.h"
#include "sandbox.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

int runner_main(bool trusted, const char *library, const char *counters, const char *warm);  // runner.cu

// Exit codes of the judge itself; the grader reads the result lines first.
// EXIT_NOT_WANTED: the grader ended the go pipe (GPUCOURSE_GO_FD) without a go.
enum { EXIT_DONE = 0, EXIT_USAGE = 2, EXIT_CUDA = 3, EXIT_LOAD = 4, EXIT_NOGPU = 5, EXIT_TIMEOUT = 6, EXIT_NOT_WANTED = 7 };

// How long the GPU may stay busy after a runner answered before the judge
// calls it work left running on purpose.
static const double IDLE_LIMIT_S = 10.0;
// Another process's work on the GPU during a timed size: the size is timed
// again this many times, after waiting up to NEIGHBOUR_WAIT_S for the GPU to
// be quiet, before the judge gives up ("gpubusy").
static const int NEIGHBOUR_RETRIES = 2;
static const double NEIGHBOUR_WAIT_S = 5.0;
// How long a call's GPU may stay busy before the judge asks NVML whose work it is.
static const double NEIGHBOUR_LOOK_S = 1.0;
// The byte that fills every shared array past its last element.
static const unsigned char PAD_BYTE = 0xA5;

// The judge's options that main sets from its arguments (the checks' tolerances).
static double tol_rel = 1e-5, tol_abs = 1e-6;
static bool deterministic;  // --deterministic: the same inputs must give the same bits (same_bits_in_a_new_runner)

// The judge's parts, each one's first lines saying what it holds.
#include "judge/results.cu"
#include "judge/runners.cu"
#include "judge/idle.cu"
#include "judge/watch.cu"
#include "judge/cpus.cu"
#include "judge/problem.cu"
#include "judge/wrong.cu"
#include "judge/intact.cu"
#include "judge/counting.cu"
#include "judge/witness.cu"
#include "judge/call.cu"
#include "judge/loaded.cu"
#include "judge/setup.cu"
#include "judge/norm.cu"
#include "judge/determinism.cu"
#include "judge/checks.cu"
#include "judge/timing.cu"

int main(int argc, char **argv) {
    if ((argc == 3 || argc == 5) && !strcmp(argv[1], "--serve-trusted"))
        return runner_main(true, argv[2], NULL, argc == 5 && !strcmp(argv[3], "--warm") ? argv[4] : NULL);
    // Nothing of the student's may read or patch this process.
    prctl(PR_SET_DUMPABLE, 0);
    signal(SIGPIPE, SIG_IGN);
    open_results();
    trace("started, libraries loaded");
    const char *student = NULL, *runner = NULL, *reference = NULL;
    uint64_t seed = 1;
    int samples = 21;
    double warmup_ms = 150;
    std::vector<Dims> check;
    std::vector<Dims> timing;  // a GEMM is timed at several sizes, each reported on its own
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) fail(EXIT_USAGE, "usage: option %s needs a value", a);
        i++;
        if (!strcmp(a, "--student")) student = v;
        else if (!strcmp(a, "--runner")) runner = v;
        else if (!strcmp(a, "--reference")) reference = v;
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--samples")) samples = std::max(3, atoi(v));
        else if (!strcmp(a, "--warmup-ms")) warmup_ms = atof(v);
        else if (!strcmp(a, "--rel")) tol_rel = atof(v);
        else if (!strcmp(a, "--abs")) tol_abs = atof(v);
        else if (!strcmp(a, "--deterministic")) deterministic = atoi(v) != 0;
        else if (!strcmp(a, "--counters")) counters_list = v;
        else if (!strcmp(a, "--witness")) witness_list = v;
        else if (!strcmp(a, "--timeout")) {
            signal(SIGALRM, on_timeout);
            alarm((unsigned)std::max(1, atoi(v)));
        }
        else if (!strcmp(a, "--check") || !strcmp(a, "--timing")) {
            Dims d;
            if (!parse_dims(v, kind.ndims, &d))
                fail(EXIT_USAGE, "usage: size '%s' does not fit kind %s: %d size argument(s) for %s", v,
                     kind.name, kind.ndims, kind.signature);
            if (a[2] == 'c') check.push_back(d);
            else timing.push_back(d);
        } else fail(EXIT_USAGE, "usage: unknown option %s", a);
    }
    if (!student || !reference || !runner)
        fail(EXIT_USAGE, "usage: --student, --runner and --reference are required");
    result("kind: %s", kind.name);
    result("seed: %llu", (unsigned long long)seed);
    if (const char *log = getenv("GPUCOURSE_CALL_LOG")) call_log = *log ? fopen(log, "ae") : NULL;
    if (call_log) fprintf(call_log, "# %s seed %llu\n", kind.name, (unsigned long long)seed);
    unsetenv("GPUCOURSE_CALL_LOG");

    // The build directory is where the reference lives; maps show real paths.
    char *real_reference = realpath(reference, NULL);
    if (!real_reference) fail(EXIT_LOAD, "load: cannot find the reference's code %s: %s", reference, strerror(errno));
    snprintf(build_dir, sizeof build_dir, "%s", real_reference);
    *strrchr(build_dir, '/') = '\0';
    allowed_in_build_dir[0] = realpath(runner, NULL);
    const char *student_base = strrchr(student, '/') ? strrchr(student, '/') + 1 : student;
    int base_len = (int)strlen(student_base);
    if (base_len > 3 && !strcmp(student_base + base_len - 3, ".so")) base_len -= 3;
    snprintf(modules_prefix, sizeof modules_prefix, "%s/%.*s", build_dir, base_len, student_base);
    library_dirs = sandbox_library_dirs();
    char warm_size[64] = "";
    if (!check.empty()) dims_text(check[0], warm_size, sizeof warm_size);
    // Started while nvcc compiles, the student's runner is given a file of
    // the grader's that holds no library yet (the grader copies it in before
    // the go), so that its sandbox can name it now.
    int go = go_fd();
    allowed_in_build_dir[1] = realpath(student, NULL);
    if (!allowed_in_build_dir[1])
        fail(EXIT_LOAD, "load: cannot find the student's code %s: %s", student, strerror(errno));
    start_runners(student, runner, reference, warm_size[0] ? warm_size : NULL, go < 0);
    trace(go < 0 ? "runners started" : "runners started, yours to load your library once nvcc is done");

    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        // the GPU the grader picked (several on the machine) may be what was not found
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        fail(EXIT_NOGPU, "nogpu: %s%s%s%s", err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device",
             visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "", visible ? ")" : "");
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    result("device: %s", prop.name);
    result("sm: %d.%d %d %d", prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000);
    if (kind.peak != PEAK_NONE) result("peak: %.1f", peak_tflops(prop.major * 10 + prop.minor, prop.multiProcessorCount, clock_khz));
    trace("CUDA context, the device's properties");

    flush_bytes = std::max<size_t>(2 * (size_t)prop.l2CacheSize, 1 << 20);
    CK(cudaMalloc(&flush_buf, flush_bytes));
    CK(cudaMalloc(&counters, 2 * sizeof *counters));
    CK(cudaMalloc(&map_cells, MAP_CELLS * sizeof *map_cells));
    if (counters_list) {  // where the runner leaves its records (CUPTI itself is loaded at the first)
        counting = true;
        alloc_shared(&record_buf, RECORD_BYTES, "the counters' record");
    }
    CK(cudaMemset(map_cells, 0, MAP_CELLS * sizeof *map_cells));
    trace("the judge's buffers");
    bool warmed = false;
    for (const Dims &d : check) warmed = warm_exact(d);
    if (warmed) trace("exact values once at each check size (cuBLAS loaded) while your runner loads the profiler");
    if (go >= 0) {
        await_go(go);
        trace("your library built (the judge waited for nvcc)");
        load_student_library();
    }
    await_runners();
    watch_neighbours(prop);  // this process has a context by now
    trace("NVML's watch of other processes");
    pin_cpus(prop);
    wait_for_quiet_gpu();     // the idle probe is calibrated on an idle GPU
    trace("waiting for a quiet GPU");
    calibrate_idle_probe();
    trace("idle probe calibrated");
    if (counting) witness_open();  // while the check sizes run

    bool ok = true;
    for (size_t k = 0; k < check.size() && ok; k++) ok = check_against_cpu(check[k], seed + k);
    if (ok && deterministic && !first_runs.empty()) ok = same_bits_in_a_new_runner(runner, student);
    TimedEnd end = TIMED_FAIR;
    // A later timed size follows the GPU's busy samples of the one before:
    // its clock is up, and its first calls (untimed) loaded its kernels and
    // touched its buffers, so a shorter warm-up by time (still at least three
    // rounds) is enough; 0.1 s less for each (ex41 has four sizes).
    const double later_warmup_ms = std::min(warmup_ms, 50.0);
    witness_opened();
    // At least COUNTED_CALLS counted calls in all, at every timed size.
    const int counted_per_size = std::max(1, (COUNTED_CALLS + (int)timing.size() - 1) / std::max(1, (int)timing.size()));
    for (size_t k = 0; k < timing.size() && ok && end == TIMED_FAIR; k++) {
        end = timed_run(timing[k], seed + k, samples, k == 0 ? warmup_ms : later_warmup_ms, counting,
                        counted_per_size);
        ok = end != TIMED_WRONG;
    }
    if (ok) collect_student_modules();
    result("done: %s", !ok ? "wrong" : end == TIMED_BUSY ? "busy" : "correct");
    trace("done");
    finish(EXIT_DONE);
}
