/* gpucourse: the command line. Each command is a function below; they share
 * the course model (course.c), the workspace and progress, and the grader. */
#define _GNU_SOURCE
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
#include "../grader/classroom.h"
#include "../src/course.h"
#include "../src/progress.h"
#include "../src/scaffold.h"
#include "../src/workspace.h"
#include "../tui/tui.h"

#ifndef GPUCOURSE_VERSION
#define GPUCOURSE_VERSION "0.1.0"
#endif

static const char usage_text[] =
    "usage: gpucourse [options] [command] [args]\n"
    "\n"
    "A CUDA course in the terminal: write kernels, get them graded on the GPU.\n"
    "\n"
    "commands:\n"
    "  list                 chapters and exercises with your status\n"
    "  show [EX]            the task of an exercise and where its file is\n"
    "  grade [EX...]        compile, check and time your solution (each one named)\n"
    "  grade --chapter N    every exercise of chapter N\n"
    "  grade --all          every exercise of the course\n"
    "  why [EX]             grade EX, then say why it failed: your code under compute-sanitizer\n"
    "                       (wrong answers, faults, hangs) or its GPU counters beside the\n"
    "                       reference's (too slow); the verdict stays the grade's\n"
    "  hint [EX]            the next hint (one more each time)\n"
    "  solution EX          the reference solution, once you passed\n"
    "  reset EX             restore the stub (your file is kept in backups/)\n"
    "  watch [EX]           grade EX at once, then on every save (default: any exercise)\n"
    "  progress             your progress through the course\n"
    "  check-course         validate the course (for instructors; --format json for CI)\n"
    "  check-course --calibrate [EX...] [--runs N]\n"
    "                       grade each reference N times (default 5): measured ratios, floors to paste\n"
    "  new chapter NAME     a chapter at the end of the course: chapter.yaml, lesson.md\n"
    "  new exercise CHAPTER NAME --kind KIND\n"
    "                       the chapter's next exercise: its YAML entry, stub and reference\n"
    "  new course DIR       a course of its own in DIR (use it with --course DIR)\n"
    "  bench [--chapter N]  every reference against the same-run ceilings (a GPU table)\n"
    "  doctor               what is installed, what is missing, how to fix it\n"
    "  class grade ROSTER [EX... | --chapter N | --all] [--out DIR] [--slurm] [--gpus N]\n"
    "                       [--allow-partial-sandbox]\n"
    "                       grade every student of a roster (a file of NAME PATH lines, or a\n"
    "                       directory of workspaces) into DIR (default ./grades): JSON and JUnit per\n"
    "                       student, gradebook.csv, a summary with flags; --slurm: as a job array;\n"
    "                       --allow-partial-sandbox: also where the kernel cannot confine their code\n"
    "  class starter DIR    the repository students start from (stubs, .gitignore)\n"
    "  help                 this help\n"
    "\n"
    "EX is an exercise id (ex07, also ex7 or EX07), its number (7) or its name (vector_add);\n"
    "[EX] left out: the current exercise, the first not passed yet.\n"
    "With no command, on a terminal: the course app; elsewhere (a pipe, TERM dumb or unset),\n"
    "the course as text.\n"
    "\n"
    "options:\n"
    "  --format text|json|junit   output of grade and why (default text); check-course: text or json;\n"
    "                             other commands print text and refuse json or junit (64)\n"
    "  --seed N                   replay a grading run with the inputs of seed N\n"
    "  --explain                  grade: after each failing grade, what why says\n"
    "  --trace                    grade: where each grading's time went, on stderr (also GPUCOURSE_TRACE=1)\n"
    "  --gpus N|all               grade and class grade with several exercises or students, check-course:\n"
    "                             how many gradings run at once, each on a GPU of its own (default all:\n"
    "                             one per GPU of this machine; through GPUCOURSE_LAUNCHER, default 1)\n"
    "  --timeout S                seconds that compiling your file, and then running it, may each take\n"
    "                             (default: 300 to compile, the exercise's own to run)\n"
    "  --course DIR               the course (default: $GPUCOURSE_COURSE, ., or beside the binary)\n"
    "  --workspace DIR            your files and progress (default: $GPUCOURSE_WORKSPACE or ~/gpucourse)\n"
    "  --kind KIND, --title T     new exercise: its problem kind (harness/kinds/KIND.cu); new: a title\n"
    "  --runs N                   check-course --calibrate: gradings per reference (1 to 100, default 5)\n"
    "  -h, --help                 this help\n"
    "  --version                  the version\n"
    "\n"
    "keys of the app (also on ?):\n"
    "  j/k or arrows move   Enter open   Esc back   e edit in $EDITOR   g grade (live log;\n"
    "  Ctrl-C cancels)   h next hint   s solution, once passed   r reset   n/p next/previous\n"
    "  l lesson   w watch mode (grade on save)   y why (on a result card)   ? help   q quit\n"
    "\n"
    "exit codes of grade (and of check-course and doctor where they apply):\n"
    "  0 pass   1 wrong answer   2 too slow   3 compile error   4 runtime error or timeout\n"
    "  5 requirement not met (an instruction, the GPU's counters, a forbidden library)\n"
    "  75 not now: the GPU was busy through every timing (grade again), or solution before a pass\n"
    "  77 no GPU (skipped)   64 usage error   65 course or setup error (also: a required check\n"
    "  this machine cannot make)   130 interrupted\n"
    "With --format json or junit, stdout is a document also after a usage or setup error: its\n"
    "error member (JSON) or one errored test case (JUnit) says what went wrong.\n";

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
static struct {
    int code; /* EXIT_USAGE or EXIT_SETUP; 0: none yet */
    char message[2048];
    StrList details; /* the course's problems, file:line:col */
} failure;

static int fail(int code, const char *message, const char *advice) {
    if (failure.code) return code;
    failure.code = code;
    snprintf(failure.message, sizeof failure.message, "%s", message);
    fprintf(stderr, "gpucourse: %s\n%s", failure.message, advice);
    return code;
}

static int fail_usage(const char *fmt, ...) PRINTF_LIKE(1, 2);
static int fail_usage(const char *fmt, ...) {
    char message[sizeof failure.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return fail(EXIT_USAGE, message, "Try 'gpucourse --help'.\n");
}

static int fail_setup(void) { return fail(EXIT_SETUP, last_error(), ""); }

/* After course_find: the exercise named is not in the course. */
static int fail_no_exercise(void) { return fail(EXIT_USAGE, last_error(), "Try 'gpucourse list'.\n"); }

/* The error member of a JSON document: null, or what ended the run. */
static void json_failure(FILE *out) {
    if (failure.code) json_error(out, failure.code, failure.message, &failure.details);
    else fputs("null", out);
}

/* A number given to an option: digits only (strtoull would take a sign,
 * blanks and "-5" as 2^64 - 5), no overflow, min to max; false otherwise. */
static bool option_number(const char *text, unsigned long long min, unsigned long long max, unsigned long long *value) {
    unsigned long long v = 0;
    if (!*text) return false;
    for (const char *c = text; *c; c++) {
        unsigned digit = (unsigned)(*c - '0');
        if (digit > 9 || v > (ULLONG_MAX - digit) / 10) return false;
        v = v * 10 + digit;
    }
    if (v < min || v > max) return false;
    *value = v;
    return true;
}

/* --chapter's chapter (0-based), or -1 after saying which chapters there
 * are: only the course knows how many. */
static int chapter_index(const Course *c, const char *text) {
    unsigned long long n;
    if (option_number(text, 1, (unsigned long long)c->nchapters, &n)) return (int)n - 1;
    if (c->nchapters == 1) fail_usage("no chapter '%s': the course has one chapter, 1", text);
    else fail_usage("no chapter '%s': chapters are 1 to %d", text, c->nchapters);
    return -1;
}

/* The course and the workspace, loaded for every command that needs them. */
typedef struct {
    Course *course;
    Workspace ws;
    Progress progress;
} Session;

static int session_open(const Options *o, Session *s, bool need_workspace) {
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
    if (progress_load(s->ws.progress, &s->progress) < 0) return fail_setup();
    if (s->progress.notice) fprintf(stderr, "gpucourse: warning: %s\n", s->progress.notice);
    return 0;
}

static void session_close(Session *s) {
    progress_free(&s->progress);
    workspace_free(&s->ws);
    course_free(s->course);
}

/* The exercise named on the command line; NULL after saying why (the caller
 * exits with EXIT_USAGE). */
static Exercise *find_exercise(Session *s, const char *key) {
    Exercise *e = course_find(s->course, key ? key : "");
    if (!e) fail_no_exercise();
    return e;
}

static ExStatus status_of(Session *s, const Exercise *e) {
    ExProgress *p = progress_get(&s->progress, e->id, false);
    return p ? p->status : ST_NOT_STARTED;
}

static const char *status_mark(ExStatus st) {
    static const char *const marks[ST_COUNT] = {"[ ]", "[~]", "[c]", "[=]", "[x]"};
    return st < ST_COUNT ? marks[st] : "[?]";
}

/* The first exercise not passed yet, or NULL when all are. */
static Exercise *next_exercise(Session *s) {
    for (int i = 0; i < s->course->nexercises; i++)
        if (status_of(s, &s->course->exercises[i]) != ST_PASSED) return &s->course->exercises[i];
    return NULL;
}

/* ------------------------------------------------------------ commands */

static int cmd_list(Session *s) {
    int name_width = 0; /* the longest name sets the column */
    for (int i = 0; i < s->course->nexercises; i++) {
        int len = (int)strlen(s->course->exercises[i].name);
        if (len > name_width) name_width = len;
    }
    fprintf_visible(stdout, "%s\n", s->course->title);
    for (int c = 0; c < s->course->nchapters; c++) {
        Chapter *ch = &s->course->chapters[c];
        int passed = 0;
        for (int i = 0; i < ch->count; i++) passed += status_of(s, &s->course->exercises[ch->first + i]) == ST_PASSED;
        fprintf_visible(stdout, "\nChapter %d: %s  (%d/%d passed)\n", c + 1, ch->title, passed, ch->count);
        for (int i = 0; i < ch->count; i++) {
            Exercise *e = &s->course->exercises[ch->first + i];
            fprintf_visible(stdout, "  %s %s  %-*s  %s\n", status_mark(status_of(s, e)), e->id, name_width, e->name,
                            e->summary);
        }
    }
    printf("\n[ ] not started  [~] attempted  [c] compiles  [=] correct, not fast enough  [x] passed\n");
    Exercise *next = next_exercise(s);
    if (next) printf("Next: %s (gpucourse show %s)\n", next->id, next->id);
    else printf("Every exercise passed. Well done.\n");
    return 0;
}

static int cmd_show(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    ExProgress *p = progress_get(&s->progress, e->id, false);
    char *file = workspace_exercise_path(&s->ws, e);
    Chapter *ch = &s->course->chapters[e->chapter];
    fprintf_visible(stdout, "%s %s: %s\n", e->id, e->name, e->title);
    fprintf_visible(stdout, "Chapter %d: %s (lesson: %s)\n\n", e->chapter + 1, ch->title, ch->lesson_path);
    fprintf_visible(stdout, "%s\n", e->task);
    if (e->task[0] && e->task[strlen(e->task) - 1] != '\n') putchar('\n');
    printf("Your file:  %s\n", file);
    printf("Status:     %s, %d attempt%s", status_name(p ? p->status : ST_NOT_STARTED), p ? p->attempts : 0,
           p && p->attempts == 1 ? "" : "s");
    if (p && p->best_vs_reference > 0) printf(", best %.2fx the reference", p->best_vs_reference);
    char *rule = exercise_pass_rule(e);
    printf("\nTo pass:    %s", rule);
    free(rule);
    printf("\nHints:      %d of %d seen (gpucourse hint %s)\n", p ? p->hints_seen : 0, e->hints.count, e->id);
    free(file);
    return 0;
}

typedef struct {
    const Exercise *e;
    int shown;     /* out: which hint is now the latest seen (1-based) */
    bool revealed; /* out: that one was new now (not all seen before) */
} HintCtx;

static void take_hint(Progress *p, void *ctx) {
    HintCtx *h = ctx;
    ExProgress *x = progress_get(p, h->e->id, true);
    h->revealed = x->hints_seen < h->e->hints.count;
    if (h->revealed) x->hints_seen++;
    h->shown = x->hints_seen;
}

static int cmd_hint(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    HintCtx h = {e, 0, false};
    char *notice = NULL;
    if (progress_update(s->ws.progress, take_hint, &h, &notice) < 0) return fail_setup();
    if (notice) fprintf(stderr, "gpucourse: warning: %s\n", notice);
    free(notice);
    for (int i = 0; i < h.shown; i++)
        fprintf_visible(stdout, "Hint %d of %d%s\n%s\n\n", i + 1, e->hints.count,
                        i + 1 == h.shown && h.revealed ? " (new)" : "", e->hints.items[i]);
    if (h.shown == e->hints.count)
        printf(h.revealed ? "That was the last hint for %s.\n" : "No more hints for %s: these are all of them.\n",
               e->id);
    return 0;
}

static int cmd_solution(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    if (status_of(s, e) != ST_PASSED) { /* a refusal, not a mistake in the command: not yet */
        fprintf(stderr, "gpucourse: the reference solution of %s opens once you passed it; 'gpucourse hint %s' "
                        "helps until then\n", e->id, e->id);
        return EXIT_NOT_YET;
    }
    char *path = course_solution_path(s->course, e);
    char *text = read_file(path, NULL);
    free(path);
    if (!text) return fail_setup();
    fprintf_visible(stdout, "%s", text);
    free(text);
    return 0;
}

static int cmd_reset(Session *s, const char *key) {
    Exercise *e = find_exercise(s, key);
    if (!e) return EXIT_USAGE;
    char *backup = NULL;
    if (workspace_reset(s->course, &s->ws, e, &backup) < 0) return fail_setup();
    char *file = workspace_exercise_path(&s->ws, e);
    printf("%s is the stub again: %s\n", e->id, file);
    if (backup) printf("Your previous file is kept as %s\n", backup);
    free(file);
    free(backup);
    return 0;
}

/* The best ratio of an exercise's progress as shown: 1.25x, or "-". */
static void best_text(const ExProgress *p, char *buf, size_t size) {
    if (p && p->best_vs_reference > 0) snprintf(buf, size, "%.2fx", p->best_vs_reference);
    else snprintf(buf, size, "-");
}

static int cmd_progress(Session *s) {
    /* the widest cell sets each column, so that a long name or a big count
     * does not push the rest of its row out of line */
    int id_w = 4, name_w = 4, status_w = 6, attempts_w = 8, best_w = 8;
    char cell[64];
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        int len;
        if ((len = (int)strlen(e->id)) > id_w) id_w = len;
        if ((len = (int)strlen(e->name)) > name_w) name_w = len;
        if ((len = (int)strlen(status_name(p ? p->status : ST_NOT_STARTED))) > status_w) status_w = len;
        if ((len = snprintf(cell, sizeof cell, "%d", p ? p->attempts : 0)) > attempts_w) attempts_w = len;
        best_text(p, cell, sizeof cell);
        if ((len = (int)strlen(cell)) > best_w) best_w = len;
    }
    int passed = 0;
    printf("%-*s  %-*s %-*s %*s %7s %*s  %s\n", id_w, "id", name_w, "name", status_w, "status", attempts_w, "attempts",
           "hints", best_w, "best/ref", "last verdict");
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        ExProgress *p = progress_get(&s->progress, e->id, false);
        ExStatus st = p ? p->status : ST_NOT_STARTED;
        passed += st == ST_PASSED;
        best_text(p, cell, sizeof cell);
        printf("%-*s  %-*s %-*s %*d %3d/%-3d %*s  %s\n", id_w, e->id, name_w, e->name, status_w, status_name(st),
               attempts_w, p ? p->attempts : 0, p ? p->hints_seen : 0, e->hints.count, best_w, cell,
               p && p->last_verdict[0] ? p->last_verdict : "-");
    }
    printf("\n%d of %d exercise%s passed (%s)\n", passed, s->course->nexercises, s->course->nexercises == 1 ? "" : "s",
           s->ws.progress);
    return 0;
}

