// The judge: checks and times one exercise's `solve` against the reference,
// without ever loading the student's code.
//
// Built once per kind (this file + runner.cu + harness/kinds/KIND.cu) by the
// grader, and run as
//
//   harness-KIND --student S.so --runner runner-KIND --reference R.so --seed N
//                --check 1000 --check 65537 --timing 268435456 [--timing ...]
//                [--rel X] [--abs Y] [--deterministic 1] [--samples N] [--warmup-ms N]
//                [--counters METRIC,...]
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
// lines (grader/grader.c reads them); no runner holds that descriptor.
#include "harness.h"
#include "inputs.h"
#include "modules.h"
#include "neighbours.h"
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
#include <vector>

int runner_main(bool trusted, const char *library, const char *counters, const char *warm);  // runner.cu

// Exit codes of the judge itself; the grader reads the result lines first.
enum { EXIT_DONE = 0, EXIT_USAGE = 2, EXIT_CUDA = 3, EXIT_LOAD = 4, EXIT_NOGPU = 5, EXIT_TIMEOUT = 6 };

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

static FILE *results;
static int results_fd = -1;  // the same, for a signal handler

static void result(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(results, fmt, ap);
    va_end(ap);
    fputc('\n', results);
    fflush(results);
}

static void stop_runners(void);

// Ends the judge: the runners killed, the results flushed, and no teardown
// of the CUDA runtime, cuBLAS and NVML, which the process's exit does anyway
// (a tenth of a second that no result waits for).
[[noreturn]] static void finish(int code) {
    stop_runners();
    fflush(NULL);
    _exit(code);
}

[[noreturn]] static void fail(int code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    result("error: %s", msg);
    finish(code);
}

// The student broke a rule the verdict depends on (violation: KIND: text).
[[noreturn]] static void violation(const char *kind_of, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    result("violation: %s: %s", kind_of, msg);
    result("done: wrong");
    finish(EXIT_DONE);
}

// What the judge was doing, so that a fault names the call.
static char phase[256] = "starting";

static void cuda_check(cudaError_t err, const char *what) {
    if (err != cudaSuccess) fail(EXIT_CUDA, "cuda: %s: %s (%s)", phase, cudaGetErrorString(err), what);
}
#define CK(call) cuda_check((call), #call)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

// Where the judge's time goes (gpucourse grade --trace): a mark at the end
// of each step, in seconds on the monotonic clock the grader reads too.
static void trace(const char *fmt, ...) {
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    result("trace: %.6f %s", now_us() / 1e6, what);
}

// ---------------------------------------------------------------- inputs

// Where an output is wrong, for the student's picture (wrongmap: lines):
// wrong elements counted per cell of a grid of at most MAP_ROWS x MAP_COLS
// cells over the output (one row for 1D outputs), and, for 2D outputs, per
// position in a FOLD x FOLD tile (a mistake repeated in every tile, like
// one wrong fragment position, shows there).
enum { MAP_ROWS = 16, MAP_COLS = 64, FOLD = 16, MAP_CELLS = MAP_ROWS * MAP_COLS + FOLD * FOLD };

struct MapLayout {
    unsigned long long *cells;  // device or host: MAP_CELLS counts; null: no map
    long long rows, cols;       // rows = 1 for 1D
    int gr, gc;                 // grid cells used
    int fold;                   // 2D: count per tile position too
};

__host__ __device__ static inline void map_mark(const MapLayout &m, size_t i) {
    if (!m.cells) return;
    long long r = (long long)(i / (size_t)m.cols), c = (long long)(i % (size_t)m.cols);
    int cell = (int)(r * m.gr / m.rows) * m.gc + (int)(c * m.gc / m.cols);
    int pos = MAP_ROWS * MAP_COLS + (int)(r % FOLD) * FOLD + (int)(c % FOLD);
#ifdef __CUDA_ARCH__
    atomicAdd(&m.cells[cell], 1ull);
    if (m.fold) atomicAdd(&m.cells[pos], 1ull);
#else
    m.cells[cell]++;
    if (m.fold) m.cells[pos]++;
#endif
}

__host__ __device__ static inline double tol_factor(int scale, size_t i, long long length) {
    if (scale == TOL_SQRT_INDEX) return sqrt((double)i + 1.0);
    if (scale == TOL_SQRT_LENGTH) return sqrt((double)(length > 0 ? length : 1));
    return 1.0;
}

// Counts elements where `got` differs from `want` beyond the tolerance and
// remembers the first such index.
__global__ void compare_kernel(const void *got, const void *want, size_t n, int is_int, float rel,
                               float abs_tol, int scale, long long length, unsigned long long *count,
                               unsigned long long *first, MapLayout map) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        bool bad;
        if (is_int) {
            bad = ((const int *)got)[i] != ((const int *)want)[i];
        } else {
            float g = ((const float *)got)[i], w = ((const float *)want)[i];
            float tol = abs_tol * (float)tol_factor(scale, i, length) + rel * fabsf(w);
            bad = !(fabsf(g - w) <= tol);  // NaN is bad
        }
        if (bad) {
            atomicAdd(count, 1ull);
            atomicMin(first, (unsigned long long)i);
            map_mark(map, i);
        }
    }
}

// Counts the bytes where got and want differ, and remembers the first.
__global__ void compare_bytes_kernel(const unsigned char *got, const unsigned char *want, size_t n,
                                     unsigned long long *count, unsigned long long *first) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        if (got[i] != want[i]) {
            atomicAdd(count, 1ull);
            atomicMin(first, (unsigned long long)i);
        }
}

// The first byte in p[0, n) that is not `value` (~0 when all are).
__global__ void find_byte_kernel(const unsigned char *p, size_t n, unsigned char value, unsigned long long *first) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        if (p[i] != value) atomicMin(first, (unsigned long long)i);
}

// CHECK_REL_NORM, pass 1: sums[0] += (got - exact)^2 and sums[1] += exact^2
// over the finite outputs; counts[0] += outputs that are NaN or infinite.
__global__ void norm_sums_kernel(const float *got, const double *exact, size_t n, double *sums,
                                 unsigned long long *counts) {
    double e2 = 0, r2 = 0;
    unsigned long long bad = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i], w = exact[i];
        r2 += w * w;
        if (!isfinite(g)) bad++;
        else e2 += (g - w) * (g - w);
    }
    for (int o = 16; o > 0; o >>= 1) {
        e2 += __shfl_down_sync(~0u, e2, o);
        r2 += __shfl_down_sync(~0u, r2, o);
        bad += __shfl_down_sync(~0u, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], e2);
        atomicAdd(&sums[1], r2);
        if (bad) atomicAdd(&counts[0], bad);
    }
}

// The largest key of the warp, to its lane 0. Every thread of the warp
// calls it (after its loop): the worst element goes to memory once a warp,
// since one atomicMax per element on one address serialised the check of a
// GEMM's output (67M elements at 8192^3: some 35 ms a kernel on an H100).
__device__ unsigned long long warp_max(unsigned long long key) {
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long other = __shfl_down_sync(~0u, key, o);
        key = other > key ? other : key;
    }
    return key;
}

// Pass 2: counts[1] = outputs off by more than `limit` (or not finite),
// counts[2] = the worst one as (error's float bits << 32 | index), and the
// first few such indices in `some` (counts[3] of them, at most max_some).
__global__ void norm_worst_kernel(const float *got, const double *exact, size_t n, double limit,
                                  unsigned long long *counts, unsigned long long *some, int max_some) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long worst = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i];
        float err = isfinite(g) ? (float)fabs(g - exact[i]) : INFINITY;
        unsigned long long key = ((unsigned long long)__float_as_uint(err) << 32) | (unsigned)min(i, (size_t)0xffffffffu);
        worst = key > worst ? key : worst;
        if (err > limit) {
            atomicAdd(&counts[1], 1ull);
            unsigned long long k = atomicAdd(&counts[3], 1ull);
            if (k < (unsigned long long)max_some) some[k] = i;
        }
    }
    worst = warp_max(worst);
    if ((threadIdx.x & 31) == 0) atomicMax(&counts[2], worst);
}

// Elements off by more than their own bound, factor * magnitude (what
// rounding can do in any order of summation): counts[0] such elements (or
// not finite), counts[1] the worst as (error over bound, float bits << 32 |
// index).
__global__ void element_bound_kernel(const float *got, const double *exact, const double *magnitude, size_t n,
                                     double factor, unsigned long long *counts, MapLayout map) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long worst = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i];
        float ratio = isfinite(g) ? (float)(fabs(g - exact[i]) / (factor * magnitude[i] + 1e-300)) : INFINITY;
        unsigned long long key = ((unsigned long long)__float_as_uint(ratio) << 32) | (unsigned)min(i, (size_t)0xffffffffu);
        worst = key > worst ? key : worst;
        if (!(ratio <= 1)) {
            atomicAdd(&counts[0], 1ull);
            map_mark(map, i);
        }
    }
    worst = warp_max(worst);
    if ((threadIdx.x & 31) == 0) atomicMax(&counts[1], worst);
}

__global__ void probe_kernel() {}


// ---------------------------------------------------------------- runners

static const char *contestant_name[] = {"student", "reference", "library", "baseline"};

struct Runner {
    pid_t pid;
    int sock;
    uint64_t seq;
    bool stopped;
};

static Runner student_runner = {-1, -1, 0, false};
static Runner trusted_runner = {-1, -1, 0, false};

static Runner &runner_for(int c) { return c == STUDENT ? student_runner : trusted_runner; }

// Both killed first, then both waited for: their contexts are torn down at once.
static void stop_runners(void) {
    Runner *all[] = {&student_runner, &trusted_runner};
    for (Runner *r : all)
        if (r->pid > 0) kill(r->pid, SIGKILL);
    for (Runner *r : all)
        if (r->pid > 0) {
            waitpid(r->pid, NULL, 0);
            r->pid = -1;
        }
}

// The environment a runner gets: what the CUDA driver needs, nothing of ours.
static std::vector<std::string> runner_environment(void) {
    std::vector<std::string> env = {"CUDA_CACHE_DISABLE=1", "PATH=/usr/bin:/bin"};
    const char *pass[] = {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING"};
    for (const char *name : pass)
        if (const char *v = getenv(name)) env.push_back(std::string(name) + "=" + v);
    return env;
}

static void spawn_runner(Runner &r, const char *program, const char *mode, const char *arg,
                         const char *option = NULL, const char *value = NULL) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        fail(EXIT_CUDA, "setup: socketpair: %s", strerror(errno));
    std::vector<std::string> env_text = runner_environment();
    std::vector<char *> env;
    for (auto &e : env_text) env.push_back((char *)e.c_str());
    env.push_back(NULL);
    char *argv[] = {(char *)program, (char *)mode, (char *)arg, (char *)(value ? option : NULL), (char *)value, NULL};
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) fail(EXIT_CUDA, "setup: fork: %s", strerror(errno));
    if (pid == 0) {  // only async-signal-safe calls from here to exec
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        if (sv[1] == RUNNER_FD) fcntl(RUNNER_FD, F_SETFD, 0);  // dup2 onto itself keeps close-on-exec
        else if (dup2(sv[1], RUNNER_FD) < 0) _exit(1);
        for (int fd = RUNNER_FD + 1; fd < 4096; fd++) close(fd);  // nothing of the judge's
        execve(program, argv, env.data());
        _exit(127);
    }
    close(sv[1]);
    r.pid = pid;
    r.sock = sv[0];
}

