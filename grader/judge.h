/* The judge's run, from its start to its end (grader.c starts one per
 * grading, a picture one per size): not part of grader.h's interface. */
#ifndef GPUCOURSE_JUDGE_H
#define GPUCOURSE_JUDGE_H

#include "../src/proc.h"
#include "gpulock.h"
#include "grader.h"
#include "launcher.h"

/* The judge's results and its output: at most this many bytes of each. */
enum { JUDGE_OUTPUT_LIMIT = 64 * 1024 };

/* What one judge run does: the check sizes it runs in order (it stops at
 * the first that fails), and whether it then times the exercise's timing
 * sizes with the counters its evidence reads. */
typedef struct {
    const SizeSpec *checks;
    int nchecks;
    bool timed;
    const Launcher *launch; /* the judge runs through it, or NULL: here */
    const char *gpu_env;    /* "CUDA_VISIBLE_DEVICES=GPU-..." (gpu_visible_env), or NULL */
} JudgePlan;

/* One judge run, from its start to its end. The judge may start before the
 * student's library is built (go: it waits on its go pipe, proc_go), and
 * the verdict is decided as soon as its results are whole (it says `end:`
 * and closes them, then tears its contexts down), while the GPU's lock is
 * held until the process is gone (judge_settle). */
typedef struct {
    ProcRun *run;         /* NULL: none under way */
    ProcResult res;
    StrList args;
    const char **argv;
    char nonce[40];
    char *nonce_env, *result_env, *result_file;
    const Launcher *launch;
    int timeout_s;
    double spawned;
    GpuLock lock;         /* held until the judge is gone */
    int library_fd;       /* >= 0: the copy of the student's library its runner loads, locked until the
                           * judge is gone (grader.c, library_copy_take); -1: none */
} Judge;

/* Starts the judge; with go, it waits for proc_go before it starts the
 * student's runner. Returns false with the verdict set when it could not. */
bool judge_start(Judge *j, const Exercise *e, const CourseParts *parts, const char *student,
                 const GradeOptions *o, JudgePlan plan, bool go, GradeResult *r);

/* Waits for the judge's results and decides; the judge may still be
 * tearing its contexts down (judge_settle waits for that). */
void judge_decide(Judge *j, const Exercise *e, GradeResult *r);

/* A judge that holds nothing: no run, no lock, no library copy (every
 * descriptor -1). judge_settle leaves it so. */
void judge_init(Judge *j);

/* The judge's end (it ends its own way once its results are whole, or is
 * killed when kill), then the GPU's lock let go: the next grading finds
 * no process of this one on the GPU. */
void judge_settle(Judge *j, bool kill);

/* One judge run from its start to its end (a picture's sizes: the GPU's
 * lock is the caller's). */
void judge_run(const Exercise *e, const CourseParts *parts, const char *student, const GradeOptions *o,
               JudgePlan plan, GradeResult *r);

#endif