static void on_phase(const char *what, void *ctx) {
    const Exercise *e = ctx;
    /* a wait for the GPU is said in a CI log too: it explains a slow job */
    if (isatty(2) || !strncmp(what, "waiting for the GPU", 19)) fprintf(stderr, "%s: %s...\n", e->id, what);
}

/* Exit code of several results: 0 when all passed, 77 when all that did not
 * pass were skipped, else the first failure's. */
static int combined_exit(const GradeResult *rs, int count) {
    int code = EXIT_PASS;
    for (int i = 0; i < count; i++) {
        int c = verdict_exit_code(rs[i].verdict);
        if (c == EXIT_PASS) continue;
        if (code == EXIT_PASS || (code == EXIT_SKIPPED && c != EXIT_SKIPPED)) code = c;
        if (c == EXIT_INTERRUPTED) return c;
    }
    return code;
}

/* Whether a grade gets a diagnosis: why diagnoses every verdict (a pass
 * shows its counters beside the reference's), --explain the failures. */
static bool explained(const Options *o, bool why, Verdict v) {
    if (why) return true;
    return o->explain && v != V_PASS && v != V_SKIPPED && v != V_INTERRUPTED && v != V_GPU_BUSY;
}

/* The exercises a grade names: EX..., --chapter N or --all, into *list
 * (malloc'd), in the order named, each once; how many, or -1 after saying
 * why (a usage error, before anything is graded). */