// How a runner that went away ended, in words.
static std::string runner_end(Runner &r) {
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 200 && got == 0; i++) {  // it closed its socket: it is ending
        got = waitpid(r.pid, &status, WNOHANG);
        if (got == 0) usleep(10000);
    }
    if (got == 0) {
        kill(r.pid, SIGKILL);
        waitpid(r.pid, &status, 0);
    }
    r.pid = -1;
    char text[128];
    if (WIFEXITED(status)) snprintf(text, sizeof text, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(text, sizeof text, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(text, sizeof text, "closed its end");
    return text;
}

// A runner's answer to request `seq`: MSG_DONE, MSG_FAIL or MSG_READY (seq 0).
// A student runner that answers out of turn, or goes away, ends the grading.
static Msg await(Runner &r, uint64_t seq, const char *doing) {
    Msg m;
    int nfds = 0;
    int got = msg_recv(r.sock, &m, NULL, 0, &nfds);
    if (got == 0 || (got < 0 && errno != EPROTO)) {
        std::string how = runner_end(r);
        if (&r == &student_runner)
            fail(EXIT_CUDA, "runner: the process running your code ended (%s) %s", how.c_str(), doing);
        fail(EXIT_CUDA, "runner: the trusted runner ended (%s) %s", how.c_str(), doing);
    }
    bool expected = got > 0 && m.seq == seq &&
                    (seq == 0 ? m.type == MSG_READY || m.type == MSG_FAIL : m.type == MSG_DONE || m.type == MSG_FAIL);
    if (!expected) {
        if (&r == &student_runner)
            violation("protocol",
                      "a message on the harness's socket that it did not ask for (%s): your code wrote to a "
                      "descriptor it does not own",
                      doing);
        fail(EXIT_CUDA, "runner: the trusted runner answered out of turn %s", doing);
    }
    return m;
}

// Anything a runner sent when nobody asked is a forged message.
static void expect_silence(Runner &r, const char *doing) {
    struct pollfd p = {r.sock, POLLIN, 0};
    if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) await(r, ~0ull, doing);
}

// Whether every thread of pid is stopped (or the process is gone).
static bool all_threads_stopped(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return true;
    bool stopped = true;
    for (struct dirent *e; stopped && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char stat_path[384], buf[512];
        snprintf(stat_path, sizeof stat_path, "%s/%s/stat", path, e->d_name);
        int fd = open(stat_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // the thread ended
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = '\0';
        const char *state = strrchr(buf, ')');
        stopped = !state || state[1] == '\0' || strchr("tTZX", state[2]);
    }
    closedir(d);
    return stopped;
}

// Whether the runner (a child of the judge) is in a completed group stop:
// the last of its threads to stop reports it to the parent once, and
// SIGCONT takes back a report nobody read, so a report means stopped now.
static bool reported_stopped(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG) == 0 && info.si_pid == pid;
}

// Freezes a runner between its calls: a stopped process launches no work,
// runs no threads and cannot disturb the other contestants' timing. The stop
// is asked for (freeze_begin) and then seen (freeze_seen): the kernel's
// report of the group stop for the first millisecond (tens of microseconds
// as a rule), then /proc, which says when every thread has stopped, not only
// been signalled. A timed call watches the GPU meanwhile (call), so that how
// long a runner's threads take to stop is not the runner's time.
static const double FREEZE_LIMIT_US = 1e6;

static void freeze_begin(Runner &r) {
    if (r.pid <= 0 || r.stopped) return;
    kill(r.pid, SIGSTOP);
    r.stopped = true;
}

// Whether the runner asked to stop at `asked` (the judge's clock) has
// stopped; one that has not after FREEZE_LIMIT_US ends the grading.
static bool freeze_seen(Runner &r, double asked) {
    double waited = now_us() - asked;
    if (r.pid <= 0 || reported_stopped(r.pid)) return true;
    if (waited < 1000) return false;
    if (all_threads_stopped(r.pid)) return true;
    if (waited < FREEZE_LIMIT_US) return false;
    if (&r == &student_runner) violation("protocol", "the process running your code could not be stopped between calls");
    fail(EXIT_CUDA, "runner: the trusted runner could not be stopped between calls");
}

static void freeze(Runner &r) {
    if (r.pid <= 0 || r.stopped) return;
    freeze_begin(r);
    for (double asked = now_us(); !freeze_seen(r, asked);)
        if (now_us() - asked > 1000) usleep(10);
}

static void thaw(Runner &r) {
    if (r.pid > 0 && r.stopped) kill(r.pid, SIGCONT);
    r.stopped = false;
}

// ---------------------------------------------------------------- idle GPU

static double quick_probe_us = 120;

static double probe_us(void) {
    double t = now_us();
    probe_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    return now_us() - t;
}

// Watches the GPU from a runner's answer until the runner is frozen and the
// GPU idle for good (rules_watch_probe says when the call ended).
struct IdleWatch {
    Runner *runner;
    double asked;      // the judge's clock when the stop was asked
    bool frozen;
    double frozen_at;  // when the stop was seen
    CallEnd end;
};

// Watches for at most limit_s more; false when the GPU did not go idle for good meanwhile.
static bool watch_until_idle(IdleWatch &w, double limit_s) {
    double start = now_us();
    for (;;) {
        if (!w.frozen && (w.frozen = freeze_seen(*w.runner, w.asked))) w.frozen_at = now_us();
        bool after_stop = w.frozen;
        bool quick = probe_us() < quick_probe_us;
        if (rules_watch_probe(&w.end, quick, after_stop, now_us())) return true;
        if (now_us() - start > limit_s * 1e6) return false;
        if (!w.frozen && now_us() - w.asked > 1000) usleep(10);  // a slow stop: /proc is read between probes
    }
}

static void calibrate_idle_probe(void) {
    double t[41];
    for (int i = 0; i < 10; i++) probe_us();
    for (int i = 0; i < 41; i++) t[i] = probe_us();
    quick_probe_us = rules_quick_probe_bound_us(t, 41);
    result("idle: probe %.1f us, quick below %.1f us", t[20], quick_probe_us);
}

// ---------------------------------------------------------------- other processes

// A timing is fair only when no other process used the GPU meanwhile: time
// slicing gives each context turns, and both contestants' times stretch by
// amounts that do not cancel in their ratio. The per-GPU lock keeps other
// gradings away (grader/gpulock.c); NVML shows everything else.
static bool watching_neighbours = false;

// The student's first runner, once the second run started another
// (same_bits_in_a_new_runner): NVML's samples still name it for a while.
static pid_t retired_student_runner = -1;

// The judge's own processes: it and its runners.
enum { OWN_PIDS = 4 };
static void own_pids(int own[OWN_PIDS]) {
    own[0] = getpid(), own[1] = student_runner.pid, own[2] = trusted_runner.pid, own[3] = retired_student_runner;
}

static void watch_neighbours(const cudaDeviceProp &prop) {
    char why[256];
    if (!neighbours_open((const unsigned char *)prop.uuid.bytes, why, sizeof why)) {
        result("neighbours: unwatched: %s", why);
        return;
    }
    int pids[256];
    int n = neighbours_contexts(pids, 256), listed = n < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) listed |= pids[i] == getpid();  // this process has a context by now
    if (listed < 0) result("neighbours: unwatched: NVML cannot list the GPU's processes");
    else if (listed == 0)
        result("neighbours: unwatched: NVML's process ids are not this machine's (another PID namespace: a "
               "container?), so other processes cannot be told from ours");
    watching_neighbours = listed == 1;
}

// ---------------------------------------------------------------- CPUs

// A CPU's physical core, as a number no other core of the host shares (the
// CPU's own number where sysfs does not say).
static int physical_core(int cpu) {
    int ids[2] = {-1, -1};
    const char *files[2] = {"physical_package_id", "core_id"};
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, files[i]);
        FILE *f = fopen(path, "re");
        if (!f || fscanf(f, "%d", &ids[i]) != 1) ids[0] = -1;
        if (f) fclose(f);
    }
    return ids[0] < 0 || ids[1] < 0 ? -1 - cpu : ids[0] * 65536 + ids[1];
}

// The runners' CPU (pin_cpus), for a student's runner started again.
static cpu_set_t runner_cpus;
static bool runners_pinned;

// Every thread of a runner onto one CPU (threads it starts later inherit it).
static void pin_runner(const Runner &r, const cpu_set_t *set) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)r.pid);
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') sched_setaffinity((pid_t)atoi(e->d_name), sizeof *set, set);
    closedir(d);
}

