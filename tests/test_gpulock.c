/* The GPU's lock and the machine's (grader/gpulock.c), between processes:
 * one timed grading per GPU, whichever GPU is free, a witnessed grading
 * alone on the machine; what a waiting one says, its bound, Ctrl-C, and
 * what another user may put where a lock goes. */
#include "test_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../grader/gpulock.h"
#include "../src/proc.h"

static void note_wait(const char *message, void *ctx) { snprintf(ctx, 400, "%s", message); }

/* A child process of ours that holds a GPU's lock for hold_s seconds
 * (after saying so on the pipe), then lets it go; with stop, it sends us
 * SIGINT first. */
static pid_t hold_as(const char *gpu, bool alone, const char *what, double hold_s, bool stop);

static pid_t hold_gpu(const char *gpu, double hold_s, bool stop) { return hold_as(gpu, false, "ex13", hold_s, stop); }

/* hold_gpu's child, grading what, alone (the machine to itself) or not. */
static pid_t hold_as(const char *gpu, bool alone, const char *what, double hold_s, bool stop) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t parent = getpid(), pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        GpuLock l;
        const char *gpus[] = {gpu};
        GpuLockRequest req = {.gpus = gpus, .ngpus = 1, .alone = alone, .what = what};
        if (gpu_lock(&req, &l) != GPU_LOCK_HELD) _exit(1);
        if (write(p[1], "h", 1) != 1) _exit(1);
        usleep((useconds_t)(0.3 * 1e6));
        if (stop) kill(parent, SIGINT);
        usleep((useconds_t)(hold_s * 1e6));
        gpu_unlock(&l);
        _exit(0);
    }
    char c;
    close(p[1]);
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    return pid;
}

static pid_t hold_lock(double hold_s, bool stop) { return hold_gpu("GPU-fake 0", hold_s, stop); }

/* One timed grading per GPU: a second process waits for the first, says
 * who holds the GPU, stops at its bound or on Ctrl-C; the file is no link
 * to follow and every user may lock it. */
/* Several GPUs: a grading takes whichever is free, waits only when all
 * are held (saying who holds each), and takes the first let go. */
static void test_gpu_lock_any(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    setenv("GPUCOURSE_LOCK_DIR", dir, 1);
    const char *gpus[] = {"GPU-a", "GPU-b", "GPU-c"};
    char message[600] = "";
    GpuLock l, m, n;
    GpuLockRequest req = {.gpus = gpus, .ngpus = 3, .what = "ex01", .timeout_s = 10, .on_wait = note_wait, .ctx = message};
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD); /* all free: the first */
    assert_int_equal(l.which, 0);
    assert_int_equal(gpu_lock(&req, &m), GPU_LOCK_HELD); /* this process holds a: b (flock is per open file) */
    assert_int_equal(m.which, 1);
    gpu_unlock(&l);
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD); /* a free again */
    assert_int_equal(l.which, 0);
    assert_int_equal(gpu_lock(&req, &n), GPU_LOCK_HELD);
    assert_int_equal(n.which, 2);
    assert_string_equal(message, ""); /* none of these waited */
    gpu_unlock(&l), gpu_unlock(&m), gpu_unlock(&n);

    pid_t a = hold_gpu("GPU-a", 5.0, false), c = hold_gpu("GPU-c", 5.0, false);
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD); /* another process holds a and c: b, at once */
    assert_int_equal(l.which, 1);
    assert_string_equal(message, "");
    char *b_path = gpu_lock_path("GPU-b"), *note = read_file(b_path, NULL); /* the holder's note is on its file */
    assert_non_null(strstr(note, "grading ex01"));
    free(note), free(b_path);

    pid_t b = -1; /* all three held: it waits, says so, and takes the one let go */
    gpu_unlock(&l);
    b = hold_gpu("GPU-b", 1.0, false);
    double t0 = now_seconds();
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD);
    assert_true(now_seconds() - t0 > 0.5);
    assert_int_equal(l.which, 1);
    assert_non_null(strstr(message, "waiting for one of 3 GPUs, all busy (GPU-a: pid "));
    assert_non_null(strstr(message, "; GPU-c: pid "));
    gpu_unlock(&l);
    waitpid(b, NULL, 0);

    b = hold_gpu("GPU-b", 5.0, false); /* all held past the bound: a setup error that names them all */
    req.timeout_s = 0.3;
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_TIMED_OUT);
    assert_non_null(strstr(last_error(), "all 3 GPUs stayed busy with other gradings for 0.3 s"));
    assert_int_equal(l.fd, -1);
    pid_t holders[] = {a, b, c};
    for (int i = 0; i < 3; i++) kill(holders[i], SIGKILL), waitpid(holders[i], NULL, 0);
    unsetenv("GPUCOURSE_LOCK_DIR");
    free(dir);
}

