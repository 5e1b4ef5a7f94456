/* Running child processes: capture, caps, timeouts that end the whole
 * process group, the private result pipe, programs that cannot start, and
 * containment: nothing a run started outlives it. */
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/sandbox.h"
#include "../src/proc.h"

static ProcResult run_sh(const char *script, double timeout, size_t cap, int result_fd) {
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = timeout, .capture_limit = cap, .result_fd = result_fd};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    return r;
}

static void test_capture_and_exit_code(void **state) {
    (void)state;
    ProcResult r = run_sh("echo out; echo err >&2; exit 3", 10, 0, 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.output, "out\nerr\n");
    assert_false(r.timed_out);
    proc_result_free(&r);
}

static void test_output_is_capped(void **state) {
    (void)state;
    /* 8 MB of output, 1000 bytes kept, the rest read and counted */
    ProcResult r = run_sh("head -c 8000000 /dev/zero | tr '\\0' x", 30, 1000, 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.output_len, 1000);
    assert_int_equal(r.output_dropped, 8000000 - 1000);
    proc_result_free(&r);
}

static void test_timeout_kills_the_group(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    /* the child starts a grandchild that would touch a file after 3 s */
    char *script = xprintf("(sleep 3; touch '%s/alive') & sleep 100", dir);
    double t0 = now_seconds();
    ProcResult r = run_sh(script, 0.5, 0, 0);
    assert_true(r.timed_out);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGKILL);
    assert_true(now_seconds() - t0 < 3.0);
    sleep(4);
    char *alive = path_join(dir, "alive");
    assert_false(file_exists(alive));
    free(alive);
    free(script);
    proc_result_free(&r);
    tmpdir_remove(dir);
}

static void test_result_pipe(void **state) {
    (void)state;
    ProcResult r = run_sh("echo \"fd=$GPUCOURSE_RESULT_FD\"; echo 'check: 1 ok' >&3", 10, 0, 3);
    assert_string_equal(r.output, "fd=3\n");
    assert_string_equal(r.results, "check: 1 ok\n");
    proc_result_free(&r);
}

static void test_extra_environment(void **state) {
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "echo $GPUCOURSE_NONCE", NULL};
    const char *env[] = {"GPUCOURSE_NONCE=abc", NULL};
    ProcSpec spec = {.argv = argv, .env = env, .timeout_s = 10};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_string_equal(r.output, "abc\n");
    proc_result_free(&r);
}

static void test_killed_by_signal(void **state) {
    (void)state;
    ProcResult r = run_sh("kill -SEGV $$", 10, 0, 0);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGSEGV);
    proc_result_free(&r);
}

static void test_cannot_start(void **state) {
    (void)state;
    const char *argv[] = {"/nonexistent/nvcc", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), -1);
    assert_string_equal(last_error(), "cannot run '/nonexistent/nvcc': No such file or directory");
}

static void on_output(const char *data, size_t len, void *ctx) { sb_add(ctx, data, len); }

static void test_live_output(void **state) {
    (void)state;
    StrBuf seen = {0};
    const char *argv[] = {"/bin/sh", "-c", "echo one; sleep 0.2; echo two", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10, .on_output = on_output, .ctx = &seen};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_string_equal(seen.buf, "one\ntwo\n");
    sb_free(&seen);
    proc_result_free(&r);
}

/* What is past capture_limit is not kept, but on_output still sees it:
 * the grader looks for ptxas's repairs in the whole of nvcc's output. */
static void test_live_output_past_the_cap(void **state) {
    (void)state;
    StrBuf seen = {0};
    const char *argv[] = {"/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' w; echo; echo '(C7519) last'", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10, .capture_limit = 1024, .on_output = on_output, .ctx = &seen};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_int_equal(seen.len, 300000 + 1 + 13);
    assert_non_null(strstr(seen.buf, "(C7519) last\n"));
    assert_int_equal(strlen(r.output), 1024);
    assert_int_equal(r.output_dropped, seen.len - 1024);
    sb_free(&seen);
    proc_result_free(&r);
}

