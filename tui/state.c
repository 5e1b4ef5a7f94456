/* The terminal app's state as the views read it (state.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "state.h"

const ExProgress *app_progress(const App *a, int ex) {
    return progress_get((Progress *)&a->progress, a->course->exercises[ex].id, false);
}

ExStatus app_status(const App *a, int ex) {
    const ExProgress *p = app_progress(a, ex);
    return p ? p->status : ST_NOT_STARTED;
}

int app_passed(const App *a, int first, int count) {
    int passed = 0;
    for (int i = first; i < first + count; i++) passed += app_status(a, i) == ST_PASSED;
    return passed;
}

void app_message(App *a, Style s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    a->message_style = s;
}

const char *app_editor(void) {
    const char *editor = getenv("VISUAL");
    if (!editor || !*editor) editor = getenv("EDITOR");
    return editor && *editor ? editor : "vi";
}
