/* Grading one exercise: compile the student's file, run it under the
 * harness in a child process, read the harness's result lines, decide the
 * verdict. Returns a plain struct; never draws. The CLI and the terminal app
 * both call grade_exercise(). */
#ifndef GPUCOURSE_GRADER_H
#define GPUCOURSE_GRADER_H

#include "../src/course.h"
#include "../src/progress.h"
#include "../src/workspace.h"
#include "ceiling.h"
#include "evidence.h"
#include "kernels.h"
#include "loaded.h"
#include "toolchain.h"
#include "trace.h"

typedef enum {
    V_PASS,
    V_WRONG,
    V_SLOW,
    V_COMPILE_ERROR,
    V_RUNTIME_ERROR,
    V_TIMEOUT,
    V_REQUIREMENT,
    V_GPU_BUSY, /* other processes' work shared the GPU through every timing: no verdict on speed */
    V_SKIPPED,
    V_INTERRUPTED,
    V_SETUP_ERROR,
    V_COUNT
} Verdict;

/* The descriptor at which the judge (and a runner's diagnose mode) finds
 * its result pipe, named to it by GPUCOURSE_RESULT_FD. */
enum { RESULT_FD = 3 };

/* Exit codes, documented in the README and --help. */
enum {
    EXIT_PASS = 0,
    EXIT_WRONG = 1,
    EXIT_SLOW = 2,
    EXIT_COMPILE = 3,
    EXIT_RUNTIME = 4, /* runtime error or timeout */
    EXIT_REQUIREMENT = 5,
    EXIT_GPU_BUSY = 75, /* sysexits' EX_TEMPFAIL: grade again later */
    EXIT_NOT_YET = 75,  /* the same, for what opens later: solution before a pass */
    EXIT_USAGE = 64,
    EXIT_SETUP = 65, /* course or setup error */
    EXIT_SKIPPED = 77, /* no GPU */
    EXIT_INTERRUPTED = 130,
};

/* What why and --profile say after a GPU-busy grade: other programs on the
 * GPU, or the machine's busy CPUs that cost the witness its samples. */
#define GPU_BUSY_NOT_JUDGED "other work on the GPU or the machine kept it from being judged: ask again when it is quieter"
const char *verdict_key(Verdict v);   /* "wrong_answer" */
const char *verdict_title(Verdict v); /* "wrong answer" */
int verdict_exit_code(Verdict v);
/* The verdict stored as key (progress' last_verdict); V_COUNT if none. */
Verdict verdict_from_key(const char *key);
/* The status an attempt with this verdict reaches. */
ExStatus verdict_status(Verdict v);

typedef struct {
    char size[64];
    bool ok;
    long long mismatches;
    bool timed_sample; /* a check made on a timed sample's output */
    bool second_run;   /* failed: a second call on the same inputs gave other bits (tolerance: deterministic) */
} CheckResult;

typedef struct {
    double median_ms, min_ms, max_ms;
    int samples;
} Timing;

/* Where the output was wrong at the first size that failed (the judge's
 * wrongmap lines): a grid of cells over the output ('.' right, '+' partly
 * wrong, '#' all wrong), for 2D outputs the same folded onto one 16 x 16
 * tile (a mistake repeated in every tile), for 1D ones the first runs of
 * wrong indices. */
enum { WRONG_MAP_ROWS = 16, WRONG_MAP_COLS = 64, WRONG_FOLD = 16 };
typedef struct {
    bool present, closed;           /* closed: a second map began, lines after it are not this one's */
    char size[64], name[32];
    long long rows, cols, wrong;
    int grid_rows, grid_cols, nrows; /* nrows: grid rows read so far */
    char grid[WRONG_MAP_ROWS][WRONG_MAP_COLS + 1];
    int nfold;
    char fold[WRONG_FOLD][WRONG_FOLD + 1];
    long long runs_total;           /* 1D: runs of wrong indices seen */
    char runs[400];                 /* "1000-1023 2048" */
} WrongMap;

/* Checks: the check sizes, then per timed size one check and one per timed
 * sample (21): 4 timed sizes and 40 check sizes fit. */
enum { MAX_CHECKS = 160, MAX_TIMED_SIZES = 4 };

