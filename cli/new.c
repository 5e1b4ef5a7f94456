/* gpucourse new: the files of a new course, chapter or exercise. */
#define _GNU_SOURCE
#include "cli.h"

/* gpucourse new course DIR | chapter NAME | exercise CHAPTER NAME --kind
 * KIND: the files of a new part of a course (src/scaffold.c), then what to
 * do next. Works on a course that does not load yet (a chapter without
 * exercises is what new chapter leaves). */
int cmd_new(const Options *o, const char *const *args, int nargs) {
    static const char usage[] = "new course DIR | new chapter NAME | new exercise CHAPTER NAME --kind KIND";
    const char *what = nargs ? args[0] : "";
    int want = !strcmp(what, "course") || !strcmp(what, "chapter") ? 2 : !strcmp(what, "exercise") ? 3 : 0;
    if (!want) return fail_usage("'gpucourse new' makes one of: %s", usage);
    if (nargs != want) return fail_usage("usage: gpucourse %s", usage);
    if ((want == 3) != (o->kind != NULL))
        return fail_usage("%s", want == 3 ? "new exercise needs --kind KIND (a file in harness/kinds/)"
                                          : "--kind goes with new exercise");
    StrList made = {0};
    int rc;
    char *root = NULL;
    if (want == 2 && !strcmp(what, "course")) {
        rc = scaffold_course(args[1], o->title, &made);
        root = xstrdup(args[1]);
    } else {
        if (!(root = course_locate(o->course_dir))) return fail_setup();
        rc = want == 2 ? scaffold_chapter(root, args[1], o->title, &made)
                       : scaffold_exercise(root, args[1], args[2], o->kind, o->title, &made);
    }
    if (rc < 0) {
        fprintf(stderr, "gpucourse: %s\n", last_error());
        free(root);
        strlist_free(&made);
        return rc == SCAFFOLD_REFUSED ? EXIT_USAGE : EXIT_SETUP;
    }
    /* the YAML that was appended to comes last; new course only creates */
    bool appended = strcmp(what, "course") != 0;
    for (int i = 0; i < made.count; i++)
        printf("%s %s\n", appended && i + 1 == made.count ? "updated" : "created", made.items[i]);
    if (!strcmp(what, "course")) {
        printf("Next: gpucourse --course %s new chapter NAME\n", args[1]);
    } else if (want == 2) {
        const char *dir = made.items[0] + strlen("course/"); /* course/NN-NAME/chapter.yaml */
        printf("Next: write the lesson, then: gpucourse new exercise %.*s NAME --kind KIND\n",
               (int)strcspn(dir, "/"), dir);
    } else {
        printf("Next: the TODOs in the YAML entry, the stub and the reference; then gpucourse check-course\n");
    }
    free(root);
    strlist_free(&made);
    return 0;
}
