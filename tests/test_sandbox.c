/* The runner's sandbox (harness/sandbox.c): each test forks a child that
 * enters it, tries things and reports what happened over a pipe. What this
 * kernel lacks (Landlock, seccomp) is skipped with the reason. */
#include "test_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <termios.h>
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
static const char *g_extra_write; /* one more path to write beneath (the runner's /proc/self/task), or NULL */
static bool g_files_first;        /* Landlock entered alone first, as the student's runner does */
static const void *g_guarded;     /* SandboxSpec.guarded: a page made read-only before the sandbox, or NULL */
static bool g_no_new_threads;     /* SandboxSpec.no_new_threads: the counting runner */

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
        const char *write_paths[] = {"/nonexistent/gpucourse-device", g_extra_write, NULL};
        SandboxSpec spec = {.read_paths = read_paths,
                            .write_paths = write_paths,
                            .cpu_seconds = 2.5,
                            .file_size_bytes = 1 << 20,
                            .max_open_files = 128,
                            .max_threads = 64,
                            .guarded = g_guarded,
                            .guarded_bytes = g_guarded ? 4096 : 0,
                            .no_new_threads = g_no_new_threads};
        if (g_files_first && sandbox_restrict_files(&spec, &r.status) != 0) _exit(5);
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
    /* a single-threaded process on a kernel with everything: nothing to report
     * but, for root, that the kernel does not bound its threads */
    if (r.status.landlock_abi >= 6 && r.status.seccomp)
        assert_string_equal(r.status.note, getuid() == 0 ? "threads not bounded (the kernel exempts root from RLIMIT_NPROC)" : "");
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

/* A descriptor's signal owner: the kernel signals the owner when I/O is ready on it, with the
 * setter's right to signal, so naming the judge or the reference's runner as the owner of the
 * runner's own socket would stop them (F_SETSIG SIGSTOP) with a byte written to it. Only
 * itself (or 0, no owner) may be named, by any of the four ways to name one. */
static void probe_signal_owner(Report *r) {
    int sv[2] = {-1, -1};
    record(r, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
    record(r, fcntl(sv[0], F_SETOWN, getppid()));
    record(r, fcntl(sv[0], F_SETOWN, -getpgrp())); /* a process group */
    struct f_owner_ex owner = {F_OWNER_PID, getppid()};
    record(r, fcntl(sv[0], F_SETOWN_EX, &owner));
    int other = getppid();
    record(r, ioctl(sv[0], FIOSETOWN, &other));
    record(r, ioctl(sv[0], SIOCSPGRP, &other));
    record(r, fcntl(sv[0], F_SETOWN, getpid()));
    record(r, fcntl(sv[0], F_SETOWN, 0));
    record(r, fcntl(sv[0], F_SETSIG, SIGUSR1));
    record(r, fcntl(sv[0], F_GETOWN) == 0 ? 0 : -1);
    record(r, fcntl(sv[0], F_GETFL) >= 0 ? 0 : -1);
}

static void test_signal_owner(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_signal_owner);
    need_seccomp(&r);
    assert_int_equal(r.n, 11);
    assert_int_equal(r.ret[0], 0);
    assert_refused(r, 1, EPERM); /* F_SETOWN: the parent */
    assert_refused(r, 2, EPERM); /* F_SETOWN: its process group */
    assert_refused(r, 3, EPERM); /* F_SETOWN_EX */
    assert_refused(r, 4, EPERM); /* FIOSETOWN */
    assert_refused(r, 5, EPERM); /* SIOCSPGRP */
    for (int i = 6; i < 11; i++) assert_int_equal(r.ret[i], 0); /* itself, none, F_SETSIG, reads */
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

static void probe_network(Report *r) {
    static const int kinds[][3] = {
        {AF_INET, SOCK_STREAM, 0},         {AF_INET, SOCK_STREAM, 262 /* IPPROTO_MPTCP */},
        {AF_INET, SOCK_DGRAM, 0},          {AF_INET6, SOCK_DGRAM, 0},
        {AF_UNIX, SOCK_STREAM, 0},         {AF_UNIX, SOCK_DGRAM, 0},
        {AF_NETLINK, SOCK_RAW, 0},         {AF_PACKET, SOCK_RAW, 0},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        int s = socket(kinds[i][0], kinds[i][1] | SOCK_CLOEXEC, kinds[i][2]);
        record(r, s);
        if (s >= 0) close(s);
    }
    int pair[2];
    record(r, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair)); /* between this process's own threads */
    if (r->ret[r->n - 1] == 0) close(pair[0]), close(pair[1]);
    record(r, socketpair(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, pair));
}