// The judge and its runners on CPUs of their own (rules_pick_cpus), those
// nearest the GPU where NVML names them. Left to the kernel's placement, one
// grading in ten found the student's runner 50-100 us slower per call than
// the trusted one from its first call to its last (woken on a farther or
// sleepier core), which judged a reference at 0.73-0.81x itself at 0.2 ms
// calls (docs/benchmarks.md). With one core to use, nothing is pinned.
static void pin_cpus(const cudaDeviceProp &prop) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    static int near_gpu[CPU_SETSIZE], cpus[CPU_SETSIZE], core[CPU_SETSIZE];
    int n_near = 0, n = 0;
    unsigned slot;
    if (!neighbours_gpu_place(&slot, near_gpu, CPU_SETSIZE, &n_near)) slot = (unsigned)prop.pciBusID;
    for (int i = 0; i < n_near; i++)
        if (CPU_ISSET(near_gpu[i], &allowed)) cpus[n++] = near_gpu[i];
    if (n < 2)
        for (int cpu = n = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &allowed)) cpus[n++] = cpu;
    for (int i = 0; i < n; i++) core[i] = physical_core(cpus[i]);
    int judge_cpu, runner_cpu;
    if (!rules_pick_cpus(cpus, core, n, slot, &judge_cpu, &runner_cpu)) {
        trace("CPUs: fewer than two cores to use, nothing pinned");
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(judge_cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    CPU_ZERO(&set);
    CPU_SET(runner_cpu, &set);
    pin_runner(trusted_runner, &set);
    pin_runner(student_runner, &set);
    runner_cpus = set, runners_pinned = true;
    trace("CPUs: the judge on %d, both runners on %d (slot %u, %d CPUs to choose from)", judge_cpu, runner_cpu, slot, n);
}

// Whether a process other than ours holds a context on the GPU now (when
// NVML cannot say: as if one did).
static bool strangers_now(void) {
    int pids[256], own[OWN_PIDS];
    int n = neighbours_contexts(pids, 256);
    own_pids(own);
    for (int i = 0; i < n; i++) {
        bool ours = false;
        for (int k = 0; k < OWN_PIDS; k++) ours |= pids[i] == own[k];
        if (!ours) return true;
    }
    return n < 0;
}

// Names the other processes that used the GPU since `since_us` (NVML's
// clock) in text; false when none did (or when they cannot be watched).
// NVML's samples are ~200 ms apart, each of one process, so the look starts
// a period early and, when another process held a context meanwhile
// (`strangers`), waits for the period still to come.
static bool neighbours_since(unsigned long long since_us, bool strangers, char *text, size_t size) {
    static const unsigned long long PERIOD_US = 250 * 1000;
    static GpuUse use[1024];
    int own[OWN_PIDS];
    GpuUse other[4];
    char why[256];
    text[0] = '\0';
    if (!watching_neighbours) return false;
    own_pids(own);
    int n = neighbours_samples(since_us - PERIOD_US, use, 1024, why, sizeof why);
    int found = n < 0 ? 0 : rules_neighbours(use, n, own, OWN_PIDS, other, 4);
    if (n >= 0 && !found && strangers) {
        usleep(PERIOD_US);
        n = neighbours_samples(since_us - PERIOD_US, use, 1024, why, sizeof why);
        found = n < 0 ? 0 : rules_neighbours(use, n, own, OWN_PIDS, other, 4);
    }
    if (n < 0) {
        result("neighbours: unwatched: %s", why);
        watching_neighbours = false;
        return false;
    }
    size_t used = 0;
    for (int i = 0; i < found && used < size; i++) {
        char comm_path[64], name[64] = "";
        snprintf(comm_path, sizeof comm_path, "/proc/%u/comm", other[i].pid);
        FILE *f = fopen(comm_path, "r");
        if (f) {
            if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = '\0';
            fclose(f);
        }
        used += (size_t)snprintf(text + used, size - used, "%spid %u%s%s%s: %u%% of the SMs, %u%% of memory",
                                 i ? "; " : "", other[i].pid, name[0] ? " (" : "", name, name[0] ? ")" : "",
                                 other[i].sm_percent, other[i].memory_percent);
    }
    return found > 0;
}

// Waits, up to NEIGHBOUR_WAIT_S, for a second in which no other process
// used the GPU.
static void wait_for_quiet_gpu(void) {
    char text[512];
    double start = now_us();
    while (neighbours_since(neighbours_clock_us() - 1000000ull, false, text, sizeof text) &&
           now_us() - start < NEIGHBOUR_WAIT_S * 1e6)
        usleep(250 * 1000);
}

// ---------------------------------------------------------------- problems

// One problem instance. The judge keeps the inputs' master copy, which no
// runner can reach; every contestant gets its own copy of all arrays,
// shared with its runner, refilled from the master before every call.
struct Problem {
    Dims dims;
    size_t len[MAX_ARRAYS];
    void *master[MAX_ARRAYS];  // ROLE_IN data, and the first value of ROLE_INOUT
    bool has[CONTESTANTS];
    int slot[CONTESTANTS];
    int narrays[CONTESTANTS];
    SharedBuf own[CONTESTANTS][MAX_ARRAYS];  // COPY: [0] source, [1] destination
};

static size_t bytes_of(const ArraySpec &a, size_t n) { return n * elem_size(a.type); }

static int next_slot;

static void bind(Problem &p, int c) {
    Runner &r = runner_for(c);
    Msg m = msg_init(MSG_BIND, ++r.seq);
    m.slot = p.slot[c] = next_slot++ % 64;
    m.narrays = p.narrays[c];
    int fds[MAX_ARRAYS];
    for (int i = 0; i < p.narrays[c]; i++) {
        m.bytes[i] = p.own[c][i].bytes;
        fds[i] = shared_export(p.own[c][i]);
        if (fds[i] < 0) fail(EXIT_CUDA, "setup: cannot export device memory for the %s", contestant_name[c]);
    }
    thaw(r);
    expect_silence(r, "before its arrays were handed over");
    if (msg_send(r.sock, m, fds, p.narrays[c]) < 0) await(r, m.seq, "while its arrays were handed over");
    for (int i = 0; i < p.narrays[c]; i++) close(fds[i]);
    Msg a = await(r, m.seq, "while its arrays were handed over");
    freeze(r);
    if (a.type == MSG_FAIL) fail(EXIT_CUDA, "runner: %s", a.text);  // never a verdict the runner picks
}

static void alloc_shared(SharedBuf *b, size_t bytes, const char *what) {
    char why[256];
    if (!shared_alloc(b, bytes, why, sizeof why))
        fail(EXIT_CUDA, "cuda: %s: cannot allocate %zu bytes for %s: %s", phase, bytes, what, why);
}

static void problem_alloc(Problem &p, const Dims &dims, const bool *contestants, size_t copy_bytes) {
    memset(&p, 0, sizeof p);
    p.dims = dims;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        p.len[i] = a.length(dims);
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMalloc(&p.master[i], std::max<size_t>(bytes_of(a, p.len[i]), 4)));
    }
    for (int c = 0; c < CONTESTANTS; c++) {
        if (!contestants[c]) continue;
        p.has[c] = true;
        if (c == COPY) {
            p.narrays[c] = 2;
            alloc_shared(&p.own[c][0], copy_bytes, "the copy's source");
            alloc_shared(&p.own[c][1], copy_bytes, "the copy's destination");
            CK(cudaMemset(p.own[c][0].ptr, 0x3c, copy_bytes));
        } else {
            p.narrays[c] = kind.narrays;
            for (int i = 0; i < kind.narrays; i++)
                alloc_shared(&p.own[c][i], bytes_of(kind.arrays[i], p.len[i]), kind.arrays[i].name);
        }
        bind(p, c);
    }
}

static void problem_free(Problem &p) {
    for (int c = 0; c < CONTESTANTS; c++) {
        if (!p.has[c]) continue;
        Runner &r = runner_for(c);
        Msg m = msg_init(MSG_UNBIND, ++r.seq);
        m.slot = p.slot[c];
        msg_send(r.sock, m, NULL, 0);  // no answer: a runner that keeps the mapping only keeps memory
        for (int i = 0; i < p.narrays[c]; i++) shared_free(&p.own[c][i]);
    }
    for (int i = 0; i < kind.narrays; i++) cudaFree(p.master[i]);
}

// Fresh random inputs in the master copy: each (seed, array) pair is its own stream.
static void problem_fill(Problem &p, uint64_t seed) {
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (!p.master[i] || p.len[i] == 0) continue;
        fill_array(p.master[i], a, i, p.len[i], seed);
        CK(cudaGetLastError());
    }
}

// Before every call: the contestant's inputs copied from the master, outputs
// poisoned (all bytes 0xFF: NaN for floats, -1 for ints), and every array's
// bytes past its end set to PAD_BYTE.
static void problem_prepare(Problem &p, int c) {
    if (c == COPY) return;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        SharedBuf &b = p.own[c][i];
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMemcpyAsync(b.ptr, p.master[i], b.bytes, cudaMemcpyDeviceToDevice));
        else CK(cudaMemsetAsync(b.ptr, 0xFF, b.bytes));
        CK(cudaMemsetAsync((char *)b.ptr + b.bytes, PAD_BYTE, b.size - b.bytes));
    }
}

// The length of a row of array a at sizes d; 0 for a 1D array.
static size_t row_length(const ArraySpec &a, const Dims &d) {
    if (!a.row_major_2d || d.count < 2) return 0;
    long long cols = a.row_major_2d == COLS_ROWS ? d.d[0] : d.d[1];
    return cols > 0 ? (size_t)cols : 0;
}

static void coord_text(const ArraySpec &a, const Dims &d, size_t i, char *buf, size_t size) {
    if (size_t cols = row_length(a, d))
        snprintf(buf, size, "%s[%zu][%zu]", a.name, i / cols, i % cols);
    else
        snprintf(buf, size, "%s[%zu]", a.name, i);
}

static void value_text(ElemType t, const void *base, size_t i, char *buf, size_t size) {
    if (t == ELEM_I32) snprintf(buf, size, "%d", ((const int *)base)[i]);
    else if (t == ELEM_BF16) snprintf(buf, size, "%.4g", (double)__bfloat162float(((const __nv_bfloat16 *)base)[i]));
    else if (t == ELEM_F16) snprintf(buf, size, "%.5g", (double)__half2float(((const __half *)base)[i]));
    else if (t == ELEM_E4M3) snprintf(buf, size, "%.4g", (double)(float)((const __nv_fp8_e4m3 *)base)[i]);
    else snprintf(buf, size, "%.9g", (double)((const float *)base)[i]);
}

// got[k] against want[k], which is element `index` of the array (for the tolerance).
static bool values_match(const ArraySpec &a, const Dims &d, const void *got, const void *want, size_t k,
                         size_t index, double rel, double abs_tol) {
    if (a.type == ELEM_I32) return ((const int *)got)[k] == ((const int *)want)[k];
    double g = ((const float *)got)[k], w = ((const float *)want)[k];
    return fabs(g - w) <= abs_tol * tol_factor(a.tol_scale, index, d.d[0]) + rel * fabs(w);  // false for NaN
}

static unsigned long long *counters;  // device: [count, first]
// device: MAP_CELLS counts, zero except between a check that found wrong
// elements and its map_fetch (so a passing check, every timed sample's,
// costs no clearing)
static unsigned long long *map_cells;

// The grid over output a at sizes d; cells (device or host) must hold MAP_CELLS zeros.
static MapLayout map_layout(const ArraySpec &a, const Dims &d, size_t len, unsigned long long *cells) {
    MapLayout m;
    m.cells = len ? cells : nullptr;
    size_t row = row_length(a, d);
    bool two_d = row > 0 && len % row == 0;
    m.cols = two_d ? (long long)row : (long long)std::max<size_t>(len, 1);
    m.rows = two_d ? (long long)(len / row) : 1;
    m.gr = (int)std::min<long long>(std::max<long long>(m.rows, 1), MAP_ROWS);
    m.gc = (int)std::min<long long>(m.cols, MAP_COLS);
    m.fold = two_d && m.rows >= 2 * FOLD && m.cols >= 2 * FOLD;
    return m;
}

