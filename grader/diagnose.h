/* Why a grade failed (gpucourse why, grade --explain, the app's result
 * card): a run of its own after the grading, untimed, bounded in time,
 * which never changes the verdict. The student's code runs only in its
 * sandboxed runner, in the runner's diagnose mode (harness/runner.cu).
 *  - Wrong answer, runtime error, timeout: the runner under
 *    compute-sanitizer (memcheck, then racecheck and synccheck when the
 *    kernels use shared memory, then initcheck) at the smallest size that
 *    failed, until one of them finds something; its first findings with the
 *    line of the student's file and the lesson's section. A wrong answer
 *    whose picture was drawn at a size too small to say much (17 x 9, 1)
 *    gets one at a larger check size (the judge again, untimed), and what
 *    the picture shows (a pattern repeated in every tile, a wrong tail)
 *    becomes a hint.
 *  - Too slow, requirement not met, or a pass: the counters that the
 *    exercise's `diagnose:` entries name, of the student's call and of the
 *    reference's at the size that decided, side by side; each entry that
 *    fires becomes a hint. */
#ifndef GPUCOURSE_DIAGNOSE_H
#define GPUCOURSE_DIAGNOSE_H

#include "grader.h"

/* One thing a sanitizer reported, read from its log. */
typedef struct {
    const char *finding;  /* its class: one of course_findings */
    char what[240];       /* "Invalid __global__ write of size 4 bytes" */
    char function[96];    /* "add" */
    char file[128];       /* where: the student's file when a frame is in it */
    int line;             /* 0: unknown */
    char detail[240];     /* "thread (64,0,0) of block (2,0,0); 274,638,841,601 bytes after an allocation of 512 bytes" */
    int repeats;          /* the same report seen this many times in all */
} Finding;

enum { MAX_FINDINGS = 4, MAX_TOOLS = 4, MAX_MEASURE_ROWS = 16, MAX_HINTS = 8 };

/* One sanitizer run. */
typedef struct {
    char tool[16];
    bool finished;        /* it ran to the end */
    double seconds;
    char note[300];       /* why it did not finish, or what else it said */
    Finding findings[MAX_FINDINGS];
    int nfindings;
} ToolRun;

/* A measure of the student's call beside the reference's. */
typedef struct {
    const char *measure;  /* one of course_measures */
    double student, reference;
    bool has_student, has_reference;
} MeasureRow;

/* What a diagnose entry (or the built-in word on a finding) says. */
typedef struct {
    char text[600];
    char section[96];     /* "" when none */
    int chapter;          /* whose lesson, -1 for none */
} Hint;

typedef enum { DIAG_NOTHING, DIAG_SANITIZER, DIAG_COUNTERS } DiagnosisKind;

typedef struct {
    DiagnosisKind kind;
    char size[64];        /* the size it ran at */
    char why_not[400];    /* DIAG_NOTHING, or what could not be done */
    ToolRun tools[MAX_TOOLS];
    int ntools;
    MeasureRow rows[MAX_MEASURE_ROWS];
    int nrows;
    char counters_note[400]; /* counters that could not be read, and why */
    KernelInfo reference_kernels[MAX_KERNELS];
    int nreference_kernels;
    WrongMap picture;     /* where a wrong answer is wrong at a larger size than the grade's picture */
    const char *pattern;  /* what the picture shows: "tile_pattern", "tail" (course_findings), or NULL */
    Hint hints[MAX_HINTS];
    int nhints;
    double wall_s;
    const struct Profile *profile; /* why --profile (grader/profile.h), set after the diagnosis; else NULL */
} Diagnosis;

typedef struct {
    const char *label;    /* the library graded: build/LABEL-EX.so ("student" when NULL) */
    void (*on_phase)(const char *what, void *ctx); /* progress: "memcheck at 129x65x47" */
    void *ctx;
} DiagnoseOptions;

/* Diagnoses the grading r of e (its library is still in the build
 * directory). Fills d always; d->kind says what ran. */
void diagnose_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeResult *r,
                       const DiagnoseOptions *o, Diagnosis *d);

/* The parts that need no GPU, tested on recorded outputs. */

/* Reads a compute-sanitizer log (text, --print-limit) of tool: the first
 * distinct findings, those in student_file (a base name) preferred as the
 * place. Returns the number kept. */
int diagnose_parse_sanitizer(const char *tool, const char *log, const char *student_file, Finding *out, int max);

/* The size a sanitizer runs at: the smallest check size that failed, else
 * the check size the run stopped in (a fault, a hang), else the smallest
 * check size. Writes it as text; false when e has none. */
bool diagnose_sanitizer_size(const Exercise *e, const GradeResult *r, char *size, size_t len);

/* What a picture of a wrong answer shows, as a finding: "tile_pattern"
 * when the same positions are wrong in every tile, "tail" when only the
 * last grid row or column (1D: one run in the second half, ending at the
 * last index) is wrong; NULL otherwise. */
const char *diagnose_picture_finding(const WrongMap *m);

/* The counters that e's measures read (comma-separated, each once, at most
 * MAX_RESULT_COUNTERS), malloc'd; NULL when its measures read none. */
char *diagnose_metrics(const Exercise *e);

/* A measure's value from the counters and the kernels' figures; false when
 * they lack what it needs. */
bool diagnose_measure(const char *measure, const Counters *c, const KernelInfo *k, int nk, double *value);

/* A measure in words, and its value as text ("16.5", "62%"). */
const char *diagnose_measure_title(const char *measure);
void diagnose_measure_value(const char *measure, double v, char *buf, size_t size);

/* The hints of rows and findings by e's entries (d->rows and d->tools must
 * be filled): entries that fire, in order; for a finding that no entry
 * names, the built-in word. */
void diagnose_hints(const Exercise *e, Diagnosis *d);

#endif
