// The judge's side of its two runners (runner.cu is the runner itself):
// starting one (spawn_runner), waiting for its answer (await), and stopping
// it between calls (freeze, thaw), so that a stopped runner launches no
// work while another contestant is timed.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

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