// Runs of consecutive wrong indices, in increasing order, the first few kept.
struct WrongRuns {
    enum { KEEP = 8 };
    long long from[KEEP], to[KEEP];
    int kept = 0;
    long long total = 0, last = -2;
    void add(long long i) {
        if (i == last + 1 && total > 0) {
            if (total <= KEEP) to[total - 1] = i;
        } else {
            if (total < KEEP) from[total] = to[total] = i;
            total++;
        }
        last = i;
        kept = (int)std::min<long long>(total, KEEP);
    }
};

// The picture's lines: "wrongmap: SIZE NAME ROWS COLS GR GC WRONG", one
// "wrongrow:" per grid row ('.' no element wrong, '+' some, '#' all), for
// 2D outputs FOLD "wrongfold:" lines (the same per position in a tile, over
// all tiles), and for 1D ones "wrongruns:" (the first runs of wrong indices
// seen, and how many runs there were).
static void report_map(const ArraySpec &a, const char *dtext, const MapLayout &m, const unsigned long long *cells,
                       unsigned long long wrong, const WrongRuns *runs) {
    result("wrongmap: %s %s %lld %lld %d %d %llu", dtext, a.name, m.rows, m.cols, m.gr, m.gc, wrong);
    auto span = [](long long n, int g, int k) {  // elements of n that fall in cell k of g
        return (k + 1) * n / g + ((k + 1) * n % g != 0) - (k * n / g + (k * n % g != 0));
    };
    for (int R = 0; R < m.gr; R++) {
        char row[MAP_COLS + 1];
        for (int C = 0; C < m.gc; C++) {
            unsigned long long n = cells[R * m.gc + C];
            unsigned long long all = (unsigned long long)span(m.rows, m.gr, R) * (unsigned long long)span(m.cols, m.gc, C);
            row[C] = n == 0 ? '.' : n >= all ? '#' : '+';
        }
        row[m.gc] = '\0';
        result("wrongrow: %s", row);
    }
    if (m.fold) {
        for (int r = 0; r < FOLD; r++) {
            char row[FOLD + 1];
            for (int c = 0; c < FOLD; c++) {
                unsigned long long n = cells[MAP_ROWS * MAP_COLS + r * FOLD + c];
                unsigned long long tiles = (unsigned long long)((m.rows - r + FOLD - 1) / FOLD) * ((m.cols - c + FOLD - 1) / FOLD);
                row[c] = n == 0 ? '.' : n >= tiles ? '#' : '+';
            }
            row[FOLD] = '\0';
            result("wrongfold: %s", row);
        }
    }
    if (runs && runs->total) {
        char text[400];
        int n = 0;
        for (int k = 0; k < runs->kept && n < (int)sizeof text - 48; k++)
            n += runs->from[k] == runs->to[k]
                     ? snprintf(text + n, sizeof text - (size_t)n, " %lld", runs->from[k])
                     : snprintf(text + n, sizeof text - (size_t)n, " %lld-%lld", runs->from[k], runs->to[k]);
        result("wrongruns: %lld%s", runs->total, text);
    }
}

// The device map's counts, for report_map; the map is cleared for the next.
static std::vector<unsigned long long> map_fetch(void) {
    std::vector<unsigned long long> h(MAP_CELLS);
    CK(cudaMemcpy(h.data(), map_cells, MAP_CELLS * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CK(cudaMemset(map_cells, 0, MAP_CELLS * sizeof *map_cells));
    return h;
}

static unsigned long long first_byte_not(const void *p, size_t n, unsigned char value) {
    unsigned long long init = ~0ull, out;
    if (n == 0) return ~0ull;
    CK(cudaMemcpy(counters + 1, &init, sizeof init, cudaMemcpyHostToDevice));
    find_byte_kernel<<<grid_for(n), 256>>>((const unsigned char *)p, n, value, counters + 1);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&out, counters + 1, sizeof out, cudaMemcpyDeviceToHost));
    return out;
}

// After a student call: its inputs as the master has them, and nothing
// written past the end of any array.
static void check_student_left_alone(Problem &p) {
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        SharedBuf &b = p.own[STUDENT][i];
        unsigned long long past = first_byte_not((char *)b.ptr + b.bytes, b.size - b.bytes, PAD_BYTE);
        if (past != ~0ull)
            violation("bounds", "your code wrote past the end of %s (%llu bytes after its last element)", a.name,
                      past);
        if (a.role != ROLE_IN || p.len[i] == 0) continue;
        unsigned long long init[2] = {0, ~0ull}, out[2];
        CK(cudaMemcpy(counters, init, sizeof init, cudaMemcpyHostToDevice));
        compare_bytes_kernel<<<grid_for(b.bytes), 256>>>((const unsigned char *)b.ptr,
                                                         (const unsigned char *)p.master[i], b.bytes, counters,
                                                         counters + 1);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out, counters, sizeof out, cudaMemcpyDeviceToHost));
        if (out[0]) {
            char where[96];
            coord_text(a, p.dims, (size_t)out[1] / elem_size(a.type), where, sizeof where);
            violation("input",
                      "your code changed its input %s (%llu bytes, the first in %s); inputs belong to the "
                      "grader and must be left as they are",
                      a.name, out[0], where);
        }
    }
}

// The student's runner must not have loaded a vendor library, the
// reference, or code from anywhere but the runtime's libraries (what the
// runner's sandbox lets it read, rules_maps_offender).
static char build_dir[4096];
static const char *allowed_in_build_dir[3];  // the runner and the student's library, as the kernel names them
static char **library_dirs;                  // the loader's directories: the runner's are the same (its
                                             // environment passes LD_LIBRARY_PATH; both have one run path)

static void check_student_maps(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)student_runner.pid);
    FILE *f = fopen(path, "re");
    if (!f) violation("library", "the harness cannot see what the process running your code has loaded");
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    fclose(f);
    char offender[4096];
    MapsAllowed ok = {allowed_in_build_dir, library_dirs, build_dir};
    if (rules_maps_offender(text.c_str(), &ok, offender, sizeof offender))
        violation("library", "your code loaded %s; only your own code may do the work", offender);
}

// ---------------------------------------------------------------- calls

static double tol_rel = 1e-5, tol_abs = 1e-6;
static bool deterministic;  // --deterministic: the same inputs must give the same bits (same_bits_in_a_new_runner)
static void *flush_buf;
static size_t flush_bytes;

// One call of one contestant, as the judge saw it.
struct Call {
    StepTime t;
    int probes;  // probes until the GPU was idle for good (two when honest: a context switch, then a quick one)
    double answered_ms, frozen_ms;  // the judge's clock when the answer came, and when the runner was frozen
    std::vector<double> counts;     // a counted call's counters (--counters), as the judge read its record
};

// --counters: the metrics the student's runner collects around a few of
// its timed samples (counters.h), for the grader's evidence checks.
// `counting` turns false once a collection failed: the grading goes on
// without.
static const char *counters_list;
static bool counting;
// Where the student's runner leaves the record of a counted call, which the
// judge reads itself (counters_record_values): this process computes the
// values, not the one that ran the student's code.
static SharedBuf record_buf;
// How many of the student's calls are counted in a grading, at least (a
// collection costs about 0.2 s: the profiler enabled, the call replayed
// for counters of two passes, disabled again).
static const int COUNTED_CALLS = 3;
static const size_t RECORD_BYTES = 4 << 20;
// Why the judge cannot read the counters here ("" when it can).
static char reader_why[400];

// Whether this machine lets the student's runner read the GPU's counters,
// as the judge finds out itself (a runner's words are the student's): the
// judge's own reader, and the driver's rule for profiling.
static bool counters_here(char *why, size_t why_size) {
    if (reader_why[0]) {
        snprintf(why, why_size, "%s", reader_why);
        return false;
    }
    FILE *f = fopen("/proc/driver/nvidia/params", "r");
    char line[256];
    bool admin_only = false;
    while (f && fgets(line, sizeof line, f)) admin_only |= !strncmp(line, "RmProfilingAdminOnly: 1", 23);
    if (f) fclose(f);
    if (admin_only && geteuid() != 0) {
        snprintf(why, why_size, "the driver lets only administrators read the GPU's counters "
                 "(NVreg_RestrictProfilingToAdminUsers=1; gpucourse doctor says how to allow it)");
        return false;
    }
    return true;
}

// The student's runner could not count (text: its words). "unavailable" is
// this machine's setup (the grader says what to do); "failed" happened in
// the student's process, and the requirement is not met.
static void counters_not_collected(const char *text) {
    char why[400];
    counting = false;
    if (!counters_here(why, sizeof why)) result("counters: unavailable: %s", why);
    else result("counters: failed: %s", text);
}

static bool read_record(uint64_t size, std::vector<double> &counts);

// Calls contestant c on p: prepares its arrays (and flushes L2 when timed),
// wakes its runner, asks, waits for the answer and then for an idle GPU,
// freezes the runner again. A fault becomes an error line naming the call.
static Call call(Problem &p, int c, const Scalars &s, bool timed, bool with_counters = false) {
    char dims[64];
    dims_text(p.dims, dims, sizeof dims);
    snprintf(phase, sizeof phase, "preparing the %s's call at size %s", contestant_name[c], dims);
    problem_prepare(p, c);
    if (timed) CK(cudaMemsetAsync(flush_buf, c, flush_bytes));  // evict what the last call left in L2
    CK(cudaDeviceSynchronize());
    snprintf(phase, sizeof phase, "%s solve at size %s%s", contestant_name[c], dims, timed ? " (timed)" : "");

    Runner &r = runner_for(c);
    Msg m = msg_init(MSG_RUN, ++r.seq);
    m.who = c;
    m.slot = p.slot[c];
    m.dims = p.dims;
    m.scalars = s;
    if (with_counters && counting) m.flags = RUN_COUNTERS;
    thaw(r);
    char doing[320];
    snprintf(doing, sizeof doing, "during the %s", phase);
    expect_silence(r, doing);
    double t0 = now_us();
    if (msg_send(r.sock, m, NULL, 0) < 0) await(r, m.seq, doing);
    Msg a = await(r, m.seq, doing);
    double answered = now_us();
    freeze_begin(r);
    // Not idle for a while: another process's work (said as soon as NVML
    // shows it), or the student's, left running.
    IdleWatch w = {&r, answered, false, 0, {0, 0, 0}};
    bool idle = watch_until_idle(w, NEIGHBOUR_LOOK_S);
    char neighbours[512];
    unsigned long long since = idle ? 0 : neighbours_clock_us() - (unsigned long long)(now_us() - t0);
    if (!idle && neighbours_since(since, true, neighbours, sizeof neighbours)) {
        result("gpubusy: %s: %s", dims, neighbours);
        result("done: busy");
        finish(EXIT_DONE);
    }
    if (!idle) idle = watch_until_idle(w, IDLE_LIMIT_S - NEIGHBOUR_LOOK_S);
    if (!idle) {
        if (c == STUDENT)
            violation("busy", "the GPU was still busy %.0f s after your solve returned at size %s: work left "
                      "running (a thread or stream that solve did not wait for)",
                      IDLE_LIMIT_S, dims);
        fail(EXIT_CUDA, "cuda: %s: the GPU stayed busy after the call", phase);
    }
    if (a.type == MSG_FAIL && (m.flags & RUN_COUNTERS) && !strncmp(a.text, "counters: ", 10)) {
        counters_not_collected(a.text + 10);
        return call(p, c, s, timed);  // the sample without counters
    }
    std::vector<double> counts;
    if (a.type == MSG_DONE && (m.flags & RUN_COUNTERS) && !read_record(a.bytes[0], counts)) return call(p, c, s, timed);
    if (a.type == MSG_FAIL) {
        const char *text = a.text;
        if (!strncmp(text, "cuda: ", 6)) text += 6;
        fail(EXIT_CUDA, "cuda: %s: %s", phase, text);
    }
    if (c == STUDENT) {
        check_student_maps();
        check_student_left_alone(p);
    }
    snprintf(phase, sizeof phase, "harness");
    Call out;
    out.t.event_ms = a.event_ms;
    out.t.wall_ms = (w.end.idle_at - t0) / 1000.0;
    out.probes = w.end.idle_from;
    out.answered_ms = (answered - t0) / 1000.0;
    out.frozen_ms = (w.frozen_at - t0) / 1000.0;
    out.counts = counts;
    return out;
}

