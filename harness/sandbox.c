/* Confining the runner before it loads student code: see sandbox.h.
 *
 * Plain C11: compiled by gcc for the tests and by nvcc's host compiler for
 * the runner. Nothing here prints; the caller reports the status. */
#define _GNU_SOURCE
#include "sandbox.h"
#include "seccomp.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>

/* ---- Landlock definitions (kernel UAPI values, stable) ------------------ */

#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#define SB_HAVE_LANDLOCK_H 1
#endif
#endif

#ifndef SB_HAVE_LANDLOCK_H
struct landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_TSYNC
#define LANDLOCK_RESTRICT_SELF_TSYNC (1U << 3) /* ABI 8 */
#endif

/* Our own struct landlock_ruleset_attr: older headers (Debian 12's) lack
 * the fields of ABI 4 and 6, and the kernel reads only the size we pass. */
struct sb_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* Syscall numbers from 424 on are the same on x86_64 and aarch64; headers
 * older than the kernel may lack them, and a filter that does not know
 * clone3 would let a student start a process with it. */
#if defined(__x86_64__) || defined(__aarch64__)
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#define SYS_io_uring_enter 426
#define SYS_io_uring_register 427
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#define SYS_fsopen 430
#define SYS_fsconfig 431
#define SYS_fsmount 432
#define SYS_fspick 433
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_seccomp
#ifdef __x86_64__
#define SYS_seccomp 317
#else
#define SYS_seccomp 277
#endif
#endif
#endif

/* ---- status ---------------------------------------------------------------- */

/* Appends "; what" to the note (cut at its size). */
void sandbox_note(SandboxStatus *st, const char *fmt, ...) {
    size_t len = strlen(st->note);
    if (len + 3 >= sizeof st->note) return;
    if (len) {
        memcpy(st->note + len, "; ", 3);
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->note + len, sizeof st->note - len, fmt, ap);
    va_end(ap);
}

/* An error: the note becomes "what: strerror(errno)". Returns -1. */
int sandbox_fail(SandboxStatus *st, const char *fmt, ...) {
    int err = errno;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(st->note, sizeof st->note, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof st->note)
        snprintf(st->note + n, sizeof st->note - (size_t)n, ": %s", strerror(err));
    errno = err;
    return -1;
}

int sandbox_thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n > 0 ? n : 1;
}

/* ---- rlimits --------------------------------------------------------------- */

/* soft = hard = want, but never above the hard limit in force (only root
 * may raise it, and a lower one is stricter anyway). */
static int set_limit(int resource, const char *name, rlim_t want, SandboxStatus *st) {
    struct rlimit r;
    if (getrlimit(resource, &r) != 0) return sandbox_fail(st, "getrlimit(%s)", name);
    if (want > r.rlim_max) want = r.rlim_max;
    r.rlim_cur = r.rlim_max = want;
    if (setrlimit(resource, &r) != 0) return sandbox_fail(st, "setrlimit(%s)", name);
    return 0;
}

/* The tasks (threads of every process) of this real user now: RLIMIT_NPROC
 * counts them all, so a bound on this process's threads is that many more.
 * Read from /proc before Landlock hides other processes; -1 if unreadable. */
static long user_tasks(void) {
    DIR *d = opendir("/proc");
    if (!d) return -1;
    uid_t me = getuid();
    long n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[300], line[128];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        long uid = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "Uid:", 4)) uid = strtol(line + 4, NULL, 10);
            else if (!strncmp(line, "Threads:", 8)) threads = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (uid == (long)me) n += threads;
    }
    closedir(d);
    return n;
}

static long tasks_at_start = -1; /* user_tasks() before Landlock */

/* At most spec->max_threads tasks more than the user had before the sandbox.
 * The kernel does not apply RLIMIT_NPROC to root: said in the note. */
static int limit_threads(const SandboxSpec *spec, SandboxStatus *st) {
    if (spec->max_threads <= 0) return 0;
    if (getuid() == 0) {
        sandbox_note(st, "threads not bounded (the kernel exempts root from RLIMIT_NPROC)");
        return 0;
    }
    if (tasks_at_start < 0) tasks_at_start = user_tasks();
    if (tasks_at_start < 0) {
        errno = EACCES;
        return sandbox_fail(st, "cannot count this user's tasks in /proc");
    }
    return set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", (rlim_t)(tasks_at_start + spec->max_threads), st);
}

/* No capability left, whoever started the runner: a runner of root's keeps
 * uid 0 but may no longer override file modes, load modules, or use raw I/O. */
