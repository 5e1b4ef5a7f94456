#define _GNU_SOURCE
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/proc.h"
#include "../src/util.h"

#ifndef GPUCOURSE_SHARED_LOCK_DIR
#error "the Makefile names the shared lock directory (LOCK_DIR)"
#endif

enum { DEFAULT_WAIT_S = 600 };

static const char MACHINE_LOCK[] = "gpucourse-machine.lock";

const char gpu_lock_shared_dir[] = GPUCOURSE_SHARED_LOCK_DIR;

const char *gpu_lock_dir(void) {
    const char *dir = getenv("GPUCOURSE_LOCK_DIR");
    if (dir && *dir) return dir;
    /* anything there (root's to make) is used and checked, never passed over for /tmp */
    struct stat st;
    if (lstat(gpu_lock_shared_dir, &st) == 0 || errno != ENOENT) return gpu_lock_shared_dir;
    return "/tmp";
}

static char *lock_name(const char *gpu) {
    char name[96];
    size_t n = 0;
    for (const char *c = gpu; *c && n < sizeof name - 1; c++) /* a file name from any id */
        name[n++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                                   *c == '-' || *c == '_'
                               ? *c
                               : '_');
    name[n] = '\0';
    return xprintf("gpucourse-gpu-%s.lock", name);
}

char *gpu_machine_lock_path(void) { return xprintf("%s/%s", gpu_lock_dir(), MACHINE_LOCK); }

char *gpu_lock_path(const char *gpu) {
    char *name = lock_name(gpu), *path = xprintf("%s/%s", gpu_lock_dir(), name);
    free(name);
    return path;
}

/* Nobody but root and we can rename, remove or replace what is in a
 * directory with this owner and mode: ours or root's, and writable by
 * others only when sticky. */
static bool only_ours(const struct stat *st) {
    return (st->st_uid == 0 || st->st_uid == geteuid()) &&
           (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

/* What is wrong with the first directory on a path, from "/" down to the
 * path itself, that is not only_ours (that one into *where, malloc'd), or
 * NULL when none is. Each
 * prefix is looked at through its links: a link's own directory is the
 * prefix before it. */
static const char *unsafe_on(const char *path, char **where, struct stat *at) {
    char *p = xstrdup(path);
    size_t len = strlen(p);
    const char *wrong = NULL;
    for (size_t i = 0; !wrong && i <= len; i++) {
        if (i < len && p[i] != '/') continue;
        size_t end = i ? i : 1; /* "/" itself first */
        char keep = p[end];
        p[end] = '\0';
        if (stat(p, at) != 0) {
            wrong = "a directory on its path cannot be examined";
            break;
        }
        if (!only_ours(at)) {
            wrong = at->st_uid != 0 && at->st_uid != geteuid() ? "belongs to another user"
                                                               : "is writable by others and not sticky (mode 1777 is)";
            *where = xstrdup(p);
        }
        p[end] = keep;
    }
    free(p);
    return wrong;
}

/* Opens the lock directory for its own lock, if it and every directory
 * above it (as named, and where its links lead) are only root's and ours
 * to change: else another user could swap it, or the files in it, under a
 * holder. error says why not. */
static int open_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        error("cannot open the GPU lock directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char *cwd = dir[0] == '/' ? NULL : getcwd(NULL, 0);
    char *named = cwd ? xprintf("%s/%s", cwd, dir) : xstrdup(dir), *real = realpath(dir, NULL), *where = NULL;
    struct stat st, at;
    const char *wrong = unsafe_on(named, &where, &at);
    if (!wrong && real) wrong = unsafe_on(real, &where, &at);
    /* the checks were of the directory opened */
    if (!wrong && (!real || fstat(fd, &st) != 0 || stat(real, &at) != 0 || st.st_dev != at.st_dev || st.st_ino != at.st_ino))
        wrong = "it changed while being opened";
    if (wrong && where)
        error("the GPU lock directory %s cannot be trusted: %s %s (owner uid %d), so another user could replace "
              "the lock under a grading", dir, where, wrong, (int)at.st_uid);
    else if (wrong)
        error("the GPU lock directory %s cannot be trusted: %s", dir, wrong);
    if (wrong) close(fd);
    free(cwd), free(named), free(real), free(where);
    return wrong ? -1 : fd;
}

static const char *file_kind(mode_t mode) {
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISLNK(mode)  ? "a symbolic link"
                            : "not a regular file";
}

/* Why a file with this stat cannot serve as a GPU's lock, or NULL when it
 * can: a regular file with this one name (a hard link there may be one of
 * our own files, to be written to), ours or root's (another user could
 * remove or replace theirs under a holder). */
static const char *cannot_serve(const struct stat *st) {
    return !S_ISREG(st->st_mode)                             ? file_kind(st->st_mode)
           : st->st_nlink != 1                               ? "a file with another name too (a hard link)"
           : st->st_uid != 0 && st->st_uid != geteuid()      ? "another user's file"
                                                             : NULL;
}

/* Opens a GPU's own lock file in the directory, creating it when it is not
 * there: never blocking (a FIFO), never through a link, never truncating;
 * kept only if it can serve (cannot_serve). Else -1, why saying what is
 * there; the caller takes the whole directory instead. */
static int open_gpu_file(int dir, const char *name, char *why, size_t why_len) {
    const int flags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = openat(dir, name, O_RDWR | flags);
    if (fd < 0 && errno == ENOENT) {
        fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | flags, 0644);
        if (fd >= 0) fchmod(fd, 0644); /* whatever the umask: others read who holds it */
        else if (errno == EEXIST) fd = openat(dir, name, O_RDWR | flags); /* made just now by another */
        else {
            snprintf(why, why_len, "missing, and cannot be made (%s)", strerror(errno));
            return -1;
        }
    }
    if (fd < 0 && (errno == EACCES || errno == EISDIR || errno == EPERM)) fd = openat(dir, name, O_RDONLY | flags);
    int opened = errno;
    struct stat st;
    bool seen = fd >= 0 ? fstat(fd, &st) == 0 : fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    const char *wrong = seen ? cannot_serve(&st) : NULL;
    if (fd >= 0 && seen && !wrong) return fd;
    if (wrong) snprintf(why, why_len, "%s of uid %d", wrong, (int)st.st_uid);
    else snprintf(why, why_len, "not to be opened (%s)", strerror(fd >= 0 ? errno : opened));
    if (fd >= 0) close(fd);
    return -1;
}

static const char HOLDER_UNKNOWN[] = "another grading run", HOLDERS_UNKNOWN[] = "other gradings";

/* What the holder wrote into the file, its first line made safe to show
 * (another process's text). */
static char *holder_text(int fd) {
    char buf[160];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0) return xstrdup(HOLDER_UNKNOWN);
    buf[n] = '\0';
    StrBuf b = {0};
    sb_add_visible(&b, buf, strcspn(buf, "\n"));
    return b.buf ? b.buf : xstrdup(HOLDER_UNKNOWN);
}

