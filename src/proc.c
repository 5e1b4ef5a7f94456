#define _GNU_SOURCE
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* Set by the signal handlers installed for the duration of a run. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

/* Runs started (proc_start) and not yet ended (proc_wait). */
static int open_runs;

/* A run was interrupted since proc_take_interrupted() last looked. */
static bool interrupted_since;

bool proc_take_interrupted(void) {
    bool was = interrupted_since;
    interrupted_since = false;
    return was;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOPS = 3 };

/* While gpucourse waits (for a run, for the GPU's lock), a stop signal is
 * caught and noted instead of ending it: the wait then ends in order. */
static void catch_stops(struct sigaction old[NSTOPS]) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_stop_signal; /* no SA_RESTART: poll() wakes up */
    sigemptyset(&act.sa_mask);
    if (!open_runs) stop_signal = 0; /* one that came while a started run goes on is still its */
    for (int i = 0; i < NSTOPS; i++) sigaction(stop_signals[i], &act, &old[i]);
}

static void release_stops(const struct sigaction old[NSTOPS]) {
    for (int i = 0; i < NSTOPS; i++) sigaction(stop_signals[i], &old[i], NULL);
}

ProcWait proc_wait_for(bool (*done)(void *ctx), void *ctx, double timeout_s) {
    struct sigaction old[NSTOPS];
    catch_stops(old);
    double start = now_seconds();
    ProcWait result = PROC_WAIT_DONE;
    while (!done(ctx)) {
        if (stop_signal) {
            result = PROC_WAIT_INTERRUPTED;
            interrupted_since = true;
            break;
        }
        if (now_seconds() - start >= timeout_s) {
            result = PROC_WAIT_TIMED_OUT;
            break;
        }
        poll(NULL, 0, 100);
    }
    release_stops(old);
    return result;
}

void proc_harden_self(void) {
    /* Student code runs as the same user as gpucourse. A non-dumpable process
     * cannot be ptrace()d, nor its /proc/PID/mem, /proc/PID/fd/... opened, by
     * another process of that user (without CAP_SYS_PTRACE): the student's
     * code cannot read the nonce or the result pipe out of us, nor patch our
     * verdict. Our own /proc/self stays readable to us, and exec() makes the
     * programs we start dumpable again. */
    prctl(PR_SET_DUMPABLE, 0);
}

/* Our children (what /proc says has us as its parent), up to max; returns
 * how many. Also the ones that are zombies. */
static int list_children(pid_t *out, int max) {
    pid_t self = getpid();
    int n = 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *de;
    while (n < max && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0) continue;
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t len = read(fd, stat, sizeof stat - 1);
        close(fd);
        if (len <= 0) continue;
        stat[len] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
        char *paren = strrchr(stat, ')');
        char state;
        long ppid;
        if (paren && sscanf(paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == self) out[n++] = (pid_t)pid;
    }
    closedir(d);
    return n;
}

enum { MAX_CHILDREN = 256 };

char *proc_find_in_path(const char *name) {
    if (strchr(name, '/')) return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    char *copy = xstrdup(path), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char *full = path_join(dir, name);
        if (access(full, X_OK) == 0) {
            free(copy);
            return full;
        }
        free(full);
    }
    free(copy);
    return NULL;
}

/* How exec_child reports a failure that was not exec's own (exec's is its
 * errno): the working directory is -errno, the confinement -(CONFINE_FAILED
 * + errno). */
enum { CONFINE_FAILED = 4096 };

/* In the program's process: never returns. Failure to start is reported
 * through status_w (CONFINE_FAILED above). */
