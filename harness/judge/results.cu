// The judge's channel to the grader: the result lines (`key: value`), how
// the judge ends (finish, fail, violation), what it was doing when a CUDA
// call fails (phase), its trace marks, the channel opened (open_results),
// and --timeout. Every other part says what it found through these, so
// they come first and stand apart from all of them.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

static FILE *results;
static int results_fd = -1;  // the same, for a signal handler

static void result(const char *fmt, ...) {
    if (!results) return;  // ended (finish)
    va_list ap;
    va_start(ap, fmt);
    vfprintf(results, fmt, ap);
    va_end(ap);
    fputc('\n', results);
    fflush(results);
}

static void stop_runners(void);

// Ends the judge: the results ended with the exit code to come (`end:`)
// and closed, then the runners killed, and no teardown of the CUDA runtime,
// cuBLAS and NVML, which the process's exit does anyway. Every result is
// written before this, so the grader decides while the contexts are torn
// down (0.2 s); it still waits for this process's end before it lets go of
// the GPU.
[[noreturn]] static void finish(int code) {
    if (results) {
        result("end: %d", code);
        fclose(results);
        results = NULL;
        results_fd = -1;
    }
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

// --timeout: the judge's own bound, for a judge whose grader cannot tell
// its run from a launcher's queue. The runners die with it (PDEATHSIG).
static void on_timeout(int) {
    static const char line[] = "timeout: the judge's bound\n";
    if (results_fd >= 0) (void)!write(results_fd, line, sizeof line - 1);
    _exit(EXIT_TIMEOUT);
}