/* No socket at all (issue 44's item 2): TCP, Fast Open and MPTCP (all need a
 * TCP socket first), UDP, Unix sockets of other programs (ssh-agent, D-Bus),
 * netlink, raw; a pair between its own threads stays. */
static void test_network(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_network);
    need_seccomp(&r);
    assert_int_equal(r.n, 10);
    for (int i = 0; i < 8; i++) assert_refused(r, i, EPERM);
    assert_int_equal(r.ret[8], 0);
    assert_refused(r, 9, EPERM);
}

/* ---- the terminal, IPC, shared memory, capabilities, threads, /proc ----------------- */

static int g_tty = -1; /* the child's controlling terminal (a pseudo-terminal's slave) */

/* Before the sandbox: a session of its own whose controlling terminal is a
 * new pseudo-terminal, as a runner started from a shell would have. */
static void take_a_terminal(Report *r) {
    (void)r;
    g_tty = take_a_terminal_as_ours();
}

static void probe_terminal(Report *r) {
    char c = 'x';
    int one = 1;
    record(r, g_tty);
    record(r, open("/dev/tty", O_RDONLY | O_CLOEXEC));
    record(r, ioctl(g_tty, TIOCSTI, &c));
    struct termios mode;
    record(r, ioctl(g_tty, TCGETS, &mode));
    record(r, ioctl(g_tty, FIONBIO, &one)); /* not a terminal request: still allowed */
}

/* Nothing typed into the grading user's shell (issue 44's item 1). */
static void test_terminal(void **state) {
    (void)state;
    Report r = run_sandboxed(take_a_terminal, probe_terminal);
    need_seccomp(&r);
    assert_int_equal(r.n, 5);
    assert_true(r.ret[0] >= 0);     /* the terminal was there to type into */
    assert_int_equal(r.ret[1], -1); /* /dev/tty: not in read_paths (EACCES) */
    assert_refused(r, 2, ENOTTY);   /* TIOCSTI */
    assert_refused(r, 3, ENOTTY);
    assert_int_equal(r.ret[4], 0);
}

static void probe_ipc_and_memory(Report *r) {
    record(r, shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600));
    record(r, msgget(IPC_PRIVATE, IPC_CREAT | 0600));
    record(r, semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
    record(r, syscall(SYS_memfd_create, "code", 0));
    void *shared = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    record(r, shared == MAP_FAILED ? -1 : 0);
    void *priv = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    record(r, priv == MAP_FAILED ? -1 : 0);
    record(r, open("/dev/zero", O_RDONLY | O_CLOEXEC)); /* its shared mappings are shared memory too */
    record(r, personality(0x0400000 /* READ_IMPLIES_EXEC */));
    record(r, personality(0xffffffff)); /* a query */
    record(r, open("/tmp", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600));
    /* shared anonymous memory placed with MAP_FIXED: where the CUDA driver
     * puts CUPTI's buffer (inside 8-12 GiB) it is allowed, elsewhere not */
    int shared_rw = PROT_READ | PROT_WRITE, fixed = MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED;
    void *in_window = mmap((void *)0x206000000UL, 2 << 20, shared_rw, fixed, -1, 0);
    record(r, in_window == MAP_FAILED ? -1 : 0);
    void *outside = mmap((void *)0x380000000UL, 2 << 20, shared_rw, fixed, -1, 0);
    record(r, outside == MAP_FAILED ? -1 : 0);
    void *too_long = mmap((void *)0x206000000UL, 5UL << 30, shared_rw, fixed, -1, 0); /* would reach past 8-12 GiB */
    record(r, too_long == MAP_FAILED ? -1 : 0);
    /* a POSIX message queue: a name any later process of the user opens again (a first run's
     * bits for the determinism re-run, one student's results for another's runner) */
    int queue = (int)syscall(SYS_mq_open, "gpucourse-sandbox-probe", O_CREAT | O_RDWR | O_CLOEXEC, 0600, NULL);
    record(r, queue);
    if (queue >= 0) syscall(SYS_mq_unlink, "gpucourse-sandbox-probe");
    record(r, (int)syscall(SYS_mq_unlink, "gpucourse-sandbox-probe-absent"));
}