static void exec_child(const ProcSpec *spec, pid_t guard, int out_w, int res_w, int go_r, int status_w) {
    /* the guard is gone (it was killed with its group): so are we */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != guard) _exit(127);
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) signal(stop_signals[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_w, 1);
    dup2(out_w, 2);
    if (res_w >= 0) {
        dup2(res_w, spec->result_fd);
        char fdtext[16];
        snprintf(fdtext, sizeof fdtext, "%d", spec->result_fd);
        setenv("GPUCOURSE_RESULT_FD", fdtext, 1);
    }
    if (go_r >= 0) {
        dup2(go_r, spec->go_fd);
        char fdtext[16];
        snprintf(fdtext, sizeof fdtext, "%d", spec->go_fd);
        setenv("GPUCOURSE_GO_FD", fdtext, 1);
    }
    for (const char *const *e = spec->env; e && *e; e++) putenv((char *)*e);
    struct rlimit rl;
    rlim_t limit = (rlim_t)spec->memory_limit;
    if (limit && getrlimit(RLIMIT_AS, &rl) == 0) { /* never raised above what we were given */
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > limit) rl.rlim_max = limit;
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max) rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_AS, &rl);
    }
    int err = 0;
    if (spec->dir && chdir(spec->dir) < 0) err = -errno;
    /* last before exec: one thread here, and every program it starts inherits the rules */
    if (!err && spec->confine && spec->confine(spec->confine_ctx) != 0) err = -(CONFINE_FAILED + errno);
    if (!err) {
        execvp(spec->argv[0], (char *const *)spec->argv);
        err = errno;
    }
    ssize_t ignored = write(status_w, &err, sizeof err);
    (void)ignored;
    _exit(127);
}

static void wake(int sig) { (void)sig; }

/* In the guard, once the program ended or gpucourse died: kills everything
 * below it, also what called setsid() or double-forked to leave the run's
 * process group (as a subreaper the guard inherits those orphans), again
 * while new orphans appear, for at most about two seconds. */
static void kill_descendants(void) {
    double give_up = now_seconds() + 2.0;
    for (;;) {
        pid_t kids[MAX_CHILDREN];
        int n = list_children(kids, MAX_CHILDREN);
        for (int i = 0; i < n; i++) kill(kids[i], SIGKILL);
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        if (n == 0 || now_seconds() > give_up) return;
        usleep(2000);
    }
}

/* The child of proc_run: a guard between gpucourse and the program, in the
 * run's process group. PR_SET_PDEATHSIG is not inherited by the program's
 * own children (nvcc's cicc, ptxas, cc1plus), so the guard is a subreaper
 * (they all stay below it) that learns of gpucourse's death by SIGUSR1 and
 * then kills them all (PDEATHSIG follows the thread that forked: gpucourse
 * has one). Otherwise it waits for the program and ends the same way, so
 * that proc_run sees the program's exit status. Never returns. */
static void guard(const ProcSpec *spec, pid_t parent, int out_w, int res_w, int go_r, int go_w, int status_w) {
    if (go_w >= 0) close(go_w); /* ours alone: its end is the program's signal to stop */
    /* A session of its own, which is also its own process group: nothing the
     * run starts has a controlling terminal (no /dev/tty, no TIOCSTI typed
     * into the user's shell), and kill(-pid) reaches the whole run */
    setsid();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = wake; /* no SA_RESTART: waitpid() returns */
    sigemptyset(&act.sa_mask);
    sigaction(SIGUSR1, &act, NULL);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    if (getppid() != parent) _exit(127); /* it died before prctl: nothing started yet */
    /* Ctrl-C reaches the program (proc_run sends SIGTERM to the group); the
     * guard stays until the program ends or is killed */
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) signal(stop_signals[i], SIG_IGN);
    pid_t self = getpid(), program = fork();
    if (program == 0) exec_child(spec, self, out_w, res_w, go_r, status_w);
    if (program < 0) {
        int err = errno;
        ssize_t ignored = write(status_w, &err, sizeof err);
        (void)ignored;
        _exit(127);
    }
    close(out_w);
    close(status_w);
    if (res_w >= 0) close(res_w);
    if (go_r >= 0) close(go_r);
    int wstatus = 0;
    for (;;) {
        if (waitpid(program, &wstatus, 0) == program) break;
        if (errno != EINTR) _exit(127);
        if (getppid() != parent) { /* gpucourse died */
            kill_descendants();
            _exit(127);
        }
    }
    kill_descendants(); /* nothing the program started outlives the run */
    if (WIFEXITED(wstatus)) _exit(WEXITSTATUS(wstatus));
    /* die of the same signal, without a core dump of our own */
    int sig = WTERMSIG(wstatus);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

static void kill_group(pid_t pid, int sig) {
    if (kill(-pid, sig) < 0) kill(pid, sig);
}

/* What a child's result pipe keeps: the rest is read and dropped. */
enum { RESULTS_LIMIT = 4 << 20 };

