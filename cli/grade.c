/* gpucourse grade and why: compile, check and time the student's files
 * (why also diagnoses). */
#define _GNU_SOURCE
#include "cli.h"

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

/* The gradings of one grade command, as proc_pool_run's jobs. */
typedef struct {
    Session *s;
    const Options *o;
    const Exercise **list;
    GradeResult *rs;
    Diagnosis *ds;
    Profile *ps; /* why --profile */
    bool why, any_diagnosis;
    int count, graded;
} GradeRun;

/* In a worker (or here, with one): grades list[i]. */
static void grade_job(int i, StrBuf *reply, void *ctx) {
    GradeRun *g = ctx;
    /* one grading here: its report comes while its judge ends (report_graded settles it) */
    GradeOptions go = {.seed = g->o->seed, .timeout_s = g->o->timeout_s, .on_phase = on_phase, .ctx = (void *)g->list[i],
                       .settle_later = g->count == 1};
    GradeResult r;
    grade_exercise(g->s->course, &g->s->ws, g->list[i], &go, &r);
    grade_result_pack(&r, reply);
    grade_result_free(&r);
}

/* A grade's report, or with d its diagnosis, in text: each line fitted
 * to the screen (a reason or a note can be long). */
static void print_report(const Course *c, const Exercise *e, const GradeResult *r, const Diagnosis *d) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    FILE *out = m ? m : stdout; /* no memory for it: as it is */
    if (d) report_diagnosis_text(out, c, e, r, d);
    else report_text(out, e, r);
    if (!m) return;
    fclose(m);
    fprintf_wrapped(stdout, WRAP_LABELS, "%s", text);
    free(text);
}

/* why --profile: the report's place and how to open it, fitted to the
 * screen as the report is. */
static void print_profile(const Exercise *e, const Profile *p) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return;
    profile_report_text(m, e, p);
    fclose(m);
    fprintf_wrapped(stdout, WRAP_LABELS, "%s", text);
    free(text);
}

/* why --profile needs ncu, and the GPU here: said before anything is graded. */
static int profile_ready(void) {
    Launcher launch;
    if (launcher_from_env(&launch)) {
        char *message = xprintf("--profile runs ncu here, and the GPU is behind the launcher (%.200s): on a GPU "
                                "node, run 'gpucourse why EX --profile' without GPUCOURSE_LAUNCHER", launch.text);
        launcher_free(&launch);
        int rc = fail(EXIT_SETUP, message, "");
        free(message);
        return rc;
    }
    Toolchain t;
    bool toolkit = toolchain_find(&t) == 0;
    char looked[1024];
    char *ncu = profile_find_ncu(toolkit ? &t : NULL, looked, sizeof looked);
    if (toolkit) toolchain_free(&t);
    if (ncu) {
        free(ncu);
        return 0;
    }
    StrBuf advice = {0};
    char *text = xprintf("Looked in %s. ncu comes with the CUDA Toolkit (NVIDIA's package "
                         "cuda-nsight-compute-X-Y; Debian's nsight-compute, in non-free) and from "
                         "https://developer.nvidia.com/nsight-compute; put the directory that holds ncu on PATH.\n",
                         looked);
    sb_add_wrapped(&advice, text, strlen(text), 80, WRAP_PROSE);
    free(text);
    int rc = fail(EXIT_SETUP, "--profile needs Nsight Compute's ncu, and it is not installed here", advice.buf ? advice.buf : "");
    sb_free(&advice);
    return rc;
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
        print_report(g->s->course, e, r, NULL);
        fflush(stdout);
    }
    if (o->trace) {
        trace_step(&r->trace, "record progress, print the report", recording);
        /* what this process did before its first grading: the course, the workspace */
        if (i == 0) fprintf(stderr, "gpucourse started %.3f s before grading\n", r->trace.origin - process_start);
        trace_print(stderr, e->id, &r->trace, now_seconds() - r->trace.origin);
    }
    double settling = now_seconds();
    grade_settle(); /* the judge's end, with the GPU's lock, once the verdict is out */
    if (o->trace && g->count == 1)
        fprintf(stderr, "  then the judge's exit after the verdict: %.3f s\n", now_seconds() - settling);
    if (explained(o, g->why, r->verdict)) {
        DiagnoseOptions dop = {.on_phase = on_phase, .ctx = (void *)e};
        diagnose_exercise(g->s->course, &g->s->ws, e, r, &dop, &g->ds[i]);
        g->any_diagnosis = true;
        if (o->format == FORMAT_TEXT) print_report(g->s->course, e, r, &g->ds[i]);
    }
    if (g->why && o->profile) { /* after why's own runs: advice too, never the verdict */
        profile_exercise(g->s->course, &g->s->ws, e, r, on_phase, (void *)e, &g->ps[i]);
        g->ds[i].profile = &g->ps[i];
        if (o->format == FORMAT_TEXT) print_profile(e, &g->ps[i]);
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

int cmd_grade(Session *s, const Options *o, const char *const *keys, int nkeys, bool why) {
    const Exercise **list;
    int count = selected_exercises(s, o, keys, nkeys, &list);
    if (count < 0) {
        free(list);
        return EXIT_USAGE;
    }
    int not_ready = why && o->profile ? profile_ready() : 0;
    if (not_ready) {
        free(list);
        return not_ready;
    }
    GradeRun g = {s, o, list, xcalloc((size_t)count, sizeof *g.rs), xcalloc((size_t)count, sizeof *g.ds),
                  xcalloc((size_t)count, sizeof *g.ps), why, false, count, 0};
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
    bool any_skipped = false;
    for (int i = 0; i < graded; i++) any_skipped |= g.rs[i].verdict == V_SKIPPED;
    if (o->format == FORMAT_TEXT && any_skipped) /* as the app's card says it: once, after the reports, before the totals */
        fprintf_wrapped(stdout, WRAP_PROSE, "\nSkipped: grading runs your code on an NVIDIA GPU (Hopper, sm_90a), and "
                        "this machine has none, so nothing was run or timed (only what its compiled code "
                        "shows was checked, above): this is not a failure. "
                        "'gpucourse doctor' says what is missing.\n");
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
    free(g.ps);
    free(list);
    return code;
}
