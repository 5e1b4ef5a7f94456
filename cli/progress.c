/* gpucourse progress: the student's progress through the course. */
#define _GNU_SOURCE
#include "cli.h"

/* The best ratio of an exercise's progress as shown: 1.25x, or "-". */
static void best_text(const ExProgress *p, char *buf, size_t size) {
    if (p && p->best_vs_reference > 0) snprintf(buf, size, "%.2fx", p->best_vs_reference);
    else snprintf(buf, size, "-");
}

/* progress --format json: the table as one document, for a CI (README.md,
 * "progress and doctor as JSON"): a member per column, null for none. */
static void progress_json(Session *s) {
    int passed = 0, n = s->course->nexercises;
    fputs("{\n  \"course\": ", stdout);
    json_string(stdout, s->course->title);
    fputs(",\n  \"progress_file\": ", stdout);
    json_string(stdout, s->ws.progress);
    fputs(",\n  \"exercises\": [", stdout);
    for (int i = 0; i < n; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        ExStatus st = p ? p->status : ST_NOT_STARTED;
        passed += st == ST_PASSED;
        fputs(i ? ",\n    {\"id\": " : "\n    {\"id\": ", stdout);
        json_string(stdout, e->id);
        fputs(", \"name\": ", stdout);
        json_string(stdout, e->name);
        printf(", \"chapter\": %d, \"status\": \"%s\", \"attempts\": %d, \"hints_seen\": %d, \"hints\": %d, "
               "\"best_vs_reference\": ", e->chapter + 1, status_key(st), p ? p->attempts : 0, p ? p->hints_seen : 0,
               e->hints.count);
        json_number(stdout, p && p->best_vs_reference > 0 ? p->best_vs_reference : NAN); /* NaN: null */
        fputs(", \"last_verdict\": ", stdout);
        if (p && p->last_verdict[0]) json_string(stdout, p->last_verdict);
        else fputs("null", stdout);
        fputc('}', stdout);
    }
    printf("%s],\n  \"passed\": %d,\n  \"total\": %d,\n  \"error\": null\n}\n", n ? "\n  " : "", passed, n);
}

int cmd_progress(Session *s, const Options *o) {
    if (o->format == FORMAT_JSON) {
        progress_json(s);
        return 0;
    }
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
    printf("%-*s  %-*s  %-*s %*s %7s %*s  %s\n", id_w, "id", name_w, "name", status_w, "status", attempts_w, "attempts",
           "hints", best_w, "best/ref", "last verdict");
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        ExStatus st = p ? p->status : ST_NOT_STARTED;
        passed += st == ST_PASSED;
        best_text(p, cell, sizeof cell);
        printf("%-*s  %-*s  %-*s %*d %3d/%-3d %*s  %s\n", id_w, e->id, name_w, e->name, status_w, status_name(st),
               attempts_w, p ? p->attempts : 0, p ? p->hints_seen : 0, e->hints.count, best_w, cell,
               p && p->last_verdict[0] ? p->last_verdict : "-");
    }
    printf("\n%d of %d exercise%s passed (%s)\n", passed, s->course->nexercises, s->course->nexercises == 1 ? "" : "s",
           s->ws.progress);
    return 0;
}
