/* The grader's decisions on recorded harness outputs (tests/data), the exit
 * codes, the reports and what an attempt does to progress. */
#include "test_util.h"

#include "../grader/grader.h"
#include "../grader/report.h"

static Exercise exercise(void) {
    Exercise e = {0};
    e.id = "ex01";
    e.name = "vector_add";
    e.title = "Add two vectors";
    e.floor_reference = 0.8;
    e.floor_baseline = 0.75;
    e.timeout_s = 60;
    return e;
}

static const RunStatus exited_ok = {.exited = true, .exit_code = 0, .timeout_s = 60};

/* Decides on tests/data/NAME.txt with nonce N1. */
static Verdict decide(const char *name, const RunStatus *st, GradeResult *r) {
    char *path = xprintf("tests/data/%s.txt", name);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    Exercise e = exercise();
    memset(r, 0, sizeof *r);
    grade_decide(r, &e, st, text, "N1");
    free(text);
    free(path);
    return r->verdict;
}

static void test_pass(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("pass", &exited_ok, &r), V_PASS);
    assert_true(r.timed);
    assert_int_equal(r.nchecks, 6);
    assert_string_equal(r.device, "NVIDIA H200");
    assert_int_equal(r.seed, 7);
    assert_true(r.vs_reference > 0.99 && r.vs_reference < 1.01);
    assert_true(r.vs_baseline > 0.81 && r.vs_baseline < 0.82);
    assert_true(r.gbps_student > 3440 && r.gbps_student < 3450);
    grade_result_free(&r);
}

static void test_wrong_answer(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("wrong", &exited_ok, &r), V_WRONG);
    assert_string_equal(r.reason, "31 wrong elements at size 31x33 (seed 42)");
    assert_int_equal(r.mismatches.count, 2);
    assert_string_equal(r.mismatches.items[0], "out[0][32] got nan want 0.25");
    assert_false(r.timed);
    grade_result_free(&r);
}

static void test_too_slow(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("slow", &exited_ok, &r), V_SLOW);
    assert_string_equal(r.reason, "correct, but your kernel reaches 0.44x of the reference's throughput (floor 0.80x)");
    grade_result_free(&r);
}

static void test_no_gpu(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = true, .exit_code = 5, .timeout_s = 60};
    assert_int_equal(decide("nogpu", &st, &r), V_SKIPPED);
    assert_int_equal(verdict_exit_code(r.verdict), 77);
    grade_result_free(&r);
}

static void test_gpu_fault(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = true, .exit_code = 3, .timeout_s = 60};
    assert_int_equal(decide("fault", &st, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "illegal memory access"));
    assert_non_null(strstr(r.reason, "student solve at size 1"));
    grade_result_free(&r);
}

static void test_no_solve_symbol(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = true, .exit_code = 4, .timeout_s = 60};
    assert_int_equal(decide("noload", &st, &r), V_COMPILE_ERROR);
    assert_non_null(strstr(r.reason, "extern \"C\" solve"));
    grade_result_free(&r);
}

static void test_timeout_keeps_partial_checks(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = false, .signal = 9, .timed_out = true, .timeout_s = 60};
    assert_int_equal(decide("partial", &st, &r), V_TIMEOUT);
    assert_non_null(strstr(r.reason, "no result within 60 s"));
    assert_int_equal(r.nchecks, 2);
    assert_int_equal(verdict_exit_code(r.verdict), 4);
    grade_result_free(&r);
}

static void test_crash_by_signal(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = false, .signal = 11, .timeout_s = 60};
    assert_int_equal(decide("partial", &st, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "signal 11"));
    grade_result_free(&r);
}

static void test_stopped_early(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = true, .exit_code = 1, .timeout_s = 60};
    assert_int_equal(decide("partial", &st, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "stopped before it finished"));
    grade_result_free(&r);
}