static int drop_capabilities(SandboxStatus *st) {
    struct {
        uint32_t version;
        int pid;
    } head = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    struct {
        uint32_t effective, permitted, inheritable;
    } none[2] = {{0, 0, 0}, {0, 0, 0}};
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); /* EINVAL before Linux 4.3: nothing to clear */
    if (syscall(SYS_capset, &head, none) != 0) return sandbox_fail(st, "capset");
    return 0;
}

/* ---- Landlock -------------------------------------------------------------- */

/* One path-beneath rule: dir_rights for a directory (its whole hierarchy),
 * file_rights for anything else. A path that is not there is skipped. */
static int allow_path(int ruleset, const char *path, uint64_t dir_rights, uint64_t file_rights,
                      SandboxStatus *st) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP || errno == ENAMETOOLONG)
            return 0;
        return sandbox_fail(st, "Landlock: cannot open %s", path);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        sandbox_fail(st, "Landlock: cannot stat %s", path);
        close(fd);
        return -1;
    }
    struct landlock_path_beneath_attr pb = {
        .allowed_access = S_ISDIR(sb.st_mode) ? dir_rights : file_rights,
        .parent_fd = fd,
    };
    int rc = 0;
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
        rc = sandbox_fail(st, "landlock_add_rule %s", path);
    close(fd);
    return rc;
}

static int enter_landlock(const SandboxSpec *spec, SandboxStatus *st) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi <= 0) {
        sandbox_note(st, "no Landlock on this kernel (%s): file access not restricted",
                 errno == EOPNOTSUPP ? "disabled at boot" : errno == ENOSYS ? "not built in" : strerror(errno));
        return 0;
    }
    st->landlock_abi = (int)abi;

    /* Every file right the ABI knows is denied unless a rule allows it, except
     * LANDLOCK_ACCESS_FS_IOCTL_DEV (ABI 5): the CUDA driver keeps doing
     * ioctls on /dev/nvidia*, and which ones is its business. */
    uint64_t handled = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                       LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                       LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                       LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                       LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2) handled |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
    struct sb_ruleset_attr attr = {.handled_access_fs = handled};
    size_t attr_size = offsetof(struct sb_ruleset_attr, handled_access_net);
    if (abi >= 4) {
        /* no TCP at all: no rule allows any port */
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        attr_size = offsetof(struct sb_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        /* no signals to, and no abstract sockets of, processes outside the sandbox (the grader) */
        attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0U);
    if (ruleset < 0) return sandbox_fail(st, "landlock_create_ruleset");

    const uint64_t rd_dir = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;
    const uint64_t rd_file = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
    const uint64_t rw = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                        (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
    const uint64_t ro = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    int rc = 0;
    for (const char *const *p = spec->read_paths; rc == 0 && p && *p; p++)
        rc = allow_path(ruleset, *p, rd_dir, rd_file, st);
    for (const char *const *p = spec->write_paths; rc == 0 && p && *p; p++)
        rc = allow_path(ruleset, *p, rw, rw, st);
    const uint64_t make = ro | rw | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                          LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                          (abi >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0); /* renames within it */
    for (const char *const *p = spec->make_paths; rc == 0 && p && *p; p++)
        rc = allow_path(ruleset, *p, make, rw, st);
    /* This process's own /proc directory (/proc/self resolves to it now:
     * libc and the loader read its maps and status, and thread-self is
     * beneath it), never another process's; and two devices anybody may use.
     * Everything else is the caller's list. */
    if (rc == 0) rc = allow_path(ruleset, "/proc/self", ro, LANDLOCK_ACCESS_FS_READ_FILE, st);
    /* procfs makes a new inode for /proc/PID when its dentry was dropped (memory
     * pressure), and the rule binds the inode: a descriptor held open keeps it */
    static int proc_self_held = -1;
    if (rc == 0 && proc_self_held < 0) proc_self_held = open("/proc/self", O_PATH | O_CLOEXEC);
    if (rc == 0) rc = allow_path(ruleset, "/dev/null", rw, rw, st);
    if (rc == 0) rc = allow_path(ruleset, "/dev/urandom", ro, LANDLOCK_ACCESS_FS_READ_FILE, st);
    if (rc != 0) {
        close(ruleset);
        return -1;
    }

    /* Before ABI 8 the domain covers the calling thread and the threads it
     * starts later, not those already running (CUDA's own). */
    unsigned flags = 0;
    if (abi >= 8) {
        flags |= LANDLOCK_RESTRICT_SELF_TSYNC;
    } else {
        int others = sandbox_thread_count() - 1;
        if (others > 0)
            sandbox_note(st, "Landlock ABI %ld restricts only this thread: %d thread%s started before keep file access",
                     abi, others, others == 1 ? "" : "s");
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, flags) != 0) {
        sandbox_fail(st, "landlock_restrict_self");
        close(ruleset);
        return -1;
    }
    close(ruleset);
    st->landlock = true;
    return 0;
}