static int selected_exercises(Session *s, const Options *o, const char *const *keys, int nkeys,
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

/* When this process began (main), for a trace's first line. */
static double process_start;

static int build_workers(void);

/* How many gradings run at once (--gpus): one per GPU of this machine
 * (each takes whichever GPU is free, never two on one), no more than asked,
 * than there are jobs, or than the compilers the memory holds (each
 * grading compiles). Through a launcher its jobs bring their own GPUs: as
 * many as asked, 1 unless --gpus N. *gpus: the GPUs that count. */
static int grading_workers(const Options *o, int jobs, int *gpus) {
    Launcher launch;
    int n;
    bool fewer = false; /* --gpus asked for more GPUs than this machine has */
    if (launcher_from_env(&launch)) {
        launcher_free(&launch);
        n = *gpus = o->gpus ? o->gpus : 1;
    } else {
        GpuInfo g;
        gpu_probe(&g); /* kept for the process: the gradings probe no more */
        *gpus = g.count;
        n = g.count < 1 ? 1 : g.count;
        if (o->gpus && o->gpus < n) n = o->gpus;
        fewer = o->gpus > g.count && g.count > 0;
    }
    int compilers = build_workers();
    if (n > compilers) n = compilers;
    if (n > jobs) n = jobs;
    if (n < 1) n = 1;
    if (fewer)
        fprintf(stderr, "gpucourse: --gpus %d: this machine has %d GPU%s; grading on %d at once\n", o->gpus, *gpus,
                *gpus == 1 ? "" : "s", n);
    return n;
}

/* What took how long, for a run of several gradings: "N gradings in S s,
 * W at once on G GPUs: R a minute". */
static void print_throughput(FILE *out, int gradings, double seconds, int at_once, int gpus) {
    fprintf(out, "%d grading%s in %.*f s", gradings, gradings == 1 ? "" : "s", seconds < 10 ? 1 : 0, seconds);
    if (at_once > 1) fprintf(out, ", %d at once on %d GPU%s", at_once, gpus, gpus == 1 ? "" : "s");
    else if (gpus > 0) fprintf(out, ", one at a time on %d GPU%s", gpus, gpus == 1 ? "" : "s");
    if (seconds > 0) fprintf(out, ": %.1f a minute", 60.0 * gradings / seconds);
    fputc('\n', out);
}

/* The gradings of one grade command, as proc_pool_run's jobs. */
typedef struct {
    Session *s;
    const Options *o;
    const Exercise **list;
    GradeResult *rs;
    Diagnosis *ds;
    bool why, any_diagnosis;
    int count, graded;
} GradeRun;

/* In a worker (or here, with one): grades list[i]. */
static void grade_job(int i, StrBuf *reply, void *ctx) {
    GradeRun *g = ctx;
    GradeOptions go = {.seed = g->o->seed, .timeout_s = g->o->timeout_s, .on_phase = on_phase, .ctx = (void *)g->list[i]};
    GradeResult r;
    grade_exercise(g->s->course, &g->s->ws, g->list[i], &go, &r);
    grade_result_pack(&r, reply);
    grade_result_free(&r);
}

/* A result that did not come back from its worker (reply NULL: the worker
 * died), as a setup error: never the student's code, which runs in a
 * process of its own. */
static void result_from_worker(GradeResult *r, const char *reply, size_t len, const char *what, const Exercise *e) {
    if (reply && grade_result_unpack(reply, len, r)) return;
    memset(r, 0, sizeof *r);
    r->verdict = V_SETUP_ERROR;
    snprintf(r->reason, sizeof r->reason,
             "the process of gpucourse's that %s %s ended before it said how (not your code's doing: that runs in a "
             "process of its own); run it again", what, e->id);
}

/* Here, in course order: records list[i]'s result (g->rs[i]) and reports
 * it; false after Ctrl-C. */
static bool report_graded(GradeRun *g, int i) {
    const Options *o = g->o;
    const Exercise *e = g->list[i];
    GradeResult *r = &g->rs[i];
    g->graded = i + 1;
    double recording = now_seconds();
    char *notice = NULL;
    if (grade_record(&g->s->ws, e, r, &notice) < 0)
        fprintf(stderr, "gpucourse: warning: progress not saved: %s\n", last_error());
    if (notice) fprintf(stderr, "gpucourse: warning: %s\n", notice);
    free(notice);
    if (o->format == FORMAT_TEXT) {
        report_text(stdout, e, r);
        fflush(stdout);
    }
    if (o->trace) {
        trace_step(&r->trace, "record progress, print the report", recording);
        /* what this process did before its first grading: the course, the workspace */
        if (i == 0) fprintf(stderr, "gpucourse started %.3f s before grading\n", r->trace.origin - process_start);
        trace_print(stderr, e->id, &r->trace, now_seconds() - r->trace.origin);
    }
    if (explained(o, g->why, r->verdict)) {
        DiagnoseOptions dop = {.on_phase = on_phase, .ctx = (void *)e};
        diagnose_exercise(g->s->course, &g->s->ws, e, r, &dop, &g->ds[i]);
        g->any_diagnosis = true;
        if (o->format == FORMAT_TEXT) report_diagnosis_text(stdout, g->s->course, e, r, &g->ds[i]);
    }
    if (o->format == FORMAT_TEXT && i + 1 < g->count) putchar('\n');
    fflush(stdout);
    return r->verdict != V_INTERRUPTED;
}

static bool graded_one(int i, const char *reply, size_t len, void *ctx) {
    GradeRun *g = ctx;
    result_from_worker(&g->rs[i], reply, len, "graded", g->list[i]);
    return report_graded(g, i);
}

static int cmd_grade(Session *s, const Options *o, const char *const *keys, int nkeys, bool why) {
    const Exercise **list;
    int count = selected_exercises(s, o, keys, nkeys, &list);
    if (count < 0) {
        free(list);
        return EXIT_USAGE;
    }
    GradeRun g = {s, o, list, xcalloc((size_t)count, sizeof *g.rs), xcalloc((size_t)count, sizeof *g.ds), why, false,
                  count, 0};
    int gpus = 0, at_once = count > 1 ? grading_workers(o, count, &gpus) : 1;
    double start = now_seconds();
    bool interrupted = false;
    ProcPool pool = {count, at_once, grade_job, graded_one, &g};
    proc_pool_run(&pool, &interrupted);
    if (interrupted && g.graded < count && (g.graded == 0 || g.rs[g.graded - 1].verdict != V_INTERRUPTED)) {
        /* the first grading that did not come back was stopped: said as one run alone says it */
        GradeResult *stopped = &g.rs[g.graded];
        stopped->verdict = V_INTERRUPTED;
        snprintf(stopped->reason, sizeof stopped->reason, "grading was interrupted; nothing was recorded");
        report_graded(&g, g.graded);
    }
    int graded = g.graded;
    if (o->format == FORMAT_JSON) report_json_diagnosed(stdout, list, g.rs, g.any_diagnosis ? g.ds : NULL, graded);
    if (o->format == FORMAT_JUNIT) report_junit(stdout, list, g.rs, graded);
    if (o->format == FORMAT_TEXT && count > 1) {
        int passed = 0, skipped = 0;
        for (int i = 0; i < graded; i++) passed += g.rs[i].verdict == V_PASS, skipped += g.rs[i].verdict == V_SKIPPED;
        putchar('\n');
        print_throughput(stdout, graded, now_seconds() - start, at_once, gpus);
        printf("%d passed, %d failed, %d skipped\n", passed, graded - passed - skipped, skipped);
    }
    int code = combined_exit(g.rs, graded);
    for (int i = 0; i < graded; i++) grade_result_free(&g.rs[i]);
    free(g.rs);
    free(g.ds);
    free(list);
    return code;
}

/* One exercise's part of check-course. */
typedef struct {
    const Exercise *e;
    char *build_problem;    /* what did not compile, with nvcc's log; NULL when all did */
    bool graded;            /* the GPU checks ran */
    GradeResult ref, stub;
    bool ref_ok, stub_fails;
    const Exercise *below;  /* the rung below (course_rung_below): its reference graded here must fail */
    GradeResult below_result;
    bool below_fails;
} ExerciseCheck;

/* Builds the stub, the reference and the harness of the kind (every
 * library the GPU checks grade, and what grading needs besides). */
static void check_builds(const Toolchain *t, const Course *c, const Workspace *w, ExerciseCheck *x) {
    const Exercise *e = x->e;
    StrBuf problem = {0};
    char *stub = course_stub_path(c, e), *sol = course_solution_path(c, e);
    const char *what[] = {"stub", "reference"};
    const char *src[] = {stub, sol};
    bool failed[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        const char *lib_src[] = {src[k], NULL};
        char *out = xprintf("%s/check-%s-%s.so", w->build, what[k], e->id);
        char *log = NULL;
        if ((failed[k] = toolchain_build_cached(t, BUILD_SHARED_LIB, lib_src, out, NULL, &log) < 0))
            sb_printf(&problem, "%s: the %s does not compile:\n%s\n", e->id, what[k], log ? log : last_error());
        free(log);
        free(out);
    }
    CourseParts parts;
    char *log = NULL;
    if (grade_build_course_parts(t, c, w, e, &parts, &log) < 0 && !(parts.reference_failed && failed[1]))
        sb_printf(&problem, "%s: %s\n%s\n", e->id, last_error(), log ? log : ""); /* a reference's: said once */
    course_parts_free(&parts);
    free(log);
    free(stub), free(sol);
    x->build_problem = problem.len ? sb_take(&problem) : NULL;
    sb_free(&problem);
}

/* Grades the reference, the stub and the rung below's reference of x->e
 * (check_decide says what that shows). */
static void check_on_gpu(const Course *c, const Workspace *w, ExerciseCheck *x) {
    const Exercise *e = x->e;
    char *sol = course_solution_path(c, e), *stub = course_stub_path(c, e);
    GradeOptions ro = {.source = sol, .label = "check-reference"};
    GradeOptions so = {.source = stub, .label = "check-stub"};
    grade_exercise(c, w, e, &ro, &x->ref);
    grade_exercise(c, w, e, &so, &x->stub);
    x->graded = true;
    x->below = course_rung_below(c, e);
    if (x->below) {
        char *below_sol = course_solution_path(c, x->below);
        char *label = xprintf("check-below-%s", x->below->id);
        GradeOptions bo = {.source = below_sol, .label = label};
        grade_exercise(c, w, e, &bo, &x->below_result);
        free(label);
        free(below_sol);
    }
    free(sol), free(stub);
}

/* What the gradings of check_on_gpu show. */
static void check_decide(ExerciseCheck *x) {
    const Exercise *e = x->e;
    /* margin: the reference must clear its floors by 5% in the same run */
    const GradeResult *ref = &x->ref;
    bool compute = ref->flops > 0;
    x->ref_ok = ref->verdict == V_PASS && ref->vs_reference >= e->floor_reference * 1.05 &&
                (compute || e->floor_baseline == 0 || ref->vs_baseline >= e->floor_baseline * 1.05) &&
                (!compute || e->floor_library == 0 || ref->vs_library >= e->floor_library * 1.05);
    x->stub_fails = x->stub.verdict != V_PASS && x->stub.verdict != V_SETUP_ERROR && x->stub.verdict != V_SKIPPED;
    /* a ladder is a ladder: the rung below's answer must not pass this one
     * (a requirement, the counters or a floor must hold this rung's point) */
    const GradeResult *b = &x->below_result;
    x->below_fails = x->below && b->verdict != V_PASS && b->verdict != V_SETUP_ERROR && b->verdict != V_SKIPPED &&
                     b->verdict != V_GPU_BUSY;
}

static void print_gpu_check(const ExerciseCheck *x) {
    const Exercise *e = x->e;
    const GradeResult *ref = &x->ref, *st = &x->stub;
    char stub_ratio[48] = "";
    if (st->timed) snprintf(stub_ratio, sizeof stub_ratio, " (%.2fx ref)", st->vs_reference);
    const char *stub_text = x->stub_fails ? verdict_title(st->verdict) : "FAIL (the stub passes)";
    if (ref->flops > 0)
        printf("%s %-20s reference: %-4s %.2fx ref %.2fx library (%.0f TFLOP/s)   stub: %s%s\n", e->id, e->name,
               x->ref_ok ? "ok" : "FAIL", ref->vs_reference, ref->vs_library, ref->tflops_student, stub_text,
               stub_ratio);
    else
        printf("%s %-20s reference: %-4s %.2fx ref %.2fx copy (%.0f GB/s)   stub: %s%s\n", e->id, e->name,
               x->ref_ok ? "ok" : "FAIL", ref->vs_reference, ref->vs_baseline, ref->gbps_student, stub_text,
               stub_ratio);
    if (!x->ref_ok) fprintf_visible(stdout, "    reference: %s: %s\n", verdict_title(ref->verdict), ref->reason);
    if (!x->stub_fails) fprintf_visible(stdout, "    stub: %s: %s\n", verdict_title(st->verdict), st->reason);
    if (x->below && x->below_fails)
        printf("    rung below: %s's reference is %s here\n", x->below->id, verdict_title(x->below_result.verdict));
    else if (x->below)
        printf("    rung below: FAIL: %s's reference %s here (%s): nothing holds this rung's point; add a "
               "requirement, evidence or a floor\n",
               x->below->id, x->below_result.verdict == V_PASS ? "passes" : "could not be graded",
               x->below_result.reason);
}

static void json_grade(FILE *out, const char *name, const GradeResult *r, const char *ok_key, bool ok) {
    fprintf(out, "\"%s\": {\"verdict\": \"%s\", \"%s\": %s, \"reason\": ", name, verdict_key(r->verdict), ok_key,
            ok ? "true" : "false");
    json_string(out, r->reason);
    if (r->timed) {
        fputs(", \"vs_reference\": ", out);
        json_number(out, r->vs_reference);
        fputs(", \"vs_baseline\": ", out);
        json_number(out, r->baseline.samples ? r->vs_baseline : NAN);
        fputs(", \"vs_library\": ", out);
        json_number(out, r->library.samples ? r->vs_library : NAN);
    }
    fputs("}", out);
}

/* The whole check as one JSON document, for an instructor's CI (root
 * NULL: the course was not found). */
static void check_json(const char *root, const StrList *problems, const Course *c, const ExerciseCheck *xs, int n,
                       const GpuInfo *gpu, bool gpu_checked, int code) {
    fputs("{\n  \"course\": ", stdout);
    if (root) json_string(stdout, root);
    else fputs("null", stdout);
    printf(",\n  \"ok\": %s,\n  \"exit_code\": %d,\n", code == 0 ? "true" : "false", code);
    printf("  \"chapters\": %d,\n  \"exercises\": %d,\n  \"problems\": [", c ? c->nchapters : 0,
           c ? c->nexercises : 0);
    for (int i = 0; i < problems->count; i++) {
        fputs(i ? ",\n    " : "\n    ", stdout);
        json_string(stdout, problems->items[i]);
    }
    printf("%s],\n  \"gpu\": {\"checked\": %s, \"device\": ", problems->count ? "\n  " : "",
           gpu_checked ? "true" : "false");
    json_string(stdout, gpu && gpu->count ? gpu->name : "");
    fputs(", \"why_not\": ", stdout);
    json_string(stdout, gpu && !gpu_checked ? (gpu->count ? "a build failed" : gpu->why) : "");
    fputs("},\n  \"results\": [", stdout);
    for (int i = 0; i < n; i++) {
        const ExerciseCheck *x = &xs[i];
        printf("%s\n    {\"id\": \"%s\", \"name\": \"%s\", \"kind\": \"%s\", \"compiles\": %s", i ? "," : "", x->e->id,
               x->e->name, x->e->kind, x->build_problem ? "false" : "true");
        if (x->build_problem) {
            fputs(", \"build_log\": ", stdout);
            json_string(stdout, x->build_problem);
        }
        if (x->graded) {
            fputs(",\n     ", stdout);
            json_grade(stdout, "reference", &x->ref, "ok", x->ref_ok);
            fputs(",\n     ", stdout);
            json_grade(stdout, "stub", &x->stub, "fails", x->stub_fails);
            if (x->below) {
                fprintf(stdout, ",\n     \"rung_below\": \"%s\", ", x->below->id);
                json_grade(stdout, "rung_below_reference", &x->below_result, "fails", x->below_fails);
            }
        }
        fputs("}", stdout);
    }
    printf("%s],\n  \"error\": ", n ? "\n  " : "");
    json_failure(stdout);
    fputs("\n}\n", stdout);
}

static int cmd_calibrate(const Options *o, Course *c, const char *const *keys, int nkeys);

/* How many nvcc runs check-course starts at once: one per core, no more
 * than the memory holds at nvcc's limit each (COMPILE_MEMORY_LIMIT). */
static int build_workers(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long by_memory = pages > 0 && page > 0 ? (long)((double)pages * (double)page / (double)COMPILE_MEMORY_LIMIT) : 1;
    long n = cores < by_memory ? cores : by_memory;
    return n < 1 ? 1 : n > 32 ? 32 : (int)n;
}

/* check-course's builds, as proc_pool_run's jobs: order[k] is the k-th exercise built. */
typedef struct {
    const Toolchain *t;
    const Course *c;
    const Workspace *w;
    int *order;
} Prebuild;

static void prebuild_job(int k, StrBuf *reply, void *ctx) {
    (void)reply;
    Prebuild *p = ctx;
    ExerciseCheck x = {.e = &p->c->exercises[p->order[k]]};
    check_builds(p->t, p->c, p->w, &x);
    free(x.build_problem);
}

static bool prebuilt(int k, const char *reply, size_t len, void *ctx) {
    (void)k, (void)reply, (void)len, (void)ctx;
    return true;
}

/* Builds every exercise's files (check_builds) with `workers` processes
 * at once, each taking the next exercise from a queue: the first exercise
 * of each kind first, so that the kinds' harnesses (the longest builds)
 * start together. Only fills the build cache: the caller's own pass then
 * finds everything built and reports as before (a failed build, never
 * cached, is built again there for its log). A harness two workers need
 * is built once (toolchain_build_cached holds a lock per output).
 * Returns false after Ctrl-C. */
static bool prebuild_course(const Toolchain *t, const Course *c, const Workspace *w, int workers) {
    if (workers < 2) return true;
    int *order = xcalloc((size_t)c->nexercises, sizeof *order), n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->nexercises; i++) {
            bool first_of_kind = true;
            for (int j = 0; j < i; j++) first_of_kind &= strcmp(c->exercises[j].kind, c->exercises[i].kind) != 0;
            if (first_of_kind == (pass == 0)) order[n++] = i;
        }
    Prebuild p = {t, c, w, order};
    ProcPool pool = {n, workers, prebuild_job, prebuilt, &p};
    bool interrupted;
    proc_pool_run(&pool, &interrupted);
    free(order);
    return !interrupted;
}

/* check-course's GPU checks of every exercise, as proc_pool_run's jobs. */
typedef struct {
    const Course *c;
    const Workspace *w;
    ExerciseCheck *xs;
    bool text;
    int failures;
} GpuChecks;

