/* The student's progress: one YAML file per workspace, an entry per exercise
 * id. Written atomically (temp file, fsync, rename) under an exclusive lock,
 * so two gpucourse processes never lose each other's updates. A damaged file
 * is moved aside and reported, never silently replaced; what was good in it
 * is kept. A symlinked file stays a link: the writes go to its target. */
#ifndef GPUCOURSE_PROGRESS_H
#define GPUCOURSE_PROGRESS_H

#include "util.h"

enum {
    PROGRESS_VERSION = 1,
    PROGRESS_COUNT_MAX = 1000000000, /* attempts and hints_seen: the most the reader takes, where counts stop */
};

/* In order: a status never goes down (last_verdict says what happened last). */
typedef enum { ST_NOT_STARTED, ST_ATTEMPTED, ST_COMPILES, ST_CORRECT, ST_PASSED, ST_COUNT } ExStatus;

typedef struct {
    char id[32];
    ExStatus status;
    int attempts;
    int hints_seen;
    double best_vs_reference; /* 0 until a timed, correct run */
    double best_vs_baseline;
    double best_vs_library;   /* against the kind's library (cuBLAS, CUB), at the first timing size */
    double best_tflops;       /* the student's TFLOP/s at the first timing size (GEMMs), for ladders */
    char last_verdict[32];
    char first_attempt[40], last_attempt[40], passed_at[40];
} ExProgress;

/* What the file holds that this gpucourse does not know (a newer one's keys),
 * kept as read and written back (progress.c). */
typedef struct KeptValues KeptValues;

typedef struct {
    ExProgress *items;
    int count, cap;
    char *notice; /* set when the file was damaged and moved aside: tell the user */
    KeptValues *kept;
} Progress;

const char *status_name(ExStatus s);  /* "not started", "attempted", ... */
const char *status_key(ExStatus s);   /* as stored: not_started, attempted, ... */

/* Missing file: empty progress. Damaged file: moved aside (PATH.damaged-
 * STAMP), notice set, returns 0; when only some entries or values are bad,
 * the rest is loaded and written back, and the notice names what was left
 * out (file:line:col). A key twice is damage too: at the top level the whole
 * file's, in an entry that entry's, an exercise listed twice both of its
 * entries' (which one is right cannot be known). Keys not known here are kept
 * and written back as read. Returns -1 (error set) only when the file cannot
 * be read, moved aside or written, or is from a newer gpucourse. */
int progress_load(const char *path, Progress *p);
int progress_save(const char *path, const Progress *p);
void progress_free(Progress *p);

/* The file that is read and written for path: its symlinks followed, also to
 * a target not yet written, within path's directory and below it (malloc'd;
 * NULL, error set, on a symlink loop or a link out of that directory). */
char *progress_target(const char *path);

/* The entry for id, or NULL. */
const ExProgress *progress_find(const Progress *p, const char *id);
/* The entry for id; created when create is true, else NULL when absent. */
ExProgress *progress_get(Progress *p, const char *id, bool create);
/* One more attempt, up to PROGRESS_COUNT_MAX: a count past what the reader
 * takes would get the file set aside as damaged. */
void progress_add_attempt(ExProgress *e);

/* Locked read-modify-write: loads, calls change(p, ctx), saves. A notice
 * about a damaged file is returned through *notice (malloc'd) if not NULL. */
int progress_update(const char *path, void (*change)(Progress *, void *), void *ctx, char **notice);

/* Creates PREFIX + STAMP (local time, 20261122-100405), else PREFIX + STAMP-2,
 * -3, ..., with O_EXCL: two processes in the same second never get the same
 * name, and nothing there is replaced. Returns the name (malloc'd) of the
 * empty file, or NULL (error set, errno kept). */
char *create_stamped_file(const char *prefix);

#endif