/* The pid a script wrote to dir/name. */
static pid_t pid_from(const char *dir, const char *name) {
    char *path = path_join(dir, name);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    pid_t pid = (pid_t)atol(text);
    assert_true(pid > 1);
    free(text);
    free(path);
    return pid;
}

static bool gone(pid_t pid) { return kill(pid, 0) < 0 && errno == ESRCH; }

static void test_escaped_processes_are_killed(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    /* one leaves the process group (setsid), one is orphaned by a double
     * fork and leaves it too; both hold stdout open */
    char *script = xprintf("setsid sh -c 'echo $$ > %s/a; exec sleep 100' &\n"
                           "( setsid sh -c 'echo $$ > %s/b; exec sleep 100' & )\n"
                           "while [ ! -s %s/a ] || [ ! -s %s/b ]; do sleep 0.01; done\n"
                           "echo started",
                           dir, dir, dir, dir);
    double t0 = now_seconds();
    ProcResult r = run_sh(script, 10, 0, 0);
    assert_true(now_seconds() - t0 < 1.5);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.output, "started\n");
    assert_true(gone(pid_from(dir, "a")));
    assert_true(gone(pid_from(dir, "b")));
    free(script);
    proc_result_free(&r);
    tmpdir_remove(dir);
}

static void test_verdict_when_the_child_ends(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    /* a grandchild that keeps writing to the output after the child exited */
    char *script = xprintf("(while :; do echo more; sleep 0.01; done) & echo $! > %s/w; echo bye; exit 0", dir);
    double t0 = now_seconds();
    ProcResult r = run_sh(script, 10, 0, 3);
    assert_true(now_seconds() - t0 < 1.5);
    assert_false(r.timed_out);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.output, "bye\n"));
    assert_true(gone(pid_from(dir, "w")));
    free(script);
    proc_result_free(&r);
    tmpdir_remove(dir);
}

/* A child of ours that was there before the run (the app may have one) is
 * not the run's to kill. */
static void test_other_children_are_left_alone(void **state) {
    (void)state;
    pid_t other = fork();
    assert_true(other >= 0);
    if (other == 0) {
        pause();
        _exit(0);
    }
    ProcResult r = run_sh("(sleep 100 &) ; echo ok", 10, 0, 0);
    assert_string_equal(r.output, "ok\n");
    assert_int_equal(kill(other, 0), 0);
    int status = 0;
    assert_int_equal(waitpid(other, &status, WNOHANG), 0); /* still running */
    kill(other, SIGKILL);
    assert_int_equal(waitpid(other, &status, 0), other);
    proc_result_free(&r);
}

