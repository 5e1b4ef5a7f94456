/* Watching the student's exercise files for saves (inotify on the
 * directory, so that editors that save by renaming a new file over the old
 * are seen too), and debouncing: an editor's save is several events, and a
 * grading run starts once they have been quiet for WATCH_DEBOUNCE_S, or for
 * WATCH_SETTLE_S after an event that ends a write (the file closed after
 * writing, or a new file renamed into place): those come last in a save,
 * and the student waits for the verdict. No curses here. */
#ifndef GPUCOURSE_TUI_WATCH_H
#define GPUCOURSE_TUI_WATCH_H

#include <stdbool.h>

#define WATCH_DEBOUNCE_S 0.15
#define WATCH_SETTLE_S 0.03

typedef struct Watcher Watcher;

/* Watches the files in dir; NULL with error set when inotify is not there. */
Watcher *watcher_new(const char *dir);
void watcher_free(Watcher *w);
/* The descriptor to poll for events. */
int watcher_fd(const Watcher *w);
/* Reads the events that are there (never blocks) and calls saved(name,
 * written) for every file written or moved into place that is not an
 * editor's own file; written: the event ends a write (closed after writing,
 * or renamed into place). */
void watcher_read(Watcher *w, void (*saved)(const char *name, bool written, void *ctx), void *ctx);

/* Swap, backup and lock files of editors: .x.swp, x~, 4913 (vim), .#x and
 * #x# (emacs), and hidden files in general. */
bool watch_ignored(const char *name);

/* A debounce: poke it at every event; it is due once quiet long enough. */
typedef struct {
    double due; /* 0: nothing pending */
    int what;   /* what the last poke was about */
} Debounce;

/* written: the event ended a write (WATCH_SETTLE_S), else WATCH_DEBOUNCE_S */
void debounce_poke(Debounce *b, int what, double now, bool written);
/* Milliseconds until due (0 when due now), or -1 when nothing is pending. */
int debounce_wait_ms(const Debounce *b, double now);
/* When due: returns true and what, and clears it. */
bool debounce_take(Debounce *b, double now, int *what);

#endif
