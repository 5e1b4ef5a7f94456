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

static bool take(void *fd) { return flock(*(int *)fd, LOCK_EX | LOCK_NB) == 0; }

GpuLockResult gpu_lock(const GpuLockRequest *req, GpuLock *out) {
    out->fd = -1;
    char *path = gpu_lock_path(req->gpu);
    int fd = open_lock(path);
    if (fd < 0) {
        error("cannot open the GPU's lock %s: %s (GPUCOURSE_LOCK_DIR names a directory every user can write)", path,
              strerror(errno));
        free(path);
        return GPU_LOCK_FAILED;
    }
    free(path);
    double timeout = req->timeout_s;
    if (timeout <= 0) timeout = DEFAULT_WAIT_S;

    if (!take(&fd)) {
        char *holder = holder_text(fd);
        char *message = xprintf("waiting for the GPU (%s): %s holds it; Ctrl-C stops", req->gpu, holder);
        if (req->on_wait) req->on_wait(message, req->ctx);
        free(message);
        ProcWait waited = proc_wait_for(take, &fd, timeout);
        if (waited == PROC_WAIT_TIMED_OUT)
            error("the GPU (%s) stayed busy with other gradings for %g s (%s); GPUCOURSE_GPU_WAIT sets how long to "
                  "wait", req->gpu, timeout, holder);
        free(holder);
        if (waited != PROC_WAIT_DONE) {
            close(fd);
            return waited == PROC_WAIT_INTERRUPTED ? GPU_LOCK_INTERRUPTED : GPU_LOCK_TIMED_OUT;
        }
    }
    char me[160];
    int n = snprintf(me, sizeof me, "pid %d of uid %d grading %s\n", (int)getpid(), (int)getuid(),
                     req->what ? req->what : "?");
    /* a file we may only read (another user's, made before it was 0666) keeps no note */
    bool noted = ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) == n;
    (void)noted;
    out->fd = fd;
    return GPU_LOCK_HELD;
}

void gpu_unlock(GpuLock *l) {
    if (l->fd >= 0) {
        bool cleared = ftruncate(l->fd, 0) == 0; /* the note goes with the lock */
        (void)cleared;
        close(l->fd); /* releases the flock */
    }
    l->fd = -1;
}