static void test_implausible_speed(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("implausible", &exited_ok, &r), V_WRONG);
    assert_non_null(strstr(r.reason, "faster than the memory allows"));
    grade_result_free(&r);
}

/* A kind with a library baseline (CUB): its floor decides too. */
static void test_library_floor(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_reference = 0.5;
    e.floor_baseline = 0.5;
    e.floor_library = 0.95;
    char *text = read_file("tests/data/library.txt", NULL);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_SLOW);
    assert_string_equal(r.reason, "correct, but your kernel reaches 0.90x of CUB DeviceScan::InclusiveSum's throughput "
                                  "(floor 0.95x)");
    grade_result_free(&r);
    e.floor_library = 0.85;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    assert_true(r.vs_library > 0.89 && r.vs_library < 0.91);
    grade_result_free(&r);
    free(text);
}

/* Lines printed by student code cannot pass for results without the nonce. */
static void test_forged_results_ignored(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("forged", &exited_ok, &r), V_RUNTIME_ERROR);
    assert_int_equal(r.nchecks, 0);
    grade_result_free(&r);
}

static void test_interrupted(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = false, .signal = 15, .interrupted = true, .timeout_s = 60};
    assert_int_equal(decide("pass", &st, &r), V_INTERRUPTED);
    assert_int_equal(verdict_exit_code(r.verdict), 130);
    grade_result_free(&r);
}

static void test_exit_codes_distinct(void **state) {
    (void)state;
    /* timeout shares the runtime error code by design; all others differ */
    for (int a = 0; a < V_COUNT; a++)
        for (int b = 0; b < a; b++) {
            if ((a == V_TIMEOUT && b == V_RUNTIME_ERROR)) continue;
            assert_int_not_equal(verdict_exit_code((Verdict)a), verdict_exit_code((Verdict)b));
        }
    assert_int_equal(verdict_exit_code(V_PASS), 0);
    assert_int_equal(verdict_exit_code(V_SKIPPED), 77);
}

static char *render(void (*fn)(FILE *, const Exercise *const *, const GradeResult *, int), const GradeResult *r) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    Exercise e = exercise();
    const Exercise *es[] = {&e};
    fn(f, es, r, 1);
    fclose(f);
    return buf;
}

static void test_json_report(void **state) {
    (void)state;
    GradeResult r;
    decide("wrong", &exited_ok, &r);
    r.compile_log = xstrdup("warning: \"x\"\tunused\n");
    char *json = render(report_json, &r);
    assert_non_null(strstr(json, "\"verdict\": \"wrong_answer\""));
    assert_non_null(strstr(json, "\"exit_code\": 1"));
    assert_non_null(strstr(json, "\"passed\": 0, \"failed\": 1, \"skipped\": 0"));
    assert_non_null(strstr(json, "\"compile_log\": \"warning: \\\"x\\\"\\tunused\\n\""));
    assert_non_null(strstr(json, "\"timing\": null"));
    free(json);
    grade_result_free(&r);

    RunStatus st = {.exited = true, .exit_code = 5, .timeout_s = 60};
    decide("nogpu", &st, &r);
    json = render(report_json, &r);
    assert_non_null(strstr(json, "\"verdict\": \"skipped\""));
    assert_non_null(strstr(json, "\"skipped\": true"));
    free(json);
    grade_result_free(&r);
}

static void test_junit_report(void **state) {
    (void)state;
    GradeResult r;
    decide("slow", &exited_ok, &r);
    char *xml = render(report_junit, &r);
    assert_non_null(strstr(xml, "<testsuite name=\"gpucourse\" tests=\"1\" failures=\"1\" skipped=\"0\""));
    assert_non_null(strstr(xml, "<failure type=\"too_slow\" message=\"correct, but your kernel reaches 0.44x of the "
                                "reference&apos;s throughput") ||
                    strstr(xml, "<failure type=\"too_slow\" message=\"correct, but your kernel reaches 0.44x"));
    free(xml);
    grade_result_free(&r);
}

