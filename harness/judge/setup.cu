// The grading's start: the runners started and awaited (each frozen once
// ready), the judge's exact values warmed while they load, and the GPU's
// peak for the kind.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// Defined below start_runners and await_runners, which call them.
static void spawn_student_runner(const char *runner, const char *student);
static void load_student_library(void);
static Msg await_student_runner(void);

// The kind's arithmetic ceiling in TFLOP/s at the highest clock. A GPU the
// table does not know gets four times the H100's a clock an SM: this bound
// rejects work that cannot have been done, so it must never be low.
static double peak_tflops(int cc, int sms, int clock_khz) {
    double per_sm = peak_ops_per_sm_clock(cc, kind.peak);
    if (per_sm == 0) per_sm = 4 * peak_ops_per_sm_clock(90, kind.peak);
    return (double)sms * per_sm * (double)clock_khz * 1e3 / 1e12;
}

// The runners start at once and make their contexts and load their code
// while the judge makes its own (start_runners); each is frozen once it
// says it is ready (await_runners), before the judge calibrates its idle
// probe. (Started so, the student's times once seemed to be judged by the
// clock more often; the cause was the clock rule's choice of trusted calls,
// see timed_run.)
// With counters, the student's runner is the last ready (it loads the
// profiler): the trusted one warms its library meanwhile, at `warm_size`.
// The student's runner confines itself, makes its context and loads the
// profiler, then waits for LOAD to load the library (load_student_library):
// started while the student's file compiles (GPUCOURSE_GO_FD, below), it is
// told once the library is there, so its setup is off the path from a save
// to the verdict; otherwise at once.
static void start_runners(const char *student, const char *runner, const char *reference, const char *warm_size,
                          bool load_now) {
    spawn_runner(trusted_runner, "/proc/self/exe", "--serve-trusted", reference, "--warm",
                 counters_list && kind.library ? warm_size : NULL);
    spawn_student_runner(runner, student);
    if (load_now) load_student_library();
}

// LOAD to the student's runner: its library is in place. A runner already
// gone is said by await_student_runner, which reads why.
static void load_student_library(void) {
    Msg m = msg_init(MSG_LOAD, 0);
    msg_send(student_runner.sock, m, NULL, 0);
}

// The grader starts the judge while nvcc compiles the student's file and
// says on this descriptor when the library is built and read (one byte).
// Its end with no byte (a compile error, Ctrl-C, the grader gone) ends the
// judge at once, having said nothing: no student code was ever run.
static int go_fd(void) {
    const char *text = getenv("GPUCOURSE_GO_FD");
    int fd = text ? atoi(text) : -1;
    unsetenv("GPUCOURSE_GO_FD");
    if (fd <= 2) return -1;
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // no runner holds it
    return fd;
}

static void await_go(int fd) {
    char c = 0;
    ssize_t n;
    while ((n = read(fd, &c, 1)) < 0 && errno == EINTR) {
    }
    close(fd);
    if (n != 1 || c != 'g') {
        if (results) {  // nothing to decide: the grader is no longer listening
            fclose(results);
            results = NULL;
            results_fd = -1;
        }
        finish(EXIT_NOT_WANTED);
    }
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
