/* A hostile student library for tests/runner_box.sh: loaded by the real
 * student runner (runner-vector_add, inside its sandbox), its constructor
 * tries every escape of issue 44's items 1, 2, 3, 5 and 6, as a student who
 * wants a pass without the work or the instructor's keys would, and prints
 * one line per probe on stdout (the judge's captured output):
 *
 *   trying NAME                           before it (the last one, if the
 *                                         process is killed: which did it)
 *   probe NAME: blocked (what happened)   the sandbox (or the kernel) refused
 *   probe NAME: OPEN (what it got)        the escape worked
 *
 * framed by `probe ready: pid P uid U` and `probe done`. A probe is OPEN
 * only when the attack worked (data sent, a file read, code loaded or run,
 * an object left behind), never on a guess; the test also checks the other
 * end (listeners, the terminal's input, ipcs) where there is one.
 * HOSTILE_SKIP=NAME,... leaves probes out (the test reruns without the one
 * that ended the process).
 *
 * Plain C, built by the test with gcc -shared -fPIC and the places it
 * attacks as -D constants (a student can guess paths and ports: these are
 * the test's). Its solve has vector_add's signature so that the runner
 * accepts it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#ifndef THREADS
#define THREADS 3000
#endif
#ifndef SHARED_MIB
#define SHARED_MIB 768
#endif

/* The decoy library's bytes (tests/standin/decoy.c), to load from memory. */
__asm__(".pushsection .rodata\n"
        ".balign 16\n"
        ".globl hostile_decoy_start\n.hidden hostile_decoy_start\n"
        ".globl hostile_decoy_end\n.hidden hostile_decoy_end\n"
        "hostile_decoy_start:\n"
        ".incbin \"" DECOY_SO "\"\n"
        "hostile_decoy_end:\n"
        ".popsection\n");
extern const unsigned char hostile_decoy_start[], hostile_decoy_end[];

void solve(const float *a, const float *b, float *c, int n) {
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}

// ------------------------------------------------------------ reporting

/* One line on stdout with a single write: nothing buffered is lost if the
 * sandbox kills the process at the next probe. */
static void say(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    for (int i = 0; i < n; i++)
        if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
    line[n] = '\n';
    ssize_t w = write(1, line, (size_t)n + 1);
    (void)w;
}

static const char *current;
#define BLOCKED(...) report("blocked", __VA_ARGS__)
#define OPEN(...) report("OPEN", __VA_ARGS__)
static void report(const char *verdict, const char *fmt, ...) {
    char detail[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    say("probe %s: %s (%s)", current, verdict, detail);
}

/* The first line of a file (at most 80 bytes), or NULL with errno. */
static char *first_line(const char *path, char *buf, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    ssize_t n = read(fd, buf, size - 1 < 80 ? size - 1 : 80);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return NULL;
    }
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    for (char *p = buf; *p; p++)
        if (*p < 32 || *p > 126) *p = '.';
    return buf;
}

// ------------------------------------------------------------ item 1: the terminal

/* The runner's controlling terminal (the grader's): a character pushed into
 * its input is typed at the grader's shell once the runner ends. '#' is
 * harmless there. */
static void tty_dev(void) {
    int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return BLOCKED("open /dev/tty: %s", strerror(errno));
    char c = '#';
    int rc = ioctl(fd, TIOCSTI, &c);
    int e = errno;
    close(fd);
    if (rc == 0) return OPEN("/dev/tty opened, TIOCSTI pushed '#' into the terminal's input");
    BLOCKED("/dev/tty opened, but TIOCSTI: %s", strerror(e));
}

static void tty_fds(void) {
    char what[300] = "";
    int pushed = -1;
    for (int fd = 0; fd <= 2; fd++) {
        char c = '#';
        int rc = ioctl(fd, TIOCSTI, &c);
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, "%sfd %d: %s", fd ? ", " : "", fd, rc == 0 ? "pushed '#'" : strerror(errno));
        if (rc == 0 && pushed < 0) pushed = fd;
    }
    if (pushed >= 0) return OPEN("TIOCSTI: %s", what);
    BLOCKED("TIOCSTI: %s", what);
}

// ------------------------------------------------------------ item 2: the network

