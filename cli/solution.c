/* gpucourse solution EX: the reference solution, once passed. */
#define _GNU_SOURCE
#include "cli.h"

int cmd_solution(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    if (status_of(s, e) != ST_PASSED) { /* a refusal, not a mistake in the command: not yet */
        fprintf(stderr, "gpucourse: the reference solution of %s opens once you passed it; 'gpucourse hint %s' "
                        "helps until then\n", e->id, e->id);
        return EXIT_NOT_YET;
    }
    char *path = course_solution_path(s->course, e);
    char *text = read_file(path, NULL);
    free(path);
    if (!text) return fail_setup();
    fprintf_visible(stdout, "%s", text);
    free(text);
    return 0;
}
