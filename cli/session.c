/* The course and the workspace that the commands share: loaded once, and
 * the exercises a command names found in them. */
#define _GNU_SOURCE
#include "cli.h"

/* Whether the course lies in the workspace (error set when it does): the
 * workspace's files are the student's, and a course among them would be
 * theirs too, its floors and its harness, which runs unconfined. gpucourse
 * takes the course from the current directory when it holds one: a CI that
 * grades a student's repository where it was checked out would find there
 * whatever course the student put in it. */
static bool course_in_workspace(const Course *c, const Workspace *w) {
    bool in = path_within(c->root, w->root);
    if (in)
        error("the course in '%s' lies in the workspace '%s': a course among the student's files would be theirs "
              "(its floors, its harness); keep your work apart from the course (--workspace DIR or "
              "GPUCOURSE_WORKSPACE; a clone of gpucourse made as ~/gpucourse is the default workspace), or give "
              "the course from elsewhere (--course DIR or GPUCOURSE_COURSE)",
              c->root, w->root);
    return in;
}

int session_open(const Options *o, Session *s, bool need_workspace) {
    memset(s, 0, sizeof *s);
    char *root = course_locate(o->course_dir);
    if (!root) return fail_setup();
    StrList problems = {0};
    s->course = course_load(root, &problems);
    free(root);
    if (!s->course) {
        for (int i = 0; i < problems.count; i++) fprintf_visible(stderr, "%s\n", problems.items[i]);
        char *message = xprintf("the course has %d problem%s; run 'gpucourse check-course'", problems.count,
                                problems.count == 1 ? "" : "s");
        if (!failure.code) failure.details = problems; /* for the error document */
        else strlist_free(&problems);
        int rc = fail(EXIT_SETUP, message, "");
        free(message);
        return rc;
    }
    if (!need_workspace) return 0;
    if (workspace_open(s->course, o->workspace_dir, &s->ws) < 0) return fail_setup();
    if (course_in_workspace(s->course, &s->ws)) return fail_setup();
    if (progress_load(s->ws.progress, &s->progress) < 0) return fail_setup();
    if (s->progress.notice) fprintf(stderr, "gpucourse: warning: %s\n", s->progress.notice);
    return 0;
}

void session_close(Session *s) {
    progress_free(&s->progress);
    workspace_free(&s->ws);
    course_free(s->course);
}

/* The exercise named on the command line; NULL after saying why (the caller
 * exits with EXIT_USAGE). */
Exercise *find_exercise(Session *s, const char *key) {
    Exercise *e = course_find(s->course, key ? key : "");
    if (!e) fail_no_exercise();
    return e;
}

ExStatus status_of(Session *s, const Exercise *e) {
    ExProgress *p = progress_get(&s->progress, e->id, false);
    return p ? p->status : ST_NOT_STARTED;
}

const char *status_mark(ExStatus st) {
    static const char *const marks[ST_COUNT] = {"[ ]", "[~]", "[c]", "[=]", "[x]"};
    return st < ST_COUNT ? marks[st] : "[?]";
}

/* The first exercise not passed yet, or NULL when all are. */
Exercise *next_exercise(Session *s) {
    for (int i = 0; i < s->course->nexercises; i++)
        if (status_of(s, &s->course->exercises[i]) != ST_PASSED) return &s->course->exercises[i];
    return NULL;
}

/* The exercises a grade names: EX..., --chapter N or --all, into *list
 * (malloc'd), in the order named, each once; how many, or -1 after saying
 * why (a usage error, before anything is graded). */
int selected_exercises(Session *s, const Options *o, const char *const *keys, int nkeys,
                              const Exercise ***list) {
    *list = xcalloc((size_t)s->course->nexercises, sizeof **list);
    int count = 0;
    if (o->all) {
        for (int i = 0; i < s->course->nexercises; i++) (*list)[count++] = &s->course->exercises[i];
    } else if (o->chapter) {
        int chapter = chapter_index(s->course, o->chapter);
        if (chapter < 0) return -1;
        Chapter *ch = &s->course->chapters[chapter];
        for (int i = 0; i < ch->count; i++) (*list)[count++] = &s->course->exercises[ch->first + i];
    } else {
        bool *named = xcalloc((size_t)s->course->nexercises, sizeof *named);
        for (int k = 0; k < nkeys; k++) {
            Exercise *e = find_exercise(s, keys[k]);
            if (!e) {
                free(named);
                return -1;
            }
            if (!named[e->index]) (*list)[count++] = e;
            named[e->index] = true;
        }
        free(named);
    }
    return count;
}