static struct sockaddr_in v4(int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* socket, connect, send a line that names the probe; the listener logs it */
static void stream_connect(int family, int protocol, const struct sockaddr *addr, socklen_t len, const char *to) {
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, protocol);
    if (fd < 0) return BLOCKED("socket: %s", strerror(errno));
    if (connect(fd, addr, len) < 0) {
        int e = errno;
        close(fd);
        return BLOCKED("connect to %s: %s", to, strerror(e));
    }
    char msg[64];
    int n = snprintf(msg, sizeof msg, "%s\n", current);
    ssize_t sent = send(fd, msg, (size_t)n, MSG_NOSIGNAL);
    close(fd);
    OPEN("connected to %s, sent %zd bytes", to, sent);
}

static void tcp_connect(void) {
    struct sockaddr_in a = v4(TCP_PORT);
    stream_connect(AF_INET, 0, (struct sockaddr *)&a, sizeof a, "127.0.0.1:" STR(TCP_PORT));
}

/* TCP Fast Open: the connection is made by sendto, without connect */
static void tcp_fastopen(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return BLOCKED("socket: %s", strerror(errno));
    struct sockaddr_in a = v4(TCP_PORT);
    const char msg[] = "tcp-fastopen\n";
    ssize_t sent = sendto(fd, msg, sizeof msg - 1, MSG_FASTOPEN | MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(fd);
    if (sent > 0) return OPEN("sendto(MSG_FASTOPEN) to 127.0.0.1:%d sent %zd bytes", TCP_PORT, sent);
    BLOCKED("sendto(MSG_FASTOPEN) to 127.0.0.1:%d: %s", TCP_PORT, strerror(e));
}

/* MPTCP falls back to plain TCP with a listener that does not speak it */
static void mptcp_connect(void) {
    struct sockaddr_in a = v4(TCP_PORT);
    stream_connect(AF_INET, IPPROTO_MPTCP, (struct sockaddr *)&a, sizeof a, "127.0.0.1:" STR(TCP_PORT) " (MPTCP)");
}

static void datagram(int family, const struct sockaddr *addr, socklen_t len, const char *to) {
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return BLOCKED("socket: %s", strerror(errno));
    char msg[64];
    int n = snprintf(msg, sizeof msg, "%s\n", current);
    ssize_t sent = sendto(fd, msg, (size_t)n, 0, addr, len);
    int e = errno;
    close(fd);
    if (sent > 0) return OPEN("sendto %s sent %zd bytes", to, sent);
    BLOCKED("sendto %s: %s", to, strerror(e));
}

static void udp4_sendto(void) {
    struct sockaddr_in a = v4(UDP4_PORT);
    datagram(AF_INET, (struct sockaddr *)&a, sizeof a, "127.0.0.1:" STR(UDP4_PORT));
}

static void udp6_sendto(void) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(UDP6_PORT), .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    datagram(AF_INET6, (struct sockaddr *)&a, sizeof a, "[::1]:" STR(UDP6_PORT));
}

/* a listener like ssh-agent's, in a directory of the grading user's */
static void unix_path_connect(void) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", UNIX_PATH);
    stream_connect(AF_UNIX, 0, (struct sockaddr *)&a, sizeof a, UNIX_PATH);
}

static void unix_abstract_connect(void) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t n = strlen(ABSTRACT_NAME);
    memcpy(a.sun_path + 1, ABSTRACT_NAME, n);
    stream_connect(AF_UNIX, 0, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n),
                   "@" ABSTRACT_NAME);
}

// ------------------------------------------------------------ item 3: reading what is not ours

static void read_ssh_key(void) {
    char buf[128], path[4096];
    const char *home = getenv("HOME");  // the judge gives no HOME: then the path written out
    const char *homes[] = {home, VICTIM_HOME};
    for (int i = 0; i < 2; i++) {
        if (!homes[i]) continue;
        snprintf(path, sizeof path, "%s/.ssh/id_rsa", homes[i]);
        if (first_line(path, buf, sizeof buf)) return OPEN("read %s: %s", path, buf);
    }
    BLOCKED("read %s/.ssh/id_rsa: %s%s", VICTIM_HOME, strerror(errno), home ? "" : " (no HOME)");
}

