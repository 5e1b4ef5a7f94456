/* The runner's sandbox (harness/sandbox.c): each test forks a child that
 * enters it, tries things and reports what happened over a pipe. What this
 * kernel lacks (Landlock, seccomp) is skipped with the reason. */
#include "test_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/sandbox.h"

extern char **environ;

enum { MAX_RESULTS = 16 };

/* What the child saw: sandbox_enter's answer, then one (return value,
 * errno) pair per thing tried. Small enough for one atomic pipe write. */
typedef struct {
    int entered;
    SandboxStatus status;
    int n;
    long ret[MAX_RESULTS];
    int err[MAX_RESULTS];
} Report;

static void record(Report *r, long ret) {
    if (r->n < MAX_RESULTS) {
        r->ret[r->n] = ret;
        r->err[r->n] = ret < 0 ? errno : 0;
    }
    r->n++;
}

/* Shared with the child (fork copies them). */
static char *g_dir;      /* temp dir: secret (not allowed), allowed/ok.txt (read_paths) */
static char g_exe[4096]; /* this test program, allowed only through sandbox_mapped_files */

typedef void (*Step)(Report *r);

static char *in_dir(const char *rel) { return path_join(g_dir, rel); }

/* Forks; the child runs before() unconfined, enters the sandbox, runs probe(). */
static Report run_sandboxed(Step before, Step probe) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        Report r = {0};
        ssize_t len = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
        g_exe[len > 0 ? len : 0] = '\0';
        int n = 0;
        char **mapped = sandbox_mapped_files(&n);
        char *allowed = in_dir("allowed");
        const char *fixed[] = {"/usr/lib", "/lib", "/lib64", "/usr/lib64", allowed, "/nonexistent/gpucourse"};
        size_t nfixed = sizeof fixed / sizeof *fixed;
        const char **read_paths = calloc(nfixed + (size_t)n + 1, sizeof *read_paths);
        if (!read_paths) _exit(3);
        for (size_t i = 0; i < nfixed; i++) read_paths[i] = fixed[i];
        for (int i = 0; i < n; i++) read_paths[nfixed + (size_t)i] = mapped[i];
        const char *write_paths[] = {"/nonexistent/gpucourse-device", NULL};
        SandboxSpec spec = {.read_paths = read_paths,
                            .write_paths = write_paths,
                            .cpu_seconds = 2.5,
                            .file_size_bytes = 1 << 20,
                            .max_open_files = 128};
        if (before) before(&r);
        r.entered = sandbox_enter(&spec, &r.status);
        if (r.entered == 0 && probe) probe(&r);
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 4);
    }
    close(fds[1]);
    Report r;
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = read(fds[0], (char *)&r + got, sizeof r - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(got, sizeof r); /* an exec that worked would never report */
    assert_int_equal(r.entered, 0);
    return r;
}

static void need_landlock(const Report *r, int abi) {
    if (r->status.landlock && r->status.landlock_abi >= abi) return;
    print_message("# no Landlock ABI %d here: %s\n", abi, r->status.note);
    skip();
}

static void need_seccomp(const Report *r) {
    if (r->status.seccomp) return;
    print_message("# no seccomp here: %s\n", r->status.note);
    skip();
}

/* expects ret == -1 with errno err */
#define assert_refused(r, i, e)                \
    do {                                       \
        assert_int_equal((r).ret[i], -1);      \
        assert_int_equal((r).err[i], (e));     \
    } while (0)

static int setup(void **state) {
    (void)state;
    g_dir = tmpdir_new();
    put_file(g_dir, "secret", "not for students\n");
    put_file(g_dir, "allowed/ok.txt", "hello\n");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tmpdir_remove(g_dir);
    g_dir = NULL;
    return 0;
}

/* ---- status ---------------------------------------------------------------- */

