/* gpucourse check-course: the course validated, built, and (with a GPU)
 * every reference shown to pass and every stub to fail. */
#define _GNU_SOURCE
#include "cli.h"

/* One exercise's part of check-course. */
typedef struct ExerciseCheck {
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
        fprintf_wrapped(stdout, 26, "%s %-20s reference: %-4s %.2fx ref %.2fx library (%.0f TFLOP/s)   stub: %s%s\n",
                        e->id, e->name, x->ref_ok ? "ok" : "FAIL", ref->vs_reference, ref->vs_library,
                        ref->tflops_student, stub_text, stub_ratio);
    else
        fprintf_wrapped(stdout, 26, "%s %-20s reference: %-4s %.2fx ref %.2fx copy (%.0f GB/s)   stub: %s%s\n",
                        e->id, e->name, x->ref_ok ? "ok" : "FAIL", ref->vs_reference, ref->vs_baseline,
                        ref->gbps_student, stub_text, stub_ratio);
    if (!x->ref_ok) fprintf_wrapped(stdout, 4, "    reference: %s: %s\n", verdict_title(ref->verdict), ref->reason);
    if (!x->stub_fails) fprintf_wrapped(stdout, 4, "    stub: %s: %s\n", verdict_title(st->verdict), st->reason);
    if (x->below && x->below_fails)
        fprintf_wrapped(stdout, 4, "    rung below: %s's reference is %s here\n", x->below->id,
                        verdict_title(x->below_result.verdict));
    else if (x->below)
        fprintf_wrapped(stdout, 4, "    rung below: FAIL: %s's reference %s here (%s): nothing holds this rung's point; "
                        "add a requirement, evidence or a floor\n",
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
        json_number(out, r->baseline.samples && r->flops <= 0 ? r->vs_baseline : NAN); /* a GEMM: no copy ratio */
        fputs(", \"vs_library\": ", out);
        json_number(out, r->library.samples ? r->vs_library : NAN);
    }
    fputs("}", out);
}

/* The whole check as one JSON document, for an instructor's CI (root
 * NULL: the course was not found). */
void check_json(const char *root, const StrList *problems, const Course *c, const ExerciseCheck *xs, int n,
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
int cmd_check_course(const Options *o, const char *const *keys, int nkeys) {
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
    if (text && workers > 1) printf("building for sm_90a with %d compilers at once\n", workers);
    else if (text) printf("building for sm_90a\n");
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
            fprintf_wrapped(stdout, 26, "%s %-20s compiles: stub, reference, kind %s\n", x->e->id, x->e->name,
                            x->e->kind);
        if (text) fflush(stdout);
    }
    GpuInfo gpu;
    gpu_probe(&gpu);
    bool on_gpu = failures == 0 && gpu.count > 0;
    if (text && failures == 0 && gpu.count == 0)
        fprintf_wrapped(stdout, WRAP_LABELS, "GPU checks skipped: %s\n", gpu.why);
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
