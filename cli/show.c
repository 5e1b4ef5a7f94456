/* gpucourse show EX: the task of an exercise and where its file is. */
#define _GNU_SOURCE
#include "cli.h"

int cmd_show(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    ExProgress *p = progress_get(&s->progress, e->id, false);
    char *file = workspace_exercise_path(&s->ws, e);
    Chapter *ch = &s->course->chapters[e->chapter];
    fprintf_wrapped(stdout, WRAP_LABELS, "%s %s: %s\n", e->id, e->name, e->title);
    fprintf_wrapped(stdout, WRAP_LABELS, "Chapter %d: %s (lesson: %s)\n\n", e->chapter + 1, ch->title, ch->lesson_path);
    fprintf_wrapped(stdout, WRAP_PROSE, "%s\n", e->task);
    if (e->task[0] && e->task[strlen(e->task) - 1] != '\n') putchar('\n');
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
