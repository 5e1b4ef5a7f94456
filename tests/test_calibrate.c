/* check-course --calibrate's decisions (grader/calibrate.c) on recorded
 * harness outputs (tests/data) and on constructed results. */
#include "test_util.h"

#include "../grader/calibrate.h"

static Exercise exercise(double reference, double baseline, double library) {
    Exercise e = {0};
    e.id = "ex01";
    e.name = "vector_add";
    e.floor_reference = reference;
    e.floor_baseline = baseline;
    e.floor_library = library;
    e.timeout_s = 60;
    return e;
}

/* A timed result of one size with these ratios (0: not measured). */
static GradeResult timed(double vs_reference, double vs_baseline, double vs_library) {
    GradeResult r = {0};
    r.verdict = V_PASS;
    r.timed = true;
    r.nsizes = 1;
    r.sizes[0].vs_reference = vs_reference;
    r.sizes[0].vs_baseline = vs_baseline;
    r.sizes[0].baseline.samples = vs_baseline > 0 ? 21 : 0;
    r.sizes[0].vs_library = vs_library;
    r.sizes[0].library.samples = vs_library > 0 ? 21 : 0;
    return r;
}

static const FloorCalibration *floor_of(const Calibration *c, const char *key) {
    for (int k = 0; k < c->nfloors; k++)
        if (!strcmp(c->floors[k].key, key)) return &c->floors[k];
    return NULL;
}

static void test_suggest_rounds_down_within_range(void **state) {
    (void)state;
    assert_true(calibrate_suggest("reference", 1.0) == 0.85); /* 0.85 x 1.0 is 0.85, not 0.80 */
    assert_true(calibrate_suggest("reference", 0.99) == 0.80); /* 0.8415 */
    assert_true(calibrate_suggest("baseline", 0.814) == 0.65); /* 0.6919 */
    assert_true(calibrate_suggest("reference", 0.01) == 0.05); /* the loader's least reference floor */
    assert_true(calibrate_suggest("baseline", 0.01) == 0);
    assert_true(calibrate_suggest("library", 3.0) == 1.5);
}

/* Recorded: tests/data/pass.txt (H200, vector_add) graded three times. The
 * reference is 1.00x itself; the copy floor of 0.75 is too tight for a
 * kernel at 0.81x the copy (under 10% margin). */
static void test_recorded_runs(void **state) {
    (void)state;
    char *text = read_file("tests/data/pass.txt", NULL);
    assert_non_null(text);
    Exercise e = exercise(0.80, 0.75, 0);
    RunStatus st = {.exited = true, .timeout_s = 60};
    GradeResult rs[3];
    for (int i = 0; i < 3; i++) {
        memset(&rs[i], 0, sizeof rs[i]);
        grade_decide(&rs[i], &e, &st, text, "N1");
        assert_int_equal(rs[i].verdict, V_PASS);
    }
    Calibration c;
    calibrate(&e, rs, 3, &c);
    assert_int_equal(c.runs, 3);
    assert_int_equal(c.timed, 3);
    assert_int_equal(c.failed, V_PASS);
    assert_int_equal(c.nfloors, 2); /* no library in this kind */
    const FloorCalibration *ref = floor_of(&c, "reference"), *copy = floor_of(&c, "baseline");
    assert_non_null(ref);
    assert_non_null(copy);
    assert_true(ref->median > 0.99 && ref->median < 1.01);
    assert_true(ref->suggested == 0.85);
    assert_int_equal(ref->flag, FLOOR_OK);
    assert_true(copy->median > 0.81 && copy->median < 0.82);
    assert_true(copy->suggested == 0.65);
    assert_int_equal(copy->flag, FLOOR_TOO_TIGHT);
    for (int i = 0; i < 3; i++) grade_result_free(&rs[i]);
    free(text);
}

/* Median and spread of five runs; an even count takes the middle two. */
static void test_median_and_spread(void **state) {
    (void)state;
    Exercise e = exercise(0.70, 0.65, 0);
    GradeResult rs[5] = {timed(1.02, 0.90, 0), timed(0.97, 0.95, 0), timed(1.00, 0.92, 0), timed(0.99, 0.91, 0),
                         timed(1.05, 0.93, 0)};
    Calibration c;
    calibrate(&e, rs, 5, &c);
    const FloorCalibration *ref = floor_of(&c, "reference");
    assert_true(ref->median == 1.00 && ref->min == 0.97 && ref->max == 1.05);
    assert_int_equal(ref->flag, FLOOR_OK);
    calibrate(&e, rs, 4, &c); /* 0.97 0.99 1.00 1.02 */
    ref = floor_of(&c, "reference");
    assert_true(ref->median > 0.9949 && ref->median < 0.9951);
    assert_int_equal(floor_of(&c, "baseline")->flag, FLOOR_OK); /* 0.65 against 0.915 */
}