/* No System V IPC or POSIX message queues, which outlive the process; no
 * memory that RLIMIT_DATA does not count; no code from a file without a path
 * (items 3 and 6). */
static void test_ipc_and_memory(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_ipc_and_memory);
    need_seccomp(&r);
    assert_int_equal(r.n, 15);
    for (int i = 0; i < 5; i++) assert_refused(r, i, EPERM);
    assert_int_equal(r.ret[5], 0);
    assert_int_equal(r.ret[6], -1);
    assert_refused(r, 7, EPERM);
    assert_true(r.ret[8] >= 0);
    assert_int_equal(r.ret[9], -1);
    assert_int_equal(r.ret[10], 0);
    assert_refused(r, 11, EPERM);
    assert_refused(r, 12, EPERM);
    assert_refused(r, 13, EPERM); /* mq_open */
    assert_refused(r, 14, EPERM); /* mq_unlink: EPERM, not the ENOENT of a name looked up */
}

static void probe_capabilities(Report *r) {
    struct {
        uint32_t version;
        int pid;
    } head = {0x20080522, 0};
    uint32_t data[6] = {1, 1, 1, 1, 1, 1};
    long rc = syscall(SYS_capget, &head, data);
    record(r, rc);
    record(r, (long)(data[0] | data[3])); /* effective */
    record(r, (long)(data[1] | data[4])); /* permitted */
}

/* Whoever starts the runner, root included, it keeps no capability. */
static void test_capabilities(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_capabilities);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.ret[0], 0);
    assert_int_equal(r.ret[1], 0);
    assert_int_equal(r.ret[2], 0);
}

static int g_release[2] = {-1, -1};

static void *parked(void *arg) {
    (void)arg;
    char c;
    ssize_t ignored = read(g_release[0], &c, 1);
    (void)ignored;
    return NULL;
}

/* Root is exempt from RLIMIT_NPROC: the child becomes a second user first. */
static void become_another_user(Report *r) {
    (void)r;
    if (getuid() != 0) return;
    if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) _exit(5); /* nobody */
}

static void probe_threads_bounded(Report *r) {
    if (pipe(g_release) != 0) return;
    pthread_t t[400];
    int started = 0;
    while (started < 400 && pthread_create(&t[started], NULL, parked, NULL) == 0) started++;
    record(r, started);
    close(g_release[1]);
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
}

/* At most max_threads (64) more tasks than the user had (item 6). */
static void test_threads_bounded(void **state) {
    (void)state;
    Report r = run_sandboxed(become_another_user, probe_threads_bounded);
    assert_int_equal(r.n, 1);
    print_message("# %ld threads started of 400\n", r.ret[0]);
    assert_true(r.ret[0] >= 1);
    assert_true(r.ret[0] <= 64);
}

static void probe_proc(Report *r) {
    char path[64];
    record(r, open("/proc/self/status", O_RDONLY | O_CLOEXEC));
    record(r, open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC));
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    record(r, open(path, O_RDONLY | O_CLOEXEC));
    record(r, open("/proc/1/cmdline", O_RDONLY | O_CLOEXEC));
    record(r, open("/proc/sys/kernel/hostname", O_RDONLY | O_CLOEXEC));
}

/* Its own /proc directory, never another process's (item 3). */
static void test_proc(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_proc);
    need_landlock(&r, 1);
    assert_int_equal(r.n, 5);
    assert_true(r.ret[0] >= 0);
    assert_true(r.ret[1] >= 0);
    assert_refused(r, 2, EACCES);
    assert_refused(r, 3, EACCES);
    assert_refused(r, 4, EACCES);
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

/* ---- the process's own memory through /proc/self/task/TID/mem ----------------- */

/* A page of this program's read-only data, which a write through `mem` could
 * change all the same (FOLL_FORCE), as it could the runner's CUPTI table. */
static const char kept[4096] __attribute__((aligned(4096))) = "the counters' table";