static void test_text_report(void **state) {
    (void)state;
    GradeResult r;
    decide("pass", &exited_ok, &r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    Exercise e = exercise();
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(buf, "replay: gpucourse grade ex01 --seed 7"));
    assert_non_null(strstr(buf, "you/reference 1.00 (floor 0.80)"));
    assert_non_null(strstr(buf, "PASS ex01: correct"));
    free(buf);
    grade_result_free(&r);
}

/* What attempts do to the progress entry: status never goes down. */
static void test_record_progress(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    Workspace w = {.root = dir, .progress = path_join(dir, "progress.yaml")};
    Exercise e = exercise();
    GradeResult r;
    decide("pass", &exited_ok, &r);
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0);
    grade_result_free(&r);
    decide("wrong", &exited_ok, &r);
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0);
    grade_result_free(&r);
    RunStatus st = {.interrupted = true, .timeout_s = 60};
    decide("pass", &st, &r);
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0); /* not recorded */
    grade_result_free(&r);
    Progress p;
    assert_int_equal(progress_load(w.progress, &p), 0);
    ExProgress *x = progress_get(&p, "ex01", false);
    assert_non_null(x);
    assert_int_equal(x->attempts, 2);
    assert_int_equal(x->status, ST_PASSED);
    assert_string_equal(x->last_verdict, "wrong_answer");
    assert_true(x->best_vs_reference > 0.99);
    assert_true(x->passed_at[0] != '\0');
    progress_free(&p);
    free(w.progress);
    tmpdir_remove(dir);
}


/* The judge's violations: the student's code broke a rule the verdict
 * depends on. Each names what happened. */
static void test_violations(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("violation_input", &exited_ok, &r), V_WRONG);
    assert_non_null(strstr(r.reason, "changed its input a"));
    assert_string_equal(r.sandbox, "landlock 7, seccomp on");
    assert_int_equal(r.notes.count, 0);
    grade_result_free(&r);
    assert_int_equal(decide("violation_library", &exited_ok, &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "libcublas.so.13"));
    grade_result_free(&r);
    assert_int_equal(decide("violation_protocol", &exited_ok, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "did not ask for"));
    grade_result_free(&r);
}

static void test_runner_ended(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("runner_ended", &exited_ok, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "ended (exit status 0)"));
    grade_result_free(&r);
}

/* A runner that under-reported its time: the times are the judge's, so a
 * slow kernel stays slow, and the notes say what happened. */
static void test_clock_overruled(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("clock_overruled", &exited_ok, &r), V_SLOW);
    assert_true(r.vs_reference > 0.28 && r.vs_reference < 0.29);
    bool clock = false, busy = false, sandbox = false;
    for (int i = 0; i < r.notes.count; i++) {
        clock |= strstr(r.notes.items[i], "clock decided") != NULL;
        busy |= strstr(r.notes.items[i], "still running") != NULL;
        sandbox |= strstr(r.notes.items[i], "fewer restrictions") != NULL;
    }
    assert_true(clock && busy && sandbox);
    grade_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass),           cmocka_unit_test(test_wrong_answer),
        cmocka_unit_test(test_too_slow),       cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_gpu_fault),      cmocka_unit_test(test_no_solve_symbol),
        cmocka_unit_test(test_timeout_keeps_partial_checks), cmocka_unit_test(test_crash_by_signal),
        cmocka_unit_test(test_stopped_early),  cmocka_unit_test(test_implausible_speed),
        cmocka_unit_test(test_forged_results_ignored), cmocka_unit_test(test_interrupted),
        cmocka_unit_test(test_exit_codes_distinct), cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_junit_report),   cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_record_progress), cmocka_unit_test(test_violations),
        cmocka_unit_test(test_runner_ended),   cmocka_unit_test(test_clock_overruled), cmocka_unit_test(test_library_floor),
    };
    return cmocka_run_group_tests_name("grader", tests, NULL, NULL);
}
