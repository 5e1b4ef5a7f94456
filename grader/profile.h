/* gpucourse why --profile: an Nsight Compute report of the student's
 * kernels and the reference's at the size that decided the grade's speed,
 * saved in the workspace (profiles/EX-DATE-TIME.ncu-rep). Advice, like the
 * rest of why: it runs after the grading and never changes its verdict or
 * what progress records.
 *
 * The student's code runs only in its sandboxed runner, never here: ncu
 * starts this program again (profile_runs_main, `gpucourse --profile-runs`),
 * which runs the runner's diagnose mode twice, the student's library and
 * then the reference's, each in the same sandbox, with --profile. ncu
 * profiles the processes named runner-* only (--target-processes-filter),
 * and in them only the one call between cudaProfilerStart and Stop
 * (--profile-from-start off), after a warm-up call. What ncu's part in the
 * runner needs is on the runner's allow-list (harness/runner.cu): to read
 * the directories of the libraries ncu injected, and to make its lock files
 * in TMPDIR/nvidia/nsight_compute, here a directory of this run's own. The
 * report itself is written by ncu, outside the sandbox. */
#ifndef GPUCOURSE_PROFILE_H
#define GPUCOURSE_PROFILE_H

#include <stdio.h>

#include "grader.h"
#include "toolchain.h"

/* The argument that starts profile_runs_main (cli/main.c). */
#define PROFILE_RUNS_ARG "--profile-runs"

enum { PROFILE_CALL_TIMEOUT_S = 60, PROFILE_NCU_SLACK_S = 60 };

typedef struct Profile {
    bool asked;           /* --profile was given (the JSON's "profile" is null otherwise) */
    char report[1024];    /* the report ncu wrote; "" when none */
    char size[64];        /* the size it profiled */
    char not_done[700];   /* why there is no report, or what it lacks; "" when complete */
    char yours[240];      /* how each call ended under ncu: "ok", "did not finish in 60 s", ... */
    char reference[240];
    double wall_s;
} Profile;

/* One profile's run, every path given (profile_exercise fills it). */
typedef struct {
    const char *ncu;        /* Nsight Compute's command line */
    const char *self;       /* this program, which ncu starts with PROFILE_RUNS_ARG */
    const char *runner;     /* runner-KIND, the student's sandboxed runner */
    const char *student;    /* the student's library */
    const char *reference;  /* the reference's */
    const char *size;
    unsigned long long seed;
    const char *report;     /* where ncu writes the report (PATH.ncu-rep) */
    const char *gpu_env;    /* "CUDA_VISIBLE_DEVICES=GPU-..." or NULL */
    double call_timeout_s;  /* each runner under ncu */
} ProfileRun;

/* Nsight Compute's ncu: PATH, then the toolkit's bin/ and nsight-compute-*
 * directories, then /opt/nvidia/nsight-compute/ (the standalone installer's).
 * NULL when none, with where it looked in looked. */
char *profile_find_ncu(const Toolchain *t, char *looked, size_t len);

/* Whether ncu's output says the driver keeps the GPU's counters from this
 * user (ERR_NVGPUCTRPERM). */
bool profile_no_permission(const char *ncu_output);

/* Profiles the grading r of e at its deciding size (the library is still in
 * the build directory). Fills p always: p->report, or p->not_done. */
void profile_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeResult *r,
                      void (*on_phase)(const char *what, void *ctx), void *ctx, Profile *p);

/* ncu over the two runners, as run says; fills p (not p->size). */
void profile_run(const ProfileRun *run, Profile *p);

/* `gpucourse --profile-runs RUNNER LOCK_DIR SIZE SEED TIMEOUT_S NAME=LIB...`,
 * the program ncu starts: each library's call in the runner's diagnose mode
 * (--profile LOCK_DIR), one after the other, each ended after TIMEOUT_S;
 * prints "gpucourse-profile: NAME: HOW" for each. Returns 0, 64 on bad
 * arguments. */
int profile_runs_main(int argc, char **argv);

/* The profile after why's report: where the report is and the commands
 * that open it, or why there is none. */
void profile_report_text(FILE *out, const Exercise *e, const Profile *p);
/* As a JSON object, null when p is NULL or was not asked. */
void json_profile(FILE *out, const Profile *p);

#endif