/* Too loose: a floor under half the median lets a kernel at half the
 * reference's speed pass. Not set: measured, suggested, not flagged. */
static void test_too_loose_and_unset(void **state) {
    (void)state;
    Exercise e = exercise(0.45, 0, 0.3);
    GradeResult rs[2] = {timed(1.0, 0.9, 0.8), timed(1.0, 0.9, 0.8)};
    Calibration c;
    calibrate(&e, rs, 2, &c);
    assert_int_equal(floor_of(&c, "reference")->flag, FLOOR_TOO_LOOSE);
    assert_int_equal(floor_of(&c, "baseline")->flag, FLOOR_UNSET);
    assert_true(floor_of(&c, "baseline")->suggested == 0.75);
    assert_int_equal(floor_of(&c, "library")->flag, FLOOR_TOO_LOOSE); /* 0.3 < 0.4 */
    e.floor_reference = 0.5; /* exactly half: not loose */
    calibrate(&e, rs, 2, &c);
    assert_int_equal(floor_of(&c, "reference")->flag, FLOOR_OK);
    e.floors_why = (char *)"a naive kernel, slow by nature"; /* loose on purpose: said, not flagged */
    calibrate(&e, rs, 2, &c);
    assert_int_equal(floor_of(&c, "library")->flag, FLOOR_LOOSE_ON_PURPOSE);
    assert_string_equal(floor_flag_text(FLOOR_LOOSE_ON_PURPOSE), "loose on purpose");
    e.floor_reference = 1.2; /* too tight stays too tight */
    calibrate(&e, rs, 2, &c);
    assert_int_equal(floor_of(&c, "reference")->flag, FLOOR_TOO_TIGHT);
}

/* A run that was not timed is counted and named; the others still measure. */
static void test_untimed_run(void **state) {
    (void)state;
    Exercise e = exercise(0.8, 0, 0);
    GradeResult rs[3] = {timed(1.0, 0.9, 0), {0}, timed(0.98, 0.9, 0)};
    rs[1].verdict = V_RUNTIME_ERROR;
    snprintf(rs[1].reason, sizeof rs[1].reason, "an illegal memory access");
    Calibration c;
    calibrate(&e, rs, 3, &c);
    assert_int_equal(c.timed, 2);
    assert_int_equal(c.failed, V_RUNTIME_ERROR);
    assert_string_equal(c.why, "an illegal memory access");
    assert_true(floor_of(&c, "reference")->median == 0.99);
    GradeResult none = {0};
    none.verdict = V_SKIPPED;
    calibrate(&e, &none, 1, &c);
    assert_int_equal(c.nfloors, 0);
    assert_int_equal(c.failed, V_SKIPPED);
}

/* Several timed sizes: the floors hold at each, so a run counts its least
 * ratio. A compute-bound kind (a GEMM) has no copy baseline. */
static void test_sizes_and_compute_bound(void **state) {
    (void)state;
    Exercise e = exercise(0.8, 0, 0.4);
    GradeResult r = timed(1.0, 0, 0.6);
    r.flops = 1e12;
    r.nsizes = 2;
    r.sizes[1] = r.sizes[0];
    r.sizes[1].vs_reference = 0.96;
    r.sizes[1].vs_library = 0.45;
    r.sizes[0].baseline.samples = 21; /* a copy timed anyway is not a floor of a GEMM */
    r.sizes[0].vs_baseline = 0.1;
    Calibration c;
    calibrate(&e, &r, 1, &c);
    assert_int_equal(c.nfloors, 2);
    assert_null(floor_of(&c, "baseline"));
    assert_true(floor_of(&c, "reference")->median == 0.96);
    assert_true(floor_of(&c, "library")->median == 0.45);
    assert_int_equal(floor_of(&c, "library")->flag, FLOOR_OK); /* 0.45 clears 0.4 / 0.9 = 0.444 */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suggest_rounds_down_within_range), cmocka_unit_test(test_recorded_runs),
        cmocka_unit_test(test_median_and_spread), cmocka_unit_test(test_too_loose_and_unset),
        cmocka_unit_test(test_untimed_run), cmocka_unit_test(test_sizes_and_compute_bound),
    };
    return cmocka_run_group_tests_name("calibrate", tests, NULL, NULL);
}