/* Drains one pipe into a buffer with a cap; returns false at end of file. */
static bool drain(int fd, StrBuf *sb, size_t cap, size_t *dropped, const ProcSpec *spec) {
    char chunk[16384];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) return false;
    size_t room = sb->len < cap ? cap - sb->len : 0;
    size_t keep = (size_t)n < room ? (size_t)n : room;
    sb_add(sb, chunk, keep);
    if (dropped) *dropped += (size_t)n - keep;
    /* every byte, also past the cap: the grader scans nvcc's whole output for ptxas's repairs */
    if (spec && spec->on_output) spec->on_output(chunk, (size_t)n, spec->ctx);
    return true;
}

/* What a pipe holds now, never waiting for more (something that escaped
 * us may hold it open): read until a read brings nothing new, at most 256
 * reads. Returns whether the pipe is still open. */
static bool drain_now(int fd, StrBuf *sb, size_t cap, size_t *dropped, const ProcSpec *spec) {
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    bool open = true;
    for (int k = 0; open && k < 256; k++) {
        size_t had = sb->len + (dropped ? *dropped : 0);
        open = drain(fd, sb, cap, dropped, spec);
        if (sb->len + (dropped ? *dropped : 0) == had) break;
    }
    fcntl(fd, F_SETFL, flags);
    return open;
}

/* A run under way: what proc_start set up, and what the waits have read. */
struct ProcRun {
    ProcSpec spec;        /* its on_output, ctx and limits; the rest of the caller's pointers cleared */
    pid_t pid;
    int out, resp, go;    /* our ends of the pipes; -1: closed */
    StrBuf output, results;
    bool out_open, res_open, reaped;
    double start, kill_at; /* kill_at: when a SIGTERM was sent, SIGKILL one second later */
    int wstatus;
    struct sigaction old[NSTOPS];
};

int proc_start(const ProcSpec *spec, ProcResult *res, ProcRun **out_run) {
    *out_run = NULL;
    memset(res, 0, sizeof *res);
    int out[2], status[2], resp[2] = {-1, -1}, go[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) < 0) return error("cannot create a pipe: %s", strerror(errno));
    if (pipe2(status, O_CLOEXEC) < 0) {
        close(out[0]), close(out[1]);
        return error("cannot create a pipe: %s", strerror(errno));
    }
    if ((spec->result_fd > 2 && pipe2(resp, O_CLOEXEC) < 0) || (spec->go_fd > 2 && pipe2(go, O_CLOEXEC) < 0)) {
        int err = errno;
        close(out[0]), close(out[1]), close(status[0]), close(status[1]);
        if (resp[0] >= 0) close(resp[0]), close(resp[1]);
        return error("cannot create a pipe: %s", strerror(err));
    }

    ProcRun *run = xcalloc(1, sizeof *run);
    catch_stops(run->old);
    open_runs++;

    run->start = now_seconds();
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        int err = errno;
        open_runs--;
        release_stops(run->old);
        free(run);
        close(out[0]), close(out[1]), close(status[0]), close(status[1]);
        if (resp[0] >= 0) close(resp[0]), close(resp[1]);
        if (go[0] >= 0) close(go[0]), close(go[1]);
        return error("cannot start '%s': %s", spec->argv[0], strerror(err));
    }
    if (pid == 0) guard(spec, parent, out[1], resp[1], go[0], go[1], status[1]);
    /* no setpgid(pid, pid) here: it would make the guard a group leader,
     * which setsid() refuses; the status pipe below closes only at the
     * program's exec, after the guard's setsid() */
    close(out[1]);
    close(status[1]);
    if (resp[1] >= 0) close(resp[1]);
    if (go[0] >= 0) close(go[0]);

    int exec_err = 0;
    ssize_t got = read(status[0], &exec_err, sizeof exec_err);
    close(status[0]);
    if (got == (ssize_t)sizeof exec_err) {
        waitpid(pid, NULL, 0);
        close(out[0]);
        if (resp[0] >= 0) close(resp[0]);
        if (go[1] >= 0) close(go[1]);
        open_runs--;
        release_stops(run->old);
        free(run);
        if (exec_err <= -CONFINE_FAILED)
            return error("cannot confine '%s': %s", spec->argv[0], strerror(-exec_err - CONFINE_FAILED));
        if (exec_err < 0) return error("cannot run '%s' in '%s': %s", spec->argv[0], spec->dir, strerror(-exec_err));
        return error("cannot run '%s': %s", spec->argv[0], strerror(exec_err));
    }
    run->spec = *spec;
    /* the caller's, needed only to start (on_output's ctx must outlive the run: the caller's word) */
    run->spec.argv = NULL, run->spec.env = NULL, run->spec.dir = NULL, run->spec.confine_ctx = NULL;
    run->pid = pid;
    run->out = out[0], run->resp = resp[0], run->go = go[1];
    run->out_open = true, run->res_open = resp[0] >= 0;
    *out_run = run;
    return 0;
}

