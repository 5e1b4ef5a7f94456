/* The student's workspace: their copies of the exercise files, the progress
 * file, backups made by reset, and the build cache. The course data itself
 * (stubs, references, harness) is only read. */
#ifndef GPUCOURSE_WORKSPACE_H
#define GPUCOURSE_WORKSPACE_H

#include "course.h"

typedef struct {
    char *root;      /* --workspace, GPUCOURSE_WORKSPACE, or ~/gpucourse for the course that comes
                      * with gpucourse (id gpucourse), ~/gpucourse/courses/ID for any other */
    char *progress;  /* root/progress.yaml */
    char *build;     /* root/.build: harness programs, libraries */
    char *backups;   /* root/backups: what reset replaced */
} Workspace;

/* Opens (creating it if needed) the workspace and copies in the stub of
 * every exercise the student does not have yet; never overwrites. A
 * workspace is one course's: root/.course-id holds its id, written by the
 * first course that opens it; another course is refused (its progress and
 * files are named by exercise ids and file names that two courses share). Removes
 * the temp files that processes killed before their rename left
 * (progress.yaml.tmp.PID; in .build, NAME.tmp.PID and NAME.PID.tmp): only a
 * dead pid's, and only minutes after their last write. */
int workspace_open(const Course *c, const char *option, Workspace *w);

/* Where a course with this id keeps its workspace when none is named (no
 * --workspace, no GPUCOURSE_WORKSPACE): ~/gpucourse for the bundled course,
 * ~/gpucourse/courses/ID for any other (malloc'd); NULL when HOME is not set. */
char *workspace_default_root(const char *id);
void workspace_free(Workspace *w);

/* The student's file for an exercise (malloc'd): root/exercises/FILE. */
char *workspace_exercise_path(const Workspace *w, const Exercise *e);

/* Restores the stub; the student's file is first copied to
 * backups/FILE.TIMESTAMP (FILE.TIMESTAMP-2, ... when taken, also by a reset
 * running at the same time), whose path is returned through *backup, unless
 * it is still the stub (then *backup is NULL). The backup has the student's
 * file's mode, and the restored file keeps it. */
int workspace_reset(const Course *c, const Workspace *w, const Exercise *e, char **backup);

#endif