static void probe_own_memory(Report *r) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/mem", (long)syscall(SYS_gettid));
    int mem = open(path, O_RDWR);
    record(r, mem < 0 ? -1 : 0);                                        /* Landlock lets it open */
    off_t at = (off_t)(uintptr_t)kept;
    record(r, pwrite(mem, "forged", 6, at));                            /* at the table's address */
    record(r, lseek(mem, at, SEEK_SET));                                /* there at once */
    long stepped = 0;
    for (int i = 0; i < 64 && stepped >= 0; i++) stepped = lseek(mem, 0xffffffffL, SEEK_CUR); /* or in steps */
    record(r, stepped);
    record(r, lseek(mem, -1, SEEK_CUR));                                /* or back from there */
    struct iovec v = {(void *)"forged", 6};
    record(r, pwritev(mem, &v, 1, at));
    record(r, splice(-1, NULL, mem, NULL, 6, 0));                       /* offsets in memory */
    record(r, copy_file_range(-1, NULL, mem, NULL, 6, 0));
    record(r, memcmp(kept, "the counters' table", 20) == 0 ? 0 : -1);  /* untouched */
    /* what stays: a thread's name (the driver's need), seeks below 4 GiB and queries */
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
    int comm = open(path, O_WRONLY);
    record(r, comm < 0 ? -1 : write(comm, "runner", 6));
    int null = open("/dev/null", O_RDWR);
    record(r, lseek(null, 4096, SEEK_SET) < 0 ? -1 : 0);
    record(r, lseek(null, 0, SEEK_CUR) < 0 ? -1 : 0);
    record(r, lseek(null, 0, SEEK_END) < 0 ? -1 : 0);
    record(r, pwrite(null, "x", 1, 4096));
    record(r, (uintptr_t)kept >= ((uintptr_t)1 << 32) ? 0 : -1);       /* the case the filter covers */
}

static void test_own_memory(void **state) {
    (void)state;
    g_extra_write = "/proc/self/task"; /* as the student's runner has it */
    g_files_first = true;
    Report r = run_sandboxed(NULL, probe_own_memory);
    g_extra_write = NULL;
    g_files_first = false;
    need_seccomp(&r);
    need_landlock(&r, 1);
    assert_int_equal(r.n, 15);
    if (r.ret[14] != 0) {
        print_message("# this test program lies below 4 GiB (not position-independent)\n");
        skip();
    }
    assert_int_equal(r.ret[0], 0);
    for (int i = 1; i <= 7; i++) assert_refused(r, i, EPERM);
    assert_int_equal(r.ret[8], 0);
    assert_int_equal(r.ret[9], 6);
    for (int i = 10; i <= 12; i++) assert_int_equal(r.ret[i], 0);
    assert_int_equal(r.ret[13], 1);
}

/* ---- no thread beside the counting runner's decode -------------------------------- */

static void *idle_thread(void *arg) { return arg; }

static void probe_no_new_threads(Report *r) {
    pthread_t t;
    int err = pthread_create(&t, NULL, idle_thread, NULL);
    if (err == 0) pthread_join(t, NULL);
    errno = err;
    record(r, err == 0 ? 0 : -1);
    if (g_no_new_threads) /* by hand (only where it is refused: a thread on this stack would not end well) */
        record(r, syscall(SYS_clone, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, NULL));
}

static void test_no_new_threads(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_no_new_threads);  /* threads as any runner: allowed */
    need_seccomp(&r);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ret[0], 0);
    g_no_new_threads = true;
    r = run_sandboxed(NULL, probe_no_new_threads);
    g_no_new_threads = false;
    assert_int_equal(r.n, 2);
    assert_refused(r, 0, EPERM);
    assert_refused(r, 1, EPERM);
}

/* ---- where and how processes run ----------------------------------------------- */

/* The student's library moving, renicing or rescheduling the reference's
 * runner or the judge (the parent here), or itself: refused. Reading its
 * own placement stays allowed. */
static void probe_scheduling(Report *r) {
    pid_t judge = getppid();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    record(r, setpriority(PRIO_PROCESS, (id_t)judge, 19));
    record(r, sched_setaffinity(judge, sizeof one, &one));
    struct sched_param idle = {0};
    record(r, sched_setscheduler(judge, SCHED_IDLE, &idle));
    record(r, sched_setparam(judge, &idle));
    record(r, setpriority(PRIO_PROCESS, 0, 5));         /* itself */
    record(r, sched_setaffinity(0, sizeof one, &one));  /* itself, onto another core */
    unsigned long node = 1;
    record(r, (int)syscall(SYS_migrate_pages, judge, 8 * sizeof node, &node, &node));
    cpu_set_t mine;
    record(r, sched_getaffinity(0, sizeof mine, &mine));
}