/* In a worker (or here): exercise i's gradings, each packed after its length. */
static void gpu_check_job(int i, StrBuf *reply, void *ctx) {
    GpuChecks *g = ctx;
    ExerciseCheck x = {.e = g->xs[i].e};
    check_on_gpu(g->c, g->w, &x);
    GradeResult *results[] = {&x.ref, &x.stub, &x.below_result};
    for (int k = 0; k < (x.below ? 3 : 2); k++) {
        StrBuf one = {0};
        grade_result_pack(results[k], &one);
        uint64_t len = one.len;
        sb_add(reply, (const char *)&len, sizeof len);
        sb_add(reply, one.buf, one.len);
        sb_free(&one);
        grade_result_free(results[k]);
    }
}

/* Here, in course order: exercise i's gradings read back, decided,
 * counted and printed; false after Ctrl-C. */
static bool gpu_check_done(int i, const char *reply, size_t len, void *ctx) {
    GpuChecks *g = ctx;
    ExerciseCheck *x = &g->xs[i];
    x->below = course_rung_below(g->c, x->e);
    GradeResult *results[] = {&x->ref, &x->stub, &x->below_result};
    size_t at = 0;
    for (int k = 0; k < (x->below ? 3 : 2); k++) {
        uint64_t one = 0;
        bool whole = reply && len - at >= sizeof one;
        if (whole) memcpy(&one, reply + at, sizeof one), at += sizeof one;
        whole = whole && one <= len - at;
        result_from_worker(results[k], whole ? reply + at : NULL, whole ? (size_t)one : 0, "checked", x->e);
        if (whole) at += (size_t)one;
    }
    x->graded = true;
    check_decide(x);
    g->failures += !x->ref_ok + !x->stub_fails + (x->below && !x->below_fails);
    if (g->text) {
        print_gpu_check(x);
        fflush(stdout);
    }
    return x->ref.verdict != V_INTERRUPTED && x->stub.verdict != V_INTERRUPTED &&
           (!x->below || x->below_result.verdict != V_INTERRUPTED);
}

/* Validates the course; without a GPU compiles every stub, reference and
 * harness kind; with one also proves every reference passes with margin and
 * every stub fails. Text, or one JSON document (--format json). */
static int cmd_check_course(const Options *o, const char *const *keys, int nkeys) {
    if (o->format == FORMAT_JUNIT) return fail_usage("%s", "check-course writes --format text or json");
    if (!o->calibrate && nkeys) return fail_usage("'%s': check-course takes exercises only with --calibrate", keys[0]);
    if (!o->calibrate && (o->runs || o->chapter)) return fail_usage("%s", "--runs and --chapter go with --calibrate");
    bool text = o->format == FORMAT_TEXT;
    char *root = course_locate(o->course_dir);
    if (!root) return fail_setup();
    StrList problems = {0};
    Course *c = course_load(root, &problems);
    if (c && !o->calibrate) course_check_content(c, &problems); /* a draft loads; check-course wants it done */
    if (c && problems.count) {
        course_free(c);
        c = NULL;
    }
    if (!c) {
        if (text) {
            for (int i = 0; i < problems.count; i++) fprintf_visible(stdout, "%s\n", problems.items[i]);
            printf("check-course: %d problem%s in the course files\n", problems.count, problems.count == 1 ? "" : "s");
        } else {
            check_json(root, &problems, NULL, NULL, 0, NULL, false, EXIT_SETUP);
        }
        strlist_free(&problems);
        free(root);
        return EXIT_SETUP;
    }
    if (o->calibrate) {
        free(root);
        int rc = cmd_calibrate(o, c, keys, nkeys);
        course_free(c);
        return rc;
    }
    if (text)
        printf("course: %d chapter%s, %d exercise%s: YAML valid, files present\n", c->nchapters,
               c->nchapters == 1 ? "" : "s", c->nexercises, c->nexercises == 1 ? "" : "s");
    Toolchain t;
    Workspace w;
    if (toolchain_find(&t) < 0 || workspace_open(c, o->workspace_dir, &w) < 0) {
        int rc = fail_setup();
        toolchain_free(&t);
        course_free(c);
        free(root);
        return rc;
    }
    int workers = build_workers();
    if (text && workers > 1) printf("building with %d compilers at once\n", workers);
    if (text) fflush(stdout);
    if (!prebuild_course(&t, c, &w, workers)) {
        fprintf(stderr, "gpucourse: check-course interrupted\n");
        workspace_free(&w);
        toolchain_free(&t);
        course_free(c);
        free(root);
        return EXIT_INTERRUPTED;
    }
    ExerciseCheck *xs = xcalloc((size_t)c->nexercises, sizeof *xs);
    int failures = 0;
    for (int i = 0; i < c->nexercises; i++) {
        ExerciseCheck *x = &xs[i];
        x->e = &c->exercises[i];
        check_builds(&t, c, &w, x);
        failures += x->build_problem != NULL;
        if (text && x->build_problem) fprintf_visible(stdout, "%s", x->build_problem); /* nvcc quotes the sources */
        else if (text)
            printf("%s %-20s stub, reference and harness kind %s compile for sm_90a\n", x->e->id, x->e->name,
                   x->e->kind);
        if (text) fflush(stdout);
    }
    GpuInfo gpu;
    gpu_probe(&gpu);
    bool on_gpu = failures == 0 && gpu.count > 0;
    if (text && failures == 0 && gpu.count == 0) printf("GPU checks skipped: %s\n", gpu.why);
    if (on_gpu) { /* every exercise, also after a failure; as many at once as there are GPUs */
        int gpus = 0, at_once = grading_workers(o, c->nexercises, &gpus);
        if (text && at_once > 1) printf("checking on %d GPUs at once\n", at_once);
        GpuChecks checks = {c, &w, xs, text, 0};
        ProcPool pool = {c->nexercises, at_once, gpu_check_job, gpu_check_done, &checks};
        bool interrupted = false;
        int checked = proc_pool_run(&pool, &interrupted);
        failures += checks.failures + (checked < c->nexercises); /* one not checked (Ctrl-C) is no pass */
    }
    int code = failures ? EXIT_SETUP : 0;
    if (text) printf("check-course: %s\n", failures ? "FAILED" : "ok");
    else check_json(root, &problems, c, xs, c->nexercises, &gpu, on_gpu, code);
    for (int i = 0; i < c->nexercises; i++) {
        free(xs[i].build_problem);
        if (xs[i].graded) grade_result_free(&xs[i].ref), grade_result_free(&xs[i].stub);
        if (xs[i].below) grade_result_free(&xs[i].below_result);
    }
    free(xs);
    free(root);
    workspace_free(&w);
    toolchain_free(&t);
    course_free(c);
    return code;
}

static void json_calibration(FILE *out, const Exercise *e, const Calibration *cal, bool first) {
    fprintf(out, "%s\n    {\"id\": \"%s\", \"name\": \"%s\", \"runs\": %d, \"timed\": %d, \"failed\": ",
            first ? "" : ",", e->id, e->name, cal->runs, cal->timed);
    json_string(out, cal->failed == V_PASS ? "" : verdict_key(cal->failed));
    fputs(", \"why\": ", out);
    json_string(out, cal->why);
    fputs(", \"floors_why\": ", out);
    json_string(out, e->floors_why ? e->floors_why : "");
    fputs(", \"floors\": [", out);
    for (int k = 0; k < cal->nfloors; k++) {
        const FloorCalibration *f = &cal->floors[k];
        fprintf(out, "%s{\"key\": \"%s\", \"floor\": ", k ? ", " : "", f->key);
        json_number(out, f->floor);
        fputs(", \"median\": ", out);
        json_number(out, f->median);
        fputs(", \"min\": ", out);
        json_number(out, f->min);
        fputs(", \"max\": ", out);
        json_number(out, f->max);
        fputs(", \"suggested\": ", out);
        json_number(out, f->suggested);
        fprintf(out, ", \"flag\": \"%s\"}", floor_flag_text(f->flag));
    }
    fputs("]}", out);
}

/* Text: the measured ratios, the suggested floors as a line to paste into
 * the chapter's YAML, and the floors the measurements flag. */
static void print_calibration(const Course *c, const Exercise *e, const Calibration *cal) {
    printf("%s %s: %d of %d run%s of the reference timed\n", e->id, e->name, cal->timed, cal->runs,
           cal->runs == 1 ? "" : "s");
    if (cal->failed != V_PASS) printf("  a run was not timed: %s: %s\n", verdict_title(cal->failed), cal->why);
    if (!cal->nfloors) return;
    printf("  %-10s %7s  %-11s  %5s  %9s\n", "ratio", "median", "spread", "floor", "suggested");
    StrBuf line = {0};
    for (int k = 0; k < cal->nfloors; k++) {
        const FloorCalibration *f = &cal->floors[k];
        char floor_text[16] = "-";
        if (f->floor > 0) snprintf(floor_text, sizeof floor_text, "%.2f", f->floor);
        printf("  %-10s %7.2f  %.2f-%-6.2f  %5s  %9.2f  %s\n", f->key, f->median, f->min, f->max, floor_text,
               f->suggested, f->flag == FLOOR_OK ? "" : floor_flag_text(f->flag));
        if (f->floor > 0 || k == 0) sb_printf(&line, "%s%s: %.2f", line.len ? ", " : "", f->key, f->suggested);
    }
    printf("    floors: {%s}  # %s, course/%s/chapter.yaml\n", line.buf, e->id, c->chapters[e->chapter].dir);
    if (e->floors_why) fprintf_visible(stdout, "    floors_why: %s\n", e->floors_why);
    sb_free(&line);
}

/* check-course --calibrate: each chosen reference graded o->runs times. */
static int cmd_calibrate(const Options *o, Course *c, const char *const *keys, int nkeys) {
    bool text = o->format == FORMAT_TEXT;
    const Exercise **list = xcalloc((size_t)c->nexercises + (size_t)nkeys + 1, sizeof *list);
    int count = 0;
    for (int i = 0; i < nkeys; i++) {
        Exercise *e = course_find(c, keys[i]);
        if (!e) {
            free(list);
            return fail_no_exercise();
        }
        list[count++] = e;
    }
    int chapter = o->chapter ? chapter_index(c, o->chapter) : -1;
    if (o->chapter && chapter < 0) {
        free(list);
        return EXIT_USAGE;
    }
    for (int i = 0; !nkeys && i < c->nexercises; i++)
        if (!o->chapter || c->exercises[i].chapter == chapter) list[count++] = &c->exercises[i];
    GpuInfo gpu;
    gpu_probe(&gpu);
    if (gpu.count == 0) { /* like grade: said, and the skip code */
        free(list);
        if (text) printf("check-course --calibrate needs a GPU: %s\n", gpu.why);
        else {
            fputs("{\n  \"ok\": false,\n  \"exit_code\": 77,\n  \"gpu\": {\"checked\": false, \"why_not\": ", stdout);
            json_string(stdout, gpu.why);
            fputs("},\n  \"calibration\": [],\n  \"error\": null\n}\n", stdout);
        }
        return EXIT_SKIPPED;
    }
    Workspace w;
    if (workspace_open(c, o->workspace_dir, &w) < 0) {
        free(list);
        return fail_setup();
    }
    int runs = o->runs ? o->runs : 5, flagged = 0;
    bool stopped = false;
    if (text)
        printf("check-course --calibrate: each reference graded %d time%s as a student's file on %s\n"
               "suggested = median x %.2f rounded down to 0.05; a floor is too tight when the median is under\n"
               "floor / %.1f, too loose when it is under %.1f x the median\n\n",
               runs, runs == 1 ? "" : "s", gpu.name, CALIBRATE_MARGIN, CALIBRATE_TIGHT, CALIBRATE_LOOSE);
    else
        fputs("{\n  \"calibration\": [", stdout);
    GradeResult *rs = xcalloc((size_t)runs, sizeof *rs);
    for (int i = 0; i < count; i++) {
        const Exercise *e = list[i];
        char *sol = course_solution_path(c, e);
        int done = 0;
        for (; done < runs; done++) {
            GradeOptions go = {.source = sol, .label = "check-reference", .on_phase = on_phase, .ctx = (void *)e};
            grade_exercise(c, &w, e, &go, &rs[done]);
            if (rs[done].verdict == V_INTERRUPTED || rs[done].verdict == V_SETUP_ERROR) {
                done++;
                break;
            }
        }
        Calibration cal;
        calibrate(e, rs, done, &cal);
        flagged += cal.failed != V_PASS;
        for (int k = 0; k < cal.nfloors; k++)
            flagged += cal.floors[k].flag == FLOOR_TOO_TIGHT || cal.floors[k].flag == FLOOR_TOO_LOOSE;
        if (text) {
            print_calibration(c, e, &cal);
            putchar('\n');
            fflush(stdout);
        } else {
            json_calibration(stdout, e, &cal, i == 0);
        }
        stopped = rs[done - 1].verdict == V_INTERRUPTED;
        for (int k = 0; k < done; k++) grade_result_free(&rs[k]);
        free(sol);
        if (stopped) {
            count = i + 1;
            break;
        }
    }
    int code = stopped ? EXIT_INTERRUPTED : flagged ? EXIT_SETUP : 0;
    if (text) printf("calibrate: %d exercise%s, %d flagged\n", count, count == 1 ? "" : "s", flagged);
    else printf("%s],\n  \"ok\": %s,\n  \"exit_code\": %d,\n  \"error\": null\n}\n", count ? "\n  " : "",
                code ? "false" : "true", code);
    free(rs);
    free(list);
    workspace_free(&w);
    return code;
}

