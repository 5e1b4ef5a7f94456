/* gpucourse list: the chapters and exercises with the student's status. */
#define _GNU_SOURCE
#include "cli.h"

int cmd_list(Session *s) {
    int name_width = 0; /* the longest name sets the column */
    for (int i = 0; i < s->course->nexercises; i++) {
        int len = (int)strlen(s->course->exercises[i].name);
        if (len > name_width) name_width = len;
    }
    fprintf_visible(stdout, "%s\n", s->course->title);
    for (int c = 0; c < s->course->nchapters; c++) {
        Chapter *ch = &s->course->chapters[c];
        int passed = 0;
        for (int i = 0; i < ch->count; i++) passed += status_of(s, &s->course->exercises[ch->first + i]) == ST_PASSED;
        fprintf_visible(stdout, "\nChapter %d: %s  (%d/%d passed)\n", c + 1, ch->title, passed, ch->count);
        for (int i = 0; i < ch->count; i++) {
            Exercise *e = &s->course->exercises[ch->first + i];
            /* a summary longer than the line (check-course says so) goes on under itself */
            fprintf_wrapped(stdout, 14 + name_width, "  %s %s  %-*s  %s\n", status_mark(status_of(s, e)), e->id,
                            name_width, e->name, e->summary);
        }
    }
    fprintf_wrapped(stdout, WRAP_LABELS,
                    "\n[ ] not started  [~] attempted  [c] compiles  [=] correct, too slow  [x] passed\n");
    Exercise *next = next_exercise(s);
    if (next) printf("Next: %s (gpucourse show %s)\n", next->id, next->id);
    else printf("Every exercise passed. Well done.\n");
    return 0;
}