/* Who holds a lock file, written into it for the one that waits: only
 * into a file of our own (root's is only read). */
static void note_holder(int fd, const char *what) {
    struct stat st;
    char me[160];
    int n = snprintf(me, sizeof me, "pid %d of uid %d grading %s\n", (int)getpid(), (int)getuid(), what ? what : "?");
    bool noted = fstat(fd, &st) == 0 && st.st_uid == geteuid() && pwrite(fd, me, (size_t)n, 0) == n && ftruncate(fd, n) == 0;
    (void)noted;
}

/* The note goes with the lock. */
static void clear_note(int fd) {
    struct stat st;
    bool cleared = fstat(fd, &st) == 0 && st.st_uid == geteuid() && ftruncate(fd, 0) == 0;
    (void)cleared;
}

/* The lock files of a request's GPUs, open where they can serve; take()
 * tries each in turn, then the whole directory for those that cannot. */
typedef struct {
    int dir;
    int *fds;   /* -1: this GPU's file cannot serve */
    int n, held; /* held: the index taken, -1 none */
    bool whole;  /* held through the directory alone */
    int failed;  /* an flock error that waiting will not mend, or 0 */
    int machine; /* gpucourse-machine.lock, -1: cannot serve (no grading waits for it, none is first) */
    bool alone;  /* the request's: the machine to itself */
    bool first;  /* alone: the machine's file held, so no grading starts while this one waits */
    bool kept_out; /* not alone: a grading that wants the machine to itself holds its file */
    const char *what; /* the request's, for the note on the machine's file */
} Candidates;

static bool lock_failed(Candidates *c) {
    if (errno == EWOULDBLOCK) return false;
    c->failed = errno;
    return true;
}