/* The reference solution of every exercise (or of one chapter) graded as a
 * student's file: its throughput against the same-run ceilings. */
static int cmd_bench(Session *s, const Options *o) {
    int chapter = o->chapter ? chapter_index(s->course, o->chapter) : -1;
    if (o->chapter && chapter < 0) return EXIT_USAGE;
    GpuInfo gpu;
    gpu_probe(&gpu);
    if (gpu.count == 0) {
        printf("bench needs a GPU: %s\n", gpu.why);
        return EXIT_SKIPPED;
    }
    char date[40];
    now_iso8601(date, sizeof date);
    printf("gpucourse bench: each reference solution graded as a student's file, %s, %s (%d SMs)\n\n", date,
           gpu.name, gpu.sm_count);
    bool memory_table = false; /* printed as rows come, with its header at the first row */
    int failures = 0;
    StrBuf gemms = {0}; /* compute-bound kinds: a table of their own, in TFLOP/s */
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        if (o->chapter && e->chapter != chapter) continue;
        char *sol = course_solution_path(s->course, e);
        GradeOptions go = {.source = sol, .label = "check-reference", .seed = o->seed};
        GradeResult r;
        grade_exercise(s->course, &s->ws, e, &go, &r);
        char size[64];
        size_text(&e->timing_sizes[0], size, sizeof size);
        if (!memory_table && (!r.timed || r.flops <= 0)) {
            printf("| exercise | kind | size | reference GB/s | copy GB/s | ref / copy | library | library GB/s | ref / "
                   "library |\n|---|---|---|---|---|---|---|---|---|\n");
            memory_table = true;
        }
        if (!r.timed) {
            printf("| %s %s | %s | %s | %s: %s | | | | | |\n", e->id, e->name, e->kind, size, verdict_title(r.verdict),
                   r.reason);
            failures++;
        }
        for (int k = 0; r.timed && k < r.nsizes; k++) { /* a row per timed size */
            const TimedSize *t = &r.sizes[k];
            const char *at = t->size[0] ? t->size : size;
            if (t->flops > 0)
                sb_printf(&gemms, "| %s %s | %s | %s | %.1f | %s | %.1f | %.2f | %.0f |\n", e->id, e->name, e->kind, at,
                          t->tflops_reference, t->library.samples ? r.library_name : "-", t->tflops_library,
                          t->library.samples ? t->tflops_reference / t->tflops_library : 0, r.peak_tflops);
            else if (t->library.samples)
                printf("| %s %s | %s | %s | %.0f | %.0f | %.2f | %s | %.0f | %.2f |\n", e->id, e->name, e->kind, at,
                       t->gbps_reference, t->gbps_baseline, t->gbps_reference / t->gbps_baseline, r.library_name,
                       t->gbps_library, t->gbps_reference / t->gbps_library);
            else
                printf("| %s %s | %s | %s | %.0f | %.0f | %.2f | - | - | - |\n", e->id, e->name, e->kind, at,
                       t->gbps_reference, t->gbps_baseline, t->gbps_reference / t->gbps_baseline);
        }
        fflush(stdout);
        grade_result_free(&r);
        free(sol);
    }
    if (memory_table)
        printf("\nGB/s counts the bytes a correct solution must move (inputs read once, outputs written once) over\n"
               "the median of 21 samples; copy is cudaMemcpyAsync device-to-device of the same bytes, same run.\n");
    if (gemms.len) {
        printf("%s| exercise | kind | size | reference TFLOP/s | library | library TFLOP/s | ref / library | peak TFLOP/s |\n",
               memory_table ? "\n" : "");
        printf("|---|---|---|---|---|---|---|---|\n%s", gemms.buf);
        printf("\nTFLOP/s counts 2 M N K operations over the median of 21 samples, the library timed in the same run;\n"
               "peak is this GPU's dense rate for the arithmetic at its highest clock.\n");
    }
    sb_free(&gemms);
    return failures ? EXIT_SETUP : 0;
}

static void doctor_line(bool ok, const char *what, const char *detail, const char *fix) {
    printf("%-8s %-12s %s\n", ok ? "ok" : "MISSING", what, detail);
    if (!ok && fix) printf("%-8s %-12s fix: %s\n", "", "", fix);
}

static int cmd_doctor(const Options *o) {
    int code = 0;
    Toolchain t;
    if (toolchain_find(&t) == 0) {
        char *d = xprintf("%s (CUDA %s)", t.nvcc, t.version ? t.version : "unknown version");
        doctor_line(true, "nvcc", d, NULL);
        free(d);
    } else {
        doctor_line(false, "nvcc", "not found", "install the CUDA Toolkit and export PATH=/usr/local/cuda/bin:$PATH");
        code = EXIT_SETUP;
    }
    GpuInfo g;
    gpu_probe(&g);
    char detail[512];
    if (g.driver) snprintf(detail, sizeof detail, "CUDA driver API %d.%d", g.driver_version / 1000, g.driver_version % 1000 / 10);
    doctor_line(g.driver, "driver", g.driver ? detail : g.why,
                "install the NVIDIA driver (nvidia-smi should list your GPU)");
    if (g.count > 0) {
        snprintf(detail, sizeof detail, "%s, sm_%d%d, %d SMs, %d MHz max", g.name, g.cc_major, g.cc_minor, g.sm_count,
                 g.clock_mhz);
        doctor_line(true, "gpu", detail, NULL);
        if (g.count > 1) {
            snprintf(detail, sizeof detail, "%d: a grading takes whichever is free; grade and class grade with several "
                     "exercises or students use them all at once (--gpus N sets how many)", g.count);
            doctor_line(true, "gpus", detail, NULL);
        }
        /* one timed grading per GPU: every user's gpucourse must reach the same locks, which nobody else can
         * take away (grader/gpulock.h); /tmp serves, and says so */
        const char *lock_dir = gpu_lock_dir();
        bool fallback = !strcmp(lock_dir, "/tmp") && !getenv("GPUCOURSE_LOCK_DIR");
        for (int i = 0; i < g.count; i++) {
            GpuLock lock;
            const char *one[] = {g.uuids[i]};
            GpuLockRequest probe = {.gpus = one, .ngpus = 1, .what = "doctor", .timeout_s = 0.01};
            GpuLockResult locked = gpu_lock(&probe, &lock);
            char *path = gpu_lock_path(g.uuids[i]);
            if (locked == GPU_LOCK_FAILED)
                snprintf(detail, sizeof detail, "cannot be used, gradings are timed unlocked: %s", last_error());
            else if (lock.why[0])
                snprintf(detail, sizeof detail, "%s: the whole directory, one grading on the machine at a time (%s)%s",
                         lock_dir, lock.why, locked == GPU_LOCK_TIMED_OUT ? " (a grading holds it now)" : "");
            else
                snprintf(detail, sizeof detail, "%s%s%s%s%s", path, locked == GPU_LOCK_TIMED_OUT ? " (a grading holds it now)" : "",
                         fallback ? " (no shared lock directory: make install makes " : "",
                         fallback ? gpu_lock_shared_dir : "", fallback ? ")" : "");
            doctor_line(locked != GPU_LOCK_FAILED, "gpu lock", detail,
                        "point GPUCOURSE_LOCK_DIR at a directory only root (or you) can change, mode 1777 if shared, "
                        "as make install makes (docs/classroom.md)");
            gpu_unlock(&lock);
            free(path);
        }
        if (g.cc_major != 9)
            printf("%-8s %-12s the course targets Hopper (sm_90a); this GPU cannot run its code\n", "WARNING", "");
    } else {
        doctor_line(false, "gpu", g.why, "grading needs an NVIDIA Hopper GPU (H100/H200); without one, grade compiles and skips");
        if (code == 0) code = EXIT_SKIPPED;
    }
    char *cublas = t.cuda_home ? xprintf("%s/lib64/libcublas.so", t.cuda_home) : NULL;
    bool have_cublas = cublas && access(cublas, F_OK) == 0;
    doctor_line(have_cublas, "cuBLAS", have_cublas ? cublas : "not found in the toolkit",
                "install the toolkit's cuBLAS (libcublas-dev or the full CUDA Toolkit)");
    free(cublas);
    /* ex45's baseline, cuBLASLt's block scale modes (harness/kinds/gemm_fp8_blockscaled.cu) */
    int fp8_scales = toolchain_at_least(&t, TOOLKIT_FP8_SCALES_MAJOR, TOOLKIT_FP8_SCALES_MINOR);
    if (t.nvcc)
        doctor_line(fp8_scales > 0, "FP8 scales",
                    fp8_scales > 0 ? "CUDA 12.9 or later: ex45's cuBLASLt baseline"
                                   : "ex45's cuBLASLt baseline needs CUDA 12.9 or later",
                    "install CUDA Toolkit 12.9 or later; until then ex45 is a setup error (the rest needs 12.0)");
    char *cuobjdump = toolchain_tool(&t, "cuobjdump");
    doctor_line(cuobjdump != NULL, "cuobjdump", cuobjdump ? cuobjdump : "not found",
                "the exercises that require instructions (required_sass, forbidden_sass) cannot pass without it: it "
                "ships with the full CUDA Toolkit (package cuda-cuobjdump-X-Y)");
    free(cuobjdump);
    /* gpucourse why runs the student's code under it (grader/diagnose.h) */
    char *sanitizer = toolchain_tool(&t, "compute-sanitizer");
    char sanitizer_detail[300] = "not found";
    bool sanitizer_ok = false;
    if (sanitizer) {
        const char *argv[] = {sanitizer, "--version", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 30, .capture_limit = 4096};
        ProcResult res;
        if (proc_run(&spec, &res) == 0) {
            sanitizer_ok = res.exited && res.exit_code == 0;
            const char *v = strstr(res.output, "Version ");
            snprintf(sanitizer_detail, sizeof sanitizer_detail, "%s%s%.*s", sanitizer, v ? ", " : "",
                     v ? (int)strcspn(v, "\n") : 0, v ? v : "");
            if (!sanitizer_ok) snprintf(sanitizer_detail, sizeof sanitizer_detail, "%s does not run", sanitizer);
            proc_result_free(&res);
        }
    }
    doctor_line(sanitizer_ok, "sanitizer", sanitizer_detail,
                "gpucourse why cannot look for races and faults in your code without it: it ships with the CUDA "
                "Toolkit (package cuda-sanitizer-X-Y)");
    free(sanitizer);
    /* the GPU's counters: the evidence that chapters 7-11 pass on */
    char *cupti = toolchain_cupti(&t);
    doctor_line(cupti != NULL, "CUPTI", cupti ? cupti : "not found",
                "the exercises that require evidence from the GPU's counters (chapters 7-11) cannot pass without it: "
                "it ships with the CUDA Toolkit (package cuda-cupti-X-Y)");
    free(cupti);
    int admin_only = gpu_profiling_admin_only("/proc/driver/nvidia/params");
    if (admin_only >= 0)
        doctor_line(admin_only == 0 || geteuid() == 0, "counters",
                    admin_only == 0 ? "readable by every user"
                    : geteuid() == 0 ? "readable by administrators only; you run as root"
                                     : "the driver lets only administrators read the GPU's counters (RmProfilingAdminOnly: 1)",
                    "the exercises that require evidence (chapters 7-11) are not graded, and gpucourse why shows no counters, "
                    "until they are readable: as root, "
                    "echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' > /etc/modprobe.d/gpucourse-profiling.conf "
                    "and reboot (or reload the nvidia module)");
    SandboxStatus sb;
    sandbox_probe(&sb);
    snprintf(detail, sizeof detail, "Landlock ABI %d, seccomp %s%s%s", sb.landlock_abi, sb.seccomp ? "on" : "off",
             sb.note[0] ? "; " : "", sb.note);
    doctor_line(sb.landlock && sb.seccomp, "sandbox", detail,
                "student code still runs in its own process, but confined less (docs/harness.md); a Linux kernel "
                "with Landlock and seccomp filters (5.13 or later) confines it fully");
    char *smi = proc_find_in_path("nvidia-smi");
    if (smi && g.count > 0) {
        const char *argv[] = {smi, "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,"
                                   "clocks_throttle_reasons.active",
                              "--format=csv,noheader", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 20, .capture_limit = 4096};
        ProcResult res;
        if (proc_run(&spec, &res) == 0) {
            res.output[strcspn(res.output, "\n")] = '\0';
            snprintf(detail, sizeof detail, "sm, max sm, mem, temp, power, throttle: %s", res.output);
            doctor_line(res.exited && res.exit_code == 0, "clocks", detail, NULL);
            proc_result_free(&res);
        }
    }
    free(smi);
    char *root = course_locate(o->course_dir);
    if (root) {
        StrList problems = {0};
        Course *c = course_load(root, &problems);
        snprintf(detail, sizeof detail, "%s (%s)", root, c ? "valid" : "has problems: run gpucourse check-course");
        doctor_line(c != NULL, "course", detail, NULL);
        if (!c) code = EXIT_SETUP;
        course_free(c);
        strlist_free(&problems);
        free(root);
    } else {
        doctor_line(false, "course", last_error(), "run gpucourse where the course is, give --course DIR, or make install");
        code = EXIT_SETUP;
    }
    toolchain_free(&t);
    return code;
}

