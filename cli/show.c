/* gpucourse show EX: the task of an exercise and where its file is. */
#define _GNU_SOURCE
#include "cli.h"

#include "../tui/markdown.h"

/* Markdown (a task, a lesson) as plain text wrapped to width columns: the
 * app's renderer (tui/markdown.c) without its styles, made visible. */
char *markdown_text(const char *markdown, int width) {
    Doc d = {0};
    md_render(&d, markdown, width);
    StrBuf sb = {0};
    for (int i = 0; i < d.count; i++) {
        sb_add_visible(&sb, d.lines[i].text ? d.lines[i].text : "", d.lines[i].len);
        sb_add(&sb, "\n", 1);
    }
    doc_free(&d);
    return sb_take(&sb);
}

int cmd_show(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    ExProgress *p = progress_get(&s->progress, e->id, false);
    char *file = workspace_exercise_path(&s->ws, e);
    Chapter *ch = &s->course->chapters[e->chapter];
    fprintf_wrapped(stdout, WRAP_LABELS, "%s %s: %s\n", e->id, e->name, e->title);
    fprintf_wrapped(stdout, WRAP_LABELS, "Chapter %d: %s (its lesson%s%s%s: gpucourse lesson %s)\n\n", e->chapter + 1,
                    ch->title, e->lesson_section ? ", at \"" : "", e->lesson_section ? e->lesson_section : "",
                    e->lesson_section ? "\"" : "", e->id);
    char *task = markdown_text(e->task, output_width(stdout)); /* the task as text, not markdown */
    fputs(task, stdout);
    if (task[0] && task[strlen(task) - 1] != '\n') putchar('\n');
    putchar('\n');
    free(task);
    fprintf_wrapped(stdout, 12, "Your file:  %s\n", file);
    printf("Status:     %s, %d attempt%s", status_name(p ? p->status : ST_NOT_STARTED), p ? p->attempts : 0,
           p && p->attempts == 1 ? "" : "s");
    if (p && p->best_vs_reference > 0) printf(", best %.2fx the reference", p->best_vs_reference);
    char *rule = exercise_pass_rule(e);
    fprintf_wrapped(stdout, 12, "\nTo pass:    %s", rule);
    free(rule);
    printf("\nHints:      %d of %d seen (gpucourse hint %s)\n", p ? p->hints_seen : 0, e->hints.count, e->id);
    free(file);
    return 0;
}
