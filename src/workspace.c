#define _GNU_SOURCE
#include "workspace.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int workspace_open(const Course *c, const char *option, Workspace *w) {
    memset(w, 0, sizeof *w);
    const char *env = getenv("GPUCOURSE_WORKSPACE");
    if (option) w->root = xstrdup(option);
    else if (env && *env) w->root = xstrdup(env);
    else {
        const char *home = getenv("HOME");
        if (!home || !*home) return error("no workspace: HOME is not set; give --workspace DIR");
        w->root = xprintf("%s/gpucourse", home);
    }
    w->progress = path_join(w->root, "progress.yaml");
    w->build = path_join(w->root, ".build");
    w->backups = path_join(w->root, "backups");
    char *exercises = path_join(w->root, "exercises");
    int rc = make_dirs(exercises);
    if (rc == 0) rc = make_dirs(w->build);
    for (int i = 0; rc == 0 && i < c->nexercises; i++) {
        char *mine = workspace_exercise_path(w, &c->exercises[i]);
        if (access(mine, F_OK) != 0) {
            char *stub = course_stub_path(c, &c->exercises[i]);
            rc = copy_file(stub, mine);
            free(stub);
        }
        free(mine);
    }
    free(exercises);
    return rc;
}

void workspace_free(Workspace *w) {
    free(w->root);
    free(w->progress);
    free(w->build);
    free(w->backups);
    memset(w, 0, sizeof *w);
}

char *workspace_exercise_path(const Workspace *w, const Exercise *e) {
    return xprintf("%s/exercises/%s", w->root, e->file);
}

int workspace_reset(const Course *c, const Workspace *w, const Exercise *e, char **backup) {
    *backup = NULL;
    char *mine = workspace_exercise_path(w, e);
    char *stub = course_stub_path(c, e);
    int rc = 0;
    if (file_exists(mine)) {
        char stamp[32];
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        rc = make_dirs(w->backups);
        char *target = xprintf("%s/%s.%s", w->backups, e->file, stamp);
        for (int k = 2; rc == 0 && access(target, F_OK) == 0; k++) {
            free(target);
            target = xprintf("%s/%s.%s-%d", w->backups, e->file, stamp, k);
        }
        if (rc == 0) rc = copy_file(mine, target);
        if (rc == 0) *backup = target;
        else free(target);
    }
    /* only once the backup is safely written */
    if (rc == 0) rc = copy_file(stub, mine);
    free(mine);
    free(stub);
    return rc;
}
