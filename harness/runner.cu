// A runner: the process that runs one side's code for the judge.
//
// Two builds of this file exist for every kind (grader/toolchain.c):
//  - runner-KIND, built with GPUCOURSE_STUDENT_RUNNER: loads the student's
//    library inside a sandbox and serves only the student's calls. It holds
//    no vendor library and no reference: there is nothing here to call but
//    the student's own code.
//  - inside harness-KIND (the judge's own binary, started again with
//    --serve-trusted): loads the reference and serves the reference, the
//    vendor library and the device-to-device copy.
// Both answer the judge in exactly the same way, so every contestant is
// timed by the same path.
//
// The runner's answers are not trusted by the judge (student code shares
// this address space and may rewrite anything here): it reports its own
// event times, and the judge checks them against its own clock and decides.
#include "counters.h"
#include "harness.h"
#include "inputs.h"
#include "modules.h"
#include "protocol.h"
#include "sandbox.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <string>
#include <vector>

enum { MAX_SLOTS = 64 };

struct Slot {
    int narrays;
    SharedBuf buf[MAX_ARRAYS];
};

static Slot slots[MAX_SLOTS];
static void *solve_fn;  // the student's or the reference's solve
static int sock = RUNNER_FD;
// --counters: opened before the sandbox (and before the student's code is
// loaded); why not, when they could not be.
static bool counters_ready;
static char counters_why[400];

static void reply(uint32_t type, uint64_t seq, double ms, const char *text, uint64_t bytes = 0) {
    Msg m = msg_init(type, seq);
    m.event_ms = ms;
    m.bytes[0] = bytes;
    if (text) snprintf(m.text, sizeof m.text, "%s", text);
    if (msg_send(sock, m, NULL, 0) < 0) _exit(3);  // the judge is gone
}

static void bind_slot(const Msg &m, int *fds, int nfds) {
    char why[256] = "";
    if (m.slot < 0 || m.slot >= MAX_SLOTS || m.narrays != nfds || nfds > MAX_ARRAYS) {
        for (int i = 0; i < nfds; i++) close(fds[i]);
        reply(MSG_FAIL, m.seq, 0, "setup: malformed bind");
        return;
    }
    Slot &s = slots[m.slot];
    for (int i = 0; i < s.narrays; i++) shared_free(&s.buf[i]);
    s.narrays = 0;
    for (int i = 0; i < nfds; i++) {
        if (!shared_import(&s.buf[i], fds[i], m.bytes[i], why, sizeof why)) {
            for (int j = i + 1; j < nfds; j++) close(fds[j]);
            std::string text = std::string("setup: cannot map the judge's memory: ") + why;
            reply(MSG_FAIL, m.seq, 0, text.c_str());
            return;
        }
        s.narrays = i + 1;
    }
    reply(MSG_DONE, m.seq, 0, NULL);
}

static void unbind_slot(const Msg &m) {
    if (m.slot < 0 || m.slot >= MAX_SLOTS) return;
    Slot &s = slots[m.slot];
    for (int i = 0; i < s.narrays; i++) shared_free(&s.buf[i]);
    s.narrays = 0;
}

// One call of one contestant, as counters_collect's work.
struct CallCtx {
    const Msg *m;
    Slot *s;
    void *args[MAX_ARRAYS];
    cudaEvent_t start, stop;
    cudaError_t err;
    float ms;
    std::vector<void *> saved;  // diagnose, counters of several passes: the read-write arrays as given
};

// What the call does on the GPU is timed with events around the call and a
// whole-device synchronize, so work on other streams counts.
static void call_once(void *p) {
    CallCtx &c = *(CallCtx *)p;
    const Msg &m = *c.m;
    cudaError_t err = cudaEventRecord(c.start);
    if (err == cudaSuccess) {
        if (m.who == COPY) err = cudaMemcpyAsync(c.args[1], c.args[0], c.s->buf[0].bytes, cudaMemcpyDeviceToDevice);
        else if (m.who == LIBRARY && kind.library) kind.library(c.args, m.dims, m.scalars);
        else if (m.who != LIBRARY) kind.call(solve_fn, c.args, m.dims, m.scalars);
        if (err == cudaSuccess) err = cudaGetLastError();
        if (err == cudaSuccess) err = cudaDeviceSynchronize();
        if (err == cudaSuccess) err = cudaEventRecord(c.stop);
        if (err == cudaSuccess) err = cudaEventSynchronize(c.stop);
    }
    if (err == cudaSuccess) err = cudaEventElapsedTime(&c.ms, c.start, c.stop);
    if (c.err == cudaSuccess) c.err = err;
}

