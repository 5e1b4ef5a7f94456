/* The student's workspace: their copies of the exercise files, the progress
 * file, backups made by reset, and the build cache. The course data itself
 * (stubs, references, harness) is only read. */
#ifndef GPUCOURSE_WORKSPACE_H
#define GPUCOURSE_WORKSPACE_H

#include "course.h"

typedef struct {
    char *root;      /* --workspace, GPUCOURSE_WORKSPACE or ~/gpucourse */
    char *progress;  /* root/progress.yaml */
    char *build;     /* root/.build: harness programs, libraries */
    char *backups;   /* root/backups: what reset replaced */
} Workspace;

/* Opens (creating it if needed) the workspace and copies in the stub of
 * every exercise the student does not have yet; never overwrites. */
int workspace_open(const Course *c, const char *option, Workspace *w);
void workspace_free(Workspace *w);

/* The student's file for an exercise (malloc'd): root/exercises/FILE. */
char *workspace_exercise_path(const Workspace *w, const Exercise *e);

/* Restores the stub; the student's file is first copied to
 * backups/FILE.TIMESTAMP, whose path is returned through *backup. */
int workspace_reset(const Course *c, const Workspace *w, const Exercise *e, char **backup);

#endif