/* gpucourse new course DIR | chapter NAME | exercise CHAPTER NAME --kind
 * KIND: the files of a new part of a course (src/scaffold.c), then what to
 * do next. Works on a course that does not load yet (a chapter without
 * exercises is what new chapter leaves). */
static int cmd_new(const Options *o, const char *const *args, int nargs) {
    static const char usage[] = "new course DIR | new chapter NAME | new exercise CHAPTER NAME --kind KIND";
    const char *what = nargs ? args[0] : "";
    int want = !strcmp(what, "course") || !strcmp(what, "chapter") ? 2 : !strcmp(what, "exercise") ? 3 : 0;
    if (!want) return fail_usage("'gpucourse new' makes one of: %s", usage);
    if (nargs != want) return fail_usage("usage: gpucourse %s", usage);
    if ((want == 3) != (o->kind != NULL))
        return fail_usage("%s", want == 3 ? "new exercise needs --kind KIND (a file in harness/kinds/)"
                                          : "--kind goes with new exercise");
    StrList made = {0};
    int rc;
    char *root = NULL;
    if (want == 2 && !strcmp(what, "course")) {
        rc = scaffold_course(args[1], o->title, &made);
        root = xstrdup(args[1]);
    } else {
        if (!(root = course_locate(o->course_dir))) return fail_setup();
        rc = want == 2 ? scaffold_chapter(root, args[1], o->title, &made)
                       : scaffold_exercise(root, args[1], args[2], o->kind, o->title, &made);
    }
    if (rc < 0) {
        fprintf(stderr, "gpucourse: %s\n", last_error());
        free(root);
        strlist_free(&made);
        return rc == SCAFFOLD_REFUSED ? EXIT_USAGE : EXIT_SETUP;
    }
    /* the YAML that was appended to comes last; new course only creates */
    bool appended = strcmp(what, "course") != 0;
    for (int i = 0; i < made.count; i++)
        printf("%s %s\n", appended && i + 1 == made.count ? "updated" : "created", made.items[i]);
    if (!strcmp(what, "course")) {
        printf("Next: gpucourse --course %s new chapter NAME\n", args[1]);
    } else if (want == 2) {
        const char *dir = made.items[0] + strlen("course/"); /* course/NN-NAME/chapter.yaml */
        printf("Next: write the lesson, then: gpucourse new exercise %.*s NAME --kind KIND\n",
               (int)strcspn(dir, "/"), dir);
    } else {
        printf("Next: the TODOs in the YAML entry, the stub and the reference; then gpucourse check-course\n");
    }
    free(root);
    strlist_free(&made);
    return 0;
}

/* ------------------------------------------------------------ class grade */

static void class_phase(const char *what, void *ctx) {
    (void)ctx;
    fprintf(stderr, "grading %s...\n", what);
}

static void sh_quote(StrBuf *sb, const char *word) {
    sb_puts(sb, " '");
    for (const char *c = word; *c; c++) sb_puts(sb, *c == '\'' ? "'\\''" : (char[]){*c, '\0'});
    sb_puts(sb, "'");
}

/* sbatch --parsable's output as it comes: its first line, the job id, named
 * as one (with how to follow it); what else it says passes through. */
typedef struct {
    char first[64];
    size_t len;
    int done;
} SbatchOutput;

static void show_sbatch_output(const char *data, size_t len, void *ctx) {
    SbatchOutput *o = ctx;
    while (!o->done && len) {
        char c = *data++;
        len--;
        if (c != '\n' && o->len + 1 < sizeof o->first) {
            o->first[o->len++] = c;
            continue;
        }
        o->done = 1;
        o->first[o->len] = 0;
        if (o->len && strspn(o->first, "0123456789") == o->len)
            fprintf(stderr, "Slurm job %s (squeue -j %s shows its tasks)\n", o->first, o->first);
        else
            fprintf(stderr, "%s%c", o->first, c);
    }
    fwrite(data, 1, len, stderr);
}

/* A path in sbatch's --output, where '%' starts a pattern (%a, %j, ...):
 * each '%' doubled. NULL for a path with a '\', which makes sbatch leave
 * every pattern as it is. */
static char *sbatch_escape(const char *path) {
    if (strchr(path, '\\')) return NULL;
    StrBuf sb = {0};
    for (const char *c = path; *c; c++) sb_add(&sb, *c == '%' ? "%%" : c, *c == '%' ? 2 : 1);
    return sb_take(&sb);
}

/* The cluster's MaxArraySize (scontrol show config): an array's indices
 * are below it. Slurm's default, 1001, where it cannot be read: a smaller
 * one then fails at sbatch, which says so. */
static int slurm_max_array_size(void) {
    const char *argv[] = {"scontrol", "show", "config", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .capture_limit = 1 << 20};
    ProcResult res;
    long max = 1001;
    if (proc_run(&spec, &res) == 0) {
        const char *at = res.output && res.exited && res.exit_code == 0 ? strstr(res.output, "\nMaxArraySize") : NULL;
        long v;
        if (at && sscanf(at + 1, "MaxArraySize = %ld", &v) == 1 && v >= 1 && v <= INT_MAX) max = v;
        proc_result_free(&res);
    }
    return (int)max;
}

/* One job array of the roster's students first to first + count - 1,
 * sbatch --wait until it is done. 0 when every task ended well, 1 when
 * sbatch says otherwise (said here), EXIT_INTERRUPTED after Ctrl-C (the
 * array cancelled), -1 when sbatch did not run. */
static int sbatch_array(const Options *o, const char *script, const char *log, int first, int count) {
    StrList args = {0};
    strlist_add(&args, "sbatch");
    strlist_add(&args, "--parsable");
    strlist_add(&args, "--wait");
    /* --gpus N: at most N tasks (GPUs) at once, Slurm's array throttle */
    char *array = o->gpus ? xprintf("--array=0-%d%%%d", count - 1, o->gpus) : xprintf("--array=0-%d", count - 1);
    char *output = xprintf("--output=%s", log), *offset = xprintf("%d", first);
    strlist_add(&args, array);
    strlist_add(&args, "--job-name=gpucourse-class");
    strlist_add(&args, output);
    free(array), free(output);
    strlist_add_words(&args, getenv("GPUCOURSE_SBATCH"));
    strlist_add(&args, script);
    strlist_add(&args, offset); /* the script's $1: the array's first student */
    free(offset);
    const char **argv = strlist_argv(&args);
    SbatchOutput shown = {0};
    ProcSpec spec = {.argv = argv, .capture_limit = 64 * 1024, .on_output = show_sbatch_output, .ctx = &shown};
    ProcResult res;
    int rc = proc_run(&spec, &res);
    if (rc == 0) {
        char job[64] = "";
        sscanf(res.output ? res.output : "", "%63[0-9]", job);
        if (res.interrupted && job[0]) { /* sbatch --wait leaves the array running: cancel it */
            const char *cancel[] = {"scancel", job, NULL};
            ProcSpec cs = {.argv = cancel, .timeout_s = 30, .capture_limit = 4096};
            ProcResult cr;
            if (proc_run(&cs, &cr) == 0) proc_result_free(&cr);
            fprintf(stderr, "cancelled job %s\n", job);
            rc = EXIT_INTERRUPTED;
        } else if (res.interrupted) rc = EXIT_INTERRUPTED;
        else if (!res.exited || res.exit_code != 0) {
            fprintf(stderr, "gpucourse: sbatch ended with exit code %d: %s\n", res.exited ? res.exit_code : 128 + res.signal,
                    job[0] ? "some tasks failed (their logs are in the output directory's log/)" : "no job array ran");
            rc = 1;
        }
        proc_result_free(&res);
    }
    free(argv);
    strlist_free(&args);
    return rc;
}

/* The roster as Slurm job arrays: task I of an array that starts at
 * student F runs `gpucourse class grade FROZEN ... --task F+I` on a node
 * sbatch picks (GPUCOURSE_SBATCH: its options, e.g. "--gres=gpu:1
 * --partition=gpu --time=30"), each writing its student's files under OUT.
 * FROZEN is the roster as it was at submission (OUT/roster-frozen.txt),
 * so that a directory that changes while the job waits changes nothing.
 * A class larger than the cluster's MaxArraySize goes as several arrays,
 * one after another; sbatch --wait returns when one is done. Ctrl-C
 * cancels the array. The paths must be the same on the nodes (a shared
 * file system). Returns 0, 1 when sbatch failed or a task did (said), or
 * EXIT_INTERRUPTED, or -1 with error set. */