/* One timed size: its medians and what follows from them. */
typedef struct {
    char size[64];              /* "4096x4096x4096" ("" in outputs from before sizes were named) */
    double bytes, flops;
    Timing student, reference, baseline, library;
    double vs_reference, vs_baseline, vs_library;
    double gbps_student, gbps_reference, gbps_baseline, gbps_library;
    double tflops_student, tflops_reference, tflops_library;
    int clock_mhz, clock_min_mhz, clock_max_mhz; /* the SM clock NVML read after the student's timed calls
                                                    (median, least, most); 0: not read */
    Ceiling ceiling;            /* where the student's rate sits against the GPU's ceilings */
} TimedSize;

/* The checks of the compiled library alone, which need no GPU: the
 * forbidden libraries and symbols (libscan), the instructions of
 * required_sass, forbidden_sass and required_sass_around (cuobjdump), and
 * ptxas's wgmma repairs (nvcc's output). With a GPU the last two run only
 * on a correct answer; without one they run on every file that compiled,
 * and decide: a failed one is "requirement not met", all passed is still
 * "skipped" (nothing ran). */
enum { STATIC_LIBRARIES, STATIC_MACHINE_CODE, STATIC_COMPILER_REPAIRS, STATIC_COUNT };
typedef enum {
    STATIC_UNCHECKED, /* not reached, or the exercise has nothing for it to check */
    STATIC_PASSED,
    STATIC_FAILED,
    STATIC_NOT_RUN,   /* it could not run (no cuobjdump): never a pass */
} StaticOutcome;
const char *static_check_key(int check);            /* "machine_code" */
const char *static_outcome_key(StaticOutcome o);    /* "passed" */

/* What a grading found. Flat but for four pointers (compile_log,
 * program_output, mismatches, notes): a result crosses from a worker
 * process as bytes (grade_result_pack), so a new field that points to
 * something must be packed there too, and freed in grade_result_free. */
typedef struct {
    Verdict verdict;
    char reason[1024];          /* one or two sentences: why */
    char *compile_log;          /* nvcc's output (warnings too), or NULL */
    size_t compile_log_dropped; /* bytes of it beyond the cap */
    double compile_s;
    bool compile_reused;        /* the file had not changed: its library as built before, with that build's log */
    bool compiler_confined;     /* nvcc ran in its box (toolchain_confined): read only the toolkit, the system
                                   and the exercise directory; false: a note says it ran unconfined */
    char *program_output;       /* what the student's code printed (capped) */
    size_t output_dropped;      /* bytes beyond the cap */
    unsigned long long seed;
    char device[128];
    int cc;                     /* compute capability, 90 for 9.0 */
    int sm_count, clock_mhz;    /* clock_mhz: the highest SM clock (the device's), not the one it ran at */
    CheckResult checks[MAX_CHECKS];
    int nchecks;
    StrList mismatches;         /* "c[12] got nan want 1.5" */
    WrongMap wrong_map;         /* where, at the first size that failed */
    char gpu_id[64];            /* the GPU it ran on (one of GpuInfo.uuids): the key of its lock */
    char unlocked[512];         /* "" when timed under the GPU's lock (or none was run); else why it was not */
    KernelInfo kernels[MAX_KERNELS]; /* ptxas's figures of the student's kernels */
    int nkernels;
    bool timed;                 /* the timing lines were there */
    /* The figures from bytes to tflops_library are those of one timed size:
     * the one that decided (the least margin over the floors); sizes[] has
     * them all, in the exercise's order. A timed result has at least one
     * (output without `timed:` lines makes one of its first timing line). */
    TimedSize sizes[MAX_TIMED_SIZES];
    int nsizes, decisive;
    double bytes;
    double flops;               /* > 0: a compute-bound kind (GEMM), judged in FLOP/s, no copy baseline */
    double peak_tflops;         /* the GPU's arithmetic ceiling for the kind, 0 when none */
    double norm_error, norm_bound; /* the largest relative Frobenius error seen, and its bound (norm checks) */
    bool has_norm;
    double elements_worst;      /* GEMMs: the largest error of an element over its own bound (elements: lines) */
    long long elements_bad;     /* elements beyond their bound at the first size that had any */
    char elements_size[64];
    Timing student, reference, baseline;
    Timing library;             /* samples == 0 when the kind has no library baseline */
    char library_name[64];      /* "CUB DeviceScan::InclusiveSum" */
    double vs_reference, vs_baseline, vs_library;   /* throughput ratios */
    double gbps_student, gbps_reference, gbps_baseline, gbps_library;
    double tflops_student, tflops_reference, tflops_library;   /* compute-bound kinds */
    double floor_reference, floor_baseline, floor_library;
    Counters counters;          /* the GPU's counters of the student's counted calls (evidence) */
    LoadedModules loaded;       /* the machine code the student's process loaded at run time (with counters) */
    EvidenceLine evidence[MAX_EVIDENCE]; /* the exercise's evidence keys as measured */
    int nevidence;
    unsigned compiler_repairs;  /* ptxas's wgmma repairs seen anywhere in nvcc's output (grade_scan_repairs) */
    StaticOutcome statics[STATIC_COUNT]; /* how the checks that need no GPU ended */
    char static_not_run[384];   /* why the machine code could not be checked (STATIC_NOT_RUN), or "" */
    StrList notes;              /* things skipped or worth knowing */
    bool witness_lost;          /* the judge's own counters lost samples (a busy machine): graded again once */
    char sandbox[160];          /* how the student's code was confined: "landlock 7, seccomp on" */
    double wall_s;
    Trace trace;                /* where the wall time went */
} GradeResult;