/* ---- the whole ----------------------------------------------------------------- */

/* Whether Landlock binds every thread (entered while the process had one,
 * sandbox_restrict_files, or with TSYNC, ABI 8) and rules truncation too
 * (ABI 3). Only then may the syscall filter leave opens for writing to
 * Landlock's rules. */
static bool landlock_every_thread;

void sandbox_probe(SandboxStatus *st) {
    memset(st, 0, sizeof *st);
    /* tests of what gpucourse does on a kernel without either (the real sandbox is not affected) */
    const char *fake = getenv("GPUCOURSE_SANDBOX_PROBE");
    if (fake && !strcmp(fake, "none")) {
        sandbox_note(st, "no Landlock and no seccomp filters (GPUCOURSE_SANDBOX_PROBE=none)");
        return;
    }
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi > 0) {
        st->landlock_abi = (int)abi;
        st->landlock = true;
    } else {
        sandbox_note(st, "no Landlock on this kernel (%s): file access would not be restricted",
                 errno == EOPNOTSUPP ? "disabled at boot" : errno == ENOSYS ? "not built in" : strerror(errno));
    }
    /* with filters built in, a NULL program is EFAULT (and installs nothing) */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) != 0 && errno == EFAULT) st->seccomp = true;
    else sandbox_note(st, "no seccomp filters on this kernel: syscalls would not be filtered");
}

/* What sandbox_restrict_files did, for sandbox_enter to report. */
static bool files_restricted;
static SandboxStatus files_status;

static bool one_thread(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n == 3; /* ".", ".." and this thread */
}

int sandbox_restrict_files(const SandboxSpec *spec, SandboxStatus *status) {
    static const SandboxSpec nothing;
    SandboxStatus scratch;
    if (!spec) spec = &nothing;
    if (!status) status = &scratch;
    memset(status, 0, sizeof *status);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return sandbox_fail(status, "prctl(PR_SET_NO_NEW_PRIVS)");
    if (spec->max_threads > 0 && getuid() != 0) tasks_at_start = user_tasks();
    bool alone = one_thread();
    if (enter_landlock(spec, status) != 0) return -1;
    files_restricted = true;
    /* ABI 3 and later also rule truncation, which open(O_TRUNC) does */
    landlock_every_thread = status->landlock && status->landlock_abi >= 3 && (alone || status->landlock_abi >= 8);
    files_status = *status;
    return 0;
}

static int add_path(char ***paths, size_t *n, const char *path) {
    char **grown = realloc(*paths, (*n + 2) * sizeof **paths);
    if (!grown) return -1;
    *paths = grown;
    if (!(grown[*n] = strdup(path))) return -1;
    grown[++*n] = NULL;
    return 0;
}

/* The libraries a runner may load from the loader's directories, by file
 * name: the C and C++ runtimes, and CUDA's runtime, driver and profiler.
 * An allow-list, so that cuBLAS or cuDNN beside them stay out of reach. */
static const char *const runtime_names[] = {
    "ld-linux",  "libc.so",       "libm.so",   "libdl.so",    "librt.so",         "libpthread.so",
    "libutil.so", "libgcc_s.so",  "libstdc++.so", "libcudart.so", "libcuda.so",   "libnvidia-",
    "libcupti.so", "libnvperf_host.so", "libnvperf_target.so", "libpcsamplingutil.so",
};

bool sandbox_runtime_library(const char *name) {
    for (size_t i = 0; i < sizeof runtime_names / sizeof *runtime_names; i++)
        if (!strncmp(name, runtime_names[i], strlen(runtime_names[i]))) return true;
    return false;
}

char **sandbox_library_dirs(void) {
    char **dirs = calloc(1, sizeof *dirs);
    size_t n = 0;
    void *self = dlopen(NULL, RTLD_NOW);
    Dl_serinfo size;
    if (!dirs || !self || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0) return dirs;
    Dl_serinfo *info = malloc(size.dls_size);
    if (info) {
        *info = size;
        if (dlinfo(self, RTLD_DI_SERINFOSIZE, info) == 0 && dlinfo(self, RTLD_DI_SERINFO, info) == 0)
            for (unsigned i = 0; i < info->dls_cnt; i++) {
                char *real = realpath(info->dls_serpath[i].dls_name, NULL);
                bool seen = !real;
                for (size_t k = 0; k < n && !seen; k++) seen = !strcmp(dirs[k], real);
                if (!seen && add_path(&dirs, &n, real) < 0) break;
                free(real);
            }
        free(info);
    }
    return dirs;
}

void sandbox_free_paths(char **paths) {
    for (char **p = paths; p && *p; p++) free(*p);
    free(paths);
}

