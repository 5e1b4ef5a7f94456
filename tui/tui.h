/* The terminal app and watch mode: what cli/main.c calls. Only tui/ includes
 * curses; this header does not. */
#ifndef GPUCOURSE_TUI_H
#define GPUCOURSE_TUI_H

#include "../src/course.h"
#include "../src/workspace.h"

typedef struct {
    const Exercise *start;     /* open on this exercise (NULL: the next unfinished) */
    bool watch;                /* start with watch mode on */
    unsigned long long seed;   /* --seed, 0: fresh */
    int timeout_s;             /* --timeout, 0: the exercise's */
    const char *notice;        /* a warning to show at start (damaged progress) */
} TuiOptions;

/* Whether the app can be drawn here: stdin and stdout a terminal whose TERM
 * terminfo knows and can move the cursor. Where not (a pipe, TERM unset or
 * dumb), the course is shown as text. */
bool tui_can_draw(void);

/* The full-screen app. Returns the exit code: 0, or 65 when the terminal
 * cannot be used (the reason is then in last_error()). */
int tui_run(const Course *c, const Workspace *w, const TuiOptions *o);

/* `gpucourse watch [EX]`: the app in watch mode where it can be drawn;
 * elsewhere a plain loop that grades on every save and prints each report.
 * o->start NULL: any exercise file that is saved. */
int tui_watch(const Course *c, const Workspace *w, const TuiOptions *o);

#endif