// Before a counters pass after the first: the arrays as the judge gave them
// (read-write arrays restored, outputs and scratch poisoned as it does), so
// that every pass makes the same call.
static void restore_arrays(void *p) {
    CallCtx &c = *(CallCtx *)p;
    for (int i = 0; i < c.s->narrays && c.err == cudaSuccess; i++) {
        ArrayRole role = kind.arrays[i].role;
        if (role == ROLE_INOUT) c.err = cudaMemcpy(c.args[i], c.saved[i], c.s->buf[i].bytes, cudaMemcpyDeviceToDevice);
        else if (role == ROLE_OUT || role == ROLE_SCRATCH) c.err = cudaMemset(c.args[i], 0xFF, c.s->buf[i].bytes);
    }
}

// One call inside a collection of the counters (opened already); its
// read-write arrays are kept to be restored before each pass after the
// first. False when the collection failed (why says so); a CUDA error of
// the call itself is in c.err.
static bool call_with_counters(CallCtx &c, double *values, char *why, size_t why_size) {
    c.saved.assign((size_t)c.s->narrays, nullptr);
    for (int i = 0; i < c.s->narrays && counters_passes() > 1 && c.err == cudaSuccess; i++)
        if (kind.arrays[i].role == ROLE_INOUT && (c.err = cudaMalloc(&c.saved[i], c.s->buf[i].bytes)) == cudaSuccess)
            c.err = cudaMemcpy(c.saved[i], c.args[i], c.s->buf[i].bytes, cudaMemcpyDeviceToDevice);
    bool collected = c.err != cudaSuccess || counters_collect(call_once, restore_arrays, &c, values, why, why_size);
    for (void *p : c.saved) cudaFree(p);
    c.saved.clear();
    return collected;
}

// Where the record of a counted call goes: the judge's buffer, bound once
// (MSG_RECORD_BIND, one fd, bytes[0] long); the judge reads it itself.
static SharedBuf record_buf;

static void bind_record(const Msg &m, int *fds, int nfds) {
    char why[400] = "malformed bind";
    if (nfds != 1 || record_buf.ptr || !shared_import(&record_buf, fds[0], m.bytes[0], why, sizeof why)) {
        for (int i = 0; i < nfds && !record_buf.ptr; i++) close(fds[i]);
        reply(MSG_FAIL, m.seq, 0, (std::string("counters: ") + why).c_str());
        return;
    }
    reply(MSG_DONE, m.seq, 0, NULL);
}

// Every signal held for as long as it lives, then the mask as it was.
struct SignalsHeld {
    sigset_t before;
    SignalsHeld() {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &before);
    }
    ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &before, NULL); }
};

// A counted call (RUN_COUNTERS): the profiler enabled for it alone, the
// call collected (replayed for counters of several passes), its record
// copied to the judge's buffer; DONE says the record's length in bytes[0].
static void count_call(CallCtx &c, const Msg &m) {
    char why[400] = "the record has no buffer";
    const void *record = NULL;
    size_t size = 0;
    bool counted = counters_ready && record_buf.ptr && counters_resume(why, sizeof why) &&
                   call_with_counters(c, NULL, why, sizeof why);
    // From the call's end until the record is in the judge's buffer no
    // handler of the student's runs (held signals come after the reply, when
    // `held` goes); the call itself runs with the mask of a timed one, which
    // it cannot tell apart.
    SignalsHeld held;
    char paused[400];
    if (counters_ready && !counters_pause(paused, sizeof paused) && counted) {
        snprintf(why, sizeof why, "%s", paused);
        counted = false;
    }
    if (!counters_ready) snprintf(why, sizeof why, "%s", counters_why);
    if (counted && c.err == cudaSuccess && (!counters_record(&record, &size) || size > record_buf.bytes)) {
        snprintf(why, sizeof why, "the record (%zu bytes) does not fit its buffer (%zu)", size, record_buf.bytes);
        counted = false;
    }
    if (!counted) return reply(MSG_FAIL, m.seq, 0, (std::string("counters: ") + why).c_str());
    if (c.err == cudaSuccess) c.err = cudaMemcpy(record_buf.ptr, record, size, cudaMemcpyHostToDevice);
    if (c.err == cudaSuccess) c.err = cudaDeviceSynchronize();  // the record is in the judge's buffer
    if (c.err != cudaSuccess) return reply(MSG_FAIL, m.seq, 0, (std::string("cuda: ") + cudaGetErrorString(c.err)).c_str());
    reply(MSG_DONE, m.seq, c.ms, NULL, size);
}