int sandbox_enter(const SandboxSpec *spec, SandboxStatus *status) {
    static const SandboxSpec nothing;
    SandboxStatus scratch;
    if (!spec) spec = &nothing;
    if (!status) status = &scratch;
    memset(status, 0, sizeof *status);
    if (files_restricted) *status = files_status;

    /* 1. limits; RLIMIT_AS and RLIMIT_DATA stay: CUDA reserves huge address ranges */
    if (set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, status) != 0) return -1;
    if (spec->file_size_bytes > 0 &&
        set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", (rlim_t)spec->file_size_bytes, status) != 0)
        return -1;
    if (spec->cpu_seconds > 0) {
        rlim_t s = spec->cpu_seconds >= 1e15 ? RLIM_INFINITY : (rlim_t)spec->cpu_seconds;
        if (s != RLIM_INFINITY && (double)s < spec->cpu_seconds) s++; /* rounded up */
        if (set_limit(RLIMIT_CPU, "RLIMIT_CPU", s, status) != 0) return -1;
    }
    if (!files_restricted && spec->max_threads > 0 && getuid() != 0) tasks_at_start = user_tasks();
    if (limit_threads(spec, status) != 0) return -1;
    /* 2. no setuid or file-capability gains from here on (Landlock and
     *    seccomp need it without CAP_SYS_ADMIN), and no capability kept */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return sandbox_fail(status, "prctl(PR_SET_NO_NEW_PRIVS)");
    if (drop_capabilities(status) != 0) return -1;
    /* 3. files, TCP, signals (unless sandbox_restrict_files did it before any thread existed) */
    if (!files_restricted && enter_landlock(spec, status) != 0) return -1;
    if (!files_restricted) landlock_every_thread = status->landlock && status->landlock_abi >= 8;
    /* 4. syscalls */
    if (seccomp_enter(spec, landlock_every_thread, status) != 0) return -1;
    /* What an older Landlock lacks, the filter refuses anyway (no socket, no
     * signal to another process, no truncate); without the filter it is open */
    if (!status->seccomp && status->landlock && status->landlock_abi < 6)
        sandbox_note(status, "Landlock ABI %d does not restrict %s", status->landlock_abi,
                 status->landlock_abi < 3   ? "truncate(2), TCP, signals to other processes"
                 : status->landlock_abi < 4 ? "TCP, signals to other processes"
                                            : "signals to other processes");
    /* the filter keeps writes through /proc/self/task/TID/mem above 4 GiB (SEEK_LOW) */
    if (status->seccomp && (uintptr_t)&sandbox_enter < ((uintptr_t)1 << 32))
        sandbox_note(status, "this program lies below 4 GiB (not position-independent): its memory can be written "
                         "through /proc/self/task/*/mem");
    /* RLIMIT_NOFILE last: the steps above open descriptors of their own */
    if (spec->max_open_files > 0 &&
        set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", (rlim_t)spec->max_open_files, status) != 0)
        return -1;
    return 0;
}

/* ---- mapped files ------------------------------------------------------------ */

char **sandbox_mapped_files(int *count) {
    if (count) *count = 0;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return NULL;
    char **paths = NULL;
    size_t n = 0, cap = 0, bytes = 0;
    char *line = NULL;
    size_t line_cap = 0;
    bool ok = true;
    while (ok && getline(&line, &line_cap, f) > 0) {
        /* "start-end perms offset dev inode   path": the path is the rest */
        int at = -1;
        if (sscanf(line, "%*s %*s %*s %*s %*s %n", &at) < 0 || at < 0) continue;
        char *path = line + at;
        size_t len = strcspn(path, "\n");
        path[len] = '\0';
        if (path[0] != '/') continue; /* [heap], [vdso], anonymous */
        static const char deleted[] = " (deleted)";
        if (len >= sizeof deleted - 1 && strcmp(path + len - (sizeof deleted - 1), deleted) == 0) continue;
        bool seen = false;
        for (size_t i = n; i-- > 0 && !seen;) seen = strcmp(paths[i], path) == 0;
        if (seen) continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 64;
            char **p = realloc(paths, c * sizeof *p);
            if (!p) {
                ok = false;
                break;
            }
            paths = p, cap = c;
        }
        if (!(paths[n] = strdup(path))) {
            ok = false;
            break;
        }
        bytes += len + 1;
        n++;
    }
    free(line);
    fclose(f);
    /* one block: the pointers, then the strings */
    char **out = ok ? malloc((n + 1) * sizeof *out + bytes) : NULL;
    if (out) {
        char *s = (char *)(out + n + 1);
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(paths[i]) + 1;
            memcpy(s, paths[i], len);
            out[i] = s;
            s += len;
        }
        out[n] = NULL;
        if (count) *count = (int)n;
    }
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    return out;
}