void grade_result_free(GradeResult *r);

/* Places timed size t (its figures derived) against the ceilings of r's GPU
 * (r->cc, sm_count, clock_mhz) for kind: t->ceiling. size: the exercise's
 * spec of it, for outputs that did not name their sizes (grader/ceiling.c). */
void grade_place_ceiling(const GradeResult *r, const char *kind, const SizeSpec *size, TimedSize *t);

/* A result as bytes and back, for a grading done in another process of
 * this same program (proc_pool_run's workers): the struct as it is, then
 * what its pointers point to (compile_log, program_output, mismatches,
 * notes: a field that points to more must be added here too). unpack
 * returns false, r empty, on bytes that are not one whole result. */
void grade_result_pack(const GradeResult *r, StrBuf *out);
bool grade_result_unpack(const char *data, size_t len, GradeResult *r);

/* How the harness process ended. */
typedef struct {
    bool exited;
    int exit_code;
    int signal;
    bool timed_out;
    bool interrupted;
    int timeout_s;
    const char *launcher; /* the judge was started through this launcher (as set), or NULL */
    double launch_wait_s; /* how long the launcher may wait before the judge starts */
} RunStatus;

/* Reads the harness's result lines and decides the verdict (the part of
 * grading that needs no GPU, tested on recorded harness outputs). nonce is
 * what the harness must echo on its first line. */
void grade_decide(GradeResult *r, const Exercise *e, const RunStatus *st, const char *results,
                  const char *nonce);

typedef struct {
    unsigned long long seed;    /* 0: a fresh random seed */
    const char *source;         /* grade this course file instead of the student's (check-course, bench): */
    const char *label;          /* the library's name in the build directory (default "student"); with
                                   source, it comes from the build cache */
    int timeout_s;              /* 0: the exercise's own */
    /* live log of compiling and running, or NULL */
    void (*on_output)(const char *data, size_t len, void *ctx);
    void (*on_phase)(const char *phase, void *ctx); /* "compiling", "running" */
    void *ctx;
    /* The judge decides before its processes are gone (their CUDA contexts
     * torn down, about 0.2 s): false, grade_exercise waits for that; true, it
     * returns at once and the judge's end, with the GPU's lock, waits for
     * grade_settle (the caller shows the verdict first), or for the next
     * grade_exercise, which settles it first. */
    bool settle_later;
} GradeOptions;

/* Waits for the last grading's judge to end and lets go of its GPU's lock
 * (GradeOptions.settle_later); nothing when there is none. */
void grade_settle(void);

/* What grading an exercise runs besides the student's library, all from
 * the build cache: the judge of its kind, the student's runner of its kind
 * and the reference library. */
typedef struct {
    char *harness, *runner, *reference;
    bool reference_failed; /* what did not build was the reference (check-course said so already) */
} CourseParts;