// Calls one contestant on a bound slot.
static void run(const Msg &m, bool trusted, cudaEvent_t start, cudaEvent_t stop) {
    if (m.slot < 0 || m.slot >= MAX_SLOTS || slots[m.slot].narrays == 0 ||
        (trusted ? m.who == STUDENT : m.who != STUDENT) || m.who < 0 || m.who >= CONTESTANTS) {
        reply(MSG_FAIL, m.seq, 0, "setup: malformed run");
        return;
    }
    CallCtx c;
    c.m = &m;
    c.s = &slots[m.slot];
    for (int i = 0; i < c.s->narrays; i++) c.args[i] = c.s->buf[i].ptr;
    c.start = start;
    c.stop = stop;
    c.err = cudaSuccess;
    c.ms = 0;
    if (m.flags & RUN_COUNTERS) {
        count_call(c, m);
        return;
    }
    call_once(&c);
    if (c.err != cudaSuccess) {
        std::string text = std::string("cuda: ") + cudaGetErrorString(c.err);
        reply(MSG_FAIL, m.seq, 0, text.c_str());
        return;
    }
    reply(MSG_DONE, m.seq, c.ms, NULL);
}

// The judge asks, after the student's calls, for the modules this process
// loaded: their bytes go through the pipe it sent (modules.h).
static void send_modules(const Msg &m, int *fds, int nfds) {
    char why[400] = "no pipe came with the request";
    bool sent = nfds == 1 && modules_send(fds[0], why, sizeof why);
    for (int i = 0; i < nfds; i++) close(fds[i]);
    if (sent) reply(MSG_DONE, m.seq, 0, NULL);
    else reply(MSG_FAIL, m.seq, 0, (std::string("modules: ") + why).c_str());
}

// Every /dev/nvidia* device: the driver opens some of them lazily.
static void add_nvidia_devices(std::vector<std::string> &out) {
    const char *dirs[] = {"/dev", "/dev/nvidia-caps"};
    for (const char *dir : dirs) {
        DIR *d = opendir(dir);
        if (!d) continue;
        while (struct dirent *e = readdir(d))
            if (!strncmp(e->d_name, "nvidia", 6)) out.push_back(std::string(dir) + "/" + e->d_name);
        closedir(d);
    }
}

// What the student's code may read: an allow-list, never "all but".
//  - the loader's cache, the driver's files in /proc and /sys, and the
//    files it looks for but this machine may lack (its application
//    profiles): what the driver and CUPTI opened on the H100 once the
//    runner was confined (strace, docs/harness.md);
//  - every file mapped now (this runner, the libraries it was linked with,
//    a sanitizer's injected libraries);
//  - in each directory the loader searches (LD_LIBRARY_PATH, this runner's
//    run path, the system's), the libraries named as the C and C++ runtimes
//    and CUDA's runtime, driver and profiler (sandbox_runtime_library): the
//    driver and CUPTI load some later; cuBLAS, cuDNN and the toolkit's other
//    libraries beside them stay out of reach;
//  - the library being served.
// Nothing of the user's: not the home directory, not the workspaces or the
// build directory (the reference, other students' builds), not the course.
static const char *const driver_reads[] = {
    "/etc/ld.so.cache",   "/etc/localtime", "/etc/nvidia",   "/usr/share/nvidia", "/sys", "/proc/driver/nvidia",
    "/proc/devices",      "/proc/cpuinfo",  "/proc/meminfo", "/proc/stat",        "/proc/sys/vm/mmap_min_addr",
    "/proc/sys/vm/overcommit_memory",       "/proc/sys/kernel/osrelease",
};

