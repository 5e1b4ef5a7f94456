/* The course model: course/course.yaml lists the chapters, each chapter's
 * chapter.yaml its lesson and exercises. Loading validates everything and
 * reports each problem as "file:line:col: what is wrong". No curses, no
 * grading here. See docs/authoring.md for the format. */
#ifndef GPUCOURSE_COURSE_H
#define GPUCOURSE_COURSE_H

#include "util.h"

enum { MAX_SIZE_ARGS = 3, MAX_TIMING_SIZES = 4 };
/* A timeout_hint is said inside the verdict's one-paragraph reason. */
enum { MAX_TIMEOUT_HINT = 600, MAX_FLOORS_WHY = 300 };
/* A summary is one line of a list (gpucourse list, the app's course
 * screen): 80 columns less the mark, the id and a name of 20 characters. */
enum { MAX_SUMMARY = 46 };

typedef struct {
    int count;                 /* size arguments: 1 for n, 2 for rows, cols */
    long long d[MAX_SIZE_ARGS];
} SizeSpec;

/* A key of an exercise's `evidence:` map: a requirement on the hardware
 * counters of the student's code, which grader/evidence.c measures. Its
 * value is a number in [lo, hi], or one of `words` when words is set. */
typedef struct {
    const char *key;   /* tma_load_share */
    const char *words; /* "bf16 f16 tf32", or NULL for a number */
    double lo, hi;
} EvidenceKey;

/* The keys, ending with a NULL key. */
extern const EvidenceKey course_evidence_keys[];

typedef struct {
    const EvidenceKey *key;
    double number;     /* the bound, for a number key */
    char *word;        /* the value, for a words key */
} Requirement;

enum { MAX_EVIDENCE = 8 };

/* An entry of a `diagnose:` list (a chapter's, for all its exercises, or an
 * exercise's, read first): what `gpucourse why` says when a sanitizer finds
 * a class of hazard or the picture of a wrong answer shows a pattern
 * (`finding:`), or when a measure of the student's code
 * compares with the reference's, or with a number, as given (`measure:`).
 * grader/diagnose.c measures; the names are listed here so that a course
 * file is checked when it loads. */
typedef enum { DIAG_ABOVE_REFERENCE, DIAG_BELOW_REFERENCE, DIAG_ABOVE, DIAG_BELOW } DiagnoseCompare;

typedef struct {
    const char *finding;       /* one of course_findings, or NULL */
    const char *measure;       /* one of course_measures, or NULL */
    DiagnoseCompare compare;   /* measures: how it fires */
    double value;              /* the factor (…_reference) or the bound */
    char *message;             /* what is wrong and what to do, in the lesson's words */
    char *section;             /* a heading of the chapter's lesson */
    int chapter;               /* whose lesson the section is in */
} DiagnoseRule;

/* NULL-terminated: the findings' classes (the sanitizers' out_of_bounds,
 * misaligned, race, barrier, uninitialized, launch_error; the picture's
 * tile_pattern and tail) and the measures
 * (sectors_per_request, bank_conflicts, occupancy, ...). */
extern const char *const course_findings[];
extern const char *const course_measures[];
enum { MAX_DIAGNOSE = 24, MAX_DIAGNOSE_MESSAGE = 300 };

