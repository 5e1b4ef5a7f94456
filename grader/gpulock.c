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

enum { DEFAULT_WAIT_S = 600 };

char *gpu_lock_path(const char *gpu) {
    const char *dir = getenv("GPUCOURSE_LOCK_DIR");
    if (!dir || !*dir) dir = "/tmp";
    char name[96];
    size_t n = 0;
    for (const char *c = gpu; *c && n < sizeof name - 1; c++) /* a file name from any id */
        name[n++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                                   *c == '-' || *c == '_'
                               ? *c
                               : '_');
    name[n] = '\0';
    return xprintf("%s/gpucourse-gpu-%s.lock", dir, name);
}

/* Opens the lock file, creating it readable and writable by everyone. An
 * existing file is opened without O_CREAT (in a sticky /tmp the kernel's
 * protected_regular refuses O_CREAT on another user's file), never through
 * a symbolic link. */
static int open_lock(const char *path) {
    for (int tries = 0; tries < 3; tries++) {
        int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == EACCES) fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT) return fd;
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            fchmod(fd, 0666); /* whatever the umask: other users lock it too */
            return fd;
        }
        if (errno != EEXIST) return -1; /* else another process created it just now: open that one */
    }
    return -1;
}

/* What the holder wrote into the file, its first line made safe to show
 * (another user's text). */
static char *holder_text(int fd) {
    char buf[160];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return xstrdup("another grading run");
    buf[n] = '\0';
    StrBuf b = {0};
    sb_add_visible(&b, buf, strcspn(buf, "\n"));
    return b.buf ? b.buf : xstrdup("another grading run");
}

/* The lock files of a request's GPUs, open; take() tries each in turn. */
typedef struct {
    int *fds;
    int n, held; /* held: the index taken, -1 none */
} Candidates;

static bool take(void *ctx) {
    Candidates *c = ctx;
    for (int i = 0; i < c->n; i++)
        if (flock(c->fds[i], LOCK_EX | LOCK_NB) == 0) {
            c->held = i;
            return true;
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
        sb_printf(&b, "%s%s: %s", i ? "; " : "", req->gpus[i], h);
        free(h);
    }
    return b.buf;
}

GpuLockResult gpu_lock(const GpuLockRequest *req, GpuLock *out) {
    out->fd = -1;
    out->which = -1;
    if (req->ngpus < 1) {
        error("no GPU to lock");
        return GPU_LOCK_FAILED;
    }
    Candidates c = {xcalloc((size_t)req->ngpus, sizeof *c.fds), req->ngpus, -1};
    for (int i = 0; i < c.n; i++) c.fds[i] = -1;
    GpuLockResult result = GPU_LOCK_HELD;
    for (int i = 0; i < c.n; i++) {
        char *path = gpu_lock_path(req->gpus[i]);
        c.fds[i] = open_lock(path);
        if (c.fds[i] < 0) {
            error("cannot open the GPU's lock %s: %s (GPUCOURSE_LOCK_DIR names a directory every user can write)",
                  path, strerror(errno));
            result = GPU_LOCK_FAILED;
        }
        free(path);
        if (result != GPU_LOCK_HELD) break;
    }
    double timeout = req->timeout_s;
    if (timeout <= 0) timeout = DEFAULT_WAIT_S;

    if (result == GPU_LOCK_HELD && !take(&c)) {
        char *holder = holders_text(req, &c);
        char *message = c.n == 1 ? xprintf("waiting for the GPU (%s): %s holds it; Ctrl-C stops", req->gpus[0], holder)
                                 : xprintf("waiting for one of %d GPUs, all busy (%s); Ctrl-C stops", c.n, holder);
        if (req->on_wait) req->on_wait(message, req->ctx);
        free(message);
        ProcWait waited = proc_wait_for(take, &c, timeout);
        if (waited == PROC_WAIT_TIMED_OUT) {
            if (c.n == 1)
                error("the GPU (%s) stayed busy with other gradings for %g s (%s); GPUCOURSE_GPU_WAIT sets how long "
                      "to wait", req->gpus[0], timeout, holder);
            else
                error("all %d GPUs stayed busy with other gradings for %g s (%s); GPUCOURSE_GPU_WAIT sets how long "
                      "to wait", c.n, timeout, holder);
        }
        free(holder);
        if (waited != PROC_WAIT_DONE) result = waited == PROC_WAIT_INTERRUPTED ? GPU_LOCK_INTERRUPTED : GPU_LOCK_TIMED_OUT;
    }
    for (int i = 0; i < c.n; i++) /* all but the one held */
        if (c.fds[i] >= 0 && (result != GPU_LOCK_HELD || i != c.held)) close(c.fds[i]);
    if (result == GPU_LOCK_HELD) {
        int fd = c.fds[c.held];
        char me[160];
        int n = snprintf(me, sizeof me, "pid %d of uid %d grading %s\n", (int)getpid(), (int)getuid(),
                         req->what ? req->what : "?");
        /* a file we may only read (another user's, made before it was 0666) keeps no note */
        bool noted = ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) == n;
        (void)noted;
        out->fd = fd;
        out->which = c.held;
    }
    free(c.fds);
    return result;
}

void gpu_unlock(GpuLock *l) {
    if (l->fd >= 0) {
        bool cleared = ftruncate(l->fd, 0) == 0; /* the note goes with the lock */
        (void)cleared;
        close(l->fd); /* releases the flock */
    }
    l->fd = -1;
}