static void test_scheduling(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_scheduling);
    need_seccomp(&r);
    assert_int_equal(r.n, 8);
    for (int i = 0; i < 7; i++) assert_refused(r, i, EPERM);
    assert_int_equal(r.ret[7], 0);
}

/* ---- everything not allowed ---------------------------------------------------- */

/* Calls the filter neither allows nor has a rule for answer ENOSYS, as a
 * kernel without them would: here ones a plain process may make (each
 * succeeds, or fails another way, without the filter), a server socket on a
 * socketpair, and a number no kernel has yet. The calls a program makes all
 * the time still work. */
static void probe_left_out(Report *r) {
    record(r, syscall(SYS_setuid, getuid()));                 /* succeeds for anyone: the uid it has */
    record(r, syscall(SYS_sync));                             /* writes back every file system */
    int fds[2];
    record(r, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds));
    struct sockaddr_un abstract = {.sun_family = AF_UNIX};
    memcpy(abstract.sun_path, "\0gpucourse-left-out", 20);
    record(r, bind(fds[0], (struct sockaddr *)&abstract, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 20)));
    record(r, syscall(SYS_sendfile, fds[0], 0, NULL, 1));
    unsigned long ctx = 0;
    record(r, syscall(SYS_io_setup, 1, &ctx));
    record(r, syscall(499, 0, 0, 0));                         /* not a syscall of Linux 6.18 */
    char buf[1];
    record(r, read(fds[1], buf, 0));                          /* still there: read, getpid, clock_gettime */
    record(r, getpid() > 0 ? 0 : -1);
    struct timespec t;
    record(r, clock_gettime(CLOCK_MONOTONIC, &t));
}

static void test_left_out(void **state) {
    (void)state;
    Report r = run_sandboxed(NULL, probe_left_out);
    need_seccomp(&r);
    assert_int_equal(r.n, 10);
    assert_refused(r, 0, ENOSYS);
    assert_refused(r, 1, ENOSYS);
    assert_int_equal(r.ret[2], 0);
    for (int i = 3; i < 7; i++) assert_refused(r, i, ENOSYS);
    for (int i = 7; i < 10; i++) assert_int_equal(r.ret[i], 0);
}

/* ---- a range kept read-only (the runner's CUPTI table) ------------------------- */

/* Three pages: the middle one guarded, its neighbours free to change. */
static char g_pages[3 * 4096] __attribute__((aligned(4096)));

static void make_table_read_only(Report *r) {
    (void)r;
    memcpy(g_pages + 4096, "the counters' table", 20);
    mprotect(g_pages + 4096, 4096, PROT_READ);
}