typedef struct Exercise {
    char *id;                  /* ex01, ex02, ... in course order */
    char *name;                /* vector_add */
    char *title;
    char *kind;                /* the harness kind: harness/kinds/KIND.cu */
    char *file;                /* file name in exercises/ and solutions/ */
    char *summary;
    char *task;                /* markdown */
    char *lesson_section;      /* the heading of its chapter's lesson that teaches it (the app opens the
                                * lesson there), or NULL: the lesson's top */
    SizeSpec *check_sizes;     /* checked against the CPU reference */
    int ncheck_sizes;
    SizeSpec *timing_sizes;    /* each checked against the reference and timed (a GEMM at several) */
    int ntiming_sizes;
    double tol_rel, tol_abs;
    bool deterministic;        /* two calls on the same inputs must give the same bits (tolerance: deterministic) */
    double floor_reference;    /* student throughput / reference's, at least */
    double floor_baseline;     /* student throughput / same-run copy's, at least (0: none) */
    double floor_library;      /* student throughput / the kind's library's (CUB...), at least (0: none) */
    char *library;             /* what the kind times as the library ("cuBLAS Sgemm FP32"), or NULL */
    int timeout_s;             /* one grading run */
    char *timeout_hint;        /* the likely cause of a hang, said in a timeout verdict (or NULL) */
    char *floors_why;          /* why the floors sit far below the reference, on purpose (or NULL) */
    StrList hints;
    StrList required_sass;     /* instruction patterns the student's SASS must contain (grader/sass.h) */
    StrList forbidden_sass;    /* instruction patterns it must not contain */
    StrList around_inside;     /* required_sass_around: in each kernel with one of these patterns, */
    StrList around_side;       /* these, in order, before the first and after the last (sass_around) */
    char *around_why;          /* what the order rule is for, said when it fails */
    Requirement evidence[MAX_EVIDENCE]; /* what the counters of the student's code must show */
    int nevidence;
    StrList forbidden_symbols; /* symbol substrings the student's library must not have */
    StrList forbidden_libraries; /* names from course_libraries it must not use (default: all) */
    StrList ladder;            /* ids of earlier exercises whose best results its card lists, as rungs below it */
    char *placeholders;        /* "file:line:col: ..." when its summary, task or hints still have a line that
                                * starts TODO:, as gpucourse new writes them; else NULL. check-course's
                                * problem, not the loader's: a draft can be tried */
    char *summary_long;        /* "file:line:col: ..." when its summary is longer than a list shows
                                * (MAX_SUMMARY); check-course's problem, as placeholders */
    DiagnoseRule diagnose[MAX_DIAGNOSE]; /* its own `diagnose:` entries, then its chapter's */
    int ndiagnose;
    int chapter;               /* index into Course.chapters */
    int index;                 /* index into Course.exercises */
    char *where;               /* "file:line:col" of the exercise, for messages */
} Exercise;

typedef struct {
    char *dir;                 /* directory name under course/, e.g. 01-threads */
    char *title;
    char *lesson_path;         /* full path of the lesson markdown */
    int first, count;          /* its exercises: Course.exercises[first .. first+count) */
} Chapter;

typedef struct {
    char *root;                /* the directory that holds course/, exercises/, ... */
    char *real_root;           /* root with links resolved: every file the course names is inside it */
    char *harness_dir;         /* the shared harness (main.cu, harness.h): see course_harness_dir */
    char *title;
    char *id;                  /* course.yaml's id, else its directory's name made one: whose workspace it is */
    Chapter *chapters;
    int nchapters;
    Exercise *exercises;
    int nexercises;
} Course;

/* The course that comes with gpucourse: its workspace is ~/gpucourse, any
 * other course's ~/gpucourse/courses/ID (src/workspace.c). */
#define COURSE_BUNDLED_ID "gpucourse"
enum { MAX_COURSE_ID = 40 };

/* A course id from any text (a directory's name): lower case, a-z, 0-9, -
 * and _ kept, anything else made '-', at most MAX_COURSE_ID characters;
 * "course" when nothing is left. malloc'd. */
char *course_id_from(const char *text);

/* The libraries an exercise can forbid (forbidden_libraries), NULL-terminated:
 * cublas, cudnn, cub, thrust, cutlass. grader/libscan.c has a rule for each. */
extern const char *const course_libraries[];

/* At most this many problems are said of one file, then one more line: "...
 * and N more problems in this file" (a file of 4 MiB could say millions). */
enum { MAX_FILE_PROBLEMS = 100 };

/* Loads and validates the course under root. Returns NULL when anything is
 * wrong; every problem found is appended to problems (one line each). The
 * files it names (lessons, stubs, references, chapters) must be inside root,
 * also once links are followed. */
Course *course_load(const char *root, StrList *problems);