static void read_classmate_source(void) {
    char buf[128];
    const char *path = OTHER_WS "/exercises/ex01_vector_add.cu";
    if (first_line(path, buf, sizeof buf)) return OPEN("read %s: %s", path, buf);
    BLOCKED("read %s: %s", path, strerror(errno));
}

/* dlopen, find solve, call it on 2 elements */
static void load_and_call(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return BLOCKED("dlopen %s: %s", path, dlerror());
    void (*fn)(const float *, const float *, float *, int) = (void (*)(const float *, const float *, float *, int))dlsym(h, "solve");
    if (!fn) return OPEN("dlopen %s worked (it has no solve)", path);
    float a[2] = {1, 2}, b[2] = {10, 20}, c[2] = {0, 0};
    fn(a, b, c, 2);
    OPEN("dlopen %s and called its solve: %g %g", path, c[0], c[1]);
}

/* The reference's library in the student's own build directory: refused
 * before issue 44 already (kept as a guard). Not called: it is a CUDA
 * library, and the stand-in runtime runs no kernel. */
static void dlopen_own_reference(void) {
    const char *path = OWN_WS "/.build/reference-ex01.so";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return BLOCKED("dlopen %s: %s", path, dlerror());
    OPEN("dlopen %s worked, solve at %p", path, dlsym(h, "solve"));
}

static void dlopen_classmate_reference(void) { load_and_call(OTHER_WS "/.build/reference-ex01.so"); }

/* a prebuilt library in the student's own repository: libscan and cuobjdump
 * only read what gpucourse compiled */
static void dlopen_exercise_so(void) { load_and_call(OWN_WS "/exercises/prebuilt.so"); }

static void read_solutions(void) {
    char buf[128], path[4096];
    const char *file = COURSE_DIR "/solutions/ex01_vector_add.cu";
    if (first_line(file, buf, sizeof buf)) return OPEN("read %s: %s", file, buf);
    int e = errno;
    DIR *d = opendir(COURSE_DIR "/solutions");
    if (!d) return BLOCKED("read %s: %s; opendir: %s", file, strerror(e), strerror(errno));
    struct dirent *ent;
    int listed = 0;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        listed++;
        snprintf(path, sizeof path, "%s/solutions/%s", COURSE_DIR, ent->d_name);
        if (first_line(path, buf, sizeof buf)) {
            closedir(d);
            return OPEN("read %s: %s", path, buf);
        }
    }
    closedir(d);
    if (listed) return OPEN("listed %d solutions (reading them: %s)", listed, strerror(e));
    BLOCKED("read %s: %s; the directory lists nothing", file, strerror(e));
}

/* another process's environment: the parent's (the judge's), then any
 * process of the grading user's (its shell, its agents) */
static void read_proc_environ(void) {
    char path[64], buf[128], got[600] = "";
    int readable = 0, tried = 0;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    if (first_line(path, buf, sizeof buf) && buf[0]) {
        readable++;
        snprintf(got, sizeof got, "%s: %.40s", path, buf);
    }
    DIR *d = opendir("/proc");
    struct dirent *ent;
    while (d && (ent = readdir(d))) {
        int pid = atoi(ent->d_name);
        if (pid <= 0 || pid == getpid() || pid == getppid()) continue;
        tried++;
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        if (first_line(path, buf, sizeof buf) && buf[0]) {
            readable++;
            size_t n = strlen(got);
            if (n < 400) snprintf(got + n, sizeof got - n, "%s%s: %.40s", n ? "; " : "", path, buf);
        }
    }
    if (d) closedir(d);
    if (readable) return OPEN("%d readable: %s", readable, got);
    BLOCKED("no other process's environment readable (the parent's and %d others tried%s)", tried,
            d ? "" : "; /proc not listable");
}

static void read_proc1_cmdline(void) {
    char buf[128];
    if (first_line("/proc/1/cmdline", buf, sizeof buf)) return OPEN("/proc/1/cmdline: %s", buf);
    BLOCKED("/proc/1/cmdline: %s", strerror(errno));
}