void proc_go(ProcRun *run, bool go) {
    if (run->go < 0) return;
    if (go) run->start = now_seconds(); /* its bound runs from here: it waited for us until now */
    if (go) { /* one byte: the program goes on; the end of the pipe alone: it stops */
        struct sigaction ignore = {.sa_handler = SIG_IGN}, old_pipe;
        sigaction(SIGPIPE, &ignore, &old_pipe); /* a program that ended already: EPIPE, not our end */
        ssize_t ignored = write(run->go, "g", 1);
        (void)ignored;
        sigaction(SIGPIPE, &old_pipe, NULL);
    }
    close(run->go);
    run->go = -1;
}

void proc_kill(ProcRun *run) {
    if (!run->reaped) kill_group(run->pid, SIGKILL);
}

bool proc_wait(ProcRun *run, ProcResult *res, bool (*enough)(const char *results, size_t len)) {
    ProcRun *r = run;
    const ProcSpec *spec = &r->spec;
    size_t cap = spec->capture_limit ? spec->capture_limit : 1 << 20;
    /* The verdict is the child's: the loop ends when it has exited, not when
     * the pipes close (a process it left behind may hold them open); or,
     * asked, once what it said on the result pipe is all it will say. */
    while (!r->reaped) {
        if (enough && !r->res_open && enough(r->results.buf ? r->results.buf : "", r->results.len)) {
            /* its output so far, without waiting: the rest comes with its end */
            if (r->out_open) r->out_open = drain_now(r->out, &r->output, cap, &res->output_dropped, spec);
            res->results = xstrdup(r->results.buf ? r->results.buf : "");
            res->output = xstrdup(r->output.buf ? r->output.buf : "");
            res->output_len = r->output.len;
            res->exited = true; /* as it said */
            r->spec.on_output = NULL; /* the live log ends with the results: what comes later is only kept */
            res->wall_s = now_seconds() - r->start;
            return false;
        }
        pid_t ended = waitpid(r->pid, &r->wstatus, WNOHANG);
        if (ended == r->pid || (ended < 0 && errno != EINTR)) {
            r->reaped = true;
            break;
        }
        double now = now_seconds();
        if (!res->timed_out && spec->timeout_s > 0 && now - r->start > spec->timeout_s) {
            res->timed_out = true;
            kill_group(r->pid, SIGKILL); /* a hung kernel ignores nothing else anyway */
        }
        if (stop_signal && !res->interrupted) {
            res->interrupted = true;
            kill_group(r->pid, SIGTERM);
            r->kill_at = now + 1.0;
        }
        if (r->kill_at && now > r->kill_at) {
            kill_group(r->pid, SIGKILL);
            r->kill_at = 0;
        }
        struct pollfd fds[2];
        int nfds = 0;
        if (r->out_open) fds[nfds++] = (struct pollfd){.fd = r->out, .events = POLLIN};
        if (r->res_open) fds[nfds++] = (struct pollfd){.fd = r->resp, .events = POLLIN};
        /* short: the child's exit is noticed here, not by a signal */
        int n = poll(fds, (nfds_t)nfds, 20);
        for (int i = 0; n > 0 && i < nfds; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (fds[i].fd == r->out)
                r->out_open = drain(r->out, &r->output, cap, &res->output_dropped, spec);
            else
                r->res_open = drain(r->resp, &r->results, RESULTS_LIMIT, NULL, NULL);
        }
    }
    if (stop_signal) res->interrupted = true; /* also when it came as the child ended */
    if (res->interrupted) interrupted_since = true;
    /* anything the child left behind in its group (only the group: the
     * child is reaped, its pid may be someone else's now) */
    kill(-r->pid, SIGKILL);

    /* what was written before they ended is still in the pipes */
    if (r->out_open) drain_now(r->out, &r->output, cap, &res->output_dropped, spec);
    if (r->res_open) drain_now(r->resp, &r->results, RESULTS_LIMIT, NULL, NULL);
    close(r->out);
    if (r->resp >= 0) close(r->resp);
    if (r->go >= 0) close(r->go);
    open_runs--;
    release_stops(r->old);

    free(res->output);
    free(res->results);
    res->exited = WIFEXITED(r->wstatus);
    res->exit_code = res->exited ? WEXITSTATUS(r->wstatus) : -1;
    res->signal = WIFSIGNALED(r->wstatus) ? WTERMSIG(r->wstatus) : 0;
    res->output_len = r->output.len;
    res->output = sb_take(&r->output);
    res->results = sb_take(&r->results);
    res->wall_s = now_seconds() - r->start;
    free(r);
    return true;
}