/* A passing (or slow) result becomes "requirement not met" when the GPU's
 * counters (r->counters, from the result lines) do not show what e's
 * evidence keys require, and is never a pass when they could not be
 * collected (grader/evidence.h). */
void grade_check_evidence(GradeResult *r, const Exercise *e);

/* A passing (or slow) result of an exercise with evidence (whose judge
 * asked for counters, and so for the modules the student's process loaded)
 * becomes "requirement not met" when that process loaded machine code at
 * run time that is none of `cubins` (the cubins of the compiled library,
 * the runner and the libraries the runner may load: grader/loaded.h), or
 * more than the runner keeps, or could not record it; and is never a pass
 * when the judge reported no record (setup error). cubins may be NULL when
 * r's record alone decides. */
void grade_check_loaded(GradeResult *r, const Exercise *e, const StrList *cubins);

/* A passing (or slow) result, or a skipped one (no GPU: nothing ran),
 * becomes "requirement not met" when the machine code lacks an instruction of e's required_sass or has one of its
 * forbidden_sass (grader/sass.h), and is never a pass when the code could
 * not be read (a skipped one stays skipped, the check not run): sass_rc and
 * sass are toolchain_sass's (error set). */
void grade_check_sass(const Exercise *e, int sass_rc, const char *sass, GradeResult *r);

/* A passing (or slow) or skipped result becomes "requirement not met"
 * when nvcc's output showed that ptxas repaired a wgmma ordering mistake
 * (r->compiler_repairs, or the compile log). */
void grade_check_compiler_repairs(GradeResult *r);

/* Looks for ptxas's repair codes in nvcc's output, piece by piece as it
 * comes (a code may be split between pieces). Returns the repairs seen so
 * far: bit i for the i-th code (C7517, C7519). */
typedef struct {
    char tail[8];
    size_t tail_len;
    unsigned seen;
} RepairScan;
unsigned grade_scan_repairs(RepairScan *scan, const char *data, size_t len);
void course_parts_free(CourseParts *p);

/* Builds the CourseParts of e unless the build cache has them. Returns -1
 * with error set, and *log nvcc's output, when a build fails (the paths are
 * set either way; the caller frees them). */
int grade_build_course_parts(const Toolchain *t, const Course *c, const Workspace *w, const Exercise *e,
                             CourseParts *parts, char **log);

/* The picture of a wrong answer at a larger size, when r's was drawn at
 * one too small to say much (a GEMM's 17 x 9 has no tile to fold, a size
 * of 1 no runs): the judge runs again, untimed, on the later check sizes
 * of at least 32 x 32 (1D: 256), and stops at the first that fails.
 * Advice only: the verdict stays r's. Returns whether out holds a picture
 * (*interrupted: the run was stopped by Ctrl-C); wrong_map_says_little says
 * whether a picture is that small. */
bool wrong_map_says_little(const WrongMap *m);
bool grade_picture(const Exercise *e, const CourseParts *parts, const char *student, const GradeResult *r,
                   int timeout_s, WrongMap *out, bool *interrupted);

/* What points a program at the GPU r's grading ran on (the judge again,
 * the sanitizers): "CUDA_VISIBLE_DEVICES=GPU-..." on a machine with several
 * GPUs, NULL with one. malloc'd. */
char *grade_gpu_env(const GradeResult *r);

/* Whether a map's fold shows one mistake repeated in every tile: positions
 * wrong in all tiles beside positions right in all (a tail or one bad
 * block has no position wrong in every tile). */
bool wrong_map_repeats_in_tiles(const WrongMap *m);

/* Grades the student's file of e; fills r (always, also on setup errors).
 * A grading whose witness lost samples (GradeResult.witness_lost: the
 * machine's CPUs were busy, nothing the student's code can cause) is done
 * once more, and that one decides, with a note. */
void grade_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeOptions *o,
                    GradeResult *r);

/* Records an attempt and its outcome in the progress file. A grading that
 * decided nothing (skipped: no GPU; GPU busy; interrupted; a setup error)
 * is no attempt: nothing is recorded. */
int grade_record(const Workspace *w, const Exercise *e, const GradeResult *r, char **notice);

#endif