static void test_status(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, NULL);
    print_message("# Landlock ABI %d (%s), seccomp %s; note: '%s'\n", r.status.landlock_abi,
                  r.status.landlock ? "on" : "off", r.status.seccomp ? "on" : "off", r.status.note);
    assert_int_equal(r.status.landlock, r.status.landlock_abi > 0);
    /* a single-threaded process on a kernel with everything: nothing to report */
    if (r.status.landlock_abi >= 6 && r.status.seccomp) assert_string_equal(r.status.note, "");
    if (!r.status.landlock || !r.status.seccomp) assert_true(r.status.note[0] != '\0');
}

/* ---- threads --------------------------------------------------------------- */

static Report *g_thread_report;
static long g_thread_open, g_thread_fork;
static int g_thread_open_err, g_thread_fork_err;

static void *thread_main(void *arg) {
    (void)arg;
    char *secret = in_dir("secret");
    g_thread_open = open(secret, O_RDONLY | O_CLOEXEC); /* threads inherit the domain */
    g_thread_open_err = errno;
    free(secret);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    g_thread_fork = pid;
    g_thread_fork_err = errno;
    return (void *)42;
}

static void probe_threads(Report *r) {
    pthread_t t;
    int rc = pthread_create(&t, NULL, thread_main, NULL); /* clone3 is ENOSYS: glibc falls back to clone */
    errno = rc;
    record(r, rc == 0 ? 0 : -1);
    void *value = NULL;
    if (rc == 0) pthread_join(t, &value);
    record(r, (long)(intptr_t)value);
    errno = g_thread_open_err;
    record(r, g_thread_open);
    errno = g_thread_fork_err;
    record(r, g_thread_fork);
}

static void test_threads_start(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_threads);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.ret[0], 0);  /* started */
    assert_int_equal(r.ret[1], 42); /* ran and joined */
    if (r.status.landlock) assert_refused(r, 2, EACCES);
    if (r.status.seccomp) assert_refused(r, 3, EPERM);
}

/* A thread that was running before sandbox_enter (as CUDA's are). */
static int g_go[2];
static pthread_t g_early;

