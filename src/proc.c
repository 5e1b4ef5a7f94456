#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* Set by the signal handlers installed for the duration of a run. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

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

/* In the child: never returns. Failure to exec is reported through status_fd. */
static void exec_child(const ProcSpec *spec, int out_w, int res_w, int status_w) {
    setpgid(0, 0);
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) signal(stop_signals[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
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
    for (const char *const *e = spec->env; e && *e; e++) putenv((char *)*e);
    execvp(spec->argv[0], (char *const *)spec->argv);
    int err = errno;
    ssize_t ignored = write(status_w, &err, sizeof err);
    (void)ignored;
    _exit(127);
}

static void kill_group(pid_t pid, int sig) {
    if (kill(-pid, sig) < 0) kill(pid, sig);
}

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
    if (spec && spec->on_output && keep) spec->on_output(chunk, keep, spec->ctx);
    return true;
}

int proc_run(const ProcSpec *spec, ProcResult *res) {
    memset(res, 0, sizeof *res);
    int out[2], status[2], resp[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) < 0) return error("cannot create a pipe: %s", strerror(errno));
    if (pipe2(status, O_CLOEXEC) < 0) {
        close(out[0]), close(out[1]);
        return error("cannot create a pipe: %s", strerror(errno));
    }
    if (spec->result_fd > 2 && pipe2(resp, O_CLOEXEC) < 0) {
        close(out[0]), close(out[1]), close(status[0]), close(status[1]);
        return error("cannot create a pipe: %s", strerror(errno));
    }

    struct sigaction act, old[ARRAY_SIZE(stop_signals)];
    memset(&act, 0, sizeof act);
    act.sa_handler = on_stop_signal; /* no SA_RESTART: poll() wakes up */
    sigemptyset(&act.sa_mask);
    stop_signal = 0;
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) sigaction(stop_signals[i], &act, &old[i]);

    double start = now_seconds();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) sigaction(stop_signals[i], &old[i], NULL);
        close(out[0]), close(out[1]), close(status[0]), close(status[1]);
        if (resp[0] >= 0) close(resp[0]), close(resp[1]);
        return error("cannot start '%s': %s", spec->argv[0], strerror(err));
    }
    if (pid == 0) exec_child(spec, out[1], resp[1], status[1]);
    setpgid(pid, pid); /* also here, so that kill(-pid) works at once */
    close(out[1]);
    close(status[1]);
    if (resp[1] >= 0) close(resp[1]);

    int exec_err = 0;
    ssize_t got = read(status[0], &exec_err, sizeof exec_err);
    close(status[0]);
    if (got == (ssize_t)sizeof exec_err) {
        waitpid(pid, NULL, 0);
        close(out[0]);
        if (resp[0] >= 0) close(resp[0]);
        for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) sigaction(stop_signals[i], &old[i], NULL);
        return error("cannot run '%s': %s", spec->argv[0], strerror(exec_err));
    }

    StrBuf output = {0}, results = {0};
    size_t cap = spec->capture_limit ? spec->capture_limit : 1 << 20;
    bool out_open = true, res_open = resp[0] >= 0;
    double kill_at = 0;    /* when a SIGTERM was sent: SIGKILL one second later */
    double give_up_at = 0; /* a process that left our group may hold the pipes open */
    while (out_open || res_open) {
        double now = now_seconds();
        if (!res->timed_out && spec->timeout_s > 0 && now - start > spec->timeout_s) {
            res->timed_out = true;
            kill_group(pid, SIGKILL); /* a hung kernel ignores nothing else anyway */
            give_up_at = now + 3.0;
        }
        if (stop_signal && !res->interrupted) {
            res->interrupted = true;
            kill_group(pid, SIGTERM);
            kill_at = now + 1.0;
            give_up_at = now + 4.0;
        }
        if (give_up_at && now > give_up_at) break;
        if (kill_at && now > kill_at) {
            kill_group(pid, SIGKILL);
            kill_at = 0;
        }
        struct pollfd fds[2];
        int nfds = 0;
        if (out_open) fds[nfds++] = (struct pollfd){.fd = out[0], .events = POLLIN};
        if (res_open) fds[nfds++] = (struct pollfd){.fd = resp[0], .events = POLLIN};
        int r = poll(fds, (nfds_t)nfds, 100);
        if (r < 0 && errno != EINTR) break;
        for (int i = 0; r > 0 && i < nfds; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (fds[i].fd == out[0])
                out_open = drain(out[0], &output, cap, &res->output_dropped, spec);
            else
                res_open = drain(resp[0], &results, 4 << 20, NULL, NULL);
        }
    }
    close(out[0]);
    if (resp[0] >= 0) close(resp[0]);

    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
        if (stop_signal && !res->interrupted) {
            res->interrupted = true;
            kill_group(pid, SIGKILL);
        }
    }
    kill_group(pid, SIGKILL); /* anything the child left behind in its group */
    for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) sigaction(stop_signals[i], &old[i], NULL);

    res->exited = WIFEXITED(wstatus);
    res->exit_code = res->exited ? WEXITSTATUS(wstatus) : -1;
    res->signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    res->output_len = output.len;
    res->output = sb_take(&output);
    res->results = sb_take(&results);
    res->wall_s = now_seconds() - start;
    return 0;
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
