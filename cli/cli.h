/* The command line's shared parts: the options, the one error of a run,
 * the session (course, workspace, progress), and each command's entry
 * point. Each command is a file of its own (list.c, grade.c, ...), as git's
 * builtin/; main.c is the help, the table of commands and the dispatch. */
#ifndef GPUCOURSE_CLI_H
#define GPUCOURSE_CLI_H

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../grader/gpulock.h"
#include "../grader/launcher.h"
#include "../grader/grader.h"
#include "../grader/report.h"
#include "../harness/sandbox.h"
#include "../grader/toolchain.h"
#include "../grader/calibrate.h"
#include "../grader/profile.h"
#include "../grader/classroom.h"
#include "../src/course.h"
#include "../src/progress.h"
#include "../src/scaffold.h"
#include "../src/workspace.h"
#include "../tui/tui.h"

/* ------------------------------------------------------------ options.c */

typedef struct {
    const char *course_dir;
    const char *workspace_dir;
    ReportFormat format;
    unsigned long long seed;
    int timeout_s;
    const char *chapter; /* --chapter N as given, checked against the course (chapter_index); NULL none */
    bool all;
    const char *kind, *title; /* new */
    bool calibrate;           /* check-course */
    bool explain;             /* grade --explain; why: every verdict */
    bool profile;             /* why --profile: an Nsight Compute report too (grader/profile.h) */
    bool trace;               /* grade --trace (or GPUCOURSE_TRACE=1): each grading's trace on stderr */
    int runs;                 /* check-course --calibrate; 0: 5 */
    const char *out;          /* class grade: the output directory */
    bool slurm;               /* class grade: as a Slurm job array */
    bool allow_partial_sandbox; /* class grade: run students' code where this kernel cannot confine it */
    int task;                 /* class grade: grade only this student (a job array's task); -1: all */
    int gpus;                 /* grade, class grade: gradings at once (--gpus N); 0: all, one per GPU */
    bool gpus_given;
} Options;

/* The usage or setup error that ends this run: said on stderr when it
 * happens, and kept for the document that --format json|junit still prints
 * (a CI parses stdout). Only the first is told: option parsing goes on past
 * a bad value to learn the format. */
typedef struct {
    int code; /* EXIT_USAGE or EXIT_SETUP; 0: none yet */
    char message[2048];
    StrList details; /* the course's problems, file:line:col */
} Failure;
extern Failure failure;

int fail(int code, const char *message, const char *advice);
int fail_usage(const char *fmt, ...) PRINTF_LIKE(1, 2);
int fail_setup(void);
int fail_no_exercise(void);
void json_failure(FILE *out);
bool option_number(const char *text, unsigned long long min, unsigned long long max, unsigned long long *value);
int chapter_index(const Course *c, const char *text);
int parse_options(int argc, char **argv, Options *o);

/* main.c: the help that --help and help print */
extern const char usage_text[];

/* ------------------------------------------------------------ session.c */

/* The course and the workspace, loaded for every command that needs them. */
typedef struct {
    Course *course;
    Workspace ws;
    Progress progress;
} Session;

int session_open(const Options *o, Session *s, bool need_workspace);
void session_close(Session *s);
Exercise *find_exercise(Session *s, const char *key);
ExStatus status_of(Session *s, const Exercise *e);
const char *status_mark(ExStatus st);
Exercise *next_exercise(Session *s);
int selected_exercises(Session *s, const Options *o, const char *const *keys, int nkeys, const Exercise ***list);

/* ------------------------------------------------------------ gradings.c */

extern double process_start;
int build_workers(void);
int grading_workers(const Options *o, int jobs, int *gpus);
void print_throughput(FILE *out, int gradings, double seconds, int at_once, int gpus);
void on_phase(const char *what, void *ctx);
void result_from_worker(GradeResult *r, const char *reply, size_t len, const char *what, const Exercise *e);

/* ------------------------------------------------------------ the commands */

int cmd_list(Session *s);                                       /* list.c */
int cmd_show(Session *s, const char *key);                      /* show.c */
char *markdown_text(const char *markdown, int width);
int cmd_lesson(Session *s, const Options *o, const char *key);  /* lesson.c */
int cmd_hint(Session *s, const char *key);                      /* hint.c */
int cmd_solution(Session *s, const char *key);                  /* solution.c */
int cmd_reset(Session *s, const char *key);                     /* reset.c */
int cmd_progress(Session *s, const Options *o);                 /* progress.c */
int cmd_grade(Session *s, const Options *o, const char *const *keys, int nkeys, bool why); /* grade.c */
int cmd_check_course(const Options *o, const char *const *keys, int nkeys);                /* check_course.c */
typedef struct ExerciseCheck ExerciseCheck;
void check_json(const char *root, const StrList *problems, const Course *c, const ExerciseCheck *xs, int n,
                const GpuInfo *gpu, bool gpu_checked, int code);
int cmd_calibrate(const Options *o, Course *c, const char *const *keys, int nkeys);       /* calibrate.c */
int cmd_bench(Session *s, const Options *o);                    /* bench.c */
int cmd_doctor(const Options *o);                               /* doctor.c */
int cmd_new(const Options *o, const char *const *args, int nargs);   /* new.c */
int cmd_class(const Options *o, const char *const *args, int nargs); /* class.c */
int cmd_start(Session *s);                                      /* app.c */
int run_app(Session *s, const Options *o, const char *key, bool watch);

#endif