/* A witnessed grading has the machine to itself: it waits for the
 * gradings that run (on any GPU), keeps new ones out while it waits and
 * while it runs (a stream of short gradings cannot starve it), and each
 * waiting one says who it waits for. */
static void test_gpu_lock_alone(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    setenv("GPUCOURSE_LOCK_DIR", dir, 1);
    const char *a[] = {"GPU-a"}, *b[] = {"GPU-b"}, *ab[] = {"GPU-a", "GPU-b"};
    char message[600] = "";
    GpuLock l, m;
    GpuLockRequest alone = {.gpus = ab, .ngpus = 2, .alone = true, .what = "ex33", .timeout_s = 0.3,
                            .on_wait = note_wait, .ctx = message};
    GpuLockRequest plain = {.gpus = b, .ngpus = 1, .what = "ex01", .timeout_s = 0.3, .on_wait = note_wait, .ctx = message};

    pid_t other = hold_gpu("GPU-a", 5.0, false); /* a grading on GPU-a: GPU-b is free, and still it waits */
    assert_int_equal(gpu_lock(&alone, &l), GPU_LOCK_TIMED_OUT);
    assert_non_null(strstr(message, "waiting for the other gradings on this machine to end (GPU-a: pid "));
    assert_non_null(strstr(message, "ex33 is graded with the judge's own counters"));
    assert_non_null(strstr(last_error(), "this machine stayed busy with other gradings for 0.3 s"));
    assert_int_equal(l.machine_fd, -1);
    assert_int_equal(gpu_lock(&plain, &m), GPU_LOCK_HELD); /* the alone one gave up: nothing kept back */
    gpu_unlock(&m);
    kill(other, SIGKILL), waitpid(other, NULL, 0);

    other = hold_gpu("GPU-a", 1.0, false); /* it ends: the alone one goes */
    alone.timeout_s = 10;
    double t0 = now_seconds();
    assert_int_equal(gpu_lock(&alone, &l), GPU_LOCK_HELD);
    assert_true(now_seconds() - t0 > 0.5);
    assert_true(l.machine_fd >= 0);
    char *machine = path_join(dir, "gpucourse-machine.lock"), *note = read_file(machine, NULL);
    assert_non_null(strstr(note, "grading ex33"));
    free(note);
    message[0] = '\0'; /* held: a grading on the other GPU waits, and says for whom */
    assert_int_equal(gpu_lock(&plain, &m), GPU_LOCK_TIMED_OUT);
    assert_non_null(strstr(message, "waiting: pid "));
    assert_non_null(strstr(message, "grading ex33 has this machine to itself"));
    gpu_unlock(&l);
    note = read_file(machine, NULL);
    assert_string_equal(note, ""); /* the note goes with the lock */
    free(note);
    waitpid(other, NULL, 0);

    /* first come: while the alone one waits for a running grading, a new one does not start */
    other = hold_gpu("GPU-a", 1.5, false);
    pid_t waiter = fork();
    assert_true(waiter >= 0);
    if (waiter == 0) {
        GpuLockRequest req = {.gpus = a, .ngpus = 1, .alone = true, .what = "ex45", .timeout_s = 10};
        if (gpu_lock(&req, &l) != GPU_LOCK_HELD) _exit(1);
        usleep(500 * 1000);
        _exit(0);
    }
    usleep(400 * 1000); /* it waits for other now */
    message[0] = '\0';
    assert_int_equal(gpu_lock(&plain, &m), GPU_LOCK_TIMED_OUT); /* GPU-b free, but the waiting one came first */
    assert_non_null(strstr(message, "grading ex45 has this machine to itself"));
    int status;
    assert_int_equal(waitpid(waiter, &status, 0), waiter);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    waitpid(other, NULL, 0);
    assert_int_equal(gpu_lock(&plain, &m), GPU_LOCK_HELD); /* all done: at once */
    gpu_unlock(&m);
    free(machine);
    unsetenv("GPUCOURSE_LOCK_DIR");
    free(dir);
}

