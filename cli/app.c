/* gpucourse with no command (the app, or the course as text) and watch. */
#define _GNU_SOURCE
#include "cli.h"

int cmd_start(Session *s) {
    Exercise *next = next_exercise(s);
    cmd_list(s);
    if (next) {
        char *file = workspace_exercise_path(&s->ws, next);
        printf("\nEdit %s, then run: gpucourse grade %s\n", file, next->id);
        free(file);
    }
    return 0;
}

/* The terminal app, or watch mode (tui/). */
int run_app(Session *s, const Options *o, const char *key, bool watch) {
    TuiOptions t = {.seed = o->seed, .timeout_s = o->timeout_s, .notice = s->progress.notice};
    if (key && !(t.start = find_exercise(s, key))) return EXIT_USAGE;
    return watch ? tui_watch(s->course, &s->ws, &t) : tui_run(s->course, &s->ws, &t);
}
