/* gpucourse progress: the student's progress through the course. */
#define _GNU_SOURCE
#include "cli.h"

/* The best ratio of an exercise's progress as shown: 1.25x, or "-". */
static void best_text(const ExProgress *p, char *buf, size_t size) {
    if (p && p->best_vs_reference > 0) snprintf(buf, size, "%.2fx", p->best_vs_reference);
    else snprintf(buf, size, "-");
}

int cmd_progress(Session *s) {
    /* the widest cell sets each column, so that a long name or a big count
     * does not push the rest of its row out of line */
    int id_w = 4, name_w = 4, status_w = 6, attempts_w = 8, best_w = 8;
    char cell[64];
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        int len;
        if ((len = (int)strlen(e->id)) > id_w) id_w = len;
        if ((len = (int)strlen(e->name)) > name_w) name_w = len;
        if ((len = (int)strlen(status_name(p ? p->status : ST_NOT_STARTED))) > status_w) status_w = len;
        if ((len = snprintf(cell, sizeof cell, "%d", p ? p->attempts : 0)) > attempts_w) attempts_w = len;
        best_text(p, cell, sizeof cell);
        if ((len = (int)strlen(cell)) > best_w) best_w = len;
    }
    int passed = 0;
    printf("%-*s  %-*s %-*s %*s %7s %*s  %s\n", id_w, "id", name_w, "name", status_w, "status", attempts_w, "attempts",
           "hints", best_w, "best/ref", "last verdict");
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        ExStatus st = p ? p->status : ST_NOT_STARTED;
        passed += st == ST_PASSED;
        best_text(p, cell, sizeof cell);
        printf("%-*s  %-*s %-*s %*d %3d/%-3d %*s  %s\n", id_w, e->id, name_w, e->name, status_w, status_name(st),
               attempts_w, p ? p->attempts : 0, p ? p->hints_seen : 0, e->hints.count, best_w, cell,
               p && p->last_verdict[0] ? p->last_verdict : "-");
    }
    printf("\n%d of %d exercise%s passed (%s)\n", passed, s->course->nexercises, s->course->nexercises == 1 ? "" : "s",
           s->ws.progress);
    return 0;
}