static void readable_paths(const char *library, std::vector<std::string> &hold) {
    for (const char *p : driver_reads) hold.push_back(p);
    int n = 0;
    char **mapped = sandbox_mapped_files(&n);
    for (int i = 0; i < n; i++) hold.push_back(mapped[i]);
    free(mapped);
    char **dirs = sandbox_library_dirs();
    for (char **dir = dirs; dir && *dir; dir++) {
        DIR *d = opendir(*dir);
        while (struct dirent *e = d ? readdir(d) : NULL)
            if (sandbox_runtime_library(e->d_name)) hold.push_back(std::string(*dir) + "/" + e->d_name);
        if (d) closedir(d);
    }
    sandbox_free_paths(dirs);
    char *real = realpath(library, NULL);
    hold.push_back(real ? real : library);
    free(real);
}

static const char **c_list(std::vector<std::string> &from, std::vector<const char *> &to) {
    for (auto &s : from) to.push_back(s.c_str());
    to.push_back(NULL);
    return to.data();
}

// Host memory: half the machine's RAM at most, so that a runaway allocation
// fails in the student's code instead of starving the machine.
static void limit_host_memory(void) {
    struct sysinfo si;
    if (sysinfo(&si) == 0) {
        rlim_t half = (rlim_t)si.totalram * si.mem_unit / 2;
        struct rlimit lim = {half, half};
        setrlimit(RLIMIT_DATA, &lim);
    }
}

static std::string sandbox_text(const SandboxStatus &st) {
    // "full" or "partial" first: the grader decides on that word alone
    char text[400];
    snprintf(text, sizeof text, "%s: landlock %d%s, seccomp %s%s%s", st.landlock && st.seccomp ? "full" : "partial",
             st.landlock_abi, st.landlock ? "" : " (off)", st.seccomp ? "on" : "off", st.note[0] ? "; " : "", st.note);
    return text;
}

// The student's runner serving a judge that asks for counters records the
// modules its process loads (not in diagnose mode: nobody asks there).
static bool record_modules;

// Diagnose mode under Nsight Compute (gpucourse why --profile, grader/
// profile.c): the directory that ncu's part in this process writes its
// lock files to (TMPDIR/nvidia/nsight_compute, made by the grader in a
// directory of its own, empty). NULL otherwise.
static const char *profile_dir;

// What ncu's part in this process needs beyond the runner's own list, by
// allow-list: to read the directories of the libraries ncu injected
// (CUDA_INJECTION64_PATH, LD_PRELOAD: the driver loads them when CUDA
// starts, and they load their neighbours), and to read, write and make
// files in profile_dir (no directory: the filter refuses mkdir and unlink).
static void profile_paths(std::vector<std::string> &reads, std::vector<std::string> &makes) {
    const char *vars[] = {"CUDA_INJECTION64_PATH", "LD_PRELOAD"};
    for (const char *var : vars) {
        const char *value = getenv(var);
        std::string list = value ? value : "";
        for (size_t at = 0; at < list.size();) {
            size_t end = list.find_first_of(": ", at);
            if (end == std::string::npos) end = list.size();
            std::string lib = list.substr(at, end - at);
            at = end + 1;
            char *real = lib.empty() ? NULL : realpath(lib.c_str(), NULL);
            if (!real) continue;
            if (char *slash = strrchr(real, '/')) {
                *slash = '\0';
                if (real[0]) reads.push_back(real);
            }
            free(real);
        }
    }
    makes.push_back(profile_dir);
}

// What runner_setup made: the events the calls are timed with, and how
// the student's code is confined.
struct Setup {
    cudaEvent_t start, stop;
    std::string status;
};

