#define _GNU_SOURCE
#include "watch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../src/util.h"

struct Watcher {
    int fd;
    int wd;
};

Watcher *watcher_new(const char *dir) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
        error("cannot watch files: inotify: %s", strerror(errno));
        return NULL;
    }
    int wd = inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY);
    if (wd < 0) {
        error("cannot watch '%s': %s", dir, strerror(errno));
        close(fd);
        return NULL;
    }
    Watcher *w = xcalloc(1, sizeof *w);
    w->fd = fd;
    w->wd = wd;
    return w;
}

void watcher_free(Watcher *w) {
    if (!w) return;
    close(w->fd);
    free(w);
}

int watcher_fd(const Watcher *w) { return w->fd; }

bool watch_ignored(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || name[0] == '.' || name[0] == '#') return true; /* .x.swp, .#x (emacs lock), #x# */
    if (name[n - 1] == '~') return true;                          /* x~ backups */
    if (!strcmp(name, "4913")) return true;                        /* vim's test of the directory */
    static const char *const endings[] = {".swp", ".swo", ".swx", ".tmp", ".bak", ".orig"};
    for (size_t i = 0; i < ARRAY_SIZE(endings); i++) {
        size_t e = strlen(endings[i]);
        if (n > e && !strcmp(name + n - e, endings[i])) return true;
    }
    return false;
}

void watcher_read(Watcher *w, void (*saved)(const char *name, bool written, void *ctx), void *ctx) {
    char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)]
        __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0) return; /* EAGAIN: all read */
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (!ev->len || (ev->mask & IN_ISDIR)) continue;
            if (watch_ignored(ev->name)) continue;
            saved(ev->name, (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0, ctx);
        }
    }
}

void debounce_poke(Debounce *b, int what, double now, bool written) {
    b->due = now + (written ? WATCH_SETTLE_S : WATCH_DEBOUNCE_S);
    b->what = what;
}

int debounce_wait_ms(const Debounce *b, double now) {
    if (b->due == 0) return -1;
    double left = b->due - now;
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

bool debounce_take(Debounce *b, double now, int *what) {
    if (b->due == 0 || now < b->due) return false;
    b->due = 0;
    *what = b->what;
    return true;
}