// ---------------------------------------------------------------- run-time code

// Where counters are asked, the modules the student's process loaded
// (modules.h), asked for after its calls: each written beside the student's
// library as PREFIX.module-N.cubin (numbered on across the runners of one
// grading), and said in result lines for the grader, which compares them
// with the compiled code: "modules: LOADED", then "module: N BYTES PATH"
// ("-": the runner kept no bytes), or "modules: failed: why".
static char modules_prefix[4200];
static int modules_written;

static void collect_student_modules(void) {
    Runner &r = student_runner;
    if (!counters_list || r.pid <= 0) return;
    if (modules_written == 0)  // what an earlier grading left is not this one's
        for (int k = 1; k <= 2 * MODULES_KEPT; k++) {
            char old[4300];
            snprintf(old, sizeof old, "%s.module-%d.cubin", modules_prefix, k);
            unlink(old);
        }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) fail(EXIT_CUDA, "setup: pipe: %s", strerror(errno));
    const char *doing = "while reading the record of the modules your process loaded";
    Msg m = msg_init(MSG_MODULES, ++r.seq);
    thaw(r);
    expect_silence(r, doing);
    bool sent = msg_send(r.sock, m, &fds[1], 1) == 0;
    close(fds[1]);  // the runner's copy is the only writer: its end ends the stream
    uint64_t loaded = 0;
    std::vector<ModuleSeen> seen;
    char why[400] = "";
    int got = sent ? modules_receive(fds[0], modules_prefix, modules_written + 1, 30, &loaded, &seen, why, sizeof why)
                   : 0;
    close(fds[0]);
    if (got == -2) fail(EXIT_CUDA, "setup: %s", why);
    if (got == -1) violation("protocol", "the record of the machine code your process loaded came back broken (%s)", why);
    Msg a = await(r, m.seq, doing);
    freeze(r);
    if (got == 0 || a.type != MSG_DONE) {
        result("modules: failed: %s", a.type == MSG_FAIL && !strncmp(a.text, "modules: ", 9) ? a.text + 9
                                      : "the runner sent no record of the modules its process loaded");
        return;
    }
    result("modules: %llu", (unsigned long long)loaded);
    for (const ModuleSeen &s : seen)
        result("module: %d %llu %s", ++modules_written, (unsigned long long)s.bytes,
               s.path.empty() ? "-" : s.path.c_str());
}

// ---------------------------------------------------------------- CHECK_REL_NORM

// The verdict of a norm check, as result lines: "norm: SIZE ERROR BOUND"
// and up to 5 mismatch lines (the worst first). `off` counts the elements
// off by more than the bound times the RMS of the exact values, the
// non-finite ones included. Returns the number of elements it counts as
// wrong: 0 when the check passes, else at least 1.
static size_t norm_verdict(const ArraySpec &a, const Dims &d, const char *dtext, double e2, double r2,
                           unsigned long long nonfinite, unsigned long long off, const float *got,
                           const double *exact, const size_t *which, int nwhich, char lines[5][256], int *shown) {
    double err = r2 > 0 ? sqrt(e2 / r2) : sqrt(e2);
    result("norm: %s %.3e %.3e", dtext, err, tol_rel);
    bool ok = nonfinite == 0 && err <= tol_rel;
    for (int k = 0; !ok && k < nwhich && *shown < 5; k++) {
        char where[96], g[40];
        coord_text(a, d, which[k], where, sizeof where);
        value_text(ELEM_F32, got, (size_t)k, g, sizeof g);
        snprintf(lines[(*shown)++], 256, "mismatch: %s got %s want %.9g%s", where, g, exact[k], k == 0 ? " (the worst)" : "");
    }
    if (ok) return 0;
    return (size_t)std::max<unsigned long long>(off, 1);  // off counts the non-finite ones too
}

// The element bound's factor: an element of a sum of K products, computed
// in float32 in any order (tensor cores included), is off by at most about
// (K + 4) u times its magnitude (u = 2^-24; the 4: alpha, beta and the
// final roundings); TF32 inputs are cut to 10 mantissa bits first (2^-10
// each, both operands). Twice that, so that an honest kernel never meets it
// (the course's references stay far below: `elements:` prints the worst
// ratio) while an element that is simply wrong does.
//
// FP8 (PEAK_FP8_TENSOR, block scales): the tensor cores add the products of
// a 128-wide block of K in less than float32's precision, and the blocks'
// sums are added in float32 (K / 128 of them). On the H100 the worst
// element of ex45's reference and of cuBLASLt's block-scaled GEMM alike was
// off by 1.3e-4 of its magnitude (about 2^-13); the bound is 2^-12 per block,
// and the float32 additions of the blocks, twice.
static double element_factor(const Dims &d) {
    double k = d.count >= 3 ? (double)d.d[2] : 1, u = ldexp(1.0, -24);
    if (kind.peak == PEAK_FP8_TENSOR) return 2 * (ldexp(1.0, -12) + (k / 128 + 4) * u);
    double inputs = kind.peak == PEAK_TF32_TENSOR ? 2 * ldexp(1.0, -10) : 0;
    return 2 * ((k + 4) * u + inputs);
}

// The student's output against exact values the kind computes in float64
// on the GPU from the master inputs, at every size: the relative error in
// the Frobenius norm within tol_rel, and every element within its own bound.
static size_t norm_check_device(Problem &p, const Scalars &s, int out, const char *dtext, char lines[5][256],
                                int *shown) {
    const ArraySpec &a = kind.arrays[out];
    size_t n = p.len[out];
    static double *exact, *magnitude, *sums;
    static size_t exact_len;
    static unsigned long long *counts, *some, *elems;
    enum { MAX_SOME = 4 };
    if (exact_len < n) {
        cudaFree(exact);
        cudaFree(magnitude);
        CK(cudaMalloc(&exact, n * sizeof *exact));
        CK(cudaMalloc(&magnitude, n * sizeof *magnitude));
        exact_len = n;
    }
    if (!sums) {
        CK(cudaMalloc(&sums, 2 * sizeof *sums));
        CK(cudaMalloc(&counts, 4 * sizeof *counts));
        CK(cudaMalloc(&some, MAX_SOME * sizeof *some));
        CK(cudaMalloc(&elems, 2 * sizeof *elems));
    }
    kind.exact(p.master, out, exact, magnitude, p.dims, s);
    CK(cudaGetLastError());
    const float *got = (const float *)p.own[STUDENT][out].ptr;
    CK(cudaMemset(sums, 0, 2 * sizeof *sums));
    CK(cudaMemset(counts, 0, 4 * sizeof *counts));
    CK(cudaMemset(elems, 0, 2 * sizeof *elems));
    norm_sums_kernel<<<grid_for(n), 256>>>(got, exact, n, sums, counts);
    CK(cudaGetLastError());
    double hs[2];
    CK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    double limit = tol_rel * sqrt(hs[1] / (double)std::max<size_t>(n, 1));
    norm_worst_kernel<<<grid_for(n), 256>>>(got, exact, n, limit, counts, some, MAX_SOME);
    CK(cudaGetLastError());
    MapLayout map = map_layout(a, p.dims, n, map_cells);
    element_bound_kernel<<<grid_for(n), 256>>>(got, exact, magnitude, n, element_factor(p.dims), elems, map);
    CK(cudaGetLastError());
    unsigned long long hc[4], hsome[MAX_SOME], he[2];
    CK(cudaMemcpy(hc, counts, sizeof hc, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hsome, some, sizeof hsome, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(he, elems, sizeof he, cudaMemcpyDeviceToHost));
    size_t which[1 + MAX_SOME];
    int nwhich = 0;
    which[nwhich++] = (size_t)(hc[2] & 0xffffffffu);
    for (int k = 0; k < (int)std::min<unsigned long long>(hc[3], MAX_SOME); k++)
        if (hsome[k] != which[0]) which[nwhich++] = (size_t)hsome[k];
    float g[1 + MAX_SOME];
    double w[1 + MAX_SOME];
    for (int k = 0; k < nwhich; k++) {
        CK(cudaMemcpy(&g[k], got + which[k], sizeof g[k], cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&w[k], exact + which[k], sizeof w[k], cudaMemcpyDeviceToHost));
    }
    size_t bad = norm_verdict(a, p.dims, dtext, hs[0], hs[1], hc[0], hc[1], g, w, which, nwhich, lines, shown);
    // elements: SIZE WORST BAD: the worst error over its own bound, and how many exceed theirs
    uint32_t ratio_bits = (uint32_t)(he[1] >> 32);
    float worst;
    memcpy(&worst, &ratio_bits, sizeof worst);
    result("elements: %s %.3e %llu", dtext, (double)worst, he[0]);
    if (he[0] == 0) return bad;
    report_map(a, dtext, map, map_fetch().data(), he[0], NULL);
    if (bad == 0 && *shown < 5) {  // the norm passed: show the element that did not
        size_t i = (size_t)(he[1] & 0xffffffffu);
        float gi;
        double wi, mi;
        CK(cudaMemcpy(&gi, got + i, sizeof gi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&wi, exact + i, sizeof wi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&mi, magnitude + i, sizeof mi, cudaMemcpyDeviceToHost));
        char where[96], gt[40];
        coord_text(a, p.dims, i, where, sizeof where);
        value_text(ELEM_F32, &gi, 0, gt, sizeof gt);
        snprintf(lines[(*shown)++], 256, "mismatch: %s got %s want %.9g (off by %.3g, its bound %.3g)", where, gt, wi,
                 fabs((double)gi - wi), element_factor(p.dims) * mi);
    }
    return std::max<size_t>(bad, (size_t)he[0]);
}

// Small sizes: the student's outputs against the kind's CPU reference.
// The student's outputs as they are now, on the host (inputs: empty).
static std::vector<std::vector<char>> student_outputs(const Problem &p) {
    std::vector<std::vector<char>> out(kind.narrays);
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role != ROLE_OUT && a.role != ROLE_INOUT) continue;
        out[i].resize(bytes_of(a, p.len[i]));
        CK(cudaMemcpy(out[i].data(), p.own[STUDENT][i].ptr, out[i].size(), cudaMemcpyDeviceToHost));
    }
    return out;
}