/* A grading alone: the machine's file (kept from the first try on), then
 * the directory exclusive (every grading ended), then a GPU's own file
 * for the note (none is held now but for a moment by a grading that then
 * finds the directory taken: that GPU is passed over). */
static bool take_alone(Candidates *c) {
    if (c->machine >= 0 && !c->first) {
        if (flock(c->machine, LOCK_EX | LOCK_NB) != 0) return lock_failed(c);
        c->first = true;
        note_holder(c->machine, c->what); /* for those kept out while it waits */
    }
    if (flock(c->dir, LOCK_EX | LOCK_NB) != 0) return lock_failed(c);
    c->held = 0;
    c->whole = true;
    for (int i = 0; i < c->n; i++)
        if (c->fds[i] >= 0 && flock(c->fds[i], LOCK_EX | LOCK_NB) == 0) {
            c->held = i;
            c->whole = false;
            break;
        }
    return true;
}

static bool take_one_gpu(Candidates *c);

static bool take(void *ctx) {
    Candidates *c = ctx;
    if (c->alone) return take_alone(c);
    /* a grading that wants the machine to itself holds its file: none starts until it is done */
    c->kept_out = c->machine >= 0 && flock(c->machine, LOCK_SH | LOCK_NB) != 0;
    if (c->kept_out) return lock_failed(c);
    bool taken = take_one_gpu(c);
    if (c->machine >= 0) flock(c->machine, LOCK_UN); /* checked; a grading alone waits for the directory */
    return taken;
}

static bool take_one_gpu(Candidates *c) {
    for (int i = 0; i < c->n; i++) {
        if (c->fds[i] < 0) continue;
        if (flock(c->fds[i], LOCK_EX | LOCK_NB) != 0) {
            if (lock_failed(c)) return true;
            continue;
        }
        if (flock(c->dir, LOCK_SH | LOCK_NB) == 0) {
            c->held = i;
            return true;
        }
        bool failed = lock_failed(c);
        flock(c->fds[i], LOCK_UN); /* the directory is held whole: no GPU is to be had */
        return failed;
    }
    for (int i = 0; i < c->n; i++)
        if (c->fds[i] < 0) {
            if (flock(c->dir, LOCK_EX | LOCK_NB) == 0) {
                c->held = i;
                c->whole = true;
                return true;
            }
            return lock_failed(c);
        }
    return false;
}

/* Whom the waiting one waits for: "pid 7 of uid 1000 grading ex13", and
 * with several GPUs each holder after its GPU. */
static char *holders_text(const GpuLockRequest *req, const Candidates *c) {
    if (c->n == 1) return holder_text(c->fds[0]);
    StrBuf b = {0};
    for (int i = 0; i < c->n; i++) {
        char *h = holder_text(c->fds[i]);
        /* a grading alone waits for whichever run: those that say who they are */
        if (!c->alone || strcmp(h, HOLDER_UNKNOWN)) sb_printf(&b, "%s%s: %s", b.len ? "; " : "", req->gpus[i], h);
        free(h);
    }
    return b.buf ? b.buf : xstrdup(HOLDERS_UNKNOWN);
}