int proc_run(const ProcSpec *spec, ProcResult *res) {
    ProcRun *run;
    if (proc_start(spec, res, &run) < 0) return -1;
    proc_wait(run, res, NULL);
    return 0;
}

/* ------------------------------------------------------------ the pool */

typedef struct {
    pid_t pid;    /* -1: gone */
    int to, from; /* its job pipe and its reply pipe */
    int job;      /* the job it is doing; -1: idle */
} Worker;

/* Reads exactly len bytes unless the pipe ends first; returns what was read. */
static size_t read_full(int fd, void *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

/* In a worker: jobs until the job pipe ends. Never returns. */
static void work_jobs(const ProcPool *pool, int from_parent, int to_parent) {
    int job;
    while (read_full(from_parent, &job, sizeof job) == sizeof job) {
        StrBuf reply = {0};
        pool->work(job, &reply, pool->ctx);
        uint64_t len = reply.len;
        if (write_all(to_parent, (const char *)&len, sizeof len) < 0 ||
            (len && write_all(to_parent, reply.buf, reply.len) < 0))
            _exit(1);
        sb_free(&reply);
    }
    _exit(0);
}

static int run_here(const ProcPool *pool) {
    for (int job = 0; job < pool->njobs; job++) {
        StrBuf reply = {0};
        pool->work(job, &reply, pool->ctx);
        bool more = pool->done(job, reply.buf ? reply.buf : "", reply.len, pool->ctx);
        sb_free(&reply);
        if (!more) return job + 1;
    }
    return pool->njobs;
}

/* Starts worker k; false when it could not (the pool goes on with fewer). */
static bool start_worker(const ProcPool *pool, Worker *w, int k) {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) < 0) return false;
    if (pipe2(up, O_CLOEXEC) < 0) {
        close(down[0]), close(down[1]);
        return false;
    }
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* gpucourse gone: so is its worker, and with it its runs */
        if (getppid() != parent) _exit(1);
        for (int i = 0; i < k; i++) /* the other workers' pipes: their ends are theirs */
            if (w[i].pid > 0) close(w[i].to), close(w[i].from);
        close(down[1]);
        close(up[0]);
        signal(SIGPIPE, SIG_DFL);
        work_jobs(pool, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    if (pid < 0) {
        close(down[1]), close(up[0]);
        return false;
    }
    w[k] = (Worker){pid, down[1], up[0], -1};
    return true;
}

/* A worker's end: its pipes closed, it reaped. */
static void end_worker(Worker *w) {
    close(w->to);
    close(w->from);
    while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    w->pid = -1;
    w->job = -1;
}