static int class_slurm(const Options *o, const char *course, const Roster *roster, const char *run,
                       const char *const *selection, int nselection, const char *out) {
    char *escaped = sbatch_escape(out);
    if (!escaped) return error("--out %s: sbatch cannot take a '\\' in its paths (it turns off its patterns)", out);
    char *frozen = xprintf("%s/roster-frozen.txt", out), *self = realpath("/proc/self/exe", NULL);
    int rc = self ? class_freeze_roster(roster, run, frozen) : error("cannot find gpucourse's own path for the job script");
    StrBuf script = {0};
    sb_puts(&script, "#!/bin/sh\n# gpucourse class grade --slurm: task I of an array that starts at student $1 grades\n"
                     "# the frozen roster's student $1 + I\nunset GPUCOURSE_LAUNCHER\nexec");
    const char *fixed[] = {self ? self : "", "--course", course, "class", "grade", frozen};
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) sh_quote(&script, fixed[i]);
    for (int i = 0; i < nselection; i++) sh_quote(&script, selection[i]);
    sh_quote(&script, "--out");
    sh_quote(&script, out);
    char num[32];
    if (o->seed) snprintf(num, sizeof num, "%llu", o->seed), sh_quote(&script, "--seed"), sh_quote(&script, num);
    if (o->timeout_s) snprintf(num, sizeof num, "%d", o->timeout_s), sh_quote(&script, "--timeout"), sh_quote(&script, num);
    if (o->allow_partial_sandbox) sh_quote(&script, "--allow-partial-sandbox");
    sb_puts(&script, " --task \"$(($1 + SLURM_ARRAY_TASK_ID))\"\n");
    char *path = xprintf("%s/class.sbatch", out);
    if (rc == 0) rc = write_file_atomic(path, script.buf, script.len);
    sb_free(&script);
    free(self);
    int max = rc == 0 ? slurm_max_array_size() : 1, students = roster->count;
    int arrays = (students + max - 1) / max;
    if (rc == 0)
        fprintf(stderr, "submitting %d student%s as %s (%s) and waiting for %s...\n", students, students == 1 ? "" : "s",
                arrays == 1 ? "a Slurm job array" : "Slurm job arrays, one after another", path,
                arrays == 1 ? "it" : "them");
    if (rc == 0 && arrays > 1)
        fprintf(stderr, "  (the cluster's MaxArraySize is %d: %d arrays; the logs of the array that starts at student F "
                        "are log/task-F+I.txt)\n", max, arrays);
    bool failed = false;
    for (int first = 0; rc == 0 && first < students; first += max) {
        int count = students - first < max ? students - first : max;
        /* each task's log: log/task-I.txt, I the student's index (F+I after the first array) */
        char *log = first ? xprintf("%s/log/task-%d+%%a.txt", escaped, first) : xprintf("%s/log/task-%%a.txt", escaped);
        int one = sbatch_array(o, path, log, first, count);
        free(log);
        if (one == 1) failed = true;
        else rc = one;
    }
    free(path), free(frozen), free(escaped);
    return rc == 0 && failed ? 1 : rc;
}

/* The students of a class grade here, as proc_pool_run's jobs. */
typedef struct {
    const Course *course;
    const Roster *roster;
    const ClassOptions *co;
    bool interrupted;
} ClassRun;

/* In a worker (or here): student i graded into OUT; the reply is the
 * outcome, then what went wrong. */
static void class_job(int i, StrBuf *reply, void *ctx) {
    ClassRun *run = ctx;
    int rc = class_grade_student(run->course, run->roster, i, run->co);
    sb_printf(reply, "%d\n%s", rc, rc < 0 ? last_error() : "");
}

/* Here, in roster order: says what went wrong for student i; false after Ctrl-C. */
static bool class_done(int i, const char *reply, size_t len, void *ctx) {
    (void)len;
    ClassRun *run = ctx;
    const char *name = run->roster->students[i].name;
    const char *why = reply ? strchr(reply, '\n') : NULL;
    int rc = why ? atoi(reply) : -1;
    if (rc == EXIT_INTERRUPTED) return !(run->interrupted = true);
    if (rc < 0) /* their row says "not graded"; the others go on */
        fprintf(stderr, "gpucourse: %s: %s\n", name,
                why ? why + 1 : "the process of gpucourse's that graded them ended before it said how");
    return true;
}

/* Exit codes of class grade: 0 when every student was graded (whatever
 * their verdicts), EXIT_SETUP (65) when sbatch failed, a student has no
 * results ("not graded"), or nobody's code got past compiling (every
 * grading a setup or compile error), EXIT_SKIPPED (77) when no student's
 * code ran (every grading that compiled was skipped: no GPU): the gradebook
 * is written all the same. */

/* After the summary: a class where gradings were skipped says so at class
 * level, with where the GPU should have come from; true when nothing ran. */
static bool class_no_gpu_banner(const Options *o, const ClassTotals *t) {
    if (!t->skipped) return false;
    bool nothing_ran = t->skipped == t->reached;
    Launcher launch;
    bool launched = launcher_from_env(&launch);
    if (launched) launcher_free(&launch);
    const char *fix = o->slurm ? "the Slurm tasks found none (--gres=gpu:1 in GPUCOURSE_SBATCH)"
                      : launched ? "the launcher's jobs found none (srun --gres=gpu:1 gives one)"
                                 : "set GPUCOURSE_LAUNCHER or run on a GPU node";
    if (nothing_ran)
        printf("\nno GPU: nothing was run; %s\n(every grading that compiled was skipped: graded is skipped in the "
               "gradebook)\n", fix);
    else
        printf("\nno GPU for %d of %d gradings: they were not run; %s\n(graded is skipped in the gradebook for "
               "their students)\n", t->skipped, t->reached, fix);
    return nothing_ran;
}

/* The students' code runs as the instructor, beside their keys and the
 * class's other work: where this kernel cannot confine it (no Landlock, or
 * no seccomp filters), a class grade refuses unless told otherwise. */
static int class_sandbox_check(const Options *o) {
    SandboxStatus sb;
    sandbox_probe(&sb);
    if (sb.landlock && sb.seccomp) return 0;
    if (o->allow_partial_sandbox) {
        fprintf_visible(stderr, "gpucourse: note: students' code runs confined less on this machine (%s): "
                                "--allow-partial-sandbox\n", sb.note);
        return 0;
    }
    char message[512];
    snprintf(message, sizeof message, "this machine cannot confine the students' code (%s): it would run as you, "
             "able to read what you can", sb.note);
    return fail(EXIT_SETUP, message,
                "Grade on a Linux kernel with Landlock and seccomp filters (5.13 or later, Landlock enabled at boot: "
                "gpucourse doctor shows it), or pass --allow-partial-sandbox to grade here anyway.\n");
}

static int cmd_class(const Options *o, const char *const *args, int nargs) {
    static const char usage[] =
        "usage: gpucourse class grade ROSTER [EX... | --chapter N | --all] [--out DIR] [--slurm] [--gpus N] "
        "[--allow-partial-sandbox], or: gpucourse class starter DIR";
    if (nargs == 2 && !strcmp(args[0], "starter")) { /* the students' starter repository (docs/classroom.md) */
        Session s;
        int rc = session_open(o, &s, false);
        if (rc == 0 && class_starter(s.course, args[1]) < 0) rc = fail_setup();
        if (rc == 0) printf("made %s: exercises/ (%d stubs), .gitignore, .course-id, README.md\n", args[1], s.course->nexercises);
        session_close(&s);
        return rc;
    }
    if (nargs < 2 || strcmp(args[0], "grade")) return fail_usage("%s", usage);
    if ((nargs >= 3) == (o->all || o->chapter)) return fail_usage("%s", usage);
    if (o->all && o->chapter) return fail_usage("%s", "--all and --chapter N exclude each other");
    if (o->format != FORMAT_TEXT)
        return fail_usage("%s", "class grade writes text; each student's results are OUT/NAME.json and OUT/NAME.xml "
                                "(JUnit), the class's OUT/gradebook.csv");
    const char *const *keys = args + 2;
    int nkeys = nargs - 2;
    Session s;
    int rc = session_open(o, &s, false);
    if (rc) {
        session_close(&s);
        return rc;
    }
    const Exercise **list = NULL;
    Roster roster = {0};
    int count = selected_exercises(&s, o, keys, nkeys, &list);
    char *out = NULL, *run = NULL;
    if (count < 0) rc = EXIT_USAGE;
    else if (roster_load(args[1], &roster) < 0) rc = fail_setup();
    else if (o->task >= roster.count)
        rc = roster.count == 1 ? fail_usage("--task %d: the roster has one student: 0", o->task)
                               : fail_usage("--task %d: the roster's students are 0 to %d", o->task, roster.count - 1);
    else {
        const char *dir = o->out ? o->out : "grades";
        char *logs = path_join(dir, "log");
        if (make_dirs(logs) < 0 || !(out = realpath(dir, NULL))) rc = fail_setup();
        free(logs);
    }
    if (rc) goto done;
    /* where the students' code runs (here, or each Slurm task on its node) */
    if ((o->task >= 0 || !o->slurm) && (rc = class_sandbox_check(o)) != 0) goto done;
    /* a task's results belong to the run that froze its roster; any other run is a fresh one */
    run = o->task >= 0 && roster.run ? xstrdup(roster.run) : class_run_id();
    ClassOptions co = {list, count, out, o->seed, o->timeout_s, class_phase, run};
    if (o->task >= 0) { /* one array task: its student, no collection */
        rc = class_grade_student(s.course, &roster, o->task, &co);
        if (rc < 0) rc = fail_setup();
        goto done;
    }
    /* a directory's entries that are not workspaces: each said, none silently */
    for (int i = 0; i < roster.skipped.count; i++)
        fprintf_visible(stderr, "gpucourse: %s: skipped %s\n", args[1], roster.skipped.items[i]);
    /* every student's results of an earlier run go before any is graded: a
     * task that never runs leaves its student "not graded" (and results
     * that cannot be removed are of another run: the collection skips them) */
    for (int i = 0; i < roster.count; i++)
        if (class_clear_outputs(&co, &roster.students[i]) < 0) fprintf_visible(stderr, "gpucourse: %s\n", last_error());
    if (class_clear_others(&co, &roster) < 0) fprintf_visible(stderr, "gpucourse: %s\n", last_error());
    bool sbatch_failed = false;
    if (rc == 0 && o->slurm) {
        char *course = realpath(s.course->root, NULL);
        const char **selection = xcalloc((size_t)nkeys + 2, sizeof *selection);
        int nsel = 0;
        for (int k = 0; k < nkeys; k++) selection[nsel++] = keys[k];
        if (o->all) selection[nsel++] = "--all";
        else if (o->chapter) selection[nsel++] = "--chapter", selection[nsel++] = o->chapter;
        rc = course ? class_slurm(o, course, &roster, run, selection, nsel, out) : error("cannot resolve the course's path");
        if (rc == 1) sbatch_failed = true, rc = 0;
        free(course), free(selection);
    } else if (rc == 0) { /* the students, as many at once as this machine has GPUs */
        int gpus = 0, at_once = grading_workers(o, roster.count, &gpus);
        ClassRun jobs = {s.course, &roster, &co, 0};
        ProcPool pool = {roster.count, at_once, class_job, class_done, &jobs};
        bool interrupted = false;
        double start = now_seconds();
        int students = proc_pool_run(&pool, &interrupted);
        rc = interrupted || jobs.interrupted ? EXIT_INTERRUPTED : 0;
        if (!rc) print_throughput(stderr, students * count, now_seconds() - start, at_once, gpus);
    }
    ClassTotals totals = {0};
    if (rc == EXIT_INTERRUPTED) fprintf(stderr, "gpucourse: interrupted: no gradebook written\n");
    else if (rc < 0) rc = fail_setup();
    else if (class_collect(s.course, &roster, &co, stdout, &totals) < 0) rc = fail_setup();
    else if (class_no_gpu_banner(o, &totals) && !sbatch_failed && !totals.not_graded) rc = EXIT_SKIPPED;
    else if (sbatch_failed || totals.not_graded || !totals.reached) {
        if (sbatch_failed) error("the Slurm job did not end well (sbatch's exit code above): the gradebook is incomplete");
        else if (totals.not_graded)
            error("%d of %d student%s not graded (their rows say so): the gradebook is incomplete", totals.not_graded,
                  totals.students, totals.students == 1 ? "" : "s");
        else error("nobody's code could be graded: every grading ended in a setup error or a compile error (%s/NAME.json "
                   "says why)", out);
        rc = fail_setup();
    }
done:
    free(run);
    free(out);
    free(list);
    roster_free(&roster);
    session_close(&s);
    return rc;
}

static int cmd_start(Session *s) {
    Exercise *next = next_exercise(s);
    cmd_list(s);
    if (next) {
        char *file = workspace_exercise_path(&s->ws, next);
        printf("\nEdit %s, then run: gpucourse grade %s\n", file, next->id);
        free(file);
    }
    return 0;
}

/* The terminal app, or watch mode (tui/). */
static int run_app(Session *s, const Options *o, const char *key, bool watch) {
    TuiOptions t = {.seed = o->seed, .timeout_s = o->timeout_s, .notice = s->progress.notice};
    if (key && !(t.start = find_exercise(s, key))) return EXIT_USAGE;
    return watch ? tui_watch(s->course, &s->ws, &t) : tui_run(s->course, &s->ws, &t);
}