static void test_harden_self(void **state) {
    (void)state;
    pid_t child = fork(); /* in a child: the test process stays as it was */
    assert_true(child >= 0);
    if (child == 0) {
        proc_harden_self();
        bool hardened = prctl(PR_GET_DUMPABLE) == 0;
        /* what we start is itself dumpable again (exec resets it) */
        const char *argv[] = {"/bin/sh", "-c", "echo ok", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 10};
        ProcResult r;
        bool ran = proc_run(&spec, &r) == 0 && r.exited && r.exit_code == 0 && !strcmp(r.output, "ok\n");
        _exit(hardened && ran ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Dead: gone, or a zombie that nobody reaped yet (ours or init's). */
static bool dead(pid_t pid) {
    if (gone(pid)) return true;
    char path[64], stat[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return true;
    size_t len = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[len] = '\0';
    char *paren = strrchr(stat, ')');
    return !paren || paren[2] == 'Z' || paren[2] == 'X';
}

/* gpucourse killed with SIGKILL (here: a forked test process that is in
 * proc_run) takes everything the run started with it: the program, its
 * children, one that left the group and one that was orphaned by a double
 * fork, within a second. */
static void test_children_die_with_us(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    pid_t runner = fork();
    assert_true(runner >= 0);
    if (runner == 0) {
        char *script = xprintf("echo $$ > %s/sh.tmp; mv %s/sh.tmp %s/sh\n"
                               "sleep 100 & echo $! > %s/a.tmp; mv %s/a.tmp %s/a\n"
                               "setsid sh -c 'echo $$ > %s/b.tmp; mv %s/b.tmp %s/b; exec sleep 100' &\n"
                               "( setsid sh -c 'echo $$ > %s/c.tmp; mv %s/c.tmp %s/c; exec sleep 100' & )\n"
                               "sleep 100",
                               dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
        const char *argv[] = {"/bin/sh", "-c", script, NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 60};
        ProcResult r;
        proc_run(&spec, &r);
        _exit(0);
    }
    const char *names[] = {"sh", "a", "b", "c"};
    pid_t pids[4];
    for (int i = 0; i < 4; i++) {
        char *path = path_join(dir, names[i]);
        for (int k = 0; k < 500 && !file_exists(path); k++) usleep(10000);
        free(path);
        pids[i] = pid_from(dir, names[i]);
    }
    assert_int_equal(kill(runner, SIGKILL), 0);
    assert_int_equal(waitpid(runner, NULL, 0), runner);
    double t0 = now_seconds();
    bool all_dead = false;
    while (!all_dead && now_seconds() - t0 < 1.0) {
        all_dead = true;
        for (int i = 0; i < 4; i++) all_dead &= dead(pids[i]);
        if (!all_dead) usleep(10000);
    }
    for (int i = 0; i < 4; i++) {
        if (!dead(pids[i])) fprintf(stderr, "# %s (pid %d) outlived the process that started it\n", names[i], (int)pids[i]);
        kill(pids[i], SIGKILL); /* whatever happened, leave nothing behind */
    }
    while (waitpid(-1, NULL, WNOHANG) > 0) { /* the orphans that were re-parented to us */
    }
    assert_true(all_dead);
    tmpdir_remove(dir);
}

/* The address-space limit holds for the program and what it starts: dd's
 * 512 MiB buffer fails under a 256 MiB limit and works without one. */
static void test_memory_limit(void **state) {
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "dd if=/dev/zero of=/dev/null bs=512M count=1 2>&1 && echo fine", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .memory_limit = (size_t)256 << 20};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_true(r.exited);
    assert_int_not_equal(r.exit_code, 0);
    assert_non_null(strstr(r.output, "memory exhausted"));
    proc_result_free(&r);
    spec.memory_limit = 0;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.output, "fine"));
    proc_result_free(&r);
}

static void test_working_directory(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    const char *argv[] = {"/bin/sh", "-c", "pwd", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10, .dir = dir};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    char *want = xprintf("%s\n", dir);
    assert_string_equal(r.output, want);
    free(want);
    proc_result_free(&r);
    char *missing = path_join(dir, "missing");
    spec.dir = missing;
    assert_int_equal(proc_run(&spec, &r), -1);
    assert_non_null(strstr(last_error(), "No such file or directory"));
    assert_non_null(strstr(last_error(), missing));
    free(missing);
    tmpdir_remove(dir);
}

/* Ctrl-C during a run is in its result, and stays known to the caller of a
 * task of several runs until it asks. */
static void test_interrupt_is_kept(void **state) {
    (void)state;
    assert_false(proc_take_interrupted());
    char *script = xprintf("kill -INT %d; sleep 5", (int)getpid());
    double t0 = now_seconds();
    ProcResult r = run_sh(script, 30, 0, 0);
    assert_true(now_seconds() - t0 < 3.0);
    assert_true(r.interrupted);
    proc_result_free(&r);
    r = run_sh("exit 0", 10, 0, 0);
    assert_false(r.interrupted);
    proc_result_free(&r);
    assert_true(proc_take_interrupted());
    assert_false(proc_take_interrupted());
    free(script);
}

/* ------------------------------------------------------------ the pool */

/* What the pool tests' jobs do and what came back, in the order it came. */
typedef struct {
    double sleep_s[16];   /* how long job i takes */
    int die, stop_after;  /* job that kills its worker, job after which done() stops (-1: none) */
    bool run_sleep;       /* job i runs `sleep 5` through proc_run after job 0 sent SIGINT to the parent */
    int order[16], n;     /* the jobs done() saw */
    pid_t pid[16];        /* the process each ran in (0: its worker died) */
    double start[16], end[16];
    char said[16][32];
} PoolTest;

static void pool_work(int job, StrBuf *reply, void *ctx) {
    PoolTest *t = ctx;
    double start = now_seconds();
    if (job == t->die) raise(SIGKILL);
    if (t->run_sleep) {
        if (job == 0) usleep(300000), kill(getppid(), SIGINT);
        ProcResult r = run_sh("sleep 5", 30, 0, 0);
        sb_printf(reply, "%d %d %.6f %.6f %s", job, (int)getpid(), start, now_seconds(), r.interrupted ? "stopped" : "ran");
        proc_result_free(&r);
        return;
    }
    usleep((useconds_t)(t->sleep_s[job] * 1e6));
    sb_printf(reply, "%d %d %.6f %.6f ran", job, (int)getpid(), start, now_seconds());
}

static bool pool_done(int job, const char *reply, size_t len, void *ctx) {
    PoolTest *t = ctx;
    int said_job = -1, pid = 0;
    t->order[t->n++] = job;
    if (reply) {
        assert_int_equal(strlen(reply), len);
        assert_int_equal(sscanf(reply, "%d %d %lf %lf %31s", &said_job, &pid, &t->start[job], &t->end[job], t->said[job]), 5);
        assert_int_equal(said_job, job);
    }
    t->pid[job] = pid;
    return job != t->stop_after;
}

static PoolTest pool_test(void) {
    PoolTest t = {.die = -1, .stop_after = -1};
    return t;
}

/* Jobs on three workers at once, replies in job order; one worker: here. */
static void test_pool(void **state) {
    (void)state;
    PoolTest t = pool_test();
    double total = 0;
    for (int i = 0; i < 7; i++) total += t.sleep_s[i] = i % 3 == 0 ? 0.4 : 0.1;
    ProcPool pool = {7, 3, pool_work, pool_done, &t};
    bool interrupted = true;
    double t0 = now_seconds();
    assert_int_equal(proc_pool_run(&pool, &interrupted), 7);
    double wall = now_seconds() - t0;
    assert_false(interrupted);
    int workers = 0, most = 0;
    for (int i = 0; i < 7; i++) {
        assert_int_equal(t.order[i], i);
        assert_string_equal(t.said[i], "ran");
        assert_int_not_equal(t.pid[i], getpid());
        bool seen = false;
        for (int k = 0; k < i; k++) seen |= t.pid[k] == t.pid[i];
        workers += !seen;
        int at_once = 0; /* the jobs running at job i's start */
        for (int k = 0; k < 7; k++) at_once += t.start[k] <= t.start[i] && t.end[k] > t.start[i];
        if (at_once > most) most = at_once;
    }
    assert_int_equal(workers, 3);
    assert_int_equal(most, 3); /* never more than the workers, and that many */
    assert_true(wall < total * 0.75);
    while (waitpid(-1, NULL, WNOHANG) > 0) { /* none left: each was reaped */
    }
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);

    t = pool_test(); /* one worker: here, in order */
    ProcPool here = {3, 1, pool_work, pool_done, &t};
    assert_int_equal(proc_pool_run(&here, &interrupted), 3);
    for (int i = 0; i < 3; i++) assert_int_equal(t.pid[i], getpid()), assert_int_equal(t.order[i], i);
}

/* A worker that dies mid-job: done() hears of it (no reply) and the other
 * jobs go on; done() saying stop: nothing after it. */
static void test_pool_worker_dies(void **state) {
    (void)state;
    PoolTest t = pool_test();
    t.die = 2;
    ProcPool pool = {6, 2, pool_work, pool_done, &t};
    bool interrupted;
    assert_int_equal(proc_pool_run(&pool, &interrupted), 6);
    assert_false(interrupted);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(t.order[i], i);
        if (i == 2) assert_int_equal(t.pid[i], 0);
        else assert_string_equal(t.said[i], "ran");
    }
    t = pool_test();
    t.stop_after = 1;
    for (int i = 0; i < 6; i++) t.sleep_s[i] = 0.05;
    assert_int_equal(proc_pool_run(&pool, &interrupted), 2);
    assert_int_equal(t.n, 2);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* Ctrl-C: the workers' runs end as interrupted, nothing new starts, and
 * the pool says so (also to proc_take_interrupted). */
static void test_pool_interrupt(void **state) {
    (void)state;
    assert_false(proc_take_interrupted());
    PoolTest t = pool_test();
    t.run_sleep = true;
    ProcPool pool = {8, 2, pool_work, pool_done, &t};
    bool interrupted = false;
    double t0 = now_seconds();
    int delivered = proc_pool_run(&pool, &interrupted);
    assert_true(now_seconds() - t0 < 3.0);
    assert_true(interrupted);
    assert_true(delivered <= 2);
    for (int i = 0; i < delivered; i++) assert_string_equal(t.said[i], "stopped");
    assert_true(proc_take_interrupted());
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* gpucourse killed with SIGKILL mid-pool: its workers, and their runs, die too. */
static void test_pool_dies_with_us(void **state) {
    (void)state;
    pid_t gpucourse = fork();
    assert_true(gpucourse >= 0);
    if (gpucourse == 0) {
        PoolTest t = pool_test();
        for (int i = 0; i < 2; i++) t.sleep_s[i] = 100;
        ProcPool pool = {2, 2, pool_work, pool_done, &t};
        bool interrupted;
        proc_pool_run(&pool, &interrupted);
        _exit(0);
    }
    /* its workers are its children: wait until both are there */
    pid_t workers[2] = {0, 0};
    for (int k = 0; k < 500; k++) {
        char *cmd = xprintf("pgrep -P %d", (int)gpucourse);
        FILE *f = popen(cmd, "r");
        free(cmd);
        int n = 0;
        while (f && n < 2 && fscanf(f, "%d", &workers[n]) == 1) n++;
        if (f) pclose(f);
        if (n == 2) break;
        usleep(10000);
    }
    assert_true(workers[0] > 0 && workers[1] > 0);
    assert_int_equal(kill(gpucourse, SIGKILL), 0);
    assert_int_equal(waitpid(gpucourse, NULL, 0), gpucourse);
    double t0 = now_seconds();
    while ((!dead(workers[0]) || !dead(workers[1])) && now_seconds() - t0 < 1.0) usleep(10000);
    bool both = dead(workers[0]) && dead(workers[1]);
    for (int i = 0; i < 2; i++) kill(workers[i], SIGKILL);
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    assert_true(both);
}

/* A run has no controlling terminal even when gpucourse has one: nothing
 * it starts can open /dev/tty or type into the user's shell with TIOCSTI
 * (issue 44's item 1). The child takes a pseudo-terminal as its terminal,
 * as a student's shell is, then runs a program that looks for it. */
static void test_no_controlling_terminal(void **state) {
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        if (take_a_terminal_as_ours() < 0) _exit(3);
        int here = open("/dev/tty", O_RDONLY);
        if (here < 0) _exit(4); /* the test itself must see it */
        close(here);
        const char *argv[] = {"/bin/sh", "-c", "if (exec 3</dev/tty) 2>/dev/null; then echo terminal; else echo none; fi", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 10};
        ProcResult r;
        if (proc_run(&spec, &r) != 0) _exit(5);
        ssize_t w = write(fds[1], r.output, r.output_len);
        _exit(w == (ssize_t)r.output_len ? 0 : 6);
    }
    close(fds[1]);
    char out[256] = "";
    ssize_t n = read(fds[0], out, sizeof out - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    out[n > 0 ? n : 0] = '\0';
    print_message("# the run saw: %s", out);
    assert_non_null(strstr(out, "none"));
}

static int enter_sandbox(const void *spec) {
    return sandbox_restrict_files(spec, NULL);
}

/* ProcSpec.confine: the program and what it starts (a shell's cat) read
 * only what the rules allow and write only in make_paths; the parent is
 * untouched. */
static void test_confined_run(void **state) {
    (void)state;
    SandboxStatus probe;
    sandbox_probe(&probe);
    if (!probe.landlock) {
        printf("# skipped: no Landlock on this kernel\n");
        skip();
    }
    char *dir = tmpdir_new(), *in = path_join(dir, "in"), *out = path_join(dir, "out"), *secret = path_join(dir, "secret");
    assert_int_equal(make_dirs(in), 0);
    assert_int_equal(make_dirs(out), 0);
    assert_int_equal(write_file_atomic(secret, "s3cret\n", 7), 0);
    char *ok = path_join(in, "ok");
    assert_int_equal(write_file_atomic(ok, "fine\n", 5), 0);
    const char *reads[] = {"/bin", "/usr", "/lib", "/lib64", "/etc/ld.so.cache", in, NULL};
    const char *makes[] = {out, NULL};
    SandboxSpec box = {.read_paths = reads, .make_paths = makes};
    char *script = xprintf("cat '%s'; cat '%s'; mkdir '%s/d' && echo made >'%s/d/f' && rm -r '%s/d' && echo removed; "
                           "echo x >'%s/planted'",
                           ok, secret, out, out, out, in);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .confine = enter_sandbox, .confine_ctx = &box};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_non_null(strstr(r.output, "fine\n"));
    assert_null(strstr(r.output, "s3cret"));
    assert_non_null(strstr(r.output, "Permission denied"));
    assert_non_null(strstr(r.output, "removed\n"));
    assert_true(r.exited);
    assert_int_not_equal(r.exit_code, 0); /* the write into in/ */
    char *planted = path_join(in, "planted");
    assert_false(file_exists(planted));
    char *mine = read_file(secret, NULL); /* we are not confined */
    assert_string_equal(mine, "s3cret\n");
    free(mine), free(planted), free(script), free(ok), free(secret), free(out), free(in);
    proc_result_free(&r);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ a run in steps */

/* The judge's way of ending its results (harness/judge/results.cu). */
static bool said_end(const char *results, size_t len) {
    return len >= 7 && !strcmp(results + len - 7, "end: 0\n");
}

/* A program that waits for its go (GPUCOURSE_GO_FD), says what it got on the
 * result pipe, ends it, and then takes its time to exit (a judge's
 * contexts torn down): proc_wait with enough returns at the results' end,
 * and the second wait, into the result moved elsewhere, at the exit; the
 * bound counts from the go. */
static void test_go_then_results_before_the_exit(void **state) {
    (void)state;
    const char *argv[] = {"/bin/sh", "-c",
                          "c=$(head -c 1 <&$GPUCOURSE_GO_FD); echo \"got $c\" >&3; echo 'end: 0' >&3; exec 3>&-; "
                          "echo out; sleep 0.6; exit 4",
                          NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 1.5, .result_fd = 3, .go_fd = 4};
    ProcResult r;
    ProcRun *run;
    assert_int_equal(proc_start(&spec, &r, &run), 0);
    usleep(1200000); /* as nvcc compiles: the program waits, and its bound does not run yet */
    double t0 = now_seconds();
    proc_go(run, true);
    assert_false(proc_wait(run, &r, said_end));
    assert_true(now_seconds() - t0 < 0.5);
    assert_string_equal(r.results, "got g\nend: 0\n");
    /* the owner moves the result between the waits (a grading's judge left to end while its verdict
     * is shown), and the old place is reused: the run holds no pointer to it */
    ProcResult moved = r;
    memset(&r, 0x5a, sizeof r);
    assert_true(proc_wait(run, &moved, NULL));
    assert_true(now_seconds() - t0 >= 0.5);
    assert_false(moved.timed_out);
    assert_true(moved.exited);
    assert_int_equal(moved.exit_code, 4);
    assert_string_equal(moved.output, "out\n");
    proc_result_free(&moved);
}

/* No go (a compile error): the go pipe ends with no byte, or the run is
 * killed; either way nothing it started is left, and no results. */
static void test_no_go_leaves_nothing(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    for (int kill_it = 0; kill_it < 2; kill_it++) {
        char *script = xprintf("(sleep 2; touch '%s/alive') & c=$(head -c 1 <&$GPUCOURSE_GO_FD); "
                               "[ -z \"$c\" ] && exit 7; sleep 100",
                               dir);
        const char *argv[] = {"/bin/sh", "-c", script, NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 30, .result_fd = 3, .go_fd = 4};
        ProcResult r;
        ProcRun *run;
        assert_int_equal(proc_start(&spec, &r, &run), 0);
        usleep(200000);
        double t0 = now_seconds();
        if (kill_it) proc_kill(run);
        else proc_go(run, false);
        assert_true(proc_wait(run, &r, said_end));
        assert_true(now_seconds() - t0 < 1.0);
        if (kill_it) assert_int_equal(r.signal, SIGKILL);
        else assert_int_equal(r.exit_code, 7);
        assert_string_equal(r.results, "");
        proc_result_free(&r);
        free(script);
    }
    sleep(3);
    char *alive = path_join(dir, "alive");
    assert_false(file_exists(alive));
    free(alive);
    tmpdir_remove(dir);
}

/* Ctrl-C while a started run waits and another run (nvcc) comes and goes:
 * that run is interrupted, and the started one too when it is waited for. */
static void test_interrupt_while_started(void **state) {
    (void)state;
    assert_false(proc_take_interrupted());
    const char *argv[] = {"/bin/sh", "-c", "head -c 1 <&$GPUCOURSE_GO_FD; sleep 100", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .go_fd = 4};
    ProcResult r;
    ProcRun *run;
    assert_int_equal(proc_start(&spec, &r, &run), 0);
    kill(getpid(), SIGINT); /* between runs: kept for the started one */
    ProcResult other = run_sh("sleep 5", 30, 0, 0);
    assert_true(other.interrupted); /* the compile stops too */
    proc_result_free(&other);
    double t0 = now_seconds();
    assert_true(proc_wait(run, &r, NULL));
    assert_true(now_seconds() - t0 < 2.0);
    assert_true(r.interrupted);
    assert_true(proc_take_interrupted());
    proc_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_and_exit_code), cmocka_unit_test(test_output_is_capped),
        cmocka_unit_test(test_timeout_kills_the_group), cmocka_unit_test(test_result_pipe),
        cmocka_unit_test(test_extra_environment),     cmocka_unit_test(test_killed_by_signal),
        cmocka_unit_test(test_cannot_start),          cmocka_unit_test(test_live_output),
        cmocka_unit_test(test_live_output_past_the_cap),
        cmocka_unit_test(test_escaped_processes_are_killed), cmocka_unit_test(test_verdict_when_the_child_ends),
        cmocka_unit_test(test_other_children_are_left_alone), cmocka_unit_test(test_harden_self),
        cmocka_unit_test(test_children_die_with_us), cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_working_directory), cmocka_unit_test(test_interrupt_is_kept),
        cmocka_unit_test(test_pool), cmocka_unit_test(test_pool_worker_dies),
        cmocka_unit_test(test_pool_interrupt), cmocka_unit_test(test_pool_dies_with_us),
        cmocka_unit_test(test_no_controlling_terminal),
        cmocka_unit_test(test_confined_run),
        cmocka_unit_test(test_go_then_results_before_the_exit), cmocka_unit_test(test_no_go_leaves_nothing),
        cmocka_unit_test(test_interrupt_while_started),
    };
    return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