static void test_gpu_lock(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    setenv("GPUCOURSE_LOCK_DIR", dir, 1);
    char *path = gpu_lock_path("GPU-fake 0");
    assert_non_null(strstr(path, "/gpucourse-gpu-GPU-fake_0.lock"));
    char message[400] = "";
    GpuLock l;
    const char *gpus[] = {"GPU-fake 0"};
    GpuLockRequest req = {.gpus = gpus, .ngpus = 1, .what = "ex01", .timeout_s = 10, .on_wait = note_wait, .ctx = message};

    pid_t holder = hold_lock(1.0, false); /* waits for the holder, then holds */
    double t0 = now_seconds();
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD);
    assert_true(now_seconds() - t0 > 0.9);
    char who[64];
    snprintf(who, sizeof who, "pid %d of uid %d grading ex13", (int)holder, (int)getuid());
    assert_non_null(strstr(message, "waiting for the GPU (GPU-fake 0): "));
    assert_non_null(strstr(message, who));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* ours alone to lock; others read who holds it */
    gpu_unlock(&l);
    waitpid(holder, NULL, 0);

    message[0] = '\0'; /* free: no wait, nothing said */
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD);
    assert_string_equal(message, "");
    gpu_unlock(&l);

    holder = hold_lock(3.0, false); /* its bound */
    req.timeout_s = 0.5;
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_TIMED_OUT);
    assert_non_null(strstr(last_error(), "stayed busy with other gradings for 0.5 s"));
    assert_int_equal(l.fd, -1);
    kill(holder, SIGKILL); /* the lock goes with its holder */
    waitpid(holder, NULL, 0);
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD);
    gpu_unlock(&l);

    holder = hold_lock(3.0, true); /* Ctrl-C while waiting */
    req.timeout_s = 10;
    t0 = now_seconds();
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_INTERRUPTED);
    assert_true(now_seconds() - t0 < 2.0);
    assert_true(proc_take_interrupted()); /* as a run's Ctrl-C: the grade ends "interrupted" */
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);

    unlink(path); /* a link planted where the lock goes is not followed */
    char *target = path_join(dir, "victim");
    put_file(dir, "victim", "keep\n");
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD); /* the whole directory instead */
    assert_int_equal(l.fd, -1);
    assert_non_null(strstr(l.why, "gpucourse-gpu-GPU-fake_0.lock is a symbolic link"));
    GpuLock m;
    req.timeout_s = 0.3; /* which every other grading waits for */
    assert_int_equal(gpu_lock(&req, &m), GPU_LOCK_TIMED_OUT);
    gpu_unlock(&l);
    char *kept = read_file(target, NULL);
    assert_string_equal(kept, "keep\n");
    free(kept);
    free(target);

    assert_int_equal(chmod(dir, 0777), 0); /* a directory others may change: no lock, and why */
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_FAILED);
    assert_non_null(strstr(last_error(), "is writable by others and not sticky"));
    assert_int_equal(chmod(dir, 01777), 0); /* sticky: theirs to add to, not to take away */
    unlink(path);
    assert_int_equal(gpu_lock(&req, &l), GPU_LOCK_HELD);
    assert_true(l.fd >= 0);
    gpu_unlock(&l);
    unsetenv("GPUCOURSE_LOCK_DIR");
    free(path);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_lock),
        cmocka_unit_test(test_gpu_lock_any),
        cmocka_unit_test(test_gpu_lock_alone),
    };
    return cmocka_run_group_tests_name("gpulock", tests, NULL, NULL);
}