/* The lines gpucourse new writes for the instructor to replace (src/
 * scaffold.c writes them; check-course finds them): the lesson's, the
 * stub's header (the TODOs in its kernel are the student's, and stay), the
 * reference's. */
#define SCAFFOLD_LESSON_TODO "TODO: the lesson, in CommonMark"
#define SCAFFOLD_STUB_IDEA_TODO "TODO: the idea this exercise is about"
#define SCAFFOLD_STUB_FILL_TODO "In the kernel: TODO."
#define SCAFFOLD_REFERENCE_TODO "TODO: what it computes, how, and why it is fast"
#define SCAFFOLD_REFERENCE_KERNEL_TODO "TODO: the reference kernel."

/* check-course's look at what a loaded course says, beyond what loading
 * needs: each exercise whose summary, task or hints are still gpucourse
 * new's TODO: placeholders appends its problem (Exercise.placeholders), and
 * each whose summary is longer than MAX_SUMMARY (Exercise.summary_long);
 * each lesson, stub and reference that still holds one of the SCAFFOLD_
 * lines above appends "FILE:LINE:COL: ..." at the first. */
void course_check_content(const Course *c, StrList *problems);
void course_free(Course *c);

/* The exercise a person means: its id (ex07) or name (vector_add) in any
 * case, or its number with or without "ex" and leading zeros (7, 07, ex7,
 * ex007). Nothing else ("+7", " 7", "7x", ""): NULL, with error set to
 * "no exercise 'KEY'" and what helps: the course's range of ids for a
 * number past it, the exercises whose names hold KEY (3 letters or more),
 * else the nearest id or name for a typo ("did you mean ..."). */
Exercise *course_find(const Course *c, const char *key);

/* The rung just below e, whose reference must not pass e (check-course
 * proves it on a GPU): the last of e's `ladder`, else the nearest earlier
 * exercise of its chapter with the same kind; NULL when there is none. */
const Exercise *course_rung_below(const Course *c, const Exercise *e);

/* Paths of an exercise's stub and reference solution (malloc'd). */
char *course_stub_path(const Course *c, const Exercise *e);
char *course_solution_path(const Course *c, const Exercise *e);
char *course_kind_path(const Course *c, const char *kind);
/* The one statement of what passing e takes: every floor it has, the
 * library named, and whether the technique is checked too (malloc'd). The
 * CLI's show, the app's exercise view and the JSON say this. */
char *exercise_pass_rule(const Exercise *e);

/* The shared harness (main.cu, runner.cu, harness.h, ...) of the course under
 * root: its own harness/ when that has main.cu (this repository), else
 * gpucourse's beside the binary (installed, or the build tree's), so that a
 * course of its own needs no copy. malloc'd; NULL when there is none. */
char *course_harness_dir(const char *root);
/* A kind's file: the course's own harness/kinds/KIND.cu, else the shared
 * harness's kinds/KIND.cu; the course's path when neither has it. */
char *course_kind_file(const char *root, const char *harness_dir, const char *kind);

/* What `gpucourse new` needs of a course that may not load yet (a chapter
 * without exercises, as `new chapter` leaves it): the chapter directories in
 * order and the ids, names and files of their exercises. Only files that
 * cannot be read or parsed are problems: -1 then. */
typedef struct {
    char *dir;
    StrList ids, names, files;
} OutlineChapter;

typedef struct {
    OutlineChapter *chapters;
    int nchapters;
} CourseOutline;

int course_outline(const char *root, CourseOutline *o, StrList *problems);
void course_outline_free(CourseOutline *o);

/* "1000" or "16384x16383" */
/* s is non-empty and only a-z, 0-9 and the characters of extra (names: "_"). */
bool course_plain_name(const char *s, const char *extra);
void size_text(const SizeSpec *s, char *buf, size_t size);

/* Where the course is, the first of: --course DIR, GPUCOURSE_COURSE, the
 * current directory, beside the binary (installed: ../share/gpucourse; in
 * the build tree: ..). Returns a malloc'd path, or NULL with error set. */
char *course_locate(const char *option);

#endif
