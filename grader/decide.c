/* Deciding: the judge's result lines read into a verdict (grade_decide),
 * then what the GPU's counters, the witness and the counted calls' clock
 * say of it (grade_check_evidence). The lines are the judge's
 * (harness/judge/results.cu): nothing counts before the line that carries
 * the grading's nonce. */
#define _GNU_SOURCE
#include "grader.h"
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"

/* The note that the judge's clock decided the student's time is kept for
 * when that moved the median by more than this: an honest runner's calls
 * cross the clock's bound often enough at short sizes (ex13's reference,
 * graded as the student's on an H100: 3 of 10 gradings, 1.5% at most), and a
 * note about a disagreement that changed nothing only misleads. */
#define CLOCK_NOTE_SHIFT 0.02
/* A student kernel faster than this many times the same-run copy cannot have
 * moved the bytes it must (a read-only reduction reaches ~1.02x). */
#define IMPLAUSIBLE_VS_BASELINE 1.6
/* A compute-bound kernel faster than the GPU's peak FLOP/s (dense, at the
 * highest clock) cannot have done the operations it must. */
#define IMPLAUSIBLE_VS_PEAK 1.0

void grade_set_verdict(GradeResult *r, Verdict v, const char *fmt, ...) {
    r->verdict = v;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ deciding */

/* What the result lines said, beyond what goes straight into GradeResult. */
typedef struct {
    bool started;          /* the harness line with the right nonce */
    bool done;
    char error_kind[16];   /* nogpu, cuda, load, usage, runner */
    char error_text[768];
    char violation_kind[16];  /* input, bounds, library, protocol, busy */
    char violation_text[768];
    bool clock_decided;    /* at a timed size, the judge's clock overruled most of the student's samples and
                              moved the student's median by more than CLOCK_NOTE_SHIFT */
    int busy;              /* student samples that left GPU work running after solve returned */
    int busy_trusted;      /* trusted samples that waited too: the GPU's, not the student's */
    char gpu_busy[512];    /* SIZE: the processes that kept the GPU busy, until the judge gave up */
    int retimed;           /* timings done again because other processes shared the GPU */
    bool timed_out;        /* the judge's own bound (--timeout) ended it */
    bool extra_sizes;      /* more timed sizes than MAX_TIMED_SIZES: the lines of those are dropped */
    char no_library[160];  /* why the kind has no library baseline with this toolkit (KIND_NO_LIBRARY) */
} Parsed;

/* The timed size the lines now describe. Outputs without `timed:` lines
 * (one size) start it at their first timing line. */
static TimedSize *current_size(GradeResult *r, Parsed *p) {
    if (p->extra_sizes) return NULL;
    if (r->nsizes == 0) r->nsizes = 1;
    return &r->sizes[r->nsizes - 1];
}

/* "KIND: text" into kind (when short enough) and text. */
static void split_kind(const char *val, char *kind, size_t kind_size, char *text, size_t text_size) {
    const char *sep = strchr(val, ':');
    size_t klen = sep ? (size_t)(sep - val) : 0;
    if (klen && klen < kind_size) {
        memcpy(kind, val, klen);
        kind[klen] = '\0';
        val = sep + 1 + (sep[1] == ' ');
    }
    snprintf(text, text_size, "%s", val);
}

/* A line of the timed size now described: bytes, flops, a contestant's time. */
static void size_line(GradeResult *r, Parsed *p, const char *key, const char *val) {
    TimedSize *ts = current_size(r, p);
    if (!ts) return;
    if (!strcmp(key, "bytes")) ts->bytes = strtod(val, NULL);
    else if (!strcmp(key, "flops")) ts->flops = strtod(val, NULL);
    else if (!strcmp(key, "smclock")) { /* median least most samples */
        int mhz[3];
        if (sscanf(val, "%d %d %d", &mhz[0], &mhz[1], &mhz[2]) == 3 && mhz[0] > 0)
            ts->clock_mhz = mhz[0], ts->clock_min_mhz = mhz[1], ts->clock_max_mhz = mhz[2];
    } else {
        char who[16];
        Timing t = {0};
        if (sscanf(val, "%15s %lf %lf %lf %d", who, &t.median_ms, &t.min_ms, &t.max_ms, &t.samples) != 5) return;
        if (!strcmp(who, "student")) ts->student = t;
        else if (!strcmp(who, "reference")) ts->reference = t;
        else if (!strcmp(who, "baseline")) ts->baseline = t;
        else if (!strcmp(who, "library")) ts->library = t;
    }
}

/* A line of the picture of where the output is wrong ("wrongmap: ...",
 * "wrongrow: ..", "wrongfold: ..", "wrongruns: ..", key without "wrong"):
 * the first map only, rows of '.', '+' and '#' only. */
static void wrong_map_line(WrongMap *m, const char *key, const char *val) {
    if (!strcmp(key, "map")) {
        if (m->present) { /* a second map: later lines are not the first's */
            m->closed = true;
            return;
        }
        WrongMap w = {0};
        if (sscanf(val, "%63s %31s %lld %lld %d %d %lld", w.size, w.name, &w.rows, &w.cols, &w.grid_rows,
                   &w.grid_cols, &w.wrong) != 7 || w.grid_rows < 1 || w.grid_rows > WRONG_MAP_ROWS ||
            w.grid_cols < 1 || w.grid_cols > WRONG_MAP_COLS)
            return;
        w.present = true;
        *m = w;
        return;
    }
    if (!m->present || m->closed) return;
    size_t len = strlen(val);
    bool cells = strspn(val, ".+#") == len;
    if (!strcmp(key, "row") && m->nrows < m->grid_rows && cells && len == (size_t)m->grid_cols)
        snprintf(m->grid[m->nrows++], sizeof m->grid[0], "%s", val);
    else if (!strcmp(key, "fold") && m->nfold < WRONG_FOLD && cells && len == WRONG_FOLD)
        snprintf(m->fold[m->nfold++], sizeof m->fold[0], "%s", val);
    else if (!strcmp(key, "runs") && !m->runs_total) {
        int n = 0;
        if (sscanf(val, "%lld %n", &m->runs_total, &n) >= 1) snprintf(m->runs, sizeof m->runs, "%s", val + n);
    }
}

/* What the judge saw of other processes on the GPU, as a note: that it
 * could not watch them, or that a size was timed again because of them
 * (then true). */
static bool neighbours_note(GradeResult *r, const char *val) {
    const char *colon = strstr(val, ": ");
    bool unwatched = !strncmp(val, "unwatched: ", 11);
    if (!colon) return false;
    char *note = unwatched ? xprintf("other processes' work on this GPU was not watched: %s", colon + 2)
                           : xprintf("other processes used the GPU while size %.*s was timed (%s): it was timed again",
                                     (int)(colon - val), val, colon + 2);
    strlist_add(&r->notes, note);
    free(note);
    return !unwatched;
}

/* The runner's filter refuses shared anonymous memory outside the driver's
 * window at 8 GiB (harness/seccomp.c, MMAP_CHECKED): the runner's memory
 * limit (RLIMIT_DATA) does not count it. The driver's pinned host memory is
 * such memory, so cudaMallocHost and cudaHostAlloc say "out of memory". */
static const char PINNED_HOST_REFUSED[] =
    "if your code allocates pinned host memory (cudaMallocHost, cudaHostAlloc): the grader's sandbox refuses it, "
    "because the memory limit of the process that runs your code does not count it; pin memory of your own "
    "with cudaHostRegister, or use cudaMallocManaged";

/* A launcher that never started the judge: a setup error that shows the
 * end of what it said (srun: error: invalid partition specified). */
static void launch_failed(GradeResult *r, const RunStatus *st, const char *output) {
    char said[400];
    size_t len = output ? strlen(output) : 0;
    snprintf(said, sizeof said, "%s", len > 300 ? output + len - 300 : len ? output : "it said nothing");
    for (char *c = said; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    if (st->timed_out)
        grade_set_verdict(r, V_SETUP_ERROR, "the launcher (%s) did not start the judge within %.0f s "
                    "(GPUCOURSE_LAUNCH_WAIT sets the wait): %s", st->launcher, st->launch_wait_s, said);
    else
        grade_set_verdict(r, V_SETUP_ERROR, "the launcher (%s) ran no judge (exit code %d): %s", st->launcher,
                    st->exited ? st->exit_code : 128 + st->signal, said);
}

static void parse_line(GradeResult *r, Parsed *p, char *line, const char *nonce) {
    char *colon = strchr(line, ':');
    if (!colon || colon[1] != ' ') return;
    *colon = '\0';
    const char *key = line, *val = colon + 2;
    if (!strcmp(key, "harness")) {
        char got[128] = "";
        if (sscanf(val, "1 %127s", got) == 1 && !strcmp(got, nonce)) p->started = true;
        return;
    }
    if (!p->started) return; /* nothing counts before the harness proved itself */
    if (!strcmp(key, "trace")) {
        trace_judge_line(&r->trace, val);
        return;
    }
    if (evidence_parse_line(&r->counters, key, val)) return;
    if (loaded_parse_line(&r->loaded, key, val)) return;
    if (!strcmp(key, "seed")) r->seed = strtoull(val, NULL, 10);
    else if (!strcmp(key, "device")) snprintf(r->device, sizeof r->device, "%s", val);
    else if (!strcmp(key, "sm")) {
        int major = 0, minor = 0;
        if (sscanf(val, "%d.%d %d %d", &major, &minor, &r->sm_count, &r->clock_mhz) == 4) r->cc = major * 10 + minor;
    }
    else if (!strcmp(key, "timed")) {
        if (r->nsizes < MAX_TIMED_SIZES) snprintf(r->sizes[r->nsizes++].size, sizeof r->sizes[0].size, "%s", val);
        else p->extra_sizes = true;
    }
    else if (!strcmp(key, "bytes") || !strcmp(key, "flops") || !strcmp(key, "time") || !strcmp(key, "smclock"))
        size_line(r, p, key, val);
    else if (!strcmp(key, "peak")) r->peak_tflops = strtod(val, NULL);
    else if (!strcmp(key, "norm")) {
        double err = 0, bound = 0;
        bool parsed = sscanf(val, "%*s %lf %lf", &err, &bound) == 2;
        bool worse = !r->has_norm || (!isnan(r->norm_error) && (isnan(err) || err > r->norm_error));
        if (parsed && worse) {
            r->norm_error = err; /* the largest; a NaN stays */
            r->norm_bound = bound;
            r->has_norm = true;
        }
    }
    else if (!strcmp(key, "elements")) {
        char size[64];
        double worst = 0;
        long long bad = 0;
        if (sscanf(val, "%63s %lf %lld", size, &worst, &bad) == 3) {
            if (!(worst <= r->elements_worst)) r->elements_worst = worst; /* the largest; NaN and inf stay */
            if (bad > 0 && r->elements_bad == 0) {
                r->elements_bad = bad;
                snprintf(r->elements_size, sizeof r->elements_size, "%s", size);
            }
        }
    }
    else if (!strcmp(key, "library")) snprintf(r->library_name, sizeof r->library_name, "%s", val);
    else if (!strcmp(key, "nolibrary")) snprintf(p->no_library, sizeof p->no_library, "%s", val);
    else if (!strcmp(key, "check")) {
        CheckResult c = {0};
        char status[8] = "";
        sscanf(val, "%63s %7s %lld", c.size, status, &c.mismatches);
        c.ok = !strcmp(status, "ok");
        c.timed_sample = strstr(val, "(timed sample)") != NULL;
        c.second_run = strstr(val, "(second run)") != NULL;
        /* past the cap a failed check still shows, in the last slot */
        if (r->nchecks < MAX_CHECKS) r->checks[r->nchecks++] = c;
        else if (!c.ok) r->checks[MAX_CHECKS - 1] = c;
    } else if (!strncmp(key, "wrong", 5)) {
        wrong_map_line(&r->wrong_map, key + 5, val);
    } else if (!strcmp(key, "mismatch")) {
        if (r->mismatches.count < 10) strlist_add(&r->mismatches, val);
    } else if (!strcmp(key, "error")) {
        split_kind(val, p->error_kind, sizeof p->error_kind, p->error_text, sizeof p->error_text);
    } else if (!strcmp(key, "violation")) {
        if (!p->violation_kind[0])
            split_kind(val, p->violation_kind, sizeof p->violation_kind, p->violation_text, sizeof p->violation_text);
    } else if (!strcmp(key, "sandbox")) {
        snprintf(r->sandbox, sizeof r->sandbox, "%s", val);
    } else if (!strcmp(key, "clock")) {
        double event = 0;
        int judged = 0, n = 0;
        TimedSize *ts = current_size(r, p);
        if (ts && sscanf(val, "student event %lf wall %*f judged %d of %d", &event, &judged, &n) == 3 &&
            judged * 2 > n && !(ts->student.median_ms <= event * (1 + CLOCK_NOTE_SHIFT)))
            p->clock_decided = true;
    } else if (!strcmp(key, "busy")) {
        sscanf(val, "%d %d", &p->busy, &p->busy_trusted);
    } else if (!strcmp(key, "neighbours")) {
        p->retimed += neighbours_note(r, val);
    } else if (!strcmp(key, "timeout")) {
        p->timed_out = true;
    } else if (!strcmp(key, "gpubusy")) {
        snprintf(p->gpu_busy, sizeof p->gpu_busy, "%s", val);
    } else if (!strcmp(key, "done")) p->done = true;
}

/* Ratios and rates of one timed size from its medians. */
static void derive_figures(TimedSize *t) {
    t->vs_reference = t->reference.median_ms / t->student.median_ms;
    t->gbps_student = t->bytes / (t->student.median_ms * 1e6);
    t->gbps_reference = t->bytes / (t->reference.median_ms * 1e6);
    if (t->baseline.samples) {
        t->vs_baseline = t->baseline.median_ms / t->student.median_ms;
        t->gbps_baseline = t->bytes / (t->baseline.median_ms * 1e6);
    }
    if (t->library.samples) {
        t->vs_library = t->library.median_ms / t->student.median_ms;
        t->gbps_library = t->bytes / (t->library.median_ms * 1e6);
    }
    if (t->flops > 0) {
        t->tflops_student = t->flops / (t->student.median_ms * 1e9);
        t->tflops_reference = t->flops / (t->reference.median_ms * 1e9);
        if (t->library.samples) t->tflops_library = t->flops / (t->library.median_ms * 1e9);
    }
}

/* The timed size closest to failing: the smallest ratio over its floor. */
static int least_margin(const GradeResult *r, const Exercise *e) {
    int worst = 0;
    double worst_margin = INFINITY;
    for (int i = 0; i < r->nsizes; i++) {
        const TimedSize *t = &r->sizes[i];
        double m = e->floor_reference > 0 ? t->vs_reference / e->floor_reference : t->vs_reference;
        if (t->flops <= 0 && e->floor_baseline > 0 && t->vs_baseline / e->floor_baseline < m)
            m = t->vs_baseline / e->floor_baseline;
        if (e->floor_library > 0 && t->library.samples && t->vs_library / e->floor_library < m)
            m = t->vs_library / e->floor_library;
        if (m < worst_margin) worst = i, worst_margin = m;
    }
    return worst;
}

/* The figures of timed size i into the result's own fields. */
static void use_size(GradeResult *r, int i) {
    const TimedSize *t = &r->sizes[i];
    r->decisive = i;
    r->bytes = t->bytes, r->flops = t->flops;
    r->student = t->student, r->reference = t->reference, r->baseline = t->baseline, r->library = t->library;
    /* a GEMM's copy is its roofline's memory ceiling only (t->ceiling), never a ratio it is held to or
     * recorded by (progress, the gradebook) */
    r->vs_reference = t->vs_reference, r->vs_baseline = t->flops > 0 ? 0 : t->vs_baseline, r->vs_library = t->vs_library;
    r->gbps_student = t->gbps_student, r->gbps_reference = t->gbps_reference;
    r->gbps_baseline = t->gbps_baseline, r->gbps_library = t->gbps_library;
    r->tflops_student = t->tflops_student, r->tflops_reference = t->tflops_reference;
    r->tflops_library = t->tflops_library;
}

const char *grade_first_failed_size(const GradeResult *r) {
    for (int i = 0; i < r->nchecks; i++)
        if (!r->checks[i].ok) return r->checks[i].size;
    return "?";
}

void grade_decide(GradeResult *r, const Exercise *e, const RunStatus *st, const char *results,
                  const char *nonce) {
    Parsed p = {0};
    char *copy = xstrdup(results ? results : "");
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        parse_line(r, &p, line, nonce);
    free(copy);
    r->floor_reference = e->floor_reference;
    r->floor_baseline = e->floor_baseline;
    r->floor_library = e->floor_library;
    bool any_wrong = false;
    for (int i = 0; i < r->nchecks; i++) any_wrong |= !r->checks[i].ok;

    if (st->interrupted) {
        grade_set_verdict(r, V_INTERRUPTED, "grading was interrupted; nothing was recorded");
        return;
    }
    if (st->launcher && !p.started) { /* no allocation, a bad partition: the launcher's failure, not the student's */
        launch_failed(r, st, r->program_output);
        return;
    }
    if (!strcmp(p.error_kind, "nogpu")) {
        grade_set_verdict(r, V_SKIPPED, "no GPU: %s", p.error_text); /* check_static says what else */
        return;
    }
    if (st->timed_out || p.timed_out) {
        if (e->timeout_hint && *e->timeout_hint)
            grade_set_verdict(r, V_TIMEOUT, "no result within %d s: your kernel probably never finishes; likely here: %s",
                        st->timeout_s, e->timeout_hint);
        else
            grade_set_verdict(r, V_TIMEOUT,
                        "no result within %d s: your kernel probably never finishes (an endless loop, or a "
                        "barrier that not every thread of the block reaches)",
                        st->timeout_s);
        return;
    }
    if (!p.started) {
        if (st->signal)
            grade_set_verdict(r, V_RUNTIME_ERROR, "the program was killed by signal %d (%s) before the harness started",
                        st->signal, strsignal(st->signal));
        else
            grade_set_verdict(r, V_RUNTIME_ERROR, "the harness reported nothing (exit code %d)", st->exit_code);
        return;
    }
    if (!strncmp(r->sandbox, "partial", 7))
        strlist_add(&r->notes, "your code ran with fewer restrictions than usual on this machine; see docs/harness.md");
    if (p.violation_kind[0]) {
        /* the student's code broke a rule that the verdict depends on */
        Verdict v = !strcmp(p.violation_kind, "library")                                     ? V_REQUIREMENT
                    : !strcmp(p.violation_kind, "input") || !strcmp(p.violation_kind, "bounds") ? V_WRONG
                                                                                                 : V_RUNTIME_ERROR;
        grade_set_verdict(r, v, "%s", p.violation_text);
        return;
    }
    if (!strcmp(p.error_kind, "load")) {
        grade_set_verdict(r, V_COMPILE_ERROR, "%s", p.error_text);
        return;
    }
    if (!strcmp(p.error_kind, "usage")) {
        grade_set_verdict(r, V_SETUP_ERROR, "the exercise's sizes do not fit its kind: %s", p.error_text);
        return;
    }
    if (p.error_kind[0]) {
        grade_set_verdict(r, V_RUNTIME_ERROR, "%s", p.error_text);
        if (!strcmp(p.error_kind, "cuda") && strstr(p.error_text, "out of memory"))
            strlist_add(&r->notes, PINNED_HOST_REFUSED);
        return;
    }
    if (st->signal) {
        grade_set_verdict(r, V_RUNTIME_ERROR, "your code crashed the program: signal %d (%s)", st->signal,
                    strsignal(st->signal));
        return;
    }
    if (any_wrong) {
        long long bad = 0;
        const CheckResult *rerun = NULL;
        for (int i = 0; i < r->nchecks; i++) {
            bad += r->checks[i].ok ? 0 : r->checks[i].mismatches;
            if (!r->checks[i].ok && r->checks[i].second_run && !rerun) rerun = &r->checks[i];
        }
        if (rerun)
            grade_set_verdict(r, V_WRONG,
                        "two calls on the same inputs gave different results at size %s: %lld element%s changed "
                        "(seed %llu). This exercise asks for the same bits on every run: add partial sums in a "
                        "fixed order, not with atomicAdd or in whichever order blocks finish",
                        rerun->size, rerun->mismatches, rerun->mismatches == 1 ? "" : "s", r->seed);
        else if (r->has_norm && !(r->norm_error <= r->norm_bound))
            grade_set_verdict(r, V_WRONG,
                        "relative error %.2e (Frobenius norm, against exact values) at size %s is above the bound "
                        "%.0e; %lld element%s off by more than the bound times the RMS of C, or not a number "
                        "(seed %llu)",
                        r->norm_error, grade_first_failed_size(r), r->norm_bound, bad, bad == 1 ? "" : "s", r->seed);
        else if (r->has_norm && r->elements_bad > 0)
            grade_set_verdict(r, V_WRONG,
                        "%lld element%s at size %s off by more than rounding allows in any order of summation (the "
                        "worst %.3g times its bound), though the relative error in the norm is within %.0e: wrong "
                        "elements (seed %llu)",
                        r->elements_bad, r->elements_bad == 1 ? "" : "s", r->elements_size, r->elements_worst,
                        r->norm_bound, r->seed);
        else
            grade_set_verdict(r, V_WRONG, "%lld wrong element%s at size %s (seed %llu)", bad, bad == 1 ? "" : "s",
                        grade_first_failed_size(r), r->seed);
        return;
    }
    if (p.gpu_busy[0]) {
        /* the timings' turn comes after every check: only then were the answers all correct */
        const char *at = p.gpu_busy, *colon = strstr(at, ": ");
        int size_len = colon ? (int)(colon - at) : 0;
        const char *who = colon ? colon + 2 : at;
        if (p.retimed)
            grade_set_verdict(r, V_GPU_BUSY,
                        "timing not trustworthy: other processes used this GPU each of the %d times size %.*s was "
                        "timed (%s); your answers were correct, and nothing was recorded: grade again when the GPU "
                        "is free (nvidia-smi shows who uses it)",
                        p.retimed, size_len, at, who);
        else
            grade_set_verdict(r, V_GPU_BUSY,
                        "other processes kept this GPU busy (%s) while your code ran at size %.*s, so it could "
                        "not be judged; nothing was recorded: grade again when the GPU is free (nvidia-smi shows "
                        "who uses it)",
                        who, size_len, at);
        return;
    }
    bool stopped = !p.done || r->nsizes == 0;
    for (int i = 0; i < r->nsizes; i++) {
        const TimedSize *t = &r->sizes[i];
        stopped |= t->student.samples == 0 || t->reference.samples == 0 || (t->flops <= 0 && t->baseline.samples == 0);
    }
    if (stopped) {
        grade_set_verdict(r, V_RUNTIME_ERROR, "the harness stopped before it finished (exit code %d)", st->exit_code);
        return;
    }
    r->timed = true;
    if (p.clock_decided)
        strlist_add(&r->notes, "the time your runner reported disagreed with the harness's clock; the clock decided");
    /* one call that waited is the GPU's hiccup (on an H100, 1 in 1638 of
     * the references' calls graded as a student's, and 4 in 3276 trusted
     * calls); work left running shows in every call */
    if (p.busy >= 3 && !p.busy_trusted)
        strlist_add(&r->notes, "GPU work was still running after your solve returned; it counted in your time");
    for (int i = 0; i < r->nsizes; i++) {
        TimedSize *t = &r->sizes[i];
        derive_figures(t);
        grade_place_ceiling(r, e->kind, i < e->ntiming_sizes ? &e->timing_sizes[i] : NULL, t);
        char at[80] = "";
        if (r->nsizes > 1) snprintf(at, sizeof at, " at size %s", t->size);
        if (t->flops > 0 && r->peak_tflops > 0 && t->tflops_student > IMPLAUSIBLE_VS_PEAK * r->peak_tflops) {
            grade_set_verdict(r, V_WRONG,
                        "%.0f TFLOP/s%s is above this GPU's peak of %.0f TFLOP/s for this arithmetic: faster than "
                        "the tensor cores allow, so some work was skipped",
                        t->tflops_student, at, r->peak_tflops);
            use_size(r, i);
            return;
        }
        if (t->flops <= 0 && t->vs_baseline > IMPLAUSIBLE_VS_BASELINE) {
            grade_set_verdict(r, V_WRONG,
                        "%.0f GB/s%s is %.1fx the copy bandwidth measured in the same run: faster than the memory "
                        "allows, so some work was skipped",
                        t->gbps_student, at, t->vs_baseline);
            use_size(r, i);
            return;
        }
    }
    use_size(r, least_margin(r, e));
    bool compute = r->flops > 0;
    char at[80] = ""; /* which size, when there are several */
    if (r->nsizes > 1) snprintf(at, sizeof at, " at size %s", r->sizes[r->decisive].size);
    if (r->vs_reference < e->floor_reference) {
        grade_set_verdict(r, V_SLOW, "correct, but your kernel reaches %.2fx of the reference's throughput%s (floor %.2fx)",
                    r->vs_reference, at, e->floor_reference);
        return;
    }
    if (!compute && e->floor_baseline > 0 && r->vs_baseline < e->floor_baseline) {
        grade_set_verdict(r, V_SLOW, "correct, but your kernel reaches %.2fx of the copy bandwidth%s (floor %.2fx)",
                    r->vs_baseline, at, e->floor_baseline);
        return;
    }
    if (e->floor_library > 0 && r->library.samples && r->vs_library < e->floor_library) {
        if (compute)
            grade_set_verdict(r, V_SLOW, "correct, but your kernel reaches %.2fx of %s's throughput%s (%.0f vs %.0f "
                        "TFLOP/s; floor %.2fx)",
                        r->vs_library, r->library_name, at, r->tflops_student, r->tflops_library, e->floor_library);
        else
            grade_set_verdict(r, V_SLOW, "correct, but your kernel reaches %.2fx of %s's throughput%s (floor %.2fx)",
                        r->vs_library, r->library_name, at, e->floor_library);
        return;
    }
    /* fail closed: a library floor that could not be checked is no pass, and not the student's fault */
    if (e->floor_library > 0 && p.no_library[0]) {
        grade_set_verdict(r, V_SETUP_ERROR, "correct, and fast enough against the reference, but the floor against the "
                    "vendor library (%.2fx) cannot be checked with this toolkit: %s", e->floor_library, p.no_library);
        return;
    }
    if (r->nsizes > 1) {
        double least = INFINITY;
        for (int i = 0; i < r->nsizes; i++)
            if (r->sizes[i].vs_reference < least) least = r->sizes[i].vs_reference;
        grade_set_verdict(r, V_PASS, "correct, and at least %.2fx the reference's throughput at each of %d sizes (floor %.2fx)",
                    least, r->nsizes, e->floor_reference);
    } else
        grade_set_verdict(r, V_PASS, "correct, and %.2fx the reference's throughput (floor %.2fx)", r->vs_reference,
                    e->floor_reference);
}

/* Each counted call's own time against the timed calls of its size
 * (evidence_counted_time_ok says how far apart they may be). */
static void check_counted_clock(GradeResult *r) {
    const Counters *c = &r->counters;
    for (int k = 0; k < c->ncalls; k++) {
        double ms = c->calls[k].ms;
        if (!(ms > 0)) continue; /* not said (an older judge): the counts alone decide */
        const char *size = c->sizes[c->calls[k].size].size;
        for (int i = 0; i < r->nsizes; i++) {
            double timed = r->sizes[i].student.median_ms;
            if (strcmp(r->sizes[i].size, size) || !(timed > 0)) continue;
            double lo, hi;
            if (!evidence_counted_time_ok(ms, timed, &lo, &hi)) {
                grade_set_verdict(r, V_REQUIREMENT,
                            "correct, but a call of yours whose counters were read took %.3f ms at size %s, and your "
                            "timed calls there %.3f ms (between %.3f and %.3f allowed): your code does other work "
                            "when its counters are read than when it is timed",
                            ms, size, timed, lo, hi);
                return;
            }
        }
    }
}

/* The judge's own counters over the timed calls against the counted
 * calls (evidence_witness): what the code does while it is timed, seen
 * from outside its process, must be what it showed while counted. */
static void check_witness(GradeResult *r, const Exercise *e) {
    EvidenceLine line;
    bool unavailable;
    if (!evidence_witness(e, &r->counters, &line, &unavailable)) return;
    if (r->nevidence < MAX_EVIDENCE) r->evidence[r->nevidence++] = line;
    if (unavailable)
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: this exercise is passed only with the judge's own reading of the GPU's "
                    "counters while your calls are timed, and it cannot read them on this machine: %s",
                    r->counters.witness_why);
    else if (!line.ok && r->counters.witness != COUNTERS_COLLECTED) {
        /* not a finding about the code: the judge did not see, so it cannot pass. Lost samples are the
         * machine's busy CPUs (the counted calls showed the technique already): GPU busy, as another
         * process on the GPU is, so that nothing is recorded against the student */
        r->witness_lost = strstr(line.text, WITNESS_LOST) != NULL;
        if (r->witness_lost)
            grade_set_verdict(r, V_GPU_BUSY,
                        "correct, but not judged: this exercise is passed only with the judge's own reading of the "
                        "GPU's counters while your calls are timed, and it lost samples: %s; nothing was recorded: "
                        "grade again when the machine is quieter (the witness loses samples while the machine's CPUs "
                        "are busy: gpucourse's other gradings wait for this one, other programs do not)",
                        line.text);
        else
            grade_set_verdict(r, V_REQUIREMENT,
                        "correct, but not shown: this exercise is passed only with the judge's own reading of the "
                        "GPU's counters while your calls are timed, and it got none: %s; grade again, and if this "
                        "stays, report it with the output of gpucourse doctor",
                        line.text);
    }
    else if (!line.ok)
        grade_set_verdict(r, V_REQUIREMENT,
                    "correct, but at size %s the GPU's counters show %s: your code does other work when its "
                    "counters are read than when it is timed",
                    line.size[0] ? line.size : "-", line.text);
}

/* A correct answer (passing or slow) must also show, in the GPU's own
 * counters, that it did its work the way the exercise teaches. A check
 * that cannot be made is never a pass: this machine's counters cannot be
 * read (a setup error that says what to do), or the collection failed or
 * came back incomplete in the student's process (requirement not met). */
void grade_check_evidence(GradeResult *r, const Exercise *e) {
    if (e->nevidence == 0 || (r->verdict != V_PASS && r->verdict != V_SLOW)) return;
    const Counters *c = &r->counters;
    if (c->status == COUNTERS_UNAVAILABLE) {
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: this exercise is passed only with evidence from the GPU's counters that "
                    "your code ran its technique, and they cannot be read on this machine: %s",
                    c->why);
        return;
    }
    if (c->status == COUNTERS_FAILED) {
        grade_set_verdict(r, V_REQUIREMENT,
                    "correct, but the GPU's counters could not be collected around your code (%s): this exercise "
                    "is passed only with that evidence",
                    c->why);
        return;
    }
    if (c->status == COUNTERS_NONE) {
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: the judge reported no counters, and this exercise is passed only with "
                    "evidence from them (is the harness in the build cache older than gpucourse?)");
        return;
    }
    int unmet;
    const char *missing;
    r->nevidence = evidence_measure(e, c, r->evidence, &unmet, &missing);
    if (missing == EVIDENCE_NO_FLOPS) {
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: %s asks for tensor-core evidence, and its kind %s defines no FLOPs to "
                    "take a share of (flops or product_flops in its KindDef)",
                    e->id, e->kind);
        return;
    }
    if (missing) {
        grade_set_verdict(r, V_REQUIREMENT,
                    "correct, but the counters of your code came back without %s: the evidence this exercise needs "
                    "could not be checked",
                    missing);
        return;
    }
    if (unmet >= 0) {
        const EvidenceLine *l = &r->evidence[unmet];
        grade_set_verdict(r, V_REQUIREMENT, "correct, but the GPU's counters at size %s show %s: %s", l->size, l->text,
                    evidence_lesson(l->key));
        return;
    }
    /* what the judge saw itself first, then the counted calls' own clock */
    check_witness(r, e);
    if (r->verdict == V_PASS || r->verdict == V_SLOW) check_counted_clock(r);
}