/* code from memory: a library written into a memfd, loaded by its /proc path */
static void memfd_dlopen(void) {
    int fd = memfd_create("solve", MFD_CLOEXEC);
    if (fd < 0) return BLOCKED("memfd_create: %s", strerror(errno));
    size_t n = (size_t)(hostile_decoy_end - hostile_decoy_start);
    if (write(fd, hostile_decoy_start, n) != (ssize_t)n) {
        int e = errno;
        close(fd);
        return BLOCKED("write to the memfd: %s", strerror(e));
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    load_and_call(path);
}

/* a memfd mapped executable and run (one `ret` instruction) */
static void memfd_exec(void) {
    int fd = memfd_create("code", MFD_CLOEXEC);
    if (fd < 0) return BLOCKED("memfd_create: %s", strerror(errno));
    unsigned char page[4096];
    memset(page, 0xC3, sizeof page);  // x86-64 `ret`
    if (write(fd, page, sizeof page) != (ssize_t)sizeof page) {
        int e = errno;
        close(fd);
        return BLOCKED("write to the memfd: %s", strerror(e));
    }
    void *code = mmap(NULL, sizeof page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (code == MAP_FAILED) return BLOCKED("mmap PROT_EXEC of a memfd: %s", strerror(e));
#if defined(__x86_64__) || defined(__i386__)
    ((void (*)(void))code)();
    munmap(code, sizeof page);
    OPEN("a memfd mapped PROT_EXEC and its code ran");
#else
    munmap(code, sizeof page);
    OPEN("a memfd mapped PROT_EXEC");
#endif
}

/* an unnamed file: a place to write that leaves no name */
static void tmpfile_probe(void) {
    const char *dirs[] = {"/tmp", "/dev/shm", "/var/tmp", OWN_WS "/.build/tmp", OWN_WS "/exercises"};
    char what[600] = "";
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        int fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ssize_t w = write(fd, "x", 1);
            close(fd);
            return OPEN("open(%s, O_TMPFILE) gave a file (write: %zd)", dirs[i], w);
        }
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, "%s%s: %s", n ? ", " : "", dirs[i], strerror(errno));
    }
    BLOCKED("%s", what);
}

// ------------------------------------------------------------ item 5: a vendor library renamed

static void dlopen_renamed_syslib(void) {
    const char *path = OWN_WS "/exercises/libmine.so";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return BLOCKED("dlopen %s: %s", path, dlerror());
    const char *(*version)(void) = (const char *(*)(void))dlsym(h, "zlibVersion");
    if (!version) return OPEN("dlopen %s worked (no zlibVersion)", path);
    OPEN("dlopen %s (libz under another name), zlibVersion() = %s", path, version());
}

// ------------------------------------------------------------ item 6: left behind, unbounded

/* SysV objects are left in place on purpose: the test looks for them
 * after the runner ended (and removes them) */
static void sysv_shm(void) {
    int id = shmget(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0600);
    if (id < 0) return BLOCKED("shmget: %s", strerror(errno));
    OPEN("shmget made a 64 MiB segment: shmid=%d", id);
}

static void sysv_msg(void) {
    int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    if (id < 0) return BLOCKED("msgget: %s", strerror(errno));
    struct {
        long type;
        char text[16];
    } m = {1, "results"};
    int sent = msgsnd(id, &m, sizeof m.text, IPC_NOWAIT);
    OPEN("msgget made a queue: msqid=%d (a message sent: %s)", id, sent == 0 ? "yes" : strerror(errno));
}

static void sysv_sem(void) {
    int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    if (id < 0) return BLOCKED("semget: %s", strerror(errno));
    OPEN("semget made a set: semid=%d", id);
}

/* A POSIX message queue lives on under its name for any later process of the
 * user; the probe unlinks the one it made (the control run makes one too) */
static void posix_mq(void) {
    char name[64];
    snprintf(name, sizeof name, "gpucourse-hostile-%d", (int)getpid());
    int q = (int)syscall(SYS_mq_open, name, O_CREAT | O_RDWR | O_CLOEXEC, 0600, NULL);
    if (q < 0) return BLOCKED("mq_open: %s", strerror(errno));
    int sent = (int)syscall(SYS_mq_timedsend, q, "results", 7, 0, NULL);
    syscall(SYS_mq_unlink, name);
    OPEN("mq_open made the queue %s (a message sent: %s; unlinked again by the probe)", name,
         sent == 0 ? "yes" : strerror(errno));
}

/* Where and how it runs: reniced or moved, the runner (and, through pids
 * near its own, the reference's runner or the judge) would time otherwise;
 * tried on itself here, which any process may do without the sandbox */