// --deterministic: each check size's inputs (its seed) and the student's
// first outputs, kept for the second run (check sizes are small).
struct FirstRun {
    Dims dims;
    uint64_t seed;
    std::vector<std::vector<char>> outputs;
};
static std::vector<FirstRun> first_runs;

// The outputs of the second run at one check size against the first's, bit
// for bit. A sum whose order changes between runs (partial sums added with
// atomicAdd) gives other bits: a failed check "(second run)" with the first
// elements that changed.
static bool same_bits(Problem &p, const char *dtext, const std::vector<std::vector<char>> &first) {
    std::vector<std::vector<char>> again = student_outputs(p);
    size_t changed = 0;
    int shown = 0;
    char lines[5][256];
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role != ROLE_OUT && a.role != ROLE_INOUT) continue;
        const size_t size = elem_size(a.type);
        for (size_t k = 0; k < p.len[i]; k++) {
            if (!memcmp(first[i].data() + k * size, again[i].data() + k * size, size)) continue;
            if (changed++ >= 5) continue;
            char where[96], v1[40], v2[40];
            coord_text(a, p.dims, k, where, sizeof where);
            value_text(a.type, first[i].data(), k, v1, sizeof v1);
            value_text(a.type, again[i].data(), k, v2, sizeof v2);
            snprintf(lines[shown++], sizeof lines[0], "mismatch: %s first run %s, second run %s", where, v1, v2);
        }
    }
    trace("check %s: a second call, compared bit for bit", dtext);
    if (changed == 0) return true;
    result("check: %s fail %zu (second run)", dtext, changed);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    return false;
}

static void spawn_student_runner(const char *runner, const char *student);
static Msg await_student_runner(void);

// --deterministic, once every check size's values were right: the second
// run. The student's runner is started again, so nothing of the first calls
// can answer for the second (a copy of the first outputs kept in the
// process or on the GPU goes with the process; the sandbox lets it write no
// file), then each check size is called on the same inputs (the same seed)
// and its outputs compared bit for bit with the first call's.
static bool same_bits_in_a_new_runner(const char *runner, const char *student) {
    collect_student_modules();  // the first runner's, before it goes
    retired_student_runner = student_runner.pid;
    kill(student_runner.pid, SIGKILL);
    waitpid(student_runner.pid, NULL, 0);
    close(student_runner.sock);
    student_runner = {-1, -1, 0, false};
    spawn_student_runner(runner, student);
    await_student_runner();  // sandboxed as the first was: its line is said once
    if (runners_pinned) pin_runner(student_runner, &runner_cpus);
    trace("your runner started again for the second run");
    bool who[CONTESTANTS] = {true, false, false, false};
    for (const FirstRun &f : first_runs) {
        Problem p;
        snprintf(phase, sizeof phase, "setting up the second run");
        problem_alloc(p, f.dims, who, 0);
        problem_fill(p, f.seed);
        char dtext[64];
        dims_text(f.dims, dtext, sizeof dtext);
        call(p, STUDENT, scalars_for(f.seed), false);
        bool same = same_bits(p, dtext, f.outputs);
        problem_free(p);
        if (!same) return false;
    }
    return true;
}

// A check size's values: the student's outputs against the kind's CPU
// reference, or (CHECK_REL_NORM) against exact values the judge computes.
static bool check_values(Problem &p, const Scalars &s, const Dims &dims, const char *dtext) {
    size_t bad = 0;
    int shown = 0;
    char lines[5][256];
    if (kind.check == CHECK_REL_NORM) {  // against the judge's exact values, on the GPU
        for (int i = 0; i < kind.narrays; i++)
            if (kind.arrays[i].role == ROLE_OUT || kind.arrays[i].role == ROLE_INOUT)
                bad += norm_check_device(p, s, i, dtext, lines, &shown);
        if (bad == 0) result("check: %s ok", dtext);
        else result("check: %s fail %zu", dtext, bad);
        for (int k = 0; k < shown; k++) result("%s", lines[k]);
        trace("check %s: exact values and compare (GPU)", dtext);
        return bad == 0;
    }

    std::vector<std::vector<char>> host(kind.narrays), got(kind.narrays);
    void *host_ptr[MAX_ARRAYS];
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        size_t bytes = bytes_of(a, p.len[i]);
        host[i].resize(std::max<size_t>(bytes, 4));
        host_ptr[i] = host[i].data();
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMemcpy(host_ptr[i], p.master[i], bytes, cudaMemcpyDeviceToHost));
        if (a.role == ROLE_OUT || a.role == ROLE_INOUT) {
            got[i].resize(std::max<size_t>(bytes, 4));
            CK(cudaMemcpy(got[i].data(), p.own[STUDENT][i].ptr, bytes, cudaMemcpyDeviceToHost));
        }
        if (a.role == ROLE_OUT || a.role == ROLE_SCRATCH) memset(host_ptr[i], 0xFF, bytes);
    }
    trace("check %s: copies to the host", dtext);
    kind.reference(host_ptr, dims, s);
    trace("check %s: CPU reference", dtext);

    int mapped = -1;  // the first output with wrong elements gets the picture
    std::vector<unsigned long long> cells(MAP_CELLS);
    MapLayout map = {};
    WrongRuns runs;
    unsigned long long map_wrong = 0;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role == ROLE_IN || a.role == ROLE_SCRATCH) continue;
        for (size_t k = 0; k < p.len[i]; k++) {
            if (values_match(a, dims, got[i].data(), host_ptr[i], k, k, tol_rel, tol_abs)) continue;
            if (mapped < 0) {
                mapped = i;
                map = map_layout(a, dims, p.len[i], cells.data());
            }
            if (mapped == i) {
                map_mark(map, k);
                runs.add((long long)k);
                map_wrong++;
            }
            if (shown < 5) {
                char where[96], g[40], w[40];
                coord_text(a, dims, k, where, sizeof where);
                value_text(a.type, got[i].data(), k, g, sizeof g);
                value_text(a.type, host_ptr[i], k, w, sizeof w);
                snprintf(lines[shown++], sizeof lines[0], "mismatch: %s got %s want %s", where, g, w);
            }
            bad++;
        }
    }
    if (bad == 0) result("check: %s ok", dtext);
    else result("check: %s fail %zu", dtext, bad);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    if (mapped >= 0) report_map(kind.arrays[mapped], dtext, map, cells.data(), map_wrong, map.fold ? NULL : &runs);
    trace("check %s: compare", dtext);
    return bad == 0;
}

// A check size: the student's call and its values (with --deterministic,
// its outputs kept for the second run).
static bool check_against_cpu(const Dims &dims, uint64_t seed) {
    Problem p;
    bool who[CONTESTANTS] = {true, false, false, false};
    snprintf(phase, sizeof phase, "setting up size checks");
    problem_alloc(p, dims, who, 0);
    problem_fill(p, seed);
    Scalars s = scalars_for(seed);
    char dtext[64];
    dims_text(dims, dtext, sizeof dtext);
    trace("check %s: inputs", dtext);
    call(p, STUDENT, s, false);
    trace("check %s: your call", dtext);
    std::vector<std::vector<char>> first;
    if (deterministic) first = student_outputs(p);
    bool ok = check_values(p, s, dims, dtext);
    if (ok && deterministic) first_runs.push_back({dims, seed, std::move(first)});
    problem_free(p);
    return ok;
}

// Timed size: the student's outputs against the reference's on the same
// inputs, or (CHECK_REL_NORM) against exact values computed by the judge.
static bool check_against_reference(Problem &p, const Scalars &s, const char *label) {
    char dtext[64];
    dims_text(p.dims, dtext, sizeof dtext);
    size_t bad = 0;
    int shown = 0;
    char lines[5][256];
    int mapped = -1;  // the first output with wrong elements gets the picture
    std::vector<unsigned long long> cells;
    MapLayout mapped_layout = {};
    unsigned long long mapped_wrong = 0;
    WrongRuns runs;  // 1D: those in the window shown
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role == ROLE_IN || a.role == ROLE_SCRATCH || p.len[i] == 0) continue;
        if (kind.check == CHECK_REL_NORM) {
            bad += norm_check_device(p, s, i, dtext, lines, &shown);
            continue;
        }
        const void *got = p.own[STUDENT][i].ptr, *want = p.own[REFERENCE][i].ptr;
        unsigned long long init[2] = {0, ~0ull}, out[2];
        CK(cudaMemcpy(counters, init, sizeof init, cudaMemcpyHostToDevice));
        MapLayout map = map_layout(a, p.dims, p.len[i], bad ? nullptr : map_cells);  // the first wrong output's
        compare_kernel<<<grid_for(p.len[i]), 256>>>(got, want, p.len[i], a.type == ELEM_I32, (float)tol_rel,
                                                   (float)tol_abs, (int)a.tol_scale, p.dims.d[0], counters,
                                                   counters + 1, map);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out, counters, sizeof out, cudaMemcpyDeviceToHost));
        if (out[0] == 0) continue;
        if (bad == 0) {
            mapped = i;
            mapped_layout = map;
            mapped_wrong = out[0];
            cells = map_fetch();
        }
        bad += out[0];
        // Show the first few mismatches from a window starting at the first.
        size_t start = (size_t)out[1], count = std::min<size_t>(p.len[i] - start, 1 << 16);
        std::vector<char> g(count * 4), w(count * 4);
        CK(cudaMemcpy(g.data(), (const char *)got + start * 4, count * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(w.data(), (const char *)want + start * 4, count * 4, cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < count; k++) {
            if (values_match(a, p.dims, g.data(), w.data(), k, start + k, tol_rel, tol_abs)) continue;
            if (mapped == i) runs.add((long long)(start + k));
            if (shown >= 5) continue;
            char where[96], gt[40], wt[40];
            coord_text(a, p.dims, start + k, where, sizeof where);
            value_text(a.type, g.data(), k, gt, sizeof gt);
            value_text(a.type, w.data(), k, wt, sizeof wt);
            snprintf(lines[shown++], sizeof lines[0], "mismatch: %s got %s want %s", where, gt, wt);
        }
    }
    if (bad == 0) result("check: %s ok%s", dtext, label);
    else result("check: %s fail %zu%s", dtext, bad, label);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    if (mapped >= 0)
        report_map(kind.arrays[mapped], dtext, mapped_layout, cells.data(), mapped_wrong,
                   mapped_layout.fold ? NULL : &runs);
    return bad == 0;
}