// Confines the process (the student's runner), starts CUDA and opens the
// counters; runner_load then loads the library. Returns 0, or the exit code
// with the reason in *why.
static int runner_setup(bool trusted, const char *library, const char *counters, Setup *out, std::string *why) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the judge
    if (trusted) prctl(PR_SET_DUMPABLE, 0);  // student code cannot read or patch this process
    // No controlling terminal: a session of its own (it still dies with the
    // judge, by the death signal above, and gpucourse kills what is left)
    if (!trusted) setsid();
    signal(SIGPIPE, SIG_IGN);
    // The student's runner enters Landlock while it is the only thread, so
    // that the domain binds every thread CUDA starts (before Landlock ABI 8
    // it cannot bind threads that already run), then the rest of the
    // sandbox once CUDA is up.
    std::vector<std::string> reads, writes, makes;
    std::vector<const char *> r, w, mk;
    SandboxSpec spec;
    memset(&spec, 0, sizeof spec);
    SandboxStatus st;
    memset(&st, 0, sizeof st);
    if (!trusted) {
        readable_paths(library, reads);
        add_nvidia_devices(writes);
        // the driver names its threads through /proc/self/task/TID/comm and
        // fails to start if it cannot (each thread's `mem` beside it: the
        // seccomp filter keeps its seeks and writes below 4 GiB, sandbox.c)
        writes.push_back("/proc/self/task");
        if (profile_dir) profile_paths(reads, makes);
        spec.read_paths = c_list(reads, r);
        spec.write_paths = c_list(writes, w);
        spec.make_paths = c_list(makes, mk);
        spec.file_size_bytes = 1 << 20;
        spec.max_open_files = 1024;
        spec.max_threads = 512;
        if (sandbox_restrict_files(&spec, &st) < 0) {
            *why = "setup: sandbox: " + std::string(st.note);
            return 3;
        }
    }
    cudaError_t err = cudaFree(0);  // the context, and CUDA's threads
    if (err == cudaSuccess) err = cudaEventCreate(&out->start);
    if (err == cudaSuccess) err = cudaEventCreate(&out->stop);
    if (err != cudaSuccess) {
        *why = std::string("cuda: cannot start: ") + cudaGetErrorString(err);
        return 3;
    }
    // Where counters are asked (chapters 7-11), every module loaded from now
    // on is recorded (modules.h): before the student's library, so none of
    // its code loads unseen.
    if (record_modules) modules_watch();
    // CUPTI is loaded and the counters configured before the syscall filter
    // and before the student's code: nothing of the student's runs yet.
    // Then paused: enabled again for each counted call only.
    if (counters && !(counters_ready = counters_open(counters, counters_why, sizeof counters_why) &&
                                       counters_pause(counters_why, sizeof counters_why)))
        counters_close();
    out->status = "trusted";
    if (!trusted) {  // limits and the syscall filter on every thread
        limit_host_memory();
        spec.guarded = counters_table(&spec.guarded_bytes);  // CUPTI's entry points stay read-only
        // Where calls are counted, no thread starts from here on (CUDA's and
        // CUPTI's are up): no code of the student's runs beside the decode
        // of a counted call but through CUDA's own threads (count_call).
        spec.no_new_threads = counters != NULL;
        if (sandbox_enter(&spec, &st) < 0) {
            *why = "setup: sandbox: " + std::string(st.note);
            return 3;
        }
        out->status = sandbox_text(st);
    }
    return 0;
}

// Loads the library: its static initializers run here, already inside the
// sandbox. Returns 0, or 4 with the reason in *why ("load: ...").
static int runner_load(bool trusted, const char *library, std::string *why) {
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(solve_fn = dlsym(lib, "solve"))) {
        char text[480];
        if (!lib)
            snprintf(text, sizeof text, "load: cannot load the %s's code: %s", trusted ? "reference" : "student",
                     dlerror());
        else
            snprintf(text, sizeof text, "load: the %s's code defines no extern \"C\" solve; expected: %s",
                     trusted ? "reference" : "student", kind.signature);
        *why = text;
        return 4;
    }
    return 0;
}

// The trusted runner's library called once at a small size before it says
// it is ready (--warm SIZE), while the student's runner loads the profiler:
// its handle and first kernels (cuBLAS: 0.1-0.2 s) then stay out of the
// grading's time. Nothing is timed or checked here.
static void warm_library(const char *size) {
    Dims d;
    if (!kind.library || !parse_dims(size, kind.ndims, &d)) return;
    void *arrays[MAX_ARRAYS];
    if (arrays_filled(d, 1, arrays)) kind.library(arrays, d, scalars_for(1));
    cudaDeviceSynchronize();
    arrays_free(arrays);
    cudaGetLastError();  // a failure here shows again, and is said, at the library's first real call
}