/* Every command; those with args -1 read their own arguments. */
static const struct {
    const char *name;
    int args; /* 0: none; 1: needs EX; 2: takes one EX; 3: takes EX... (or --chapter N, --all), the current
                 exercise when none; 4: takes one EX, the current exercise when none */
} commands[] = {{"list", 0},  {"show", 4},     {"grade", 3},  {"hint", 4},          {"solution", 1},
                {"reset", 1}, {"progress", 0}, {"bench", 0},  {"watch", 2},         {"why", 4},
                {"help", -1}, {"doctor", -1},  {"new", -1},   {"check-course", -1}, {"class", -1}};

static int command_index(const char *name) {
    for (size_t i = 0; name && i < ARRAY_SIZE(commands); i++)
        if (!strcmp(name, commands[i].name)) return (int)i;
    return -1;
}

/* An unknown command, with the nearest one when it looks like a typo (one
 * or two letters off, not half of the word, as for exercises). */
static int fail_unknown_command(const char *typed) {
    const char *nearest = NULL;
    int best = INT_MAX;
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        int d = edit_distance(typed, commands[i].name);
        if (d <= 2 && 2 * d < (int)strlen(commands[i].name) && d < best) nearest = commands[i].name, best = d;
    }
    if (nearest) return fail_usage("unknown command '%s'; did you mean '%s'?", typed, nearest);
    /* the words of rustlings and similar courses, and what does that here */
    static const struct {
        const char *word, *here;
    } elsewhere[] = {
        {"run", "'grade' (with no exercise: the current one)"},
        {"verify", "'grade' (with no exercise: the current one)"},
        {"test", "'grade' (with no exercise: the current one)"},
        {"next", "'show' (with no exercise: the current one)"},
        {"status", "'progress'"},
        {"lesson", "'show EX' (where its lesson is), or the app's l key (gpucourse)"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(elsewhere); i++)
        if (!strcmp(typed, elsewhere[i].word))
            return fail_usage("unknown command '%s'; here it is %s", typed, elsewhere[i].here);
    return fail_usage("unknown command '%s'", typed);
}

/* The options into *o; 0, EXIT_USAGE after saying why, or -1 when they
 * were answered (--help, --version). After a bad value it reads on, so
 * that a --format later on the line still shapes the error document. */
static int parse_options(int argc, char **argv, Options *o) {
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"seed", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"course", required_argument, NULL, 'c'}, {"workspace", required_argument, NULL, 'w'},
        {"chapter", required_argument, NULL, 'C'}, {"all", no_argument, NULL, 'a'},
        {"kind", required_argument, NULL, 'k'}, {"title", required_argument, NULL, 'T'},
        {"calibrate", no_argument, NULL, 'L'}, {"runs", required_argument, NULL, 'r'},
        {"explain", no_argument, NULL, 'x'}, {"trace", no_argument, NULL, 'R'},
        {"out", required_argument, NULL, 'O'}, {"slurm", no_argument, NULL, 'S'}, {"task", required_argument, NULL, 'K'},
        {"gpus", required_argument, NULL, 'G'}, {"allow-partial-sandbox", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    int rc = 0, opt, longindex = 0;
    unsigned long long v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, &longindex)) != -1) { /* ':': a missing value is ':' */
        switch (opt) {
        case 'f':
            if (!strcmp(optarg, "text")) o->format = FORMAT_TEXT;
            else if (!strcmp(optarg, "json")) o->format = FORMAT_JSON;
            else if (!strcmp(optarg, "junit")) o->format = FORMAT_JUNIT;
            else rc = fail_usage("unknown format '%s' (text, json or junit)", optarg);
            break;
        case 's': /* 0 is no seed: a fresh one */
            if (option_number(optarg, 1, ULLONG_MAX, &v)) o->seed = v;
            else rc = fail_usage("--seed takes a positive number, not '%s': seeds are 1 to %llu", optarg, ULLONG_MAX);
            break;
        case 't':
            if (option_number(optarg, 1, 3600, &v)) o->timeout_s = (int)v;
            else rc = fail_usage("--timeout takes seconds (1 to 3600), not '%s'", optarg);
            break;
        case 'c':
        case 'w':
        case 'O': /* "" would be the root directory once a file name is joined to it */
            if (!*optarg) rc = fail_usage("--%s takes a directory, not an empty word", longopts[longindex].name);
            else if (opt == 'c') o->course_dir = optarg;
            else if (opt == 'w') o->workspace_dir = optarg;
            else o->out = optarg;
            break;
        case 'C': o->chapter = optarg; break; /* checked against the course: only it knows how many */
        case 'a': o->all = true; break;
        case 'k': o->kind = optarg; break;
        case 'T': o->title = optarg; break;
        case 'L': o->calibrate = true; break;
        case 'x': o->explain = true; break;
        case 'R': o->trace = true; break;
        case 'S': o->slurm = true; break;
        case 'P': o->allow_partial_sandbox = true; break;
        case 'K':
            if (option_number(optarg, 0, 1000000, &v)) o->task = (int)v;
            else rc = fail_usage("--task takes a student's index (0 to 1000000), not '%s'", optarg);
            break;
        case 'G':
            o->gpus_given = true;
            if (!strcmp(optarg, "all")) o->gpus = 0;
            else if (option_number(optarg, 1, GPU_MAX, &v)) o->gpus = (int)v;
            else rc = fail_usage("--gpus takes how many GPUs to grade on at once (1 to %d) or all, not '%s'", GPU_MAX, optarg);
            break;
        case 'r':
            if (option_number(optarg, 1, 100, &v)) o->runs = (int)v;
            else rc = fail_usage("--runs takes a number of runs (1 to 100), not '%s'", optarg);
            break;
        case 'h':
            if (rc) break;
            fputs(usage_text, stdout);
            return -1;
        case 'V':
            if (rc) break;
            printf("gpucourse %s\n", GPUCOURSE_VERSION);
            return -1;
        case ':': rc = fail_usage("option '%s' needs a value", argv[optind - 1]); break;
        default: rc = fail_usage("unknown option '%s'", argv[optind - 1]); break;
        }
    }
    return rc;
}

/* The command line's command, args its arguments. */
static int run_command(const Options *o, const char *cmd, const char *const *args, int nargs) {
    int which = command_index(cmd);
    if (cmd && which < 0) return fail_unknown_command(cmd);
    /* --format shapes what grade, why and check-course print (class grade
     * says its own); any other command prints text: refused, never ignored */
    if (o->format != FORMAT_TEXT && (!cmd || (strcmp(cmd, "grade") && strcmp(cmd, "why") && strcmp(cmd, "check-course") &&
                                              strcmp(cmd, "class"))))
        return fail_usage("--format %s goes with grade, why and check-course; %s prints text",
                          o->format == FORMAT_JSON ? "json" : "junit", cmd ? cmd : "the course app");
    if (cmd && !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (cmd && !strcmp(cmd, "doctor")) return cmd_doctor(o);
    if (cmd && !strcmp(cmd, "check-course")) return cmd_check_course(o, args, nargs);
    if (cmd && !strcmp(cmd, "new")) return cmd_new(o, args, nargs);
    if (cmd && !strcmp(cmd, "class")) return cmd_class(o, args, nargs);
    if (o->out || o->slurm || o->task >= 0) return fail_usage("%s", "--out, --slurm and --task go with class grade");
    if (o->gpus_given && (!cmd || (strcmp(cmd, "grade") && strcmp(cmd, "why"))))
        return fail_usage("%s", "--gpus goes with grade, class grade and check-course");
    if (o->kind || o->title) return fail_usage("%s", "--kind and --title go with new");
    if (o->calibrate || o->runs) return fail_usage("%s", "--calibrate and --runs go with check-course");
    if (o->explain && (!cmd || strcmp(cmd, "grade"))) return fail_usage("%s", "--explain goes with grade");
    if (o->trace && (!cmd || strcmp(cmd, "grade"))) return fail_usage("%s", "--trace goes with grade");

    bool grade = cmd && !strcmp(cmd, "grade"), grade_many = grade && (o->all || o->chapter);
    if (o->all && o->chapter) return fail_usage("%s", "--all and --chapter N exclude each other");
    if (!grade && (o->all || (o->chapter && strcmp(cmd ? cmd : "", "bench"))))
        return fail_usage("%s", "--all and --chapter go with grade (--chapter also with bench)");
    if (grade_many && nargs) return fail_usage("grade takes exercises, --chapter N or --all: one of them");
    if (which >= 0 && commands[which].args == 1 && !nargs)
        return fail_usage("'%s' needs an exercise, like ex01", cmd);
    if (which >= 0 && commands[which].args != 3 && nargs > (commands[which].args ? 1 : 0))
        return fail_usage("too many arguments for '%s'", cmd);

    Session s;
    int rc = session_open(o, &s, true);
    if (rc) {
        session_close(&s);
        return rc;
    }
    /* show, hint, grade and why without an exercise: the current one, the
     * first not passed (as rustlings' hint), said on stderr */
    const char *current[1];
    if (which >= 0 && commands[which].args >= 3 && !nargs && !grade_many) {
        const Exercise *next = next_exercise(&s);
        if (!next) {
            session_close(&s);
            return fail_usage("every exercise is passed: '%s' needs one named, like ex01", cmd);
        }
        fprintf(stderr, "gpucourse: %s, the first exercise not passed yet\n", next->id);
        current[0] = next->id;
        args = current;
        nargs = 1;
    }
    const char *arg = nargs ? args[0] : NULL;
    if (!cmd) rc = tui_can_draw() ? run_app(&s, o, NULL, false) : cmd_start(&s);
    else if (!strcmp(cmd, "list")) rc = cmd_list(&s);
    else if (!strcmp(cmd, "show")) rc = cmd_show(&s, arg);
    else if (!strcmp(cmd, "grade")) rc = cmd_grade(&s, o, args, nargs, false);
    else if (!strcmp(cmd, "why")) rc = cmd_grade(&s, o, args, nargs, true);
    else if (!strcmp(cmd, "hint")) rc = cmd_hint(&s, arg);
    else if (!strcmp(cmd, "solution")) rc = cmd_solution(&s, arg);
    else if (!strcmp(cmd, "reset")) rc = cmd_reset(&s, arg);
    else if (!strcmp(cmd, "bench")) rc = cmd_bench(&s, o);
    else if (!strcmp(cmd, "watch")) rc = run_app(&s, o, arg, true);
    else rc = cmd_progress(&s);
    session_close(&s);
    return rc;
}

/* After a usage or setup error, the document that --format json|junit
 * promises, in the shape of the command's own (a mistyped command gets
 * grade's), with the error in it. Commands that write no document keep to
 * stderr. */
static void write_failure_document(const Options *o, const char *cmd) {
    bool check_course = cmd && !strcmp(cmd, "check-course");
    if (!cmd || (command_index(cmd) >= 0 && strcmp(cmd, "grade") && strcmp(cmd, "why") && !check_course)) return;
    if (o->format == FORMAT_JUNIT) {
        char *name = xprintf("gpucourse %s", cmd);
        report_junit_error(stdout, name, failure.code, failure.message, &failure.details);
        free(name);
    } else if (check_course && o->calibrate) {
        printf("{\n  \"calibration\": [],\n  \"ok\": false,\n  \"exit_code\": %d,\n  \"error\": ", failure.code);
        json_failure(stdout);
        fputs("\n}\n", stdout);
    } else if (check_course) {
        StrList none = {0};
        check_json(NULL, &none, NULL, NULL, 0, NULL, false, failure.code);
    } else {
        report_json_error(stdout, failure.code, failure.message, &failure.details);
    }
}

int main(int argc, char **argv) {
    process_start = now_seconds();
    proc_harden_self(); /* before anything of the student's runs: see proc.c */
    Options o = {.task = -1};
    int rc = parse_options(argc, argv, &o);
    if (rc < 0) return 0;
    const char *cmd = optind < argc ? argv[optind] : NULL;
    const char *trace_env = getenv("GPUCOURSE_TRACE"); /* a CI's setting: grade's --trace, other commands unmoved */
    if (trace_env && *trace_env && strcmp(trace_env, "0") && cmd && !strcmp(cmd, "grade")) o.trace = true;
    int nargs = cmd ? argc - optind - 1 : 0;
    if (rc == 0) rc = run_command(&o, cmd, (const char *const *)argv + optind + 1, nargs);
    if (failure.code && rc == failure.code && o.format != FORMAT_TEXT) write_failure_document(&o, cmd);
    return rc;
}
