/* gpucourse reset EX: the stub again, the student's file kept. */
#define _GNU_SOURCE
#include "cli.h"

int cmd_reset(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    char *backup = NULL;
    if (workspace_reset(s->course, &s->ws, e, &backup) < 0) return fail_setup();
    char *file = workspace_exercise_path(&s->ws, e);
    printf("%s is the stub again: %s\n", e->id, file);
    if (backup) printf("Your previous file is kept as %s\n", backup);
    free(file);
    free(backup);
    return 0;
}