int proc_pool_run(const ProcPool *pool, bool *interrupted) {
    *interrupted = false;
    int nw = pool->workers < pool->njobs ? pool->workers : pool->njobs;
    if (nw <= 1) return run_here(pool); /* an interrupted job says so in its own reply */
    Worker *w = xcalloc((size_t)nw, sizeof *w);
    int started = 0;
    for (int k = 0; k < nw; k++) {
        w[k] = (Worker){-1, -1, -1, -1};
        started += start_worker(pool, w, k);
    }
    if (started == 0) {
        free(w);
        return run_here(pool);
    }
    char **replies = xcalloc((size_t)pool->njobs, sizeof *replies);
    size_t *lens = xcalloc((size_t)pool->njobs, sizeof *lens);
    bool *back = xcalloc((size_t)pool->njobs, sizeof *back); /* its reply came, or its worker died */
    struct sigaction old[NSTOPS], old_pipe, ignore = {.sa_handler = SIG_IGN};
    catch_stops(old);
    sigaction(SIGPIPE, &ignore, &old_pipe); /* a job for a worker that died is EPIPE here, not our end */
    int next = 0, delivered = 0;
    bool stop = false, halted = false; /* stop: no new jobs; halted: done() said stop, nothing more for it */
    struct pollfd *fds = xcalloc((size_t)nw, sizeof *fds);
    for (;;) {
        if (stop_signal) { /* the workers' runs end as interrupted; nothing new starts; a second time: at once */
            int how = *interrupted ? SIGKILL : SIGTERM;
            *interrupted = stop = true;
            stop_signal = 0;
            for (int k = 0; k < nw; k++)
                if (w[k].pid > 0) kill(w[k].pid, how);
        }
        for (int k = 0; k < nw && !stop; k++)
            if (w[k].pid > 0 && w[k].job < 0 && next < pool->njobs) {
                if (write_all(w[k].to, (const char *)&next, sizeof next) < 0) end_worker(&w[k]);
                else w[k].job = next++;
            }
        /* in job order; after Ctrl-C, only up to the first that did not come back */
        while (!halted && delivered < pool->njobs && back[delivered]) {
            if (*interrupted && !replies[delivered]) break;
            bool more = pool->done(delivered, replies[delivered], lens[delivered], pool->ctx);
            free(replies[delivered]);
            replies[delivered++] = NULL;
            if (!more) stop = halted = true;
        }
        int nfds = 0, busy = 0;
        for (int k = 0; k < nw; k++)
            if (w[k].pid > 0 && w[k].job >= 0) fds[nfds++] = (struct pollfd){.fd = w[k].from, .events = POLLIN}, busy++;
        if (delivered == pool->njobs || (stop && busy == 0)) break;
        if (busy == 0) { /* every worker gone: the jobs left are lost as theirs were */
            bool left = false;
            for (int k = 0; k < nw; k++) left |= w[k].pid > 0;
            if (!left) {
                for (; next < pool->njobs; next++) back[next] = true; /* as if their workers died */
                continue;
            }
        }
        if (poll(fds, (nfds_t)nfds, -1) < 0) continue; /* EINTR: a stop signal, seen above */
        for (int k = 0; k < nw; k++) {
            if (w[k].pid <= 0 || w[k].job < 0) continue;
            struct pollfd *f = NULL;
            for (int i = 0; i < nfds; i++)
                if (fds[i].fd == w[k].from) f = &fds[i];
            if (!f || !(f->revents & (POLLIN | POLLHUP | POLLERR))) continue;
            int job = w[k].job;
            uint64_t len = 0;
            char *reply = NULL;
            bool whole = read_full(w[k].from, &len, sizeof len) == sizeof len && len < ((uint64_t)1 << 32);
            if (whole) {
                reply = xmalloc((size_t)len + 1);
                whole = read_full(w[k].from, reply, (size_t)len) == (size_t)len;
                reply[len] = '\0';
            }
            back[job] = true;
            if (whole) {
                replies[job] = reply, lens[job] = (size_t)len;
                w[k].job = -1;
            } else {
                free(reply);
                end_worker(&w[k]); /* it died mid-job: done() hears of it; the others go on */
            }
        }
    }
    for (int k = 0; k < nw; k++)
        if (w[k].pid > 0) end_worker(&w[k]); /* the job pipe's end is their signal to exit */
    if (*interrupted) interrupted_since = true;
    sigaction(SIGPIPE, &old_pipe, NULL);
    release_stops(old);
    for (int j = 0; j < pool->njobs; j++) free(replies[j]);
    free(replies), free(lens), free(back), free(fds), free(w);
    return delivered;
}

int proc_run_terminal(const char *const *argv, int *exit_code) {
    int status[2];
    if (pipe2(status, O_CLOEXEC) < 0) return error("cannot create a pipe: %s", strerror(errno));
    struct sigaction ignore, old_int, old_quit;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        close(status[0]);
        execvp(argv[0], (char *const *)argv);
        int err = errno;
        ssize_t ignored = write(status[1], &err, sizeof err);
        (void)ignored;
        _exit(127);
    }
    int err = errno, exec_err = 0;
    close(status[1]);
    ssize_t got = pid > 0 ? read(status[0], &exec_err, sizeof exec_err) : 0;
    close(status[0]);
    int wstatus = 0;
    if (pid > 0)
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (pid < 0) return error("cannot start '%s': %s", argv[0], strerror(err));
    if (got == (ssize_t)sizeof exec_err) return error("cannot run '%s': %s", argv[0], strerror(exec_err));
    *exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    return 0;
}

void proc_result_free(ProcResult *res) {
    free(res->output);
    free(res->results);
    res->output = res->results = NULL;
}