// A seed nobody can predict: the timed samples' inputs cannot be computed
// ahead from the run's seed.
static uint64_t unpredictable_seed(void) {
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) s = (uint64_t)now_us() * 0x9e3779b97f4a7c15ull;
    return s;
}

// The copy is the ceiling of memory-bound kinds; a GEMM's is arithmetic.
static bool takes_part(int c) { return c == LIBRARY ? kind.library != NULL : c == COPY ? !kind.flops : true; }

// The medians of what the verdict uses, and how the two clocks agreed.
static void report_times(int c, const std::vector<Call> &calls, double bound_ms) {
    std::vector<double> t, ev, wall;
    int used_wall = 0;
    for (const Call &k : calls) {
        bool wall_decided;
        t.push_back(rules_settle(k.t, bound_ms, &wall_decided));
        used_wall += wall_decided;
        ev.push_back(k.t.event_ms);
        wall.push_back(k.t.wall_ms);
    }
    int n = (int)t.size();
    double lo = *std::min_element(t.begin(), t.end()), hi = *std::max_element(t.begin(), t.end());
    double med = rules_median(t.data(), n);
    result("time: %s %.6f %.6f %.6f %d", contestant_name[c], med, lo, hi, n);
    result("clock: %s event %.6f wall %.6f judged %d of %d", contestant_name[c], rules_median(ev.data(), n),
           rules_median(wall.data(), n), used_wall, n);
}

// ---------------------------------------------------------------- counting

// The student's runner gets the record's buffer once it is ready, the
// first runner and the second alike (same_bits_in_a_new_runner).
static void bind_record(void) {
    if (!counting) return;
    Runner &r = student_runner;
    const char *doing = "while the counters' record was handed over";
    Msg m = msg_init(MSG_RECORD_BIND, ++r.seq);
    m.bytes[0] = record_buf.bytes;
    int fd = shared_export(record_buf);
    if (fd < 0) fail(EXIT_CUDA, "setup: cannot export the counters' record");
    thaw(r);
    expect_silence(r, doing);
    if (msg_send(r.sock, m, &fd, 1) < 0) await(r, m.seq, doing);
    close(fd);
    Msg a = await(r, m.seq, doing);
    freeze(r);
    if (a.type != MSG_DONE) counters_not_collected(!strncmp(a.text, "counters: ", 10) ? a.text + 10 : a.text);
}

// Reads the record of a counted call (`size` bytes, the runner says) and
// its values, in this process; false (said as a result line) when it holds
// anything but the one call.
static bool read_record(uint64_t size, std::vector<double> &counts) {
    char why[400] = "";
    if (size == 0 || size > record_buf.bytes) {
        snprintf(why, sizeof why, "a record of %llu bytes", (unsigned long long)size);
        counters_not_collected(why);
        return false;
    }
    std::vector<unsigned char> record(size);
    CK(cudaMemcpy(record.data(), record_buf.ptr, size, cudaMemcpyDeviceToHost));
    int ranges = counters_record_ranges(record.data(), size, why, sizeof why);
    double values[MAX_COUNTERS];
    if (ranges != 1 && !why[0]) snprintf(why, sizeof why, "the record holds %d calls, not the one counted", ranges);
    if (ranges != 1 || !counters_record_values(record.data(), size, 0, values, why, sizeof why)) {
        counters_not_collected(why);
        return false;
    }
    int n = 0;
    for (const char *name = counters_list; *name && n < MAX_COUNTERS; n++) {
        size_t len = strcspn(name, ",");
        name += len + (name[len] == ',');
    }
    counts.assign(values, values + n);
    return true;
}

// The lines of one counted call of the student's at size p: "counters: SIZE
// work IN OUT FLOPS" (the work any correct answer must do there: bytes of
// its inputs and outputs, FLOPs, which the grader's shares are taken of),
// then one "counter: NAME VALUE" per metric.
static void report_counters(const Problem &p, const std::vector<double> &counts) {
    double in = 0, out = 0;
    for (int i = 0; i < kind.narrays; i++) {
        double bytes = (double)bytes_of(kind.arrays[i], p.len[i]);
        ArrayRole role = kind.arrays[i].role;
        if (role == ROLE_IN || role == ROLE_INOUT) in += bytes;
        if (role == ROLE_OUT || role == ROLE_INOUT) out += bytes;
    }
    char size[64];
    dims_text(p.dims, size, sizeof size);
    double flops = kind.flops ? kind.flops(p.dims) : kind.product_flops ? kind.product_flops(p.dims) : 0.0;
    result("counters: %s work %.0f %.0f %.0f", size, in, out, flops);
    const char *name = counters_list;
    for (size_t i = 0; i < counts.size() && *name; i++) {
        size_t n = strcspn(name, ",");
        result("counter: %.*s %.17g", (int)n, name, counts[i]);
        name += n + (name[n] == ',');
    }
}

// GPUCOURSE_CALL_LOG=FILE: every timed call as the clock rule saw it, one
// line each (size, warm-up or sample, contestant, event and wall ms, idle
// probes, whether it measured the bound, then ms from the request to the
// answer and to the runner frozen), for tools/clock-report.py.
static FILE *call_log;

static void log_call(const char *size, const char *when, int c, const Call &k, bool measures_bound) {
    if (!call_log) return;
    fprintf(call_log, "%s %s %s %.6f %.6f %d %d %.6f %.6f\n", size, when, contestant_name[c], k.t.event_ms,
            k.t.wall_ms, k.probes, (int)measures_bound, k.answered_ms, k.frozen_ms);
}

// How a timed size ended: timed, wrong, or timed only beside other work.
enum TimedEnd { TIMED_FAIR, TIMED_WRONG, TIMED_BUSY };

// The counted calls of the timing being made (their counters, as read).
static std::vector<std::vector<double>> counted_calls;

static TimedEnd timed_run(const Dims &dims, uint64_t seed, int samples, double warmup_ms, bool with_counters,
                          int counted) {
    char size[64];
    dims_text(dims, size, sizeof size);
    result("timed: %s", size);  // the lines up to the next "timed:" are this size's
    double bytes = kind.bytes(dims);
    result("bytes: %.0f", bytes);
    if (kind.flops) result("flops: %.0f", kind.flops(dims));
    size_t copy_bytes = std::max<size_t>((size_t)(bytes / 2) / 256 * 256, 256);
    bool who[CONTESTANTS];
    for (int c = 0; c < CONTESTANTS; c++) who[c] = takes_part(c);
    snprintf(phase, sizeof phase, "setting up the timed size");
    Problem p;
    problem_alloc(p, dims, who, copy_bytes);
    trace("timed %s: buffers", size);

    // Correctness at the timed size comes first: a wrong answer is not timed.
    problem_fill(p, seed);
    Scalars s = scalars_for(seed);
    trace("timed %s: inputs", size);
    call(p, REFERENCE, s, false);
    trace("timed %s: the reference's first call", size);
    call(p, STUDENT, s, false);
    trace("timed %s: your first call", size);
    if (kind.library) call(p, LIBRARY, s, false);
    if (kind.library) trace("timed %s: the library's first call", size);
    bool first_ok = check_against_reference(p, s, "");
    trace("timed %s: first outputs compared", size);
    if (!first_ok) {
        problem_free(p);
        return TIMED_WRONG;
    }

    // Warm up by time: module loading, clock ramp and first touch stay out.
    // A timing that another process shared the GPU with is done again
    // (NEIGHBOUR_RETRIES).
    //
    // The honest overhead of a call (the bound of the clock rule) is
    // measured on the trusted calls that were made as the student's always
    // are: in a sample, first or after another runner's call. A call right
    // after one of its own runner's skips part of a context switch (about
    // 80 us less on an H100), and the warm-up's back-to-back calls about
    // 45 us less than the samples'; with those counted, the student's calls
    // were judged by the wall clock three times as often as the reference's
    // (ex33 graded as the student's at 0.84x itself).
    std::vector<StepTime> trusted;
    std::vector<Call> t[CONTESTANTS];
    int busy = 0, busy_trusted = 0, trusted_calls = 0;
    bool ok = true, fair = false;
    char neighbours[512] = "";
    for (int attempt = 0; ok && !fair; attempt++) {
        unsigned long long since = neighbours_clock_us();
        bool strangers = watching_neighbours && strangers_now();
        neighbours[0] = '\0';
        trusted.clear();
        for (int c = 0; c < CONTESTANTS; c++) t[c].clear();
        busy = busy_trusted = trusted_calls = 0;
        double t0 = now_us();
        for (int round = 0;; round++) {
            for (int c = 0; c < CONTESTANTS; c++) {
                if (!takes_part(c)) continue;
                log_call(size, "warmup", c, call(p, c, s, true), false);
            }
            if (round >= 2 && (now_us() - t0) / 1000 >= warmup_ms) break;
        }
        trace("timed %s: warm-up", size);
        // With --counters, `counted` more rounds, picked at random among
        // them, count the student's call instead of timing it (its time is
        // set aside: the profiler slows a call): every timed size has calls
        // counted, none the student can pick out by its place.
        std::vector<bool> counted_round(samples + (with_counters ? counted : 0), false);
        for (int picked = 0; with_counters && picked < counted;) {
            size_t k = unpredictable_seed() % counted_round.size();
            if (!counted_round[k]) counted_round[k] = true, picked++;
        }
        counted_calls.clear();
        for (int k = 0; k < (int)counted_round.size() && ok; k++) {
            uint64_t sample_seed = unpredictable_seed();
            problem_fill(p, sample_seed);  // fresh inputs: a cached answer is a wrong answer
            s = scalars_for(sample_seed);
            const Runner *last = NULL;
            for (int j = 0; j < CONTESTANTS; j++) {
                int c = (j + k) % CONTESTANTS;  // rotate who goes first
                if (!takes_part(c)) continue;
                bool count = c == STUDENT && counted_round[k] && counting;
                Call one = call(p, c, s, true, count);
                if (count) {
                    if (!one.counts.empty()) counted_calls.push_back(one.counts);
                    last = &runner_for(c);
                    continue;  // a counted call is not a timed one
                }
                t[c].push_back(one);
                bool as_student_calls = &runner_for(c) != last;
                last = &runner_for(c);
                log_call(size, "sample", c, one, c != STUDENT && as_student_calls);
                // an honest call needs two probes: a context switch, then a quick one
                if (c == STUDENT) {
                    busy += one.probes > 3;
                } else {
                    if (as_student_calls) trusted.push_back(one.t);
                    busy_trusted += one.probes > 3;
                    trusted_calls++;
                }
            }
            ok = check_against_reference(p, s, " (timed sample)");  // every sample's output is checked
        }
        trace("timed %s: %d samples, each checked", size, samples);
        if (call_log) fflush(call_log);
        // NVML names the neighbours; without it, trusted calls that had to
        // wait for the GPU (a quarter of them: more than chance) show them
        strangers = strangers || (watching_neighbours && strangers_now());  // at the start or now
        bool named = ok && neighbours_since(since, strangers, neighbours, sizeof neighbours);
        if (ok && !named && busy_trusted * 4 > trusted_calls)
            snprintf(neighbours, sizeof neighbours, "%d of %d calls of the reference and the baselines waited for "
                     "another process's work", busy_trusted, trusted_calls);
        fair = ok && !neighbours[0];
        // the counts of a wrong sample mean nothing; those of a timing done again go with it
        if (ok && (fair || attempt == NEIGHBOUR_RETRIES))
            for (const std::vector<double> &counts : counted_calls) report_counters(p, counts);
        // another process's context (idle, NVML said) may still have made a call wait: not the student's doing
        if (fair && strangers) busy = 0;
        if (!ok || fair) break;
        result("neighbours: %s: %s", size, neighbours);
        if (attempt == NEIGHBOUR_RETRIES) break;
        wait_for_quiet_gpu();
    }
    if (ok && !fair) result("gpubusy: %s: %s", size, neighbours);
    if (ok && fair) {
        double bound = rules_overhead_bound(trusted.data(), (int)trusted.size());
        result("overhead: %.6f", bound);
        report_times(STUDENT, t[STUDENT], bound);
        report_times(REFERENCE, t[REFERENCE], bound);
        if (takes_part(COPY)) report_times(COPY, t[COPY], bound);
        if (kind.library) {
            result("library: %s", kind.library_name);
            report_times(LIBRARY, t[LIBRARY], bound);
        }
        if (busy) result("busy: %d %d", busy, busy_trusted);
    }
    problem_free(p);
    trace("timed %s: freed", size);
    return !ok ? TIMED_WRONG : fair ? TIMED_FAIR : TIMED_BUSY;
}