GpuLockResult gpu_lock(const GpuLockRequest *req, GpuLock *out) {
    memset(out, 0, sizeof *out);
    out->fd = out->dir_fd = out->machine_fd = out->which = -1;
    if (req->ngpus < 1) {
        error("no GPU to lock");
        return GPU_LOCK_FAILED;
    }
    const char *dir = gpu_lock_dir();
    Candidates c = {open_dir(dir), xcalloc((size_t)req->ngpus, sizeof *c.fds), req->ngpus, -1, false, 0};
    if (c.dir < 0) {
        free(c.fds);
        return GPU_LOCK_FAILED;
    }
    char why[256] = ""; /* why the first GPU whose file cannot serve cannot */
    for (int i = 0; i < c.n; i++) {
        char *name = lock_name(req->gpus[i]), wrong[200];
        c.fds[i] = open_gpu_file(c.dir, name, wrong, sizeof wrong);
        if (c.fds[i] < 0 && !why[0]) snprintf(why, sizeof why, "%s/%s is %s", dir, name, wrong);
        free(name);
    }
    char machine_wrong[160];
    c.machine = open_gpu_file(c.dir, MACHINE_LOCK, machine_wrong, sizeof machine_wrong);
    if (c.machine < 0) snprintf(out->machine_why, sizeof out->machine_why, "%s/%s is %s", dir, MACHINE_LOCK, machine_wrong);
    c.alone = req->alone;
    c.what = req->what;
    if (c.alone) why[0] = '\0'; /* the directory is its own to take, whatever the GPUs' files are */
    double timeout = req->timeout_s;
    if (timeout <= 0) timeout = DEFAULT_WAIT_S;

    snprintf(out->why, sizeof out->why, "%s", why);
    GpuLockResult result = GPU_LOCK_HELD;
    bool taken = take(&c);
    if (!taken && req->no_wait) result = GPU_LOCK_TIMED_OUT;
    else if (!taken) {
        bool machine_held = c.kept_out || (c.alone && !c.first && c.machine >= 0); /* by a grading alone */
        char *holder = machine_held ? holder_text(c.machine) : holders_text(req, &c);
        char *whole = why[0] ? xprintf(" (%s: this grading waits for every grading on the machine)", why) : xstrdup("");
        bool named = strcmp(holder, HOLDERS_UNKNOWN) != 0;
        char *message = c.alone ? xprintf("waiting for the other gradings on this machine to end%s%s%s: %s is graded with "
                                          "the judge's own counters, which lose samples beside other work; Ctrl-C stops",
                                          named ? " (" : "", named ? holder : "", named ? ")" : "",
                                          req->what ? req->what : "this exercise")
                        : c.kept_out ? xprintf("waiting: %s has this machine to itself (the judge's own counters lose "
                                               "samples beside other work); Ctrl-C stops", holder)
                        : c.n == 1   ? xprintf("waiting for the GPU (%s): %s holds it%s; Ctrl-C stops", req->gpus[0], holder, whole)
                                     : xprintf("waiting for one of %d GPUs, all busy (%s)%s; Ctrl-C stops", c.n, holder, whole);
        if (req->on_wait) req->on_wait(message, req->ctx);
        free(message);
        free(whole);
        ProcWait waited = proc_wait_for(take, &c, timeout);
        if (waited == PROC_WAIT_TIMED_OUT) {
            if (c.alone || c.kept_out)
                error("this machine stayed busy with other gradings for %g s (%s)%s; GPUCOURSE_GPU_WAIT sets how long "
                      "to wait", timeout, holder, c.alone ? ", and a witnessed grading needs it to itself" : "");
            else if (c.n == 1)
                error("the GPU (%s) stayed busy with other gradings for %g s (%s); GPUCOURSE_GPU_WAIT sets how long "
                      "to wait", req->gpus[0], timeout, holder);
            else
                error("all %d GPUs stayed busy with other gradings for %g s (%s); GPUCOURSE_GPU_WAIT sets how long "
                      "to wait", c.n, timeout, holder);
        }
        free(holder);
        if (waited != PROC_WAIT_DONE) result = waited == PROC_WAIT_INTERRUPTED ? GPU_LOCK_INTERRUPTED : GPU_LOCK_TIMED_OUT;
    }
    if (result == GPU_LOCK_HELD && c.failed) {
        error("cannot lock in the GPU lock directory %s: %s", dir, strerror(c.failed));
        result = GPU_LOCK_FAILED;
    }
    for (int i = 0; i < c.n; i++) /* all but the one held */
        if (c.fds[i] >= 0 && (result != GPU_LOCK_HELD || c.whole || i != c.held)) close(c.fds[i]);
    if (c.machine >= 0 && (result != GPU_LOCK_HELD || !c.alone)) {
        if (c.first) clear_note(c.machine); /* it waited first, and gives up */
        close(c.machine);
    }
    if (result != GPU_LOCK_HELD) {
        close(c.dir);
        free(c.fds);
        return result;
    }
    out->held = true;
    out->which = c.held;
    out->dir_fd = c.dir;
    if (c.alone) out->machine_fd = c.machine; /* its note written when it was taken */
    if (!c.whole) {
        out->why[0] = '\0'; /* another GPU's file could not serve; this one's did */
        note_holder(out->fd = c.fds[c.held], req->what);
    }
    free(c.fds);
    return result;
}

void gpu_unlock(GpuLock *l) {
    if (!l->held) return;
    if (l->fd >= 0) {
        clear_note(l->fd);
        close(l->fd); /* releases the flock */
    }
    if (l->machine_fd >= 0) {
        clear_note(l->machine_fd);
        close(l->machine_fd);
    }
    close(l->dir_fd);
    l->fd = l->dir_fd = l->machine_fd = -1;
    l->held = false;
}