// Serves the judge until it goes away (or kills this process).
int runner_main(bool trusted, const char *library, const char *counters, const char *warm) {
    Setup setup;
    std::string why;
    record_modules = !trusted && counters != NULL;
    int rc = runner_setup(trusted, library, counters, &setup, &why);
    // The student's runner loads its library when the judge says so: the
    // judge may start it while nvcc still builds the library, and then names
    // the grader's copy, a file the sandbox allowed before it had its bytes.
    if (!rc && !trusted) {
        Msg m;
        int fds[MAX_ARRAYS], nfds = 0;
        int got = msg_recv(sock, &m, fds, MAX_ARRAYS, &nfds);
        for (int i = 0; i < nfds; i++) close(fds[i]);
        if (got <= 0) return got == 0 ? 0 : 3;  // the judge went away: nothing was loaded
        if (m.type != MSG_LOAD) why = "setup: the judge's first message was not LOAD", rc = 3;
    }
    if (!rc) rc = runner_load(trusted, library, &why);
    if (rc) {
        reply(MSG_FAIL, 0, 0, why.c_str());
        return rc;
    }
    if (trusted && warm) warm_library(warm);
    reply(MSG_READY, 0, 0, setup.status.c_str());
    for (;;) {
        Msg m;
        int fds[MAX_ARRAYS], nfds = 0;
        int got = msg_recv(sock, &m, fds, MAX_ARRAYS, &nfds);
        if (got <= 0) return got == 0 ? 0 : 3;
        switch (m.type) {
        case MSG_BIND: bind_slot(m, fds, nfds); break;
        case MSG_UNBIND: unbind_slot(m); break;
        case MSG_RUN: run(m, trusted, setup.start, setup.stop); break;
        case MSG_RECORD_BIND:
            if (!trusted) bind_record(m, fds, nfds);
            else reply(MSG_FAIL, m.seq, 0, "setup: the trusted runner counts nothing");
            break;
        case MSG_MODULES: send_modules(m, fds, nfds); break;
        default:
            for (int i = 0; i < nfds; i++) close(fds[i]);
            reply(MSG_FAIL, m.seq, 0, "setup: unknown message");
        }
    }
}

#ifdef GPUCOURSE_STUDENT_RUNNER
// ---------------------------------------------------------------- diagnose

// Diagnose mode (gpucourse why): one call of the library at one size, on
// arrays of this process's own, for a tool that watches this process
// (compute-sanitizer) or for the counters. No judge: the verdict was given
// by the grading before; nothing here can change it. Outputs and scratch
// are left as cudaMalloc gives them, so initcheck sees a read of what the
// call never wrote. Lines (`key: value`) go to GPUCOURSE_RESULT_FD, opened
// before the sandbox; they come from the student's process and are advice,
// never a verdict.
static FILE *diagnose_out;

static void diagnose_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(diagnose_out, fmt, ap);
    va_end(ap);
    fputc('\n', diagnose_out);
    fflush(diagnose_out);
}