// ---------------------------------------------------------------- setup

// The kind's arithmetic ceiling in TFLOP/s: dense operations per clock per
// SM at the highest clock. Unknown (newer) GPUs get a generous figure: this
// bound rejects work that cannot have been done, so it must never be low.
static double peak_tflops(int cc, int sms, int clock_khz) {
    double fp32 = cc == 80 ? 128 : 256;  // FP32 lanes x 2 (an FMA is two operations)
    double bf16 = cc == 80 ? 2048 : cc == 86 || cc == 87 || cc == 89 ? 1024 : cc == 90 ? 4096 : 16384;
    double per_sm = kind.peak == PEAK_FP32 ? fp32 : kind.peak == PEAK_TF32_TENSOR ? bf16 / 2
                  : kind.peak == PEAK_FP8_TENSOR ? 2 * bf16 : bf16;
    return (double)sms * per_sm * (double)clock_khz * 1e3 / 1e12;
}

// Moves the result descriptor out of the way and forgets where it was. A
// judge started through a launcher (srun on another node) has no pipe from
// the grader: it writes a file the grader names (GPUCOURSE_RESULT_FILE), in
// the build directory, which the student's runner can neither read nor write.
static void open_results(void) {
    const char *fd_text = getenv("GPUCOURSE_RESULT_FD");
    const char *file = getenv("GPUCOURSE_RESULT_FILE");
    int fd = fd_text ? atoi(fd_text) : -1;
    if (file && *file) fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    unsetenv("GPUCOURSE_RESULT_FILE");
    if (fd > 2) {
        int moved = fcntl(fd, F_DUPFD_CLOEXEC, 200);
        if (moved >= 0) {
            close(fd);
            fd = moved;
        }
        results = fdopen(fd, "w");
    }
    if (!results) results = stdout;  // run by hand
    results_fd = fileno(results);
    unsetenv("GPUCOURSE_RESULT_FD");
    const char *nonce = getenv("GPUCOURSE_NONCE");
    result("harness: 1 %s", nonce ? nonce : "-");
    unsetenv("GPUCOURSE_NONCE");
}

// The runners start at once and make their contexts and load their code
// while the judge makes its own (start_runners); each is frozen once it
// says it is ready (await_runners), before the judge calibrates its idle
// probe. (Started so, the student's times once seemed to be judged by the
// clock more often; the cause was the clock rule's choice of trusted calls,
// see timed_run.)
// With counters, the student's runner is the last ready (it loads the
// profiler): the trusted one warms its library meanwhile, at `warm_size`.
static void start_runners(const char *student, const char *runner, const char *reference, const char *warm_size) {
    spawn_runner(trusted_runner, "/proc/self/exe", "--serve-trusted", reference, "--warm",
                 counters_list && kind.library ? warm_size : NULL);
    spawn_student_runner(runner, student);
}

// The student's runner, as at the start and for the second run alike.
static void spawn_student_runner(const char *runner, const char *student) {
    spawn_runner(student_runner, runner, "--student", student, "--counters", counters_list);
}

// The judge's exact values once at a check size, while the student's runner
// is still loading the profiler for the counters (0.4 s): cuBLAS's handle
// and the kernels it picks for the size then cost the checks nothing (0.05 s
// at each of a GEMM's first two check sizes). Without counters the runners
// are ready with the judge, and this would only add.
static bool warm_exact(const Dims &d) {
    if (kind.check != CHECK_REL_NORM || !counters_list) return false;
    int out = 0;
    while (out < kind.narrays && kind.arrays[out].role != ROLE_OUT && kind.arrays[out].role != ROLE_INOUT) out++;
    if (out == kind.narrays) return false;
    void *arrays[MAX_ARRAYS];
    size_t n = std::max<size_t>(kind.arrays[out].length(d), 1);
    double *exact = NULL, *magnitude = NULL;
    if (!arrays_filled(d, 1, arrays)) {  // the check itself will say so
        arrays_free(arrays);
        cudaGetLastError();
        return false;
    }
    CK(cudaMalloc(&exact, n * sizeof *exact));
    CK(cudaMalloc(&magnitude, n * sizeof *magnitude));
    kind.exact(arrays, out, exact, magnitude, d, scalars_for(1));
    CK(cudaDeviceSynchronize());
    arrays_free(arrays);
    cudaFree(exact);
    cudaFree(magnitude);
    return true;
}

static void await_runners(void) {
    Msg m = await(trusted_runner, 0, "while loading the reference");
    if (m.type == MSG_FAIL) fail(!strncmp(m.text, "load: ", 6) ? EXIT_LOAD : EXIT_CUDA, "%s", m.text);
    freeze(trusted_runner);
    trace("the trusted runner ready: its context, the reference loaded");

    // A runner's text never picks the kind of the error line (a student's
    // "nogpu: ..." must not read as a skipped run); only "load:" passes, and
    // a forged one only makes the student's own verdict a compile error.
    result("sandbox: %s", await_student_runner().text);
    trace("your runner ready: sandboxed, its context, your library loaded");
}

// The student's runner's READY (its sandbox in words), the runner frozen.
static Msg await_student_runner(void) {
    Msg m = await(student_runner, 0, "while loading your library");
    if (m.type == MSG_FAIL && !strncmp(m.text, "load: ", 6)) fail(EXIT_LOAD, "%s", m.text);
    if (m.type == MSG_FAIL) fail(EXIT_CUDA, "runner: %s", m.text);
    freeze(student_runner);
    bind_record();
    return m;
}

// --timeout: the judge's own bound, for a judge whose grader cannot tell
// its run from a launcher's queue. The runners die with it (PDEATHSIG).
static void on_timeout(int) {
    static const char line[] = "timeout: the judge's bound\n";
    if (results_fd >= 0) (void)!write(results_fd, line, sizeof line - 1);
    _exit(EXIT_TIMEOUT);
}

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
    allowed_in_build_dir[1] = realpath(student, NULL);
    const char *student_base = strrchr(student, '/') ? strrchr(student, '/') + 1 : student;
    int base_len = (int)strlen(student_base);
    if (base_len > 3 && !strcmp(student_base + base_len - 3, ".so")) base_len -= 3;
    snprintf(modules_prefix, sizeof modules_prefix, "%s/%.*s", build_dir, base_len, student_base);
    library_dirs = sandbox_library_dirs();
    char warm_size[64] = "";
    if (!check.empty()) dims_text(check[0], warm_size, sizeof warm_size);
    start_runners(student, runner, reference, warm_size[0] ? warm_size : NULL);
    trace("runners started");

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
    if (counters_list) {  // the host half of CUPTI, to read the records; no session on the GPU
        counting = true;
        if (!counters_reader_open(counters_list, 0, reader_why, sizeof reader_why) && !reader_why[0])
            snprintf(reader_why, sizeof reader_why, "CUPTI cannot read the counters here");
        alloc_shared(&record_buf, RECORD_BYTES, "the counters' record");
    }
    CK(cudaMemset(map_cells, 0, MAP_CELLS * sizeof *map_cells));
    trace("the judge's buffers");
    bool warmed = false;
    for (const Dims &d : check) warmed = warm_exact(d);
    if (warmed) trace("exact values once at each check size (cuBLAS loaded) while your runner loads the profiler");
    await_runners();
    watch_neighbours(prop);  // this process has a context by now
    trace("NVML's watch of other processes");
    pin_cpus(prop);
    wait_for_quiet_gpu();     // the idle probe is calibrated on an idle GPU
    trace("waiting for a quiet GPU");
    calibrate_idle_probe();
    trace("idle probe calibrated");

    bool ok = true;
    for (size_t k = 0; k < check.size() && ok; k++) ok = check_against_cpu(check[k], seed + k);
    if (ok && deterministic && !first_runs.empty()) ok = same_bits_in_a_new_runner(runner, student);
    TimedEnd end = TIMED_FAIR;
    // A later timed size follows the GPU's busy samples of the one before:
    // its clock is up, and its first calls (untimed) loaded its kernels and
    // touched its buffers, so a shorter warm-up by time (still at least three
    // rounds) is enough; 0.1 s less for each (ex41 has four sizes).
    const double later_warmup_ms = std::min(warmup_ms, 50.0);
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