static void *early_main(void *arg) {
    (void)arg;
    char c;
    while (read(g_go[0], &c, 1) < 0 && errno == EINTR) {
    }
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    record(g_thread_report, pid);
    char *secret = in_dir("secret");
    int fd = open(secret, O_RDONLY | O_CLOEXEC);
    record(g_thread_report, fd);
    if (fd >= 0) close(fd);
    /* writing is what must never happen, from any thread */
    record(g_thread_report, fd = open(secret, O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (fd >= 0) close(fd);
    char *planted = in_dir("planted");
    record(g_thread_report, fd = open(planted, O_WRONLY | O_CREAT | O_CLOEXEC, 0700));
    if (fd >= 0) close(fd);
    record(g_thread_report, rename(secret, planted));
    free(planted);
    free(secret);
    return NULL;
}

static void start_early_thread(Report *r) {
    g_thread_report = r;
    if (pipe(g_go) != 0 || pthread_create(&g_early, NULL, early_main, NULL) != 0) _exit(5);
}

static void release_early_thread(Report *r) {
    (void)r;
    if (write(g_go[1], "x", 1) != 1) _exit(6);
    pthread_join(g_early, NULL);
}

static void test_threads_started_before(void **state) {
    (void)state;
    Report r = run_sandboxed(start_early_thread, release_early_thread);
    assert_int_equal(r.n, 5);
    need_seccomp(&r);
    assert_refused(r, 0, EPERM); /* seccomp's TSYNC reaches every thread */
    assert_refused(r, 2, EPERM); /* so no thread writes, creates or renames a file */
    assert_refused(r, 3, EPERM);
    assert_refused(r, 4, EPERM);
    need_landlock(&r, 1);
    if (r.status.landlock_abi >= 8) {
        assert_refused(r, 1, EACCES); /* LANDLOCK_RESTRICT_SELF_TSYNC */
    } else {
        /* before ABI 8 Landlock cannot reach it, and the note says so */
        assert_true(r.ret[1] >= 0);
        assert_non_null(strstr(r.status.note, "restricts only this thread: 1 thread started before"));
    }
}

/* ---- processes ---------------------------------------------------------------- */

static void probe_processes(Report *r) {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    record(r, pid);
    char *const argv[] = {"/bin/true", NULL};
    record(r, execve("/bin/true", argv, environ));
    pid_t child = 0;
    int rc = posix_spawn(&child, "/bin/true", NULL, NULL, argv, environ);
    if (rc == 0) waitpid(child, NULL, 0);
    errno = rc;
    record(r, rc == 0 ? 0 : -1);
#ifdef SYS_clone3
    record(r, syscall(SYS_clone3, NULL, 0));
#else
    errno = ENOSYS;
    record(r, -1);
#endif
}

static void test_no_new_processes(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_processes);
    need_seccomp(&r);
    assert_int_equal(r.n, 4);
    assert_refused(r, 0, EPERM);  /* fork */
    assert_refused(r, 1, EPERM);  /* execve */
    assert_refused(r, 2, EPERM);  /* posix_spawn: clone3, then clone without CLONE_THREAD */
    assert_refused(r, 3, ENOSYS); /* clone3 */
}

static void probe_other_processes(Report *r) {
    record(r, ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
    record(r, prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
    record(r, prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
    record(r, prctl(PR_SET_NAME, "student", 0, 0, 0));
    record(r, setsid());
    record(r, setpgid(0, 0));
    record(r, unshare(CLONE_NEWUSER));
    struct rlimit lim;
    record(r, prlimit(getppid(), RLIMIT_NOFILE, NULL, &lim));
    record(r, getrlimit(RLIMIT_NOFILE, &lim));
    record(r, prlimit(getpid(), RLIMIT_NOFILE, NULL, &lim));
#ifdef SYS_io_uring_setup
    record(r, syscall(SYS_io_uring_setup, 1, NULL));
#else
    errno = EPERM;
    record(r, -1);
#endif
}

static void test_other_processes(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_other_processes);
    need_seccomp(&r);
    assert_int_equal(r.n, 11);
    assert_refused(r, 0, EPERM); /* ptrace the parent */
    assert_refused(r, 1, EPERM); /* PR_SET_DUMPABLE */
    assert_refused(r, 2, EPERM); /* PR_SET_PDEATHSIG */
    assert_int_equal(r.ret[3], 0); /* other prctl options work */
    assert_refused(r, 4, EPERM); /* setsid */
    assert_refused(r, 5, EPERM); /* setpgid */
    assert_refused(r, 6, EPERM); /* unshare */
    assert_refused(r, 7, EPERM); /* the parent's limits */
    assert_int_equal(r.ret[8], 0); /* its own */
    assert_int_equal(r.ret[9], 0);
    assert_refused(r, 10, EPERM); /* io_uring */
}

/* ---- signals ------------------------------------------------------------------ */

static void probe_signals(Report *r) {
    record(r, kill(getppid(), 0));
    record(r, kill(getpid(), 0));
    record(r, kill(0, 0));
    record(r, kill(-1, 0));
    record(r, syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0));
    record(r, sigqueue(getppid(), 0, (union sigval){0}));
}

static void test_signals(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_signals);
    assert_int_equal(r.n, 6);
    if (!r.status.seccomp && r.status.landlock_abi < 6) {
        print_message("# neither seccomp nor Landlock signal scoping here: %s\n", r.status.note);
        skip();
    }
    assert_refused(r, 0, EPERM);   /* the parent */
    assert_int_equal(r.ret[1], 0); /* itself */
    assert_int_equal(r.ret[4], 0); /* its own threads */
    need_seccomp(&r);
    assert_refused(r, 2, EPERM); /* its process group */
    assert_refused(r, 3, EPERM); /* everybody */
    assert_refused(r, 5, EPERM);
}

/* ---- files and network ------------------------------------------------------------ */

static void probe_files(Report *r) {
    char *secret = in_dir("secret"), *ok = in_dir("allowed/ok.txt"), *created = in_dir("new.txt");
    char *sub = in_dir("sub");
    int fd;
    record(r, fd = open(secret, O_RDONLY | O_CLOEXEC));
    record(r, fd = open(ok, O_RDONLY | O_CLOEXEC));
    char buf[16] = "";
    record(r, fd >= 0 ? read(fd, buf, sizeof buf) : -1);
    if (fd >= 0) close(fd);
    record(r, fd = open(created, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    record(r, fd = open(ok, O_WRONLY | O_CLOEXEC));
    record(r, fd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    record(r, mkdir(sub, 0700));
    record(r, unlink(secret));
    record(r, truncate(secret, 0));
    record(r, fd = open(g_exe, O_RDONLY | O_CLOEXEC)); /* mapped, so allowed */
    if (fd >= 0) close(fd);
    record(r, fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC));
    if (fd >= 0) close(fd);
    record(r, fd = open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (fd >= 0) close(fd);
    record(r, fd = open("/usr/lib", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd >= 0) close(fd);
}

/* Refused by Landlock (EACCES) or, for writes, first by seccomp (EPERM). */
#define assert_refused_either(r, i)                                               \
    do {                                                                          \
        assert_int_equal((r).ret[i], -1);                                         \
        assert_true((r).err[i] == EACCES || ((r).status.seccomp && (r).err[i] == EPERM)); \
    } while (0)

static void test_files(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_files);
    need_landlock(&r, 1);
    assert_int_equal(r.n, 13);
    assert_refused(r, 0, EACCES);    /* a file outside read_paths */
    assert_true(r.ret[1] >= 0);      /* one inside */
    assert_int_equal(r.ret[2], 6);   /* "hello\n" */
    assert_refused_either(r, 3);     /* creating a file */
    assert_refused_either(r, 4);     /* writing a readable one */
    assert_refused(r, 5, EACCES);    /* listing a directory outside */
    assert_refused_either(r, 6);     /* mkdir */
    assert_refused_either(r, 7);     /* unlink */
    if (r.status.landlock_abi >= 3 || r.status.seccomp) assert_refused_either(r, 8); /* truncate */
    assert_true(r.ret[9] >= 0);      /* a file from sandbox_mapped_files */
    assert_true(r.ret[10] >= 0);     /* /proc */
    if (r.status.seccomp) assert_refused(r, 11, EPERM); /* /dev/null for writing: no file is opened to write */
    else assert_true(r.ret[11] >= 0);
    assert_true(r.ret[12] >= 0);     /* a directory in read_paths */
    char *secret = in_dir("secret");
    assert_true(file_exists(secret));
    free(secret);
}

static void probe_tcp(Report *r) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    record(r, s);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    record(r, connect(s, (struct sockaddr *)&a, sizeof a));
    close(s);
    s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    a.sin_port = htons(47321);
    record(r, bind(s, (struct sockaddr *)&a, sizeof a));
    close(s);
}

static void test_tcp(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_tcp);
    need_landlock(&r, 4);
    assert_int_equal(r.n, 3);
    assert_true(r.ret[0] >= 0);
    assert_refused(r, 1, EACCES);
    assert_refused(r, 2, EACCES);
}

/* ---- limits --------------------------------------------------------------------- */

static void probe_limits(Report *r) {
    static const int which[] = {RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_CORE, RLIMIT_NOFILE};
    for (size_t i = 0; i < sizeof which / sizeof *which; i++) {
        struct rlimit l;
        if (getrlimit(which[i], &l) != 0) l.rlim_cur = l.rlim_max = (rlim_t)-2;
        record(r, (long)l.rlim_cur);
        record(r, (long)l.rlim_max);
    }
}

static void test_limits(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_limits);
    assert_int_equal(r.n, 8);
    assert_int_equal(r.ret[0], 3); /* 2.5 s, rounded up, soft = hard */
    assert_int_equal(r.ret[1], 3);
    assert_int_equal(r.ret[2], 1 << 20);
    assert_int_equal(r.ret[3], 1 << 20);
    assert_int_equal(r.ret[4], 0); /* no core files */
    assert_int_equal(r.ret[5], 0);
    assert_int_equal(r.ret[6], 128);
    assert_int_equal(r.ret[7], 128);
}

/* ---- mapped files ------------------------------------------------------------------ */

static void test_mapped_files(void **state) {
    (void)state;
    int n = -1;
    char **files = sandbox_mapped_files(&n);
    assert_non_null(files);
    assert_true(n > 0);
    assert_null(files[n]);
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(len > 0);
    exe[len] = '\0';
    bool has_exe = false, has_libc = false;
    for (int i = 0; i < n; i++) {
        assert_true(files[i][0] == '/');
        has_exe |= strcmp(files[i], exe) == 0;
        has_libc |= strstr(files[i], "/libc.so") != NULL || strstr(files[i], "/libc-") != NULL;
        for (int j = 0; j < i; j++) assert_string_not_equal(files[i], files[j]);
    }
    assert_true(has_exe);
    assert_true(has_libc);
    free(files);
}


/* ---- code from memory, file metadata -------------------------------------------- */

static void probe_memory_and_metadata(Report *r) {
    void *wx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    record(r, wx == MAP_FAILED ? -1 : 0);
    void *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    record(r, rw == MAP_FAILED ? -1 : 0);
    record(r, rw == MAP_FAILED ? -1 : mprotect(rw, 4096, PROT_READ | PROT_EXEC)); /* copied code made runnable */
    record(r, rw == MAP_FAILED ? -1 : mprotect(rw, 4096, PROT_READ));           /* RELRO-style: fine */
    char *ok = in_dir("allowed/ok.txt");
    record(r, chmod(ok, 0));
    record(r, utimensat(AT_FDCWD, ok, NULL, 0));
    free(ok);
}

static void test_memory_and_metadata(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_memory_and_metadata);
    need_seccomp(&r);
    assert_int_equal(r.n, 6);
    assert_refused(r, 0, EPERM);   /* writable and executable at once */
    assert_int_equal(r.ret[1], 0); /* plain memory */
    assert_refused(r, 2, EPERM);   /* made executable later */
    assert_int_equal(r.ret[3], 0);
    assert_refused(r, 4, EPERM);   /* chmod */
    assert_refused(r, 5, EPERM);   /* times */
}