static void renice_move(void) {
    int niced = setpriority(PRIO_PROCESS, 0, 19);
    int niced_errno = errno;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    int moved = sched_setaffinity(0, sizeof one, &one);
    if (niced != 0 && moved != 0)
        return BLOCKED("setpriority: %s; sched_setaffinity: %s", strerror(niced_errno), strerror(errno));
    OPEN("%s%s", niced == 0 ? "reniced itself to 19; " : "", moved == 0 ? "moved itself onto CPU 0" : "");
}

/* A descriptor's signal owner: the kernel signals it when I/O is ready, with the setter's
 * right to signal, so the judge (or the reference's runner) named as the owner of the runner's
 * own socket, with F_SETSIG SIGSTOP, would stop at a byte written to it. Only the naming is
 * tried here, then undone: no signal is sent */
static void sigio_owner(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return BLOCKED("socketpair: %s", strerror(errno));
    int set = fcntl(sv[0], F_SETOWN, (int)getppid()), set_errno = errno;
    struct f_owner_ex owner = {F_OWNER_PID, (int)getppid()};
    int set_ex = fcntl(sv[1], F_SETOWN_EX, &owner), set_ex_errno = errno;
    fcntl(sv[0], F_SETOWN, 0);
    close(sv[0]);
    close(sv[1]);
    if (set != 0 && set_ex != 0)
        return BLOCKED("F_SETOWN: %s; F_SETOWN_EX: %s", strerror(set_errno), strerror(set_ex_errno));
    OPEN("named its parent (pid %d) the owner of its socket%s%s", (int)getppid(), set == 0 ? " (F_SETOWN)" : "",
         set_ex == 0 ? " (F_SETOWN_EX)" : "");
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int released;

static void *wait_for_release(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!released) pthread_cond_wait(&wake, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* THREADS threads alive at once, on small stacks (so that memory is not
 * what stops them) */
static void threads(void) {
    static pthread_t t[THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    int started = 0, e = 0;
    released = 0;
    while (started < THREADS && (e = pthread_create(&t[started], &attr, wait_for_release, NULL)) == 0) started++;
    pthread_mutex_lock(&lock);
    released = 1;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    if (started == THREADS) return OPEN("%d threads started, all alive at once", started);
    BLOCKED("%d of %d threads started, then: %s", started, THREADS, strerror(e));
}

/* Every page of a shared mapping touched: shared memory is not counted by
 * RLIMIT_DATA. A limit that holds refuses the mapping (or ends the process). */
static void touch_shared(void *p, size_t bytes, int writable, const char *what) {
    struct rlimit data;
    getrlimit(RLIMIT_DATA, &data);
    volatile unsigned char *b = p;
    unsigned sum = 0;
    for (size_t off = 0; off < bytes; off += 4096) {
        if (writable) b[off] = 1;
        else sum += b[off];
    }
    munmap(p, bytes);
    (void)sum;
    OPEN("%s: %d MiB mapped and every page %s (RLIMIT_DATA %lld MiB)", what, SHARED_MIB, writable ? "written" : "read",
         data.rlim_cur == RLIM_INFINITY ? -1LL : (long long)(data.rlim_cur >> 20));
}

static void shared_anon(void) {
    size_t bytes = (size_t)SHARED_MIB << 20;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return BLOCKED("mmap MAP_SHARED|MAP_ANONYMOUS %d MiB: %s", SHARED_MIB, strerror(errno));
    touch_shared(p, bytes, 1, "MAP_SHARED|MAP_ANONYMOUS");
}

/* /dev/zero shared: read-write when it opens so; read-only pages are
 * allocated as they are read all the same */
static void shared_devzero(void) {
    size_t bytes = (size_t)SHARED_MIB << 20;
    int writable = 1, fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
    char why[200] = "";
    if (fd < 0) {
        snprintf(why, sizeof why, "open O_RDWR: %s; ", strerror(errno));
        writable = 0;
        fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) return BLOCKED("%sopen /dev/zero: %s", why, strerror(errno));
    void *p = mmap(NULL, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) return BLOCKED("%smmap /dev/zero MAP_SHARED %d MiB: %s", why, SHARED_MIB, strerror(e));
    touch_shared(p, bytes, writable, writable ? "/dev/zero MAP_SHARED read-write" : "/dev/zero MAP_SHARED read-only");
}

/* shared anonymous memory placed by hand: the filter allows it only where
 * the driver puts CUPTI's buffer (8-12 GiB, shorter than 4 GiB) */
static void shared_fixed_map(void *at, size_t bytes, const char *where) {
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) return BLOCKED("mmap MAP_SHARED|MAP_ANONYMOUS|MAP_FIXED %s: %s", where, strerror(errno));
    munmap(p, bytes);
    OPEN("MAP_FIXED shared anonymous memory %s", where);
}

static void shared_fixed_outside(void) { shared_fixed_map((void *)0x380000000UL, 2 << 20, "at 14 GiB"); }
static void shared_fixed_long(void) { shared_fixed_map((void *)0x2f0000000UL, 5UL << 30, "of 5 GiB at 11.75 GiB"); }

/* its own library opened for writing (appending, so the control run
 * changes nothing): opens are Landlock's to refuse, device files only */
static void write_own_library(void) {
    Dl_info self;
    if (!dladdr((void *)write_own_library, &self) || !self.dli_fname) return BLOCKED("dladdr: no path");
    int fd = open(self.dli_fname, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return BLOCKED("open %s for writing: %s", self.dli_fname, strerror(errno));
    close(fd);
    OPEN("%s opened for writing", self.dli_fname);
}

// ------------------------------------------------------------ the probes, in order

static const struct {
    const char *name;
    void (*run)(void);
} probes[] = {
    {"tty-dev", tty_dev},                              // item 1
    {"tty-fds", tty_fds},                              // item 1
    {"tcp-connect", tcp_connect},                      // item 2
    {"tcp-fastopen", tcp_fastopen},                    // item 2
    {"mptcp-connect", mptcp_connect},                  // item 2
    {"udp4-sendto", udp4_sendto},                      // item 2
    {"udp6-sendto", udp6_sendto},                      // item 2
    {"unix-path-connect", unix_path_connect},          // item 2
    {"unix-abstract-connect", unix_abstract_connect},  // item 2
    {"read-ssh-key", read_ssh_key},                    // item 3
    {"read-classmate-source", read_classmate_source},  // item 3
    {"dlopen-classmate-reference", dlopen_classmate_reference},  // item 3
    {"dlopen-own-reference", dlopen_own_reference},    // item 3 (held before issue 44)
    {"dlopen-exercise-so", dlopen_exercise_so},        // item 3
    {"read-solutions", read_solutions},                // item 3
    {"read-proc-environ", read_proc_environ},          // item 3
    {"read-proc1-cmdline", read_proc1_cmdline},        // item 3
    {"memfd-dlopen", memfd_dlopen},                    // item 3
    {"memfd-exec", memfd_exec},                        // item 3
    {"tmpfile", tmpfile_probe},                        // item 3
    {"dlopen-renamed-syslib", dlopen_renamed_syslib},  // item 5
    {"sysv-shm", sysv_shm},                            // item 6
    {"sysv-msg", sysv_msg},                            // item 6
    {"sysv-sem", sysv_sem},                            // item 6
    {"posix-mq", posix_mq},                            // item 6
    {"renice-move", renice_move},                      // item 6 (where and how it runs)
    {"sigio-owner", sigio_owner},                      // item 6 (signals by I/O)
    {"threads", threads},                              // item 6
    {"shared-anon", shared_anon},                      // item 6
    {"shared-devzero", shared_devzero},                // item 6
    {"shared-fixed-outside", shared_fixed_outside},    // item 6 (issue 45's window)
    {"shared-fixed-long", shared_fixed_long},          // item 6 (issue 45's window)
    {"write-own-library", write_own_library},          // item 3 (opens left to Landlock)
};

static int skipped(const char *name) {
    const char *list = getenv("HOSTILE_SKIP");
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        if (strcspn(p, ",") == n && !strncmp(p, name, n)) return 1;
    }
    return 0;
}

__attribute__((constructor)) static void probe_all(void) {
    say("probe ready: pid %d uid %d", (int)getpid(), (int)getuid());
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        if (skipped(probes[i].name)) continue;
        current = probes[i].name;
        say("trying %s", current);
        probes[i].run();
    }
    say("probe done");
}
