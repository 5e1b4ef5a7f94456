/* gpucourse hint EX: the next hint, one more each time. */
#define _GNU_SOURCE
#include "cli.h"

typedef struct {
    const Exercise *e;
    int shown;     /* out: which hint is now the latest seen (1-based) */
    bool revealed; /* out: that one was new now (not all seen before) */
} HintCtx;

static void take_hint(Progress *p, void *ctx) {
    HintCtx *h = ctx;
    ExProgress *x = progress_get(p, h->e->id, true);
    h->revealed = x->hints_seen < h->e->hints.count;
    if (h->revealed) x->hints_seen++;
    h->shown = x->hints_seen;
}

int cmd_hint(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    HintCtx h = {e, 0, false};
    char *notice = NULL;
    if (progress_update(s->ws.progress, take_hint, &h, &notice) < 0) return fail_setup();
    if (notice) fprintf(stderr, "gpucourse: warning: %s\n", notice);
    free(notice);
    for (int i = 0; i < h.shown; i++)
        fprintf_wrapped(stdout, WRAP_PROSE, "Hint %d of %d%s\n%s\n\n", i + 1, e->hints.count,
                        i + 1 == h.shown && h.revealed ? " (new)" : "", e->hints.items[i]);
    if (h.shown == e->hints.count)
        printf(h.revealed ? "That was the last hint for %s.\n" : "No more hints for %s: these are all of them.\n",
               e->id);
    return 0;
}