/* Files first, before any thread exists, as the runner does before CUDA
 * starts its threads: then threads started later are bound as well. */
static void test_restrict_files_before_threads(void **state) {
    (void)state;
    char *hidden = in_dir("hidden"), *secret = in_dir("hidden/reference.so");
    put_file(g_dir, "hidden/reference.so", "not for students\n");
    char **beside = sandbox_paths_beside(hidden);
    assert_non_null(beside);
    bool sees_hidden = false, sees_usr = false;
    for (char **p = beside; *p; p++) {
        sees_hidden |= strncmp(*p, hidden, strlen(hidden)) == 0;
        sees_usr |= strcmp(*p, "/usr") == 0;
    }
    assert_false(sees_hidden);
    assert_true(sees_usr);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        SandboxSpec spec = {.read_paths = (const char *const *)beside};
        SandboxStatus st;
        if (sandbox_restrict_files(&spec, &st) != 0) _exit(10);
        if (!st.landlock) _exit(77);
        int fd = open("/usr/lib", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* everything else stays readable */
        if (fd < 0) _exit(11);
        close(fd);
        if (open(secret, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES) _exit(12);
        if (sandbox_enter(&spec, &st) != 0 || !st.landlock) _exit(13);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    sandbox_free_paths(beside);
    free(hidden);
    free(secret);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) skip();
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status),          cmocka_unit_test(test_threads_start),
        cmocka_unit_test(test_threads_started_before),
        cmocka_unit_test(test_no_new_processes), cmocka_unit_test(test_other_processes),
        cmocka_unit_test(test_signals),         cmocka_unit_test(test_files),
        cmocka_unit_test(test_tcp),             cmocka_unit_test(test_limits),
        cmocka_unit_test(test_mapped_files),    cmocka_unit_test(test_memory_and_metadata),
        cmocka_unit_test(test_restrict_files_before_threads),
    };
    return cmocka_run_group_tests_name("sandbox", tests, setup, teardown);
}