static int diagnose_main(const char *library, const char *size, uint64_t seed, const char *counters) {
    const char *fd_text = getenv("GPUCOURSE_RESULT_FD");
    int fd = fd_text ? atoi(fd_text) : -1;
    diagnose_out = fd > 2 ? fdopen(fd, "w") : NULL;
    if (!diagnose_out) diagnose_out = stdout;
    unsetenv("GPUCOURSE_RESULT_FD");
    Dims dims;
    if (!parse_dims(size, kind.ndims, &dims)) {
        diagnose_line("error: size '%s' does not fit kind %s (%s)", size, kind.name, kind.signature);
        return 2;
    }
    diagnose_line("diagnose: %s %s", kind.name, size);
    Setup setup;
    std::string why;
    int rc = runner_setup(false, library, counters, &setup, &why);
    if (!rc) rc = runner_load(false, library, &why);
    if (rc) {
        diagnose_line("error: %s", why.c_str());
        return rc;
    }
    Slot &slot = slots[0];
    Msg m = msg_init(MSG_RUN, 1);
    m.who = STUDENT;
    m.slot = 0;
    m.dims = dims;
    m.scalars = scalars_for(seed);
    m.flags = counters ? RUN_COUNTERS : 0;
    double in = 0, out = 0;
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < kind.narrays && err == cudaSuccess; i++) {
        const ArraySpec &a = kind.arrays[i];
        size_t n = a.length(dims), bytes = n * elem_size(a.type);
        if (a.role == ROLE_IN || a.role == ROLE_INOUT) in += (double)bytes;
        if (a.role == ROLE_OUT || a.role == ROLE_INOUT) out += (double)bytes;
        slot.buf[i].bytes = bytes;
        err = cudaMalloc(&slot.buf[i].ptr, std::max<size_t>(bytes, 4));
        if (err == cudaSuccess && (a.role == ROLE_IN || a.role == ROLE_INOUT)) {
            fill_array(slot.buf[i].ptr, a, i, n, seed);
            err = cudaDeviceSynchronize();
        }
        slot.narrays = i + 1;
    }
    if (err != cudaSuccess) {
        diagnose_line("error: cuda: cannot set up size %s: %s", size, cudaGetErrorString(err));
        return 3;
    }
    CallCtx c;
    c.m = &m;
    c.s = &slots[0];
    for (int i = 0; i < c.s->narrays; i++) c.args[i] = c.s->buf[i].ptr;
    c.start = setup.start;
    c.stop = setup.stop;
    c.err = cudaSuccess;
    c.ms = 0;
    if (profile_dir) {
        // Once to warm up (modules load lazily at their first launch), the
        // inputs as given again, then once inside the profiler's range:
        // ncu (--profile-from-start off) profiles only the kernels between
        // cudaProfilerStart and cudaProfilerStop, not the runner's fills.
        call_once(&c);
        for (int i = 0; i < kind.narrays && c.err == cudaSuccess; i++) {
            const ArraySpec &a = kind.arrays[i];
            if (a.role == ROLE_IN || a.role == ROLE_INOUT) fill_array(slot.buf[i].ptr, a, i, a.length(dims), seed);
            c.err = cudaDeviceSynchronize();
        }
        if (c.err == cudaSuccess && (c.err = cudaProfilerStart()) == cudaSuccess) {
            call_once(&c);
            cudaError_t stopped = cudaProfilerStop();
            if (c.err == cudaSuccess) c.err = stopped;
        }
    } else if (!counters) {
        call_once(&c);
    } else if (!counters_ready) {
        diagnose_line("counters: unavailable: %s", counters_why);
        call_once(&c);
    } else {
        double values[MAX_COUNTERS];
        char cwhy[400];
        bool collected = counters_resume(cwhy, sizeof cwhy) && call_with_counters(c, values, cwhy, sizeof cwhy);
        if (!collected) diagnose_line("counters: failed: %s", cwhy);
        else if (c.err == cudaSuccess) {
            double flops = kind.flops ? kind.flops(dims) : kind.product_flops ? kind.product_flops(dims) : 0.0;
            diagnose_line("counters: %s work %.0f %.0f %.0f", size, in, out, flops);
            const char *name = counters;
            for (int i = 0; i < counters_count() && *name; i++) {
                size_t n = strcspn(name, ",");
                diagnose_line("counter: %.*s %.17g", (int)n, name, values[i]);
                name += n + (name[n] == ',');
            }
        }
        counters_close();
    }
    if (c.err != cudaSuccess) diagnose_line("call: cuda: %s", cudaGetErrorString(c.err));
    else diagnose_line("call: ok %.6f", (double)c.ms);
    return 0;
}

int main(int argc, char **argv) {
    const char *library = NULL, *counters = NULL, *diagnose = NULL;
    uint64_t seed = 1;
    bool usage = argc < 3 || argc % 2 == 0;
    for (int i = 1; i + 1 < argc && !usage; i += 2) {
        if (!strcmp(argv[i], "--student")) library = argv[i + 1];
        else if (!strcmp(argv[i], "--counters")) counters = argv[i + 1];
        else if (!strcmp(argv[i], "--diagnose")) diagnose = argv[i + 1];
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--profile")) profile_dir = argv[i + 1];
        else usage = true;
    }
    // --profile is a diagnose of its own: one call watched by ncu, no counters
    if (profile_dir && (!diagnose || counters || profile_dir[0] != '/')) usage = true;
    if (usage || !library) {
        fprintf(stderr,
                "usage: %s --student LIBRARY.so [--counters METRIC,...] (started by the judge, socket at fd %d)\n"
                "       %s --student LIBRARY.so --diagnose SIZE [--seed N] [--counters METRIC,...]\n"
                "       %s --student LIBRARY.so --diagnose SIZE [--seed N] --profile LOCK_DIR (under ncu)\n",
                argv[0], RUNNER_FD, argv[0], argv[0]);
        return 2;
    }
    if (diagnose) return diagnose_main(library, diagnose, seed, counters);
    return runner_main(false, library, counters, NULL);
}
#endif