static void probe_guarded(Report *r) {
    char *page = g_pages + 4096;
    record(r, mprotect(page, 4096, PROT_READ | PROT_WRITE));                 /* the page back */
    record(r, mprotect(page - 4096, 3 * 4096, PROT_READ | PROT_WRITE));      /* a range around it */
    record(r, mprotect((void *)4096, ((size_t)1 << 47) - 8192, PROT_READ | PROT_WRITE)); /* all of it */
    uintptr_t below = ((uintptr_t)page & ~(uintptr_t)0xffffffff) - 4096;      /* its low half wraps on the way */
    record(r, mprotect((void *)below, (uintptr_t)page + 4096 - below, PROT_READ | PROT_WRITE));
    record(r, munmap(page, 4096));                                            /* unmapped, to map anew */
    void *fixed = mmap(page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    record(r, fixed == MAP_FAILED ? -1 : 0);                                   /* mapped over */
    void *other = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *moved = mremap(other, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, page);
    record(r, moved == MAP_FAILED ? -1 : 0);                                   /* another mapping moved there */
    moved = mremap(page, 4096, 8192, MREMAP_MAYMOVE);
    record(r, moved == MAP_FAILED ? -1 : 0);                                   /* moved away */
    /* what stays allowed: its neighbours, memory of its own */
    record(r, mprotect(page - 4096, 4096, PROT_READ));                        /* ends where it begins */
    record(r, mprotect(page + 4096, 4096, PROT_READ));
    record(r, mprotect(other, 4096, PROT_READ));
    record(r, munmap(other, 4096));
    record(r, memcmp((const char *)(volatile char *)page, "the counters' table", 20) == 0 ? 0 : -1);
}

static void test_guarded(void **state) {
    (void)state;
    g_guarded = g_pages + 4096;
    Report r = run_sandboxed(make_table_read_only, probe_guarded);
    g_guarded = NULL;
    need_seccomp(&r);
    assert_int_equal(r.n, 13);
    for (int i = 0; i <= 7; i++) assert_refused(r, i, EPERM);
    for (int i = 8; i <= 12; i++) assert_int_equal(r.ret[i], 0);
}

/* Files first, before any thread exists, as the runner does before CUDA
 * starts its threads: then threads started later are bound as well, and
 * the filter leaves opens for writing to Landlock: the runner's device file
 * opens for writing (the driver does so again when a counted call enables
 * the profiler), nothing else does. */
static void test_restrict_files_before_threads(void **state) {
    (void)state;
    char *secret = in_dir("hidden/reference.so");
    put_file(g_dir, "hidden/reference.so", "not for students\n");
    put_file(g_dir, "device", "");
    char *device = in_dir("device");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *reads[] = {"/usr/lib", "/lib", "/lib64", NULL};
        const char *writes[] = {device, NULL};
        SandboxSpec spec = {.read_paths = reads, .write_paths = writes};
        SandboxStatus st;
        if (sandbox_restrict_files(&spec, &st) != 0) _exit(10);
        if (!st.landlock) _exit(77);
        int fd = open("/usr/lib", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* what the list allows */
        if (fd < 0) _exit(11);
        close(fd);
        if (open(secret, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES) _exit(12);
        if (open("/etc/passwd", O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES) _exit(14); /* and nothing else */
        if (sandbox_enter(&spec, &st) != 0 || !st.landlock) _exit(13);
        fd = open(device, O_RDWR | O_CLOEXEC);
        if (fd < 0) _exit(15);
        close(fd);
        if (open(secret, O_WRONLY | O_CLOEXEC) >= 0) _exit(16);
        if (open(secret, O_RDWR | O_TRUNC | O_CLOEXEC) >= 0) _exit(17);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    free(secret);
    free(device);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) skip();
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The runtime's libraries by name: never a vendor library; the loader's
 * directories, as real paths. */
static void test_runtime_libraries(void **state) {
    (void)state;
    assert_true(sandbox_runtime_library("libcudart.so.13"));
    assert_true(sandbox_runtime_library("libcuda.so.1"));
    assert_true(sandbox_runtime_library("libnvidia-ptxjitcompiler.so.1"));
    assert_true(sandbox_runtime_library("libc.so.6"));
    assert_false(sandbox_runtime_library("libcublas.so.13"));
    assert_false(sandbox_runtime_library("libcublasLt.so.13"));
    assert_false(sandbox_runtime_library("libcudnn.so.9"));
    assert_false(sandbox_runtime_library("libcudart_static.a"));
    assert_false(sandbox_runtime_library("reference-ex01.so"));
    char **dirs = sandbox_library_dirs();
    assert_non_null(dirs);
    for (char **d = dirs; *d; d++) assert_true((*d)[0] == '/');
    sandbox_free_paths(dirs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status),          cmocka_unit_test(test_threads_start),
        cmocka_unit_test(test_threads_started_before),
        cmocka_unit_test(test_no_new_processes), cmocka_unit_test(test_other_processes),
        cmocka_unit_test(test_signals),         cmocka_unit_test(test_signal_owner),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_network),         cmocka_unit_test(test_limits),
        cmocka_unit_test(test_terminal),        cmocka_unit_test(test_ipc_and_memory),
        cmocka_unit_test(test_capabilities),    cmocka_unit_test(test_threads_bounded),
        cmocka_unit_test(test_proc),            cmocka_unit_test(test_runtime_libraries),
        cmocka_unit_test(test_mapped_files),    cmocka_unit_test(test_memory_and_metadata),
        cmocka_unit_test(test_restrict_files_before_threads), cmocka_unit_test(test_own_memory),
        cmocka_unit_test(test_guarded),         cmocka_unit_test(test_no_new_threads),
        cmocka_unit_test(test_scheduling),     cmocka_unit_test(test_left_out),
    };
    return cmocka_run_group_tests_name("sandbox", tests, setup, teardown);
}
