/* The grader's decisions on recorded harness outputs (tests/data), the exit
 * codes, the reports and what an attempt does to progress. */
#include "grader_util.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/classroom.h"
#include "../grader/grader.h"
#include "../grader/libcache.h"
#include "../grader/sass.h"
#include "../grader/toolchain.h"
#include "../grader/report.h"
#include "../grader/diagnose.h"
#include "../grader/metrics.h"
#include "../grader/profile.h"
#include "../src/proc.h"

#include <glob.h>
#include <signal.h>
#include <sys/wait.h>

/* Decides on tests/data/NAME.txt: the verdict is v and the reason says `part`. */
static void expect_reason(const char *name, const RunStatus *st, Verdict v, const char *part) {
    GradeResult r;
    assert_int_equal(decide(name, st, &r), v);
    assert_non_null(strstr(r.reason, part));
    grade_result_free(&r);
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

/* cudaMallocHost refused by the runner's filter: out of memory, and a note
 * that says why and what works instead (recorded on the H200: the runtime's
 * words for the refused mmap) */
static void test_pinned_host_refused(void **state) {
    (void)state;
    GradeResult r;
    RunStatus st = {.exited = true, .exit_code = 3, .timeout_s = 60};
    assert_int_equal(decide("solve_oom", &st, &r), V_RUNTIME_ERROR);
    assert_non_null(strstr(r.reason, "out of memory"));
    assert_int_equal(r.notes.count, 1);
    assert_non_null(strstr(r.notes.items[0], "cudaHostRegister"));
    grade_result_free(&r);
    assert_int_equal(decide("fault", &st, &r), V_RUNTIME_ERROR); /* another fault: no such note */
    assert_int_equal(r.notes.count, 0);
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

/* An exercise that names the likely cause of a hang says it in the verdict. */
static void test_timeout_hint(void **state) {
    (void)state;
    char *text = read_file("tests/data/partial.txt", NULL);
    assert_non_null(text);
    Exercise e = exercise();
    e.timeout_hint = "the bytes given to expect_tx differ from the bytes the copy delivers";
    RunStatus st = {.exited = false, .signal = 9, .timed_out = true, .timeout_s = 30};
    GradeResult r = {0};
    grade_decide(&r, &e, &st, text, "N1");
    assert_int_equal(r.verdict, V_TIMEOUT);
    assert_string_equal(r.reason, "no result within 30 s: your kernel probably never finishes; likely here: the "
                                  "bytes given to expect_tx differ from the bytes the copy delivers");
    grade_result_free(&r);
    free(text);
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
    RunStatus st = {.exited = true, .exit_code = 1, .timeout_s = 60};
    expect_reason("partial", &st, V_RUNTIME_ERROR, "stopped before it finished");
}

static void test_implausible_speed(void **state) {
    (void)state;
    expect_reason("implausible", &exited_ok, V_WRONG, "faster than the memory allows");
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

/* A GEMM kind: FLOP/s against the reference and cuBLAS, no copy baseline. */
static void test_gemm_flops(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_reference = 0.8;
    e.floor_baseline = 0.9; /* means nothing for a GEMM: not applied */
    e.floor_library = 0.6;
    char *text = read_file("tests/data/gemm_pass.txt", NULL);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    assert_true(r.tflops_student > 549 && r.tflops_student < 551);
    assert_true(r.tflops_library > 723 && r.tflops_library < 724);
    assert_true(r.vs_library > 0.75 && r.vs_library < 0.77);
    assert_true(r.has_norm && r.norm_error > 2.50e-7 && r.norm_error < 2.52e-7);
    assert_true(r.peak_tflops > 1070 && r.peak_tflops < 1071);
    grade_result_free(&r);
    e.floor_library = 0.8;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_SLOW);
    assert_non_null(strstr(r.reason, "0.76x of cuBLAS GemmEx BF16's throughput (550 vs 723 TFLOP/s; floor 0.80x)"));
    grade_result_free(&r);
    free(text);
}

/* A kind built without its library (ex45's cuBLASLt scale modes on a
 * toolkit older than 12.9): an exercise with a library floor is not a
 * pass, but a setup error that says why; one without a library floor is
 * graded as before. */
static void test_no_library_baseline(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_reference = 0.8;
    e.floor_library = 0.6;
    char *pass = read_file("tests/data/gemm_pass.txt", NULL);
    assert_non_null(pass);
    char *cut = strstr(pass, "library: cuBLAS");
    assert_non_null(cut);
    *cut = '\0';
    char *text = xprintf("%snolibrary: no library baseline: cuBLASLt's block scaling needs CUDA 12.9 or later\n"
                         "done: correct\n", pass);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "floor against the vendor library (0.60x) cannot be checked with this toolkit: "
                                     "no library baseline: cuBLASLt's block scaling needs CUDA 12.9 or later"));
    grade_result_free(&r);
    e.floor_library = 0;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    grade_result_free(&r);
    free(text);
    free(pass);
}

/* The judge's own output on the H100 (ex25's reference graded as the student). */
static void test_gemm_recorded_h100(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_reference = 0.8;
    e.floor_library = 0.35;
    char *text = read_file("tests/data/gemm_h100.txt", NULL);
    assert_non_null(text);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    assert_int_equal(r.nchecks, 25); /* 3 sizes, the timed one, and 21 timed samples */
    assert_true(r.norm_error > 4.0e-6 && r.norm_error < 4.03e-6);
    assert_true(r.tflops_library > 500 && r.vs_library > 0.4 && r.vs_library < 0.6);
    assert_int_equal(r.baseline.samples, 0);
    grade_result_free(&r);
    free(text);
}

static void test_gemm_norm_fail(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("gemm_norm_fail", &exited_ok, &r), V_WRONG);
    assert_non_null(strstr(r.reason, "relative error 1.83e-01 (Frobenius norm, against exact values) at size 17x9x33"));
    assert_non_null(strstr(r.reason, "51 elements"));
    assert_int_equal(r.mismatches.count, 2);
    assert_non_null(strstr(r.mismatches.items[0], "C[3][7] got 1.5 want -0.828125 (the worst)"));
    grade_result_free(&r);
}

static void test_gemm_above_peak(void **state) {
    (void)state;
    expect_reason("gemm_implausible", &exited_ok, V_WRONG, "1374 TFLOP/s is above this GPU's peak of 1070 TFLOP/s");
}

static void test_gemm_reports(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_library = 0.6;
    char *text = read_file("tests/data/gemm_pass.txt", NULL);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    free(text);
    const Exercise *es[] = {&e};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(out, "549.8 TFLOP/s"));
    assert_non_null(strstr(out, "you/library 0.76 (floor 0.60)"));
    assert_non_null(strstr(out, "2.51e-07 relative (Frobenius)"));
    assert_null(strstr(out, "copy"));
    free(out);
    f = open_memstream(&out, &len);
    report_json(f, es, &r, 1);
    fclose(f);
    assert_non_null(strstr(out, "\"flops\": 1.37439e+11"));
    assert_non_null(strstr(out, "\"tflops\": 549.756"));
    assert_non_null(strstr(out, "\"relative_error\": 2.51e-07"));
    assert_null(strstr(out, "vs_baseline"));
    free(out);
    f = open_memstream(&out, &len);
    report_junit(f, es, &r, 1);
    fclose(f);
    assert_non_null(strstr(out, "<system-out>549.8 TFLOP/s, reference 528.6 (you/reference 1.04), cuBLAS GemmEx BF16 723.4 TFLOP/s (you/library 0.76)</system-out>"));
    free(out);
    grade_result_free(&r);
}

/* A GEMM timed at two sizes: every size is held to the floors, and the
 * one with the least margin decides and fills the figures. */
static void test_gemm_several_sizes(void **state) {
    (void)state;
    GradeResult r;
    Exercise e = exercise();
    e.floor_reference = 0.8;
    e.floor_library = 0.6;
    char *text = read_file("tests/data/gemm_sizes.txt", NULL);
    assert_non_null(text);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    assert_int_equal(r.nsizes, 2);
    assert_string_equal(r.sizes[0].size, "4096x4096x4096");
    assert_int_equal(r.decisive, 1); /* 8192: 0.87 of the reference, 0.65 of cuBLAS */
    assert_true(r.vs_reference > 0.86 && r.vs_reference < 0.88);
    assert_true(r.sizes[0].vs_reference > 1.03 && r.sizes[0].vs_reference < 1.05);
    assert_true(r.flops > 1.09e12);
    assert_non_null(strstr(r.reason, "at least 0.87x the reference's throughput at each of 2 sizes"));
    const Exercise *es[] = {&e};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(out, "sizes      4096x4096x4096   you/reference 1.04   you/library 0.76   (549.8 TFLOP/s)\n"));
    assert_non_null(strstr(out, "8192x8192x8192   you/reference 0.87   you/library 0.65   (478.0 TFLOP/s)   <- above"));
    free(out);
    f = open_memstream(&out, &len);
    report_json(f, es, &r, 1);
    fclose(f);
    assert_non_null(strstr(out, "\"timing\": {\"size\": \"8192x8192x8192\""));
    assert_non_null(strstr(out, "\"timed_sizes\": [{\"size\": \"4096x4096x4096\""));
    free(out);
    grade_result_free(&r);

    e.floor_library = 0.7; /* 4096 still passes it; 8192 does not */
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_SLOW);
    assert_non_null(strstr(r.reason, "0.65x of cuBLAS GemmEx BF16's throughput at size 8192x8192x8192"));
    grade_result_free(&r);

    /* the harness stopped before the second size was timed */
    char *cut = xstrdup(text);
    *strstr(cut, "time: student 2.3") = '\0';
    char *stopped = xprintf("%sdone: correct\n", cut);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, stopped, "N1");
    assert_int_equal(r.verdict, V_RUNTIME_ERROR);
    grade_result_free(&r);
    free(stopped);
    free(cut);
    free(text);
}

/* More checks than the result keeps: a wrong one past the cap still fails. */
static void test_check_past_cap(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_printf(&sb, "harness: 1 N1\nkind: flip_lr\nseed: 42\n");
    for (int i = 0; i < MAX_CHECKS + 10; i++) sb_printf(&sb, "check: 64x64 ok (timed sample)\n");
    sb_printf(&sb, "check: 64x64 fail 7 (timed sample)\ndone: wrong\n");
    GradeResult r;
    Exercise e = exercise();
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, sb.buf, "N1");
    assert_int_equal(r.verdict, V_WRONG);
    assert_non_null(strstr(r.reason, "7 wrong elements at size 64x64"));
    grade_result_free(&r);
    sb_free(&sb);
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

/* tolerance: deterministic: a second call on the same inputs gave other bits
 * (the judge's "(second run)" check), a wrong answer that says so, though the
 * first call's values were right. */
static void test_second_run_differs(void **state) {
    (void)state;
    const char *text = "harness: 1 N1\nkind: flip_lr\nseed: 42\ncheck: 1x1 ok\ncheck: 31x33 ok\n"
                       "check: 31x33 fail 3 (second run)\n"
                       "mismatch: out[0][5] first run 0.25, second run 0.25000003\ndone: wrong\n";
    GradeResult r;
    Exercise e = exercise();
    e.deterministic = true;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_WRONG);
    assert_string_equal(r.reason, "two calls on the same inputs gave different results at size 31x33: 3 elements "
                                  "changed (seed 42). This exercise asks for the same bits on every run: add partial "
                                  "sums in a fixed order, not with atomicAdd or in whichever order blocks finish");
    assert_int_equal(r.mismatches.count, 1);
    assert_true(r.checks[2].second_run && !r.checks[1].second_run);
    char *json = render(report_json, &r);
    assert_non_null(strstr(json, "{\"size\": \"31x33\", \"ok\": false, \"mismatches\": 3, \"timed_sample\": false, "
                                 "\"second_run\": true}"));
    assert_non_null(strstr(json, "{\"size\": \"31x33\", \"ok\": true, \"mismatches\": 0, \"timed_sample\": false}"));
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
    assert_null(strstr(xml, "UNLOCKED"));
    free(xml);
    /* timed without the GPU's lock (issue 44): a CI's report says so beside the throughput */
    snprintf(r.unlocked, sizeof r.unlocked, "the lock directory /tmp/x is another user's");
    xml = render(report_junit, &r);
    assert_non_null(strstr(xml, "UNLOCKED: timed without the GPU&apos;s lock") || strstr(xml, "UNLOCKED: timed without the GPU's lock"));
    assert_non_null(strstr(xml, "another user&apos;s") || strstr(xml, "another user's"));
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

/* A compile that never finished is an attempt, not code that compiles; a
 * kernel that hangs did compile. */
static void test_record_timeouts(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    Workspace w = {.root = dir, .progress = path_join(dir, "progress.yaml")};
    Exercise e = exercise();
    GradeResult r = {.verdict = V_TIMEOUT}; /* no compile log: nvcc was stopped */
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0);
    Progress p;
    assert_int_equal(progress_load(w.progress, &p), 0);
    assert_int_equal(progress_get(&p, "ex01", false)->status, ST_ATTEMPTED);
    progress_free(&p);
    r.compile_log = "";  /* compiled, then the kernel hung */
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0);
    assert_int_equal(progress_load(w.progress, &p), 0);
    assert_int_equal(progress_get(&p, "ex01", false)->status, ST_COMPILES);
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
    assert_string_equal(r.sandbox, "full: landlock 7, seccomp on");
    assert_int_equal(r.notes.count, 0);
    grade_result_free(&r);
    expect_reason("violation_library", &exited_ok, V_REQUIREMENT, "libcublas.so.13");
    expect_reason("violation_protocol", &exited_ok, V_RUNTIME_ERROR, "did not ask for");
}

static void test_runner_ended(void **state) {
    (void)state;
    expect_reason("runner_ended", &exited_ok, V_RUNTIME_ERROR, "ended (exit status 0)");
}

/* A runner that under-reported its time: the times are the judge's, so a
 * slow kernel stays slow, and the notes say what happened. */
/* Other processes on the GPU (lines as the judge printed them beside a
 * hog on the H100): never a verdict on speed, never blamed on the student,
 * never recorded. */
static bool has_note(const GradeResult *r, const char *part) {
    for (int i = 0; i < r->notes.count; i++)
        if (strstr(r->notes.items[i], part)) return true;
    return false;
}

static void test_gpu_busy(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("gpu_busy_timed", &exited_ok, &r), V_GPU_BUSY);
    assert_int_equal(verdict_exit_code(r.verdict), 75);
    assert_string_equal(verdict_key(r.verdict), "gpu_busy");
    assert_non_null(strstr(r.reason, "each of the 3 times size 268435456 was timed (pid 1369 (probe): 91% of the SMs"));
    assert_non_null(strstr(r.reason, "your answers were correct"));
    assert_false(r.timed);
    assert_true(has_note(&r, "other processes used the GPU while size 268435456 was timed (pid 1369 (probe)"));
    char *dir = tmpdir_new();
    Workspace w = {.root = dir, .progress = path_join(dir, "progress.yaml")};
    Exercise e = exercise();
    assert_int_equal(grade_record(&w, &e, &r, NULL), 0);
    assert_false(file_exists(w.progress)); /* nothing recorded */
    free(w.progress);
    tmpdir_remove(dir);
    grade_result_free(&r);

    /* during the checks: nothing is said about the answers */
    assert_int_equal(decide("gpu_busy_check", &exited_ok, &r), V_GPU_BUSY);
    assert_non_null(strstr(r.reason, "kept this GPU busy (pid 1369 (probe): 90% of the SMs, 0% of memory) while your "
                                     "code ran at size 31"));
    assert_null(strstr(r.reason, "correct"));
    grade_result_free(&r);

    /* timed again, then fair: a pass, with what happened in the notes */
    assert_int_equal(decide("neighbours_retimed", &exited_ok, &r), V_PASS);
    assert_true(has_note(&r, "while size 268435456 was timed (pid 2306 (python3): 55% of the SMs, 2% of memory): it "
                             "was timed again"));
    assert_true(has_note(&r, "not watched: NVML cannot read"));
    grade_result_free(&r);

    /* the reference's calls waited too: the GPU's doing, not the student's */
    assert_int_equal(decide("busy_shared", &exited_ok, &r), V_PASS);
    assert_false(has_note(&r, "still running"));
    grade_result_free(&r);

    /* one call of the student's waited, none of the others: a hiccup, no note */
    assert_int_equal(decide("busy_once", &exited_ok, &r), V_PASS);
    assert_false(has_note(&r, "still running"));
    grade_result_free(&r);
}

/* A launcher that started no judge is its failure, never the student's. */
static void test_launcher_failed(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r = {0};
    r.program_output = xstrdup("srun: error: Unable to allocate resources: Invalid partition name specified\n");
    RunStatus st = {.exited = true, .exit_code = 1, .timeout_s = 60, .launcher = "srun -p nosuch", .launch_wait_s = 600};
    grade_decide(&r, &e, &st, "", "N1");
    assert_int_equal(r.verdict, V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "the launcher (srun -p nosuch) ran no judge (exit code 1): srun: error: Unable"));
    grade_result_free(&r);
    memset(&r, 0, sizeof r);
    st.exited = false, st.timed_out = true; /* still queued at the wait's end */
    grade_decide(&r, &e, &st, NULL, "N1");
    assert_int_equal(r.verdict, V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "did not start the judge within 600 s"));
    grade_result_free(&r);
}

/* ------------------------------------------------------------ class grade */

static void test_class_similarity(void **state) {
    (void)state;
    const char *a = "__global__ void k(float *x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i < n) x[i] = 2 * x[i];\n}\n";
    const char *spaced = "// mine\n__global__ void k(float* x,int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; /* ! */\n"
                         "if(i<n) x[i]=2*x[i]; }";
    const char *other = "__global__ void scan(const int *in, int *out, int n) { extern __shared__ int t[]; "
                        "t[threadIdx.x] = in[threadIdx.x]; __syncthreads(); out[0] = t[0]; }";
    assert_true(class_similarity(a, spaced) >= 1.0); /* comments and spacing do not count */
    assert_true(class_similarity(a, other) < 0.2);
    assert_true(class_similarity(a, a) >= 1.0);
    assert_true(class_similarity("", "") >= 1.0);
}

static void test_roster(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *p;
    const char *names[] = {"alice", "bob", "Not a name"};
    for (int i = 0; i < 3; i++) {
        p = xprintf("%s/%s/exercises", dir, names[i]);
        assert_int_equal(make_dirs(p), 0);
        free(p);
    }
    Roster r;
    assert_int_equal(roster_load(dir, &r), 0); /* a directory: its workspaces, by name */
    assert_int_equal(r.count, 3);
    assert_string_equal(r.students[0].name, "Not a name"); /* graded under a file name of its own */
    assert_non_null(strstr(r.students[0].file, "Not_a_name-"));
    assert_string_equal(r.students[1].name, "alice");
    assert_string_equal(r.students[1].file, "alice");
    assert_string_equal(r.students[2].name, "bob");
    roster_free(&r);

    char *file = path_join(dir, "roster.txt");
    const char *good = "# the class\n\nalice alice\nbob  bob   # late\n";
    assert_int_equal(write_file_atomic(file, good, strlen(good)), 0);
    assert_int_equal(roster_load(file, &r), 0);
    assert_int_equal(r.count, 2);
    p = path_join(dir, "bob");
    assert_string_equal(r.students[1].path, p); /* relative to the roster's directory */
    free(p);
    roster_free(&r);

    const struct {
        const char *text, *error;
    } bad[] = {
        {"alice alice\nalice bob\n", "roster.txt:2: 'alice' is listed twice"},
        {"alice\n", "roster.txt:1: a line is NAME PATH"},
        {"alice alice\nbob\033 bob\n", "roster.txt:2: a control character"},
        {"carol carol\n", "has no exercises/ directory"},
        {"# nobody\n", "no students listed"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        assert_int_equal(write_file_atomic(file, bad[i].text, strlen(bad[i].text)), 0);
        assert_int_equal(roster_load(file, &r), -1);
        assert_non_null(strstr(last_error(), bad[i].error));
    }
    free(file);
    tmpdir_remove(dir);
}

/* SHA-256 on FIPS 180-4's examples, and the digest as its first 64 bits
 * of the seed (big-endian) and the data. */
static void test_digest(void **state) {
    (void)state;
    static const struct {
        const char *text, *hex;
    } known[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    unsigned char out[32];
    char hex[65];
    for (size_t k = 0; k < ARRAY_SIZE(known); k++) {
        sha256(known[k].text, strlen(known[k].text), out);
        for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", out[i]);
        assert_string_equal(hex, known[k].hex);
    }
    char *million = xmalloc(1000000);
    memset(million, 'a', 1000000);
    sha256(million, 1000000, out);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", out[i]);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
    unsigned char message[11] = {0, 0, 0, 0, 0, 0, 0, 1, 'a', 'b', 'c'};
    sha256(message, sizeof message, out);
    uint64_t first = 0;
    for (int i = 0; i < 8; i++) first = first << 8 | out[i];
    assert_true(digest_bytes(1, "abc", 3) == first);
    assert_true(digest_str(1, "abc") != digest_bytes(1, "abc", 3)); /* a string with its NUL */
}

/* A build's record names what it wrote: an output replaced since (a
 * student's library of the reference's name) is built again, never reused;
 * the output as built is reused. */
static void test_build_record_checks_output(void **state) {
    (void)state;
    Toolchain t;
    if (toolchain_find(&t) < 0) skip(); /* no nvcc */
    char *dir = tmpdir_new(), *src = path_join(dir, "lib.cu"), *so = path_join(dir, "reference-ex01.so");
    char *old_cache = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME")) : NULL;
    setenv("XDG_CACHE_HOME", dir, 1); /* the records: this test's own */
    const char *code = "extern \"C\" int answer(void) { return 42; }\n";
    assert_int_equal(write_file_atomic(src, code, strlen(code)), 0);
    const char *sources[] = {src, NULL};
    char *log = NULL;
    assert_int_equal(toolchain_build_cached(&t, BUILD_SHARED_LIB, sources, so, NULL, &log), 0);
    free(log);
    size_t len = 0;
    char *built = read_file(so, &len);
    assert_non_null(built);
    assert_int_equal(write_file_atomic(so, "a student's library", 19), 0); /* the stamp beside it unchanged */
    assert_int_equal(toolchain_build_cached(&t, BUILD_SHARED_LIB, sources, so, NULL, &log), 0);
    free(log);
    size_t now_len = 0;
    char *now = read_file(so, &now_len);
    assert_non_null(now);
    assert_true(len > 4 && now_len > 4 && !memcmp(now, "\177ELF", 4)); /* built again, not the file put there */
    struct stat before, after;
    assert_int_equal(stat(so, &before), 0);
    assert_int_equal(toolchain_build_cached(&t, BUILD_SHARED_LIB, sources, so, NULL, &log), 0);
    free(log);
    assert_int_equal(stat(so, &after), 0);
    assert_true(before.st_ino == after.st_ino && before.st_mtime == after.st_mtime); /* as built: not again */
    if (old_cache) setenv("XDG_CACHE_HOME", old_cache, 1);
    else unsetenv("XDG_CACHE_HOME");
    free(old_cache);
    free(now), free(built), free(src), free(so);
    toolchain_free(&t);
    tmpdir_remove(dir);
}

/* The judge's build key sees every file harness/main.cu includes from the
 * harness (its headers and its parts, judge/NAME.cu): a part edited is a
 * judge built again, never the build of the part as it was. */
static void test_build_key_sees_judge_parts(void **state) {
    (void)state;
    Toolchain t = {.nvcc = "nvcc", .version = "test"};
    char *main_cu = read_file("harness/main.cu", NULL);
    assert_non_null(main_cu);
    char *dir = tmpdir_new(), *parts = path_join(dir, "judge"), *src = path_join(dir, "main.cu");
    assert_int_equal(make_dirs(parts), 0);
    assert_int_equal(write_file_atomic(src, main_cu, strlen(main_cu)), 0);
    StrList included = {0};
    for (const char *p = main_cu; (p = strstr(p, "#include \"")); p++) {
        p += strlen("#include \"");
        char *name = xstrndup(p, strcspn(p, "\""));
        char *path = path_join(dir, name);
        assert_int_equal(write_file_atomic(path, "// as it was\n", 13), 0);
        strlist_add(&included, name);
        free(path), free(name);
    }
    assert_true(included.count > 10); /* the headers and the parts */
    const char *sources[] = {src, NULL};
    for (int i = 0; i < included.count; i++) {
        char *path = path_join(dir, included.items[i]);
        uint64_t before = toolchain_build_key(&t, BUILD_HARNESS_OBJECT, sources, dir);
        assert_int_equal(write_file_atomic(path, "// edited\n", 10), 0);
        if (toolchain_build_key(&t, BUILD_HARNESS_OBJECT, sources, dir) == before)
            fail_msg("editing %s leaves the judge's build key as it was", included.items[i]);
        free(path);
    }
    strlist_free(&included);
    free(main_cu), free(src), free(parts);
    tmpdir_remove(dir);
}

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

    /* the clock overruled 14 of 21 samples but moved the median 1%: a pass, and no note */
    assert_int_equal(decide("clock_small_shift", &exited_ok, &r), V_PASS);
    assert_false(has_note(&r, "clock decided"));
    grade_result_free(&r);
}

/* ------------------------------------------------------------ bytes no report may pass on */

/* What a compiler or a student's program may print: bytes that are not
 * UTF-8 (0xff, a lone continuation byte, a 3-byte character cut short at the
 * end), controls (ESC, BEL, DEL, CR) and good UTF-8 that must stay. */
static const char hostile[] = "bad \xff byte, lone \x80 continuation, caf\xc3\xa9 \xe6\xbc\xa2\n"
                              "\x1b[2J\x1b]0;pwned\x07 del \x7f cr \r end \xe2\x82";

/* Strict UTF-8 (no overlong forms, surrogates or cut sequences) with no
 * control character but \n and \t: written here on its own, not with the
 * decoder under test. */
static bool clean_utf8(const char *text) {
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        unsigned c = *p;
        int n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
        if (n < 0) return false;
        unsigned cp = n ? c & (0x3fu >> n) : c;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        if ((cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp < 0xa0)) return false;
        p += n + 1;
    }
    return true;
}

static void hostile_result(GradeResult *r) {
    decide("wrong", &exited_ok, r);
    r->verdict = V_COMPILE_ERROR;
    snprintf(r->reason, sizeof r->reason, "nvcc said: %s", hostile);
    r->compile_log = xstrdup(hostile);
    r->program_output = xstrdup(hostile);
    strlist_add(&r->mismatches, hostile);
}

static void test_json_report_hostile_bytes(void **state) {
    (void)state;
    GradeResult r;
    hostile_result(&r);
    r.compile_log_dropped = 5;
    char *json = render(report_json, &r);
    if (getenv("SHOW_REPORTS")) fputs(json, stderr);
    assert_true(clean_utf8(json)); /* the only raw \n are between the fields */
    assert_non_null(strstr(json, "\\u001b[2J\\u001b]0;pwned\\u0007 del \\u007f cr \\r end"));
    assert_non_null(strstr(json, "bad \xef\xbf\xbd byte, lone \xef\xbf\xbd continuation, caf\xc3\xa9 \xe6\xbc\xa2\\n"));
    /* compile_log was cut: its half character is not shown but counted as dropped */
    assert_non_null(strstr(json, "\"compile_log\": \"bad "));
    assert_non_null(strstr(json, "cr \\r end \", \"compile_log_dropped_bytes\": 7, \"program_output\": "));
    /* program_output was not cut: the bytes at its end are not UTF-8 */
    assert_non_null(strstr(json, "cr \\r end \xef\xbf\xbd\", \"program_output_dropped_bytes\": 0"));
    free(json);
    grade_result_free(&r);
}

static void test_junit_report_hostile_bytes(void **state) {
    (void)state;
    GradeResult r;
    hostile_result(&r);
    char *xml = render(report_junit, &r);
    if (getenv("SHOW_REPORTS")) fputs(xml, stderr);
    assert_true(clean_utf8(xml)); /* no controls XML 1.0 cannot carry, nothing but UTF-8 */
    assert_non_null(strstr(xml, "<failure type=\"compile_error\" message=\"nvcc said: bad \xef\xbf\xbd byte"));
    assert_non_null(strstr(xml, "^[[2J^[]0;pwned^G del ^? cr  end \xef\xbf\xbd</failure>"));
    assert_non_null(strstr(xml, "caf\xc3\xa9 \xe6\xbc\xa2\n"));
    free(xml);
    grade_result_free(&r);
}

/* A student's printf cannot clear the screen or retitle the window. */
static void test_text_report_hostile_bytes(void **state) {
    (void)state;
    GradeResult r;
    hostile_result(&r);
    free(r.program_output);
    r.program_output = xstrdup("before\x1b[2J\x1b]0;pwned\x07" "after\n");
    r.verdict = V_WRONG;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    Exercise e = exercise();
    report_text(f, &e, &r);
    fclose(f);
    if (getenv("SHOW_REPORTS")) fputs(buf, stderr);
    assert_null(strchr(buf, '\x1b'));
    assert_null(strchr(buf, '\x07'));
    assert_true(clean_utf8(buf));
    assert_non_null(strstr(buf, "    | before^[[2J^[]0;pwned^Gafter\n"));
    assert_non_null(
        strstr(buf, "    | bad \xef\xbf\xbd byte, lone \xef\xbf\xbd continuation, caf\xc3\xa9 \xe6\xbc\xa2\n"));
    assert_non_null(strstr(buf, "FAIL ex01: wrong answer: nvcc said: bad \xef\xbf\xbd byte"));
    free(buf);
    grade_result_free(&r);
}

static void test_utf8_decode(void **state) {
    (void)state;
    static const struct {
        const char *s;
        long cp;
        size_t n;
    } cases[] = {
        {"a", 'a', 1},
        {"\xc3\xa9", 0xe9, 2},
        {"\xe6\xbc\xa2", 0x6f22, 3},
        {"\xf0\x9f\x98\x80", 0x1f600, 4},
        {"\xff", -1, 1},
        {"\x80", -1, 1},             /* a lone continuation byte */
        {"\xc0\xaf", -1, 1},         /* overlong */
        {"\xe0\x80\xaf", -1, 1},     /* overlong */
        {"\xed\xa0\x80", -1, 1},     /* a surrogate */
        {"\xf4\x90\x80\x80", -1, 1}, /* past U+10FFFF */
        {"\xe2\x82", -1, 2},         /* cut short: one U+FFFD for both bytes */
        {"\xe2\x82x", -1, 2},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        size_t n = 0;
        assert_int_equal(utf8_decode(cases[i].s, strlen(cases[i].s), &n), cases[i].cp);
        assert_int_equal(n, cases[i].n);
    }
    /* utf8_cut: where a capped text may end */
    assert_int_equal(utf8_cut("ab\xe2\x82", 4), 2);
    assert_int_equal(utf8_cut("ab\xe2", 3), 2);
    assert_int_equal(utf8_cut("ab\xe2\x82\xac", 5), 5);
    assert_int_equal(utf8_cut("ab\xf0\x9f\x98", 5), 2);
    assert_int_equal(utf8_cut("ab\xff", 3), 3); /* not a cut character: shown as U+FFFD */
    assert_int_equal(utf8_cut("", 0), 0);
}

static void test_visible_text(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_add_visible(&sb, hostile, strlen(hostile));
    assert_string_equal(sb.buf, "bad \xef\xbf\xbd byte, lone \xef\xbf\xbd continuation, caf\xc3\xa9 \xe6\xbc\xa2\n"
                                "^[[2J^[]0;pwned^G del ^? cr  end \xef\xbf\xbd");
    sb_free(&sb);
    const char c1[] = "\xc2\x9b" "2J\tx\xef\xbf\xbe";   /* CSI as a C1 control, a tab, a noncharacter */
    sb_add_visible(&sb, c1, strlen(c1));
    assert_string_equal(sb.buf, "\\u009b2J\tx\xef\xbf\xbd");
    sb_free(&sb);
}

/* ------------------------------------------------------------ programs grading runs */

/* An executable script at dir/bin/name. */
static char *put_tool(const char *dir, const char *name, const char *script) {
    char *rel = xprintf("bin/%s", name);
    put_file(dir, rel, script);
    char *path = path_join(dir, rel);
    assert_int_equal(chmod(path, 0755), 0);
    free(rel);
    return path;
}

/* A Ctrl-C to us once a fake nvcc made `started` in its directory below
 * tmp_base: the compiler's box keeps nvcc itself from signalling us
 * (Landlock's signal scope), so a helper outside it sends it. */
static pid_t interrupt_when_started(const char *tmp_base) {
    pid_t parent = getpid(), pid = fork();
    if (pid != 0) return pid;
    char *pattern = xprintf("%s/*/started", tmp_base);
    for (int i = 0; i < 1000; i++) {
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0) {
            kill(parent, SIGINT);
            _exit(0);
        }
        usleep(10000);
    }
    _exit(1);
}

/* Ctrl-C during any program that grading runs ends it as interrupted, with
 * nothing recorded: also during nvcc --version and a cached build, whose
 * results do not reach the grader. A fake nvcc sends the SIGINT (to us, as
 * a terminal would) when $WHEN says. */
static void test_interrupt_during_any_child(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *nvcc = put_tool(dir, "nvcc",
                          "#!/bin/sh\n"
                          "if [ \"$1\" = --version ]; then\n"
                          "    [ \"$WHEN\" = version ] && kill -INT $TEST_PID && sleep 5\n"
                          "    echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0\n"
                          "fi\n"
                          "[ \"$WHEN\" = compile ] && : >\"$TMPDIR/started\" && sleep 5\n"
                          "echo 'error: not a real nvcc'; exit 1\n");
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    setenv("TEST_PID", pid, 1);
    setenv("GPUCOURSE_NVCC", nvcc, 1);
    setenv("GPUCOURSE_NO_GPU", "1", 1);
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    assert_non_null(c);
    char *ws = path_join(dir, "ws");
    Workspace w;
    assert_int_equal(workspace_open(c, ws, &w), 0);
    const Exercise *e = course_find(c, "ex01");
    char *sol = course_solution_path(c, e);
    static const struct {
        const char *when;
        bool course_file;
    } cases[] = {{"version", false}, {"compile", false}, {"compile", true}, {"version", true}};
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        setenv("WHEN", cases[i].when, 1);
        GradeOptions o = {.source = cases[i].course_file ? sol : NULL, .label = "check-reference"};
        GradeResult r;
        double t0 = now_seconds();
        char *tmp_base = path_join(w.build, "tmp");
        pid_t helper = strcmp(cases[i].when, "compile") ? -1 : interrupt_when_started(tmp_base);
        grade_exercise(c, &w, e, &o, &r);
        if (helper > 0) waitpid(helper, NULL, 0);
        free(tmp_base);
        if (r.verdict != V_INTERRUPTED)
            fprintf(stderr, "# interrupted during %s (%s): %s: %s\n", cases[i].when,
                    cases[i].course_file ? "a course file" : "the student's file", verdict_key(r.verdict), r.reason);
        assert_int_equal(r.verdict, V_INTERRUPTED);
        assert_true(now_seconds() - t0 < 4.0);
        assert_int_equal(grade_record(&w, e, &r, NULL), 0);
        assert_false(file_exists(w.progress)); /* nothing recorded */
        grade_result_free(&r);
    }
    /* and without Ctrl-C the fake compile is just an error, with its log */
    setenv("WHEN", "never", 1);
    GradeResult r;
    grade_exercise(c, &w, e, NULL, &r);
    assert_int_equal(r.verdict, V_COMPILE_ERROR);
    assert_non_null(strstr(r.compile_log, "not a real nvcc"));
    grade_result_free(&r);
    unsetenv("WHEN");
    unsetenv("TEST_PID");
    unsetenv("GPUCOURSE_NVCC");
    unsetenv("GPUCOURSE_NO_GPU");
    free(sol);
    workspace_free(&w);
    course_free(c);
    strlist_free(&problems);
    free(ws);
    free(nvcc);
    tmpdir_remove(dir);
}

/* The check of required SASS instructions never passes in silence: a
 * missing, failing or interrupted cuobjdump is an error that says why. */
static void test_sass_tool_failures_are_said(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    Toolchain t = {.cuda_home = dir};
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", "/usr/bin:/bin", 1); /* no cuobjdump from PATH either */
    char *sass = NULL;
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), -1);
    assert_string_equal(last_error(), "cuobjdump not found");
    free(put_tool(dir, "cuobjdump", "#!/bin/sh\necho 'cuobjdump fatal   : Could not open input file'; exit 1\n"));
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), -1);
    assert_string_equal(last_error(), "cuobjdump failed (exit code 1): cuobjdump fatal   : Could not open input file");
    free(put_tool(dir, "cuobjdump", "#!/bin/sh\nkill -SEGV $$\n"));
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), -1);
    assert_non_null(strstr(last_error(), "cuobjdump was killed by signal 11"));
    /* a Ctrl-C while it runs, from outside: the box lets cuobjdump signal nothing of ours */
    free(put_tool(dir, "cuobjdump", "#!/bin/sh\nsleep 5\n"));
    proc_take_interrupted();
    pid_t ctrl_c = fork();
    if (ctrl_c == 0) {
        usleep(300 * 1000);
        kill(getppid(), SIGINT);
        _exit(0);
    }
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), -1);
    waitpid(ctrl_c, NULL, 0);
    assert_string_equal(last_error(), "cuobjdump was interrupted");
    assert_true(proc_take_interrupted());
    /* (cuobjdump reads nothing but its file: no /dev/zero in the box) */
    free(put_tool(dir, "cuobjdump", "#!/bin/sh\nyes xxxxxxxxxxxxxxx | head -c 17000000\n"));
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), SASS_TOO_LARGE); /* never read in part */
    assert_null(sass);
    assert_string_equal(last_error(), "its machine code is more than 16 MiB as text");
    free(put_tool(dir, "cuobjdump", "#!/bin/sh\necho '        /*0040*/  HMMA.16816.F32 R4, R8, R12, R4 ;'\n"));
    assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), 0);
    assert_non_null(strstr(sass, "HMMA.16816"));
    free(sass);
    /* cuobjdump parses the student's bytes, so it runs in the compiler's box: it reads
     * its file, and writes into a directory of its own only (no shared /tmp) */
    if (toolchain_confined(NULL, 0)) {
        char *outside = tmpdir_new(), *secret = path_join(outside, "secret"), *planted = path_join(outside, "planted");
        put_file(outside, "secret", "the instructor's key\n");
        char *escape = xprintf("#!/bin/sh\ncat '%s'; echo x >'%s'; echo \"tmp $TMPDIR\"; touch \"$TMPDIR/t\" && echo tmp-ok\n",
                               secret, planted);
        free(put_tool(dir, "cuobjdump", escape));
        assert_int_equal(toolchain_sass(&t, "/nonexistent.so", &sass), 0);
        assert_null(strstr(sass, "the instructor's key"));
        assert_false(file_exists(planted));
        assert_non_null(strstr(sass, "tmp-ok"));
        assert_non_null(strstr(sass, "/gpucourse-nvcc."));
        free(sass);
        free(escape);
        free(secret);
        free(planted);
        tmpdir_remove(outside);
    }
    setenv("PATH", old_path, 1);
    free(old_path);
    tmpdir_remove(dir);
}

/* What the compiler prints when it reaches the memory limit. */
static void test_out_of_memory_is_recognized(void **state) {
    (void)state;
    assert_true(toolchain_out_of_memory("\ncc1plus: out of memory allocating 2147483664 bytes after a total of 2134016 bytes\n"));
    assert_true(toolchain_out_of_memory("x.h(605): catastrophic error: out of memory\n"));
    assert_true(toolchain_out_of_memory("terminate called after throwing an instance of 'std::bad_alloc'\n"));
    assert_false(toolchain_out_of_memory("x.cu(3): error: expected a declaration\n"));
    assert_false(toolchain_out_of_memory(NULL));
}

/* ptxas's own repairs of wgmma ordering mistakes turn a pass into
 * "requirement not met"; other verdicts and clean logs are left alone. */
static void test_compiler_repairs(void **state) {
    (void)state;
    const char *waited = "ptxas info    : (C7517) warpgroup.wait is injected in around line 328 by compiler to allow use "
                         "of registers defined by GMMA in function '_Z5tiles'\n";
    const char *fenced = "ptxas info    : (C7519) warpgroup.arrive is injected in around line 243 by compiler to allow "
                         "use of registers in GMMA in function '_Z5tiles'\n";
    GradeResult r;
    memset(&r, 0, sizeof r);
    r.verdict = V_PASS;
    r.compile_log = xstrdup(waited);
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "wgmma_wait"));
    assert_non_null(strstr(r.reason, "C7517"));
    free(r.compile_log);

    memset(&r, 0, sizeof r);
    r.verdict = V_SLOW;
    r.compile_log = xstrdup(fenced);
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "wgmma_fence"));
    free(r.compile_log);

    memset(&r, 0, sizeof r); /* a wrong answer stays one */
    r.verdict = V_WRONG;
    r.compile_log = xstrdup(waited);
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_WRONG);
    free(r.compile_log);

    memset(&r, 0, sizeof r); /* a clean log, or none, changes nothing */
    r.verdict = V_PASS;
    r.compile_log = xstrdup("ptxas info    : Used 66 registers\n");
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_PASS);
    free(r.compile_log);
    r.compile_log = NULL;
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_PASS);
}


/* ------------------------------------------------------------ SASS (the evidence: test_evidence.c) */
/* A few wholly wrong elements hide in a loose norm; each element's own
 * bound finds them. */
static void test_gemm_element_bound(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("gemm_elements_fail", &exited_ok, &r), V_WRONG);
    assert_non_null(strstr(r.reason, "3 elements at size 520x1000x1028 off by more than rounding allows"));
    assert_non_null(strstr(r.reason, "the worst 11.7 times its bound"));
    assert_int_equal(r.mismatches.count, 1);
    grade_result_free(&r);
}

/* doctor's reading of the driver's profiling restriction. */
static void test_profiling_admin_only(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = xprintf("%s/params", dir);
    assert_int_equal(gpu_profiling_admin_only(path), -1); /* no driver */
    put_file(dir, "params", "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nEnableMSI: 1\n");
    assert_int_equal(gpu_profiling_admin_only(path), 1);
    put_file(dir, "params", "RmProfilingAdminOnly: 0\n");
    assert_int_equal(gpu_profiling_admin_only(path), 0);
    put_file(dir, "params", "EnableMSI: 1\n");
    assert_int_equal(gpu_profiling_admin_only(path), -1);
    free(path);
    tmpdir_remove(dir);
}

/* Instruction lines only: a kernel named after an instruction, a comment or
 * a header never matches; modifiers match in order. */
static const char recorded_sass[] =
    "\n\tcode for sm_90a\n\t\tFunction : _Z5HGMMA_UTMALDG_decoyPf\n"
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */\n"
    "                                                                                    /* 0x000fe40000000800 */\n"
    "        /*0010*/              @!PT LDS RZ, [RZ] ;  /* HMMA in a comment */\n"
    "        /*0020*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
    "        /*0030*/               @P0 HGMMA.64x256x8.F32.TF32 gdesc[UR4], R24, gsb0 ;\n"
    "        /*0040*/                   FFMA R5, R6, R7, R5 ;\n";

static void test_sass_matching(void **state) {
    (void)state;
    char got[128];
    assert_true(sass_find(recorded_sass, "HGMMA", got, sizeof got));
    assert_string_equal(got, "HGMMA.64x256x8.F32.TF32");
    assert_true(sass_find(recorded_sass, "HGMMA.TF32", got, sizeof got));
    assert_true(sass_find(recorded_sass, "HGMMA.F32.TF32", got, sizeof got));
    assert_false(sass_find(recorded_sass, "HGMMA.TF32.F32", got, sizeof got)); /* order matters */
    assert_false(sass_find(recorded_sass, "HGMMA.BF16", got, sizeof got));
    assert_true(sass_find(recorded_sass, "LDG.E.128", got, sizeof got));
    assert_false(sass_find(recorded_sass, "LDG.128.E", got, sizeof got));
    assert_false(sass_find(recorded_sass, "UTMALDG", got, sizeof got)); /* only in the kernel's name */
    assert_false(sass_find(recorded_sass, "HMMA", got, sizeof got));    /* only in a comment */
    assert_false(sass_find(recorded_sass, "LD", got, sizeof got));      /* opcodes match whole */
    assert_true(sass_find(recorded_sass, "LDS", got, sizeof got));
    assert_true(sass_matches("HMMA.16816.F32.BF16", "HMMA"));
    assert_false(sass_matches("HMMA.16816.F32.BF16", "HGMMA"));
    char ins[64];
    assert_false(sass_instruction("Function : HGMMA", 16, ins, sizeof ins));
    assert_true(sass_instruction("  /*0a0*/  @UP1 USETMAXREG.DEALLOC.CTAPOOL 0x28 ;", 48, ins, sizeof ins));
    assert_string_equal(ins, "USETMAXREG.DEALLOC.CTAPOOL");
}

static void test_sass_decisions(void **state) {
    (void)state;
    Exercise e = exercise();
    strlist_add(&e.required_sass, "HGMMA.TF32");
    GradeResult r = {.verdict = V_PASS};
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_PASS);
    strlist_add(&e.required_sass, "UTMALDG"); /* in the kernel's name only */
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "no UTMALDG instruction: a TMA load"));
    strlist_free(&e.required_sass);

    strlist_add(&e.forbidden_sass, "HMMA");
    strlist_add(&e.forbidden_sass, "HGMMA");
    r = (GradeResult){.verdict = V_SLOW};
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "has HGMMA.64x256x8.F32.TF32 (a warpgroup MMA"));
    assert_non_null(strstr(r.reason, "which this exercise forbids (HGMMA)"));

    /* fail closed: a file too large to read, a tool that failed */
    r = (GradeResult){.verdict = V_PASS};
    error("its machine code is more than 16 MiB as text");
    grade_check_sass(&e, SASS_TOO_LARGE, NULL, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "could not be checked in your machine code (its machine code is more than 16 MiB"));
    r = (GradeResult){.verdict = V_PASS};
    error("cuobjdump not found");
    grade_check_sass(&e, -1, NULL, &r);
    assert_int_equal(r.verdict, V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "(cuobjdump not found); cuobjdump ships with the CUDA Toolkit"));
    /* a wrong answer is not looked at */
    r = (GradeResult){.verdict = V_WRONG};
    grade_check_sass(&e, -1, NULL, &r);
    assert_int_equal(r.verdict, V_WRONG);
    strlist_free(&e.forbidden_sass);
}

/* Without a GPU (skipped: nothing ran) the checks of the compiled code
 * alone still decide: a failed one is "requirement not met", which claims
 * nothing of the answer; passed ones leave it skipped; a tool that could
 * not run leaves it skipped with the check marked not run, never passed. */
static void test_static_checks_without_gpu(void **state) {
    (void)state;
    Exercise e = exercise();
    strlist_add(&e.required_sass, "HGMMA.TF32");
    GradeResult r = {.verdict = V_SKIPPED};
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_SKIPPED);
    assert_int_equal(r.statics[STATIC_MACHINE_CODE], STATIC_PASSED);
    strlist_add(&e.required_sass, "UTMALDG");
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_int_equal(r.statics[STATIC_MACHINE_CODE], STATIC_FAILED);
    assert_non_null(strstr(r.reason, "your machine code has no UTMALDG instruction"));
    assert_null(strstr(r.reason, "correct")); /* nothing ran: the answer is not known */
    strlist_free(&e.required_sass);

    strlist_add(&e.forbidden_sass, "HGMMA");
    r = (GradeResult){.verdict = V_SKIPPED};
    grade_check_sass(&e, 0, recorded_sass, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_null(strstr(r.reason, "correct"));
    r = (GradeResult){.verdict = V_SKIPPED}; /* no cuobjdump: not run, said, still skipped */
    error("cuobjdump not found");
    grade_check_sass(&e, -1, NULL, &r);
    assert_int_equal(r.verdict, V_SKIPPED);
    assert_int_equal(r.statics[STATIC_MACHINE_CODE], STATIC_NOT_RUN);
    assert_non_null(strstr(r.static_not_run, "cuobjdump not found"));
    char *json = render(report_json, &r);
    assert_non_null(strstr(json, "\"static_checks\": {\"machine_code\": \"not_run\"}, \"static_not_run\": \"cuobjdump not found"));
    free(json);
    r = (GradeResult){.verdict = V_SKIPPED};
    error("its machine code is more than 16 MiB as text");
    grade_check_sass(&e, SASS_TOO_LARGE, NULL, &r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    strlist_free(&e.forbidden_sass);

    /* ptxas's repairs are in nvcc's output: decided with no GPU and no cuobjdump */
    r = (GradeResult){.verdict = V_SKIPPED};
    r.compile_log = xstrdup("ptxas info    : (C7519) warpgroup.arrive is injected in around line 243 by compiler\n");
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_int_equal(r.statics[STATIC_COMPILER_REPAIRS], STATIC_FAILED);
    assert_non_null(strstr(r.reason, "C7519"));
    assert_null(strstr(r.reason, "correct"));
    free(r.compile_log);
    r = (GradeResult){.verdict = V_SKIPPED};
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_SKIPPED);
    assert_int_equal(r.statics[STATIC_COMPILER_REPAIRS], STATIC_PASSED);
    json = render(report_json, &r);
    assert_non_null(strstr(json, "\"static_checks\": {\"compiler_repairs\": \"passed\"}"));
    free(json);
}

/* ex44's two cluster barriers, each in its place: the course's own rule
 * (course/11-past-cublas/chapter.yaml, required_sass_around) on the
 * machine code of the reference and of the two fixtures that leave out
 * one barrier (tests/gpu/ex44_attack_no_*_cluster_barrier.patch), recorded
 * with cuobjdump (tests/data/sass_ex44_*.txt). Each fixture has the
 * barrier's wait somewhere, so required_sass alone passes it. */
static void test_sass_cluster_barriers_in_place(void **state) {
    (void)state;
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    assert_non_null(c);
    const Exercise *e = course_find(c, "ex44");
    assert_non_null(e);
    assert_true(e->around_inside.count > 0);
    static const struct {
        const char *file, *says;
        Verdict verdict;
    } cases[] = {
        {"tests/data/sass_ex44_reference.txt", NULL, V_PASS},
        {"tests/data/sass_ex44_no_first_cluster_barrier.txt",
         "UCGABAR_ARV, then UCGABAR_WAIT do not come before the first UTMALDG.MULTICAST or UBLKCP.MULTICAST (here "
         "UTMALDG.2D.MULTICAST): this exercise requires a cluster barrier before the first multicast load",
         V_REQUIREMENT},
        {"tests/data/sass_ex44_no_last_cluster_barrier.txt",
         "do not come after the last UTMALDG.MULTICAST or UBLKCP.MULTICAST (here UTMALDG.2D.MULTICAST) with "
         "no EXIT between",
         V_REQUIREMENT},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *sass = read_file(cases[i].file, NULL);
        assert_non_null(sass);
        char found[128];
        assert_true(sass_find(sass, "UCGABAR_WAIT", found, sizeof found)); /* what required_sass sees: all pass */
        GradeResult r = {.verdict = V_PASS};
        grade_check_sass(e, 0, sass, &r);
        if (r.verdict != cases[i].verdict) fail_msg("%s: %s", cases[i].file, r.reason[0] ? r.reason : "pass");
        if (cases[i].says && !strstr(r.reason, cases[i].says)) fail_msg("%s: %s", cases[i].file, r.reason);
        if (cases[i].says) assert_non_null(strstr(r.reason, "gemm_multicast")); /* the kernel, by its name */
        free(sass);
    }
    course_free(c);
    strlist_free(&problems);
}

/* The order rule itself: per function, the sides in order on both sides of
 * the instructions they surround, an EXIT before the sides is a way out. */
static void test_sass_around(void **state) {
    (void)state;
    char *inside[] = {"UTMALDG.MULTICAST"}, *side[] = {"UCGABAR_ARV", "UCGABAR_WAIT"};
#define FN(name) "\t\tFunction : " name "\n"
#define I(addr, text) "        /*" addr "*/                   " text " ;\n"
    static const char good[] = FN("_Z1kv") I("0010", "UCGABAR_ARV") I("0020", "UCGABAR_WAIT")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0040", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7")
        I("0050", "UCGABAR_ARV") I("0060", "BRA 0x70") I("0070", "UCGABAR_WAIT") I("0080", "EXIT");
    char fn[64], first[64];
    assert_int_equal(sass_around(good, inside, 1, side, 2, fn, sizeof fn, first, sizeof first), SASS_AROUND_OK);
    /* the wait before the arrive is not the sides in order */
    static const char swapped[] = FN("_Z1kv") I("0010", "UCGABAR_WAIT") I("0020", "UCGABAR_ARV")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0050", "UCGABAR_ARV") I("0070", "UCGABAR_WAIT");
    assert_int_equal(sass_around(swapped, inside, 1, side, 2, fn, sizeof fn, first, sizeof first), SASS_AROUND_BEFORE);
    assert_string_equal(fn, "_Z1kv");
    assert_string_equal(first, "UTMALDG.2D.MULTICAST");
    /* a barrier between two loads is not after the last one */
    static const char between[] = FN("_Z1kv") I("0010", "UCGABAR_ARV") I("0020", "UCGABAR_WAIT")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0040", "UCGABAR_ARV") I("0050", "UCGABAR_WAIT")
        I("0060", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0070", "EXIT");
    assert_int_equal(sass_around(between, inside, 1, side, 2, NULL, 0, NULL, 0), SASS_AROUND_AFTER);
    /* an EXIT (predicated too) between the last load and the barrier */
    static const char exit_first[] = FN("_Z1kv") I("0010", "UCGABAR_ARV") I("0020", "UCGABAR_WAIT")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0040", "@P0 EXIT") I("0050", "UCGABAR_ARV")
        I("0060", "UCGABAR_WAIT") I("0070", "EXIT");
    assert_int_equal(sass_around(exit_first, inside, 1, side, 2, NULL, 0, NULL, 0), SASS_AROUND_AFTER);
    /* each function on its own: a decoy kernel with both barriers does not cover one without */
    static const char two[] = FN("_Z5decoyv") I("0010", "UCGABAR_ARV") I("0020", "UCGABAR_WAIT")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0040", "UCGABAR_ARV") I("0050", "UCGABAR_WAIT")
        FN("_Z4realv") I("0010", "UCGABAR_ARV") I("0020", "UCGABAR_WAIT")
        I("0030", "UTMALDG.2D.MULTICAST [UR8], [UR4], UR7") I("0040", "EXIT");
    assert_int_equal(sass_around(two, inside, 1, side, 2, fn, sizeof fn, NULL, 0), SASS_AROUND_AFTER);
    assert_string_equal(fn, "_Z4realv");
    /* a function without the loads is not looked at; nor is a name or a comment */
    static const char none[] = FN("_Z23UTMALDG_MULTICAST_namev") I("0010", "FFMA R1, R2, R3, R4 /* UTMALDG.MULTICAST */")
        I("0020", "EXIT");
    assert_int_equal(sass_around(none, inside, 1, side, 2, NULL, 0, NULL, 0), SASS_AROUND_OK);
#undef FN
#undef I
}

/* ptxas's repair notes count wherever they are in nvcc's output, also
 * split between two pieces and past what the kept log holds. */
static void test_repairs_in_the_whole_stream(void **state) {
    (void)state;
    RepairScan scan = {{0}, 0, 0};
    const char *one = "warning: x\nptxas info    : (C75", *two = "17) warpgroup.wait is injected";
    assert_int_equal(grade_scan_repairs(&scan, one, strlen(one)), 0);
    assert_int_equal(grade_scan_repairs(&scan, two, strlen(two)), 1);
    char *noise = xcalloc(300 * 1024 + 1, 1);
    memset(noise, 'w', 300 * 1024);
    RepairScan late = {{0}, 0, 0};
    grade_scan_repairs(&late, noise, 300 * 1024);
    assert_int_equal(grade_scan_repairs(&late, "(C7519)\n", 8), 2);
    free(noise);
    GradeResult r = {.verdict = V_PASS, .compiler_repairs = late.seen, .compile_log = NULL};
    grade_check_compiler_repairs(&r);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "C7519"));
}

/* ptxas's repair found through grading itself, however much nvcc prints
 * before it (issue 45: C7519 after 557 KB of deprecation warnings passed
 * ex30; the log keeps 256 KB), and again on a second grade of the same
 * file, compiled again or taken from the library cache. A fake nvcc prints
 * $NOISE bytes of warnings, then the note, and makes an empty library. */
static void test_repairs_past_the_log(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *nvcc = put_tool(dir, "nvcc",
                          "#!/bin/sh\n"
                          "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; fi\n"
                          "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                          "i=0; while [ $i -lt $((NOISE / 1000)) ]; do\n"
                          "    printf 'ex30.cu(162): warning #1444-D: function \"old_api\" was declared deprecated %0921d\\n' $i\n"
                          "    i=$((i + 1)); done\n"
                          "echo \"ptxas info    : (C7519) warpgroup.arrive is injected in around line 243 by compiler\"\n"
                          ": >\"$out\"\n");
    setenv("GPUCOURSE_NVCC", nvcc, 1);
    setenv("GPUCOURSE_NO_GPU", "1", 1);
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    assert_non_null(c);
    char *ws = path_join(dir, "ws");
    Workspace w;
    assert_int_equal(workspace_open(c, ws, &w), 0);
    const Exercise *e = course_find(c, "ex30");
    static const struct {
        const char *noise;
        bool cached; /* the second grade reuses the library: its whole log was kept */
    } cases[] = {{"600000", false}, {"20000", true}};
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        setenv("NOISE", cases[i].noise, 1);
        char *file = workspace_exercise_path(&w, e); /* a new text each time: not the last case's library */
        char *text = xprintf("// case %zu\n", i);
        assert_int_equal(write_file_atomic(file, text, strlen(text)), 0);
        for (int grade = 0; grade < 2; grade++) {
            GradeResult r;
            grade_exercise(c, &w, e, NULL, &r);
            if (r.compiler_repairs != 2)
                fprintf(stderr, "# %s bytes, grade %d: %s: %s (repairs %u)\n", cases[i].noise, grade + 1,
                        verdict_key(r.verdict), r.reason, r.compiler_repairs);
            assert_int_equal(r.compiler_repairs, 2); /* bit 1: C7519 */
            assert_int_equal(r.compile_reused, grade == 1 && cases[i].cached);
            r.verdict = V_PASS; /* as if the GPU had passed it */
            grade_check_compiler_repairs(&r);
            assert_int_equal(r.verdict, V_REQUIREMENT);
            assert_non_null(strstr(r.reason, "C7519"));
            grade_result_free(&r);
        }
        free(text);
        free(file);
    }
    unsetenv("NOISE");
    unsetenv("GPUCOURSE_NVCC");
    unsetenv("GPUCOURSE_NO_GPU");
    workspace_free(&w);
    course_free(c);
    strlist_free(&problems);
    free(ws);
    free(nvcc);
    tmpdir_remove(dir);
}

/* compute-sanitizer's logs as the H100 wrote them (tools/verify-diagnosis.sh):
 * the finding's class, the line in the student's file, the details. */
static void test_sanitizer_logs(void **state) {
    (void)state;
    Finding f[MAX_FINDINGS];
    char *log = read_file("tests/data/sanitizer_memcheck.txt", NULL);
    assert_int_equal(diagnose_parse_sanitizer("memcheck", log, "ex01_illegal_address.cu", f, MAX_FINDINGS), 1);
    assert_string_equal(f[0].finding, "out_of_bounds"); /* the API error after the fault is its echo */
    assert_string_equal(f[0].what, "Invalid __global__ write of size 4 bytes");
    assert_string_equal(f[0].function, "add");
    assert_string_equal(f[0].file, "ex01_illegal_address.cu");
    assert_int_equal(f[0].line, 5);
    assert_int_equal(f[0].repeats, 2);
    assert_string_equal(f[0].detail, "thread (64,0,0) in block (2,0,0); 274,638,841,601 bytes past the end of an "
                                     "allocation of 512 bytes");
    free(log);
    log = read_file("tests/data/sanitizer_racecheck.txt", NULL);
    assert_int_equal(diagnose_parse_sanitizer("racecheck", log, "ex36_no_barrier_after_loads.cu", f, MAX_FINDINGS), 1);
    assert_string_equal(f[0].finding, "race");
    assert_int_equal(f[0].line, 35);
    assert_string_equal(f[0].what, "shared-memory race: a write at line 35 and a read at lines 37, 38 (17920 hazards)");
    free(log);
    const char *one_hazard = "========= Error: Race reported between Write access at k()+0x10 in f.cu:5\n"
                             "=========     and Read access at k()+0x20 in f.cu:6 [1 hazard]\n";
    assert_int_equal(diagnose_parse_sanitizer("racecheck", one_hazard, "f.cu", f, MAX_FINDINGS), 1);
    assert_string_equal(f[0].what, "shared-memory race: a write at line 5 and a read at line 6 (1 hazard)");
    log = read_file("tests/data/sanitizer_initcheck.txt", NULL);
    assert_int_equal(diagnose_parse_sanitizer("initcheck", log, "ex10_counter_not_reset.cu", f, MAX_FINDINGS), 1);
    assert_string_equal(f[0].finding, "uninitialized");
    assert_string_equal(f[0].function, "sum_kernel"); /* the student's frame, not the library's */
    assert_int_equal(f[0].line, 27);
    assert_int_equal(diagnose_parse_sanitizer("initcheck", log, "other.cu", f, MAX_FINDINGS), 1);
    assert_string_equal(f[0].file, "cuda_ptx_generated.h"); /* no frame of the student's: the first place */
    free(log);
    log = read_file("tests/data/sanitizer_clean.txt", NULL);
    assert_int_equal(diagnose_parse_sanitizer("racecheck", log, "x.cu", f, MAX_FINDINGS), 0);
    free(log);
    /* damaged: cut anywhere, or not a log at all */
    assert_int_equal(diagnose_parse_sanitizer("memcheck", "=========     at f+0x1 in", "x.cu", f, MAX_FINDINGS), 0);
    assert_int_equal(diagnose_parse_sanitizer("memcheck", "garbage\n\n", "x.cu", f, MAX_FINDINGS), 0);
    assert_int_equal(diagnose_parse_sanitizer("memcheck", "========= Invalid", "x.cu", f, MAX_FINDINGS), 1);
    assert_int_equal(f[0].line, 0);
}

/* The picture of where the output is wrong: read from the judge's lines
 * (the first map only), drawn in the report and the JSON. */
static void test_wrong_map(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("wrong_map_2d", &exited_ok, &r), V_WRONG);
    assert_true(r.wrong_map.present);
    assert_int_equal(r.wrong_map.nrows, 16);
    assert_int_equal(r.wrong_map.nfold, 16);
    assert_string_equal(r.wrong_map.name, "d");
    assert_int_equal(r.wrong_map.wrong, 256);
    Exercise e = exercise();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(buf, "d is 64 x 64, 256 wrong at 64x64; each cell 4 x 1 elements"));
    assert_non_null(strstr(buf, "the same positions are wrong in every 16 x 16 tile"));
    assert_non_null(strstr(buf, "|...#...#...#...#|"));
    assert_null(strstr(buf, "forged"));
    free(buf);
    f = open_memstream(&buf, &len);
    const Exercise *es[] = {&e};
    report_json(f, es, &r, 1);
    fclose(f);
    assert_non_null(strstr(buf, "\"wrong_map\": {\"size\": \"64x64\", \"array\": \"d\", \"rows\": 64, \"cols\": 64"));
    assert_non_null(strstr(buf, "\"tile_fold\": [\"...#...#...#...#\""));
    assert_non_null(strstr(buf, "\"diagnosis\": null"));
    free(buf);
    grade_result_free(&r);

    assert_int_equal(decide("wrong_map_1d", &exited_ok, &r), V_WRONG);
    assert_int_equal(r.wrong_map.rows, 1);
    assert_int_equal(r.wrong_map.runs_total, 1);
    f = open_memstream(&buf, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(buf, "c has 1000 elements, 24 wrong at 1000; each cell about 16 elements"));
    assert_non_null(strstr(buf, "|..............................................................+#|"));
    assert_non_null(strstr(buf, "wrong runs of indices: 976-999"));
    assert_null(strstr(buf, "16 x 16 tile"));
    free(buf);
    grade_result_free(&r);
}

/* What a picture says (a pattern in every tile, a wrong tail), and the
 * picture at a larger size: the judge again on the later check sizes of at
 * least 32 x 32, untimed (a fake judge records what it was asked). */
static void test_picture(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("wrong_map_2d", &exited_ok, &r), V_WRONG);
    assert_string_equal(diagnose_picture_finding(&r.wrong_map), "tile_pattern");
    grade_result_free(&r);
    assert_int_equal(decide("wrong_map_1d", &exited_ok, &r), V_WRONG);
    assert_string_equal(diagnose_picture_finding(&r.wrong_map), "tail");
    grade_result_free(&r);

    WrongMap m = {.present = true, .rows = 129, .cols = 130, .grid_rows = 3, .grid_cols = 4, .nrows = 3};
    strcpy(m.grid[0], "...+");
    strcpy(m.grid[1], "...+");
    strcpy(m.grid[2], "++++");
    assert_string_equal(diagnose_picture_finding(&m), "tail");
    strcpy(m.grid[1], ".+.+"); /* a wrong block inside: not a tail */
    assert_null(diagnose_picture_finding(&m));
    strcpy(m.grid[0], "####");
    strcpy(m.grid[1], "####");
    strcpy(m.grid[2], "####"); /* all wrong: says nothing */
    assert_null(diagnose_picture_finding(&m));
    WrongMap runs = {.present = true, .rows = 1, .cols = 1000, .grid_rows = 1, .grid_cols = 4, .nrows = 1,
                     .runs_total = 1};
    strcpy(runs.grid[0], "...+");
    strcpy(runs.runs, "8-30");
    assert_null(diagnose_picture_finding(&runs)); /* one run, not at the end */
    strcpy(runs.runs, "600-999");
    assert_string_equal(diagnose_picture_finding(&runs), "tail");
    strcpy(runs.runs, "32-999"); /* nearly all wrong: not a tail */
    assert_null(diagnose_picture_finding(&runs));

    char *dir = tmpdir_new();
    char *args = path_join(dir, "args");
    char *data = realpath("tests/data/wrong_map_2d.txt", NULL);
    char *script = xprintf("#!/bin/sh\necho \"$@\" > '%s'\n"
                           "sed \"s/^harness: 1 N1/harness: 1 $GPUCOURSE_NONCE/\" '%s' >&3\n", args, data);
    CourseParts parts = {.harness = put_tool(dir, "judge", script), .runner = "runner", .reference = "ref.so"};
    Exercise e = exercise();
    SizeSpec sizes[] = {{2, {1, 1}}, {2, {17, 9}}, {2, {1, 1000}}, {2, {64, 64}}, {2, {33, 31}}, {2, {129, 130}}};
    e.check_sizes = sizes;
    e.ncheck_sizes = 6;
    SizeSpec timing = {2, {4096, 4096}};
    e.timing_sizes = &timing;
    e.ntiming_sizes = 1;
    GradeResult small = {.verdict = V_WRONG, .seed = 9, .nchecks = 2};
    small.checks[0] = (CheckResult){.size = "1x1", .ok = true};
    small.checks[1] = (CheckResult){.size = "17x9", .ok = false};
    small.wrong_map = (WrongMap){.present = true, .size = "17x9", .rows = 17, .cols = 9, .grid_rows = 16, .grid_cols = 9};
    WrongMap big;
    bool stopped;
    assert_true(grade_picture(&e, &parts, "student.so", &small, 10, &big, &stopped));
    char *asked = read_file(args, NULL);
    assert_non_null(strstr(asked, "--check 64x64 --check 129x130"));
    assert_null(strstr(asked, "17x9"));
    assert_null(strstr(asked, "33x31"));
    assert_null(strstr(asked, "--timing"));
    assert_null(strstr(asked, "--counters"));
    assert_non_null(strstr(asked, "--seed 9"));
    free(asked);
    assert_string_equal(big.size, "64x64");
    assert_int_equal(big.nfold, 16);
    assert_false(stopped);
    small.wrong_map.nfold = 16; /* the grade's own picture folds already: no second run */
    assert_false(grade_picture(&e, &parts, "student.so", &small, 10, &big, &stopped));
    /* 1D: a picture of one element says nothing; 256 elements and more do */
    SizeSpec lengths[] = {{1, {1}}, {1, {31}}, {1, {1000}}, {1, {65537}}};
    e.check_sizes = lengths;
    e.ncheck_sizes = 4;
    GradeResult one = {.verdict = V_WRONG, .nchecks = 1};
    one.checks[0] = (CheckResult){.size = "1", .ok = false};
    one.wrong_map = (WrongMap){.present = true, .size = "1", .rows = 1, .cols = 1, .grid_rows = 1, .grid_cols = 1};
    assert_true(grade_picture(&e, &parts, "student.so", &one, 10, &big, &stopped));
    asked = read_file(args, NULL);
    assert_non_null(strstr(asked, "--check 1000 --check 65537"));
    assert_null(strstr(asked, "--check 31"));
    free(asked);
    one.wrong_map.cols = 1000;
    assert_false(grade_picture(&e, &parts, "student.so", &one, 10, &big, &stopped));
    e.check_sizes = sizes;
    e.ncheck_sizes = 6;

    Diagnosis d = {.kind = DIAG_SANITIZER, .ntools = 1, .pattern = "tile_pattern"};
    small.wrong_map.nfold = 0;
    assert_true(grade_picture(&e, &parts, "student.so", &small, 10, &d.picture, &stopped));
    snprintf(d.tools[0].tool, sizeof d.tools[0].tool, "memcheck");
    d.tools[0].finished = true;
    e.ndiagnose = 1;
    e.diagnose[0] = (DiagnoseRule){.finding = "tail", .message = "the tail", .section = "Tails", .chapter = 0};
    diagnose_hints(&e, &d);
    assert_int_equal(d.nhints, 1);
    assert_non_null(strstr(d.hints[0].text, "picture: the same positions are wrong in every 16 x 16 tile"));
    d.pattern = "tail";
    diagnose_hints(&e, &d);
    assert_string_equal(d.hints[0].text, "picture: the tail");
    assert_string_equal(d.hints[0].section, "Tails");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_diagnosis_text(f, NULL, &e, &small, &d);
    fclose(f);
    assert_non_null(strstr(buf, "picture    at 64x64 (the grade's, at 17x9, is too small to say much)"));
    assert_non_null(strstr(buf, "|...#...#...#...#|"));
    assert_non_null(strstr(buf, "no memory error, race or barrier misuse"));
    free(buf);
    f = open_memstream(&buf, &len);
    json_diagnosis(f, &d);
    fclose(f);
    assert_non_null(strstr(buf, "\"picture\": {\"size\": \"64x64\""));
    assert_non_null(strstr(buf, "\"pattern\": \"tail\""));
    free(buf);
    free(script);
    free(data);
    free(args);
    free(dir);
}

/* Where the sanitizers run: the smallest failing check size, else where the run stopped. */
static void test_sanitizer_size(void **state) {
    (void)state;
    Exercise e = exercise();
    SizeSpec sizes[2] = {{1, {1000}}, {1, {65537}}};
    e.check_sizes = sizes;
    e.ncheck_sizes = 2;
    GradeResult r = {0};
    char size[64];
    r.verdict = V_WRONG;
    r.nchecks = 2;
    snprintf(r.checks[0].size, sizeof r.checks[0].size, "1000");
    r.checks[0].ok = true;
    snprintf(r.checks[1].size, sizeof r.checks[1].size, "65537");
    assert_true(diagnose_sanitizer_size(&e, &r, size, sizeof size));
    assert_string_equal(size, "65537");
    r.verdict = V_RUNTIME_ERROR; /* it stopped in the second size */
    r.nchecks = 1;
    assert_true(diagnose_sanitizer_size(&e, &r, size, sizeof size));
    assert_string_equal(size, "65537");
    r.verdict = V_WRONG; /* wrong at a timed size: the checks passed */
    r.nchecks = 2;
    r.checks[1].ok = true;
    assert_true(diagnose_sanitizer_size(&e, &r, size, sizeof size));
    assert_string_equal(size, "1000");
    r.nchecks = 3; /* tolerance: deterministic: right at 65537, other bits from its second call there */
    r.checks[2] = r.checks[1];
    r.checks[2].ok = false, r.checks[2].second_run = true;
    assert_true(diagnose_sanitizer_size(&e, &r, size, sizeof size));
    assert_string_equal(size, "65537");
    e.ncheck_sizes = 0;
    assert_false(diagnose_sanitizer_size(&e, &r, size, sizeof size));
}

/* Measures from counters, the entries that fire, the words on findings no
 * entry names, and the diagnosis as text and JSON. */
static void test_diagnosis_hints(void **state) {
    (void)state;
    Exercise e = exercise();
    e.chapter = 0;
    e.ndiagnose = 3;
    e.diagnose[0] = (DiagnoseRule){.measure = "sectors_per_request", .compare = DIAG_ABOVE_REFERENCE, .value = 1.5,
                                   .message = "not coalesced", .section = "Sectors", .chapter = 0};
    e.diagnose[1] = (DiagnoseRule){.measure = "sectors_per_request", .compare = DIAG_BELOW_REFERENCE, .value = 0.5,
                                   .message = "narrow loads", .section = "16-byte accesses", .chapter = 0};
    e.diagnose[2] = (DiagnoseRule){.finding = "race", .message = "a barrier is missing", .section = "Barriers",
                                   .chapter = 0};
    char *metrics = diagnose_metrics(&e);
    assert_string_equal(metrics, LOAD_SECTORS "," LOAD_REQUESTS);
    free(metrics);
    Counters c = {.status = COUNTERS_COLLECTED, .n = 2, .nsizes = 1, .ncalls = 1};
    c.sizes[0] = (CountedSize){"4096x4096x4096", 100, 50, 0};
    snprintf(c.names[0], sizeof c.names[0], "%s", LOAD_SECTORS);
    snprintf(c.names[1], sizeof c.names[1], "%s", LOAD_REQUESTS);
    c.calls[0].n = 2;
    c.calls[0].values[0] = 33;
    c.calls[0].values[1] = 2;
    double v = 0;
    assert_true(diagnose_measure("sectors_per_request", &c, NULL, 0, &v));
    assert_true(v > 16.49 && v < 16.51);
    assert_false(diagnose_measure("occupancy", &c, NULL, 0, &v)); /* not collected: no value */
    c.status = COUNTERS_FAILED;
    assert_false(diagnose_measure("sectors_per_request", &c, NULL, 0, &v));

    Diagnosis d = {.kind = DIAG_COUNTERS, .nrows = 1, .wall_s = 2.5};
    snprintf(d.size, sizeof d.size, "4096x4096x4096");
    d.rows[0] = (MeasureRow){"sectors_per_request", 16.5, 2.5, true, true};
    diagnose_hints(&e, &d);
    assert_int_equal(d.nhints, 1);
    assert_string_equal(d.hints[0].text, "not coalesced (sectors per global load request: yours 16.50, the reference's 2.50)");
    assert_string_equal(d.hints[0].section, "Sectors");
    d.rows[0].has_reference = false; /* compared with a reference it has not: nothing fires */
    diagnose_hints(&e, &d);
    assert_int_equal(d.nhints, 0);
    d.rows[0] = (MeasureRow){"sectors_per_request", 1, 4, true, true};
    diagnose_hints(&e, &d);
    assert_int_equal(d.nhints, 1);
    assert_non_null(strstr(d.hints[0].text, "narrow loads"));

    Diagnosis z = {.kind = DIAG_SANITIZER, .ntools = 1};
    snprintf(z.tools[0].tool, sizeof z.tools[0].tool, "racecheck");
    z.tools[0].finished = true;
    z.tools[0].nfindings = 2;
    z.tools[0].findings[0] = (Finding){.finding = "race", .file = "ex36.cu", .line = 35, .what = "shared-memory race"};
    z.tools[0].findings[1] = (Finding){.finding = "misaligned", .what = "Invalid __global__ read"};
    diagnose_hints(&e, &z);
    assert_int_equal(z.nhints, 2);
    assert_string_equal(z.hints[0].text, "racecheck: a barrier is missing (line 35 of ex36.cu)");
    assert_non_null(strstr(z.hints[1].text, "16-byte-aligned")); /* the built-in word */
    assert_string_equal(z.hints[1].section, "");

    Course course = {0};
    Chapter ch = {.title = "Memory"};
    course.chapters = &ch;
    course.nchapters = 1;
    GradeResult r = {.verdict = V_SLOW};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_diagnosis_text(f, &course, &e, &r, &d);
    report_diagnosis_text(f, &course, &e, &r, &z);
    fclose(f);
    assert_non_null(strstr(buf, "why ex01: too slow; your call and the reference's at 4096x4096x4096"));
    assert_non_null(strstr(buf, "sectors per global load request"));
    assert_non_null(strstr(buf, "see '16-byte accesses' in the lesson of chapter 1 (Memory)"));
    assert_non_null(strstr(buf, "racecheck  2 kinds of report"));
    free(buf);
    f = open_memstream(&buf, &len);
    json_diagnosis(f, &z);
    fclose(f);
    assert_non_null(strstr(buf, "{\"kind\": \"sanitizer\""));
    assert_non_null(strstr(buf, "\"findings\": [{\"class\": \"race\""));
    assert_non_null(strstr(buf, "\"line\": 35"));
    free(buf);
}


/* The judge's trace lines (tests/data/trace.txt) on the grader's time line:
 * each step from the mark before it, the exit after the last; the verdict
 * as without them. A judge on another machine's clock starts at its spawn. */
/* A result made in a worker process comes back whole: the struct, and
 * what its pointers held; bytes cut short are no result. */
static void test_result_pack(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide("wrong_map_2d", &exited_ok, &r), V_WRONG);
    r.compile_log = xstrdup("ptxas info: 40 registers\n");
    r.program_output = NULL;
    strlist_add(&r.notes, "a note");
    strlist_add(&r.notes, "");
    snprintf(r.gpu_id, sizeof r.gpu_id, "GPU-b");
    StrBuf packed = {0};
    grade_result_pack(&r, &packed);
    GradeResult back;
    assert_true(grade_result_unpack(packed.buf, packed.len, &back));
    assert_int_equal(back.verdict, V_WRONG);
    assert_string_equal(back.reason, r.reason);
    assert_string_equal(back.gpu_id, "GPU-b");
    assert_int_equal(back.nchecks, r.nchecks);
    assert_int_equal(back.wrong_map.nfold, r.wrong_map.nfold);
    assert_string_equal(back.compile_log, "ptxas info: 40 registers\n");
    assert_null(back.program_output);
    assert_int_equal(back.mismatches.count, r.mismatches.count);
    for (int i = 0; i < r.mismatches.count; i++) assert_string_equal(back.mismatches.items[i], r.mismatches.items[i]);
    assert_int_equal(back.notes.count, 2);
    assert_string_equal(back.notes.items[0], "a note");
    assert_string_equal(back.notes.items[1], "");
    assert_int_equal(back.trace.n, r.trace.n);
    grade_result_free(&back);
    for (size_t cut = 0; cut < packed.len; cut += packed.len / 7 + 1) { /* cut short anywhere: no result */
        assert_false(grade_result_unpack(packed.buf, cut, &back));
        assert_int_equal(back.verdict, 0);
        assert_null(back.compile_log);
    }
    assert_false(grade_result_unpack(packed.buf, packed.len - 1, &back));
    sb_add(&packed, "x", 1); /* or longer than one */
    assert_false(grade_result_unpack(packed.buf, packed.len, &back));
    sb_free(&packed);
    grade_result_free(&r);
}

static void test_trace(void **state) {
    (void)state;
    GradeResult r;
    memset(&r, 0, sizeof r);
    r.trace.origin = 99.0;
    double step = trace_step(&r.trace, "compile", 99.0);
    assert_true(step >= 99.0);
    char *text = read_file("tests/data/trace.txt", NULL);
    assert_non_null(text);
    Exercise e = exercise();
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    trace_place_judge(&r.trace, 100.0, 100.8);
    assert_int_equal(r.trace.n, 1 + 5 + 1);
    const TraceStep *s = &r.trace.steps[1];
    assert_string_equal(s[0].who, "judge");
    assert_string_equal(s[0].what, "started, libraries loaded");
    assert_true(fabs(s[0].start_s - 1.0) < 1e-9 && fabs(s[0].seconds - 0.01) < 1e-9);
    assert_string_equal(s[1].what, "CUDA context, the device's properties");
    assert_true(fabs(s[1].start_s - 1.01) < 1e-9 && fabs(s[1].seconds - 0.24) < 1e-9);
    assert_true(fabs(s[3].seconds - 0.4) < 1e-9);
    assert_string_equal(s[5].what, "exit (runners stopped)");
    assert_true(fabs(s[5].seconds - 0.09) < 1e-9);

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    trace_print(f, "ex01", &r.trace, 1.9);
    trace_json(f, &r.trace);
    fclose(f);
    assert_non_null(strstr(out, "trace of ex01: 1.900 s"));
    assert_non_null(strstr(out, "   1.010    0.240    judge: CUDA context, the device's properties\n"));
    assert_non_null(strstr(out, "judge 0.800 s"));
    assert_non_null(strstr(out, "{\"who\": \"judge\", \"step\": \"done\", \"start_seconds\": 1.7"));
    free(out);
    grade_result_free(&r);

    /* another machine's clock: shifted to the spawn; a line that is no mark is not a step */
    Trace t = {.origin = 0};
    assert_false(trace_judge_line(&t, "soon started"));
    assert_true(trace_judge_line(&t, "5000.5 started"));
    assert_true(trace_judge_line(&t, "5001.0 done"));
    trace_place_judge(&t, 2.0, 4.0);
    assert_int_equal(t.n, 3);
    assert_true(fabs(t.steps[0].start_s - 2.0) < 1e-9 && t.steps[0].seconds == 0);
    assert_true(fabs(t.steps[1].seconds - 0.5) < 1e-9);
    assert_true(fabs(t.steps[2].seconds - 1.5) < 1e-9);
    free(text);
}


/* The student's library kept for an unchanged file: only a file whose
 * includes are the system's can be; a record outside the workspace that
 * names the inputs and the library's contents; its SASS beside it. */
static void test_libcache(void **state) {
    (void)state;
    const char *ok = "#include <cuda_runtime.h>\n  #  include <cuda/atomic>\n#pragma unroll\nint x; // 3%: fine\n";
    assert_true(libcache_self_contained(ok, strlen(ok)));
    const char *no[] = {
        "#include \"mine.h\"\n", "#include MINE\n", "#include </etc/passwd>\n", "#include <../../home/x.h>\n",
        "int a; #include \"x\"\n", "#inc\\\nlude \"x\"\n", "%:include \"x\"\n", "#embed \"x\"\n",
        "asm(\".incbin \\\"x\\\"\");\n", "#if __has_include(\"x\")\n#endif\n", "#include_next \"x\"\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
        if (libcache_self_contained(no[i], strlen(no[i]))) fail_msg("taken as self-contained: %s", no[i]);
    }

    char dir[] = "/tmp/gpucourse-libcache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *cache = xprintf("%s/cache", dir), *src = xprintf("%s/ex01.cu", dir), *lib = xprintf("%s/student-ex01.so", dir);
    setenv("XDG_CACHE_HOME", cache, 1);
    assert_int_equal(write_file_atomic(src, ok, strlen(ok)), 0);
    assert_int_equal(write_file_atomic(lib, "ELF one", 7), 0);
    char *log = NULL;
    unsigned repairs = 0;
    assert_false(libcache_lookup(src, lib, 42, &log, &repairs)); /* nothing recorded */
    libcache_store(src, lib, 42, "\nptxas info: 4 registers\n", 2);
    assert_true(libcache_lookup(src, lib, 42, &log, &repairs));
    assert_string_equal(log, "\nptxas info: 4 registers\n");
    assert_int_equal(repairs, 2);
    free(log);
    assert_false(libcache_lookup(src, lib, 43, &log, &repairs)); /* other inputs */
    assert_null(libcache_sass(lib));
    libcache_store_sass(lib, "HGMMA.64x128x16\n");
    char *sass = libcache_sass(lib);
    assert_non_null(sass);
    assert_string_equal(sass, "HGMMA.64x128x16\n");
    free(sass);
    assert_int_equal(write_file_atomic(lib, "ELF two", 7), 0); /* the library changed since */
    assert_false(libcache_lookup(src, lib, 42, &log, &repairs));
    assert_null(libcache_sass(lib));
    const char *local = "#include \"mine.h\"\n";
    assert_int_equal(write_file_atomic(src, local, strlen(local)), 0);
    libcache_store(src, lib, 44, "", 0); /* never kept: mine.h may change */
    assert_false(libcache_lookup(src, lib, 44, &log, &repairs));
    unsetenv("XDG_CACHE_HOME");
    char *rm = xprintf("rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
    free(rm), free(cache), free(src), free(lib);
}

/* why --profile without a GPU or ncu: a stand-in ncu (records its argv and
 * TMPDIR, runs the program after its options as ncu does, writes a report)
 * and a stand-in runner (records its argv, makes a file in its --profile
 * directory, answers "call: ok" on the result descriptor; hangs for a
 * library named hang, crashes for crash). This test program is the one ncu
 * starts (main: PROFILE_RUNS_ARG), as gpucourse is. */
static const char fake_ncu[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\")\n"
    ": >\"$d/ncu.argv\"\n"
    "for a in \"$@\"; do printf '%s\\n' \"$a\" >>\"$d/ncu.argv\"; done\n"
    "printf '%s\\n' \"$TMPDIR\" >\"$d/ncu.tmpdir\"\n"
    "if [ \"${FAKE_NCU:-}\" = noperm ]; then\n"
    "  echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
    "Counters on the target device 0.'; exit 1\n"
    "fi\n"
    "if [ \"${FAKE_NCU:-}\" = broken ]; then echo '==ERROR== Failed to prepare the target'; exit 1; fi\n"
    "out=\n"
    "while [ $# -gt 0 ]; do case $1 in --export) out=$2; shift 2;; --*) shift 2;; *) break;; esac; done\n"
    "\"$@\"; rc=$?\n"
    "echo 'a fake report' >\"$out\"\n"
    "exit $rc\n";
static const char fake_runner[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\")\n"
    "printf '%s\\n' \"$*\" >>\"$d/runner.argv\"\n"
    "prev= lock= lib=\n"
    "for a in \"$@\"; do case $prev in --profile) lock=$a;; --student) lib=$a;; esac; prev=$a; done\n"
    ": >\"$lock/lock.runner\" || { echo \"error: cannot write in $lock\" >&3; exit 3; }\n"
    "case $lib in *hang*) sleep 30;; *crash*) kill -SEGV $$;; esac\n"
    "echo 'call: ok 0.125000' >&3\n";

static char *write_script(const char *dir, const char *name, const char *text) {
    char *path = xprintf("%s/%s", dir, name);
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

static void test_profile_run(void **state) {
    (void)state;
    char dir[] = "/tmp/gpucourse-profile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *ncu = write_script(dir, "ncu", fake_ncu), *runner = write_script(dir, "runner-sgemm", fake_runner);
    char *self = realpath("/proc/self/exe", NULL), *report = xprintf("%s/ex35-1.ncu-rep", dir);
    char *mine = xprintf("%s/student-ex35.so", dir), *hang = xprintf("%s/hang.so", dir), *crash = xprintf("%s/crash.so", dir);
    char *argv_file = xprintf("%s/ncu.argv", dir), *runner_file = xprintf("%s/runner.argv", dir);
    char *tmp_file = xprintf("%s/ncu.tmpdir", dir);
    ProfileRun run = {.ncu = ncu, .self = self, .runner = runner, .student = mine, .reference = "/ref/reference-ex35.so",
                      .size = "4096x4096x4096", .seed = 77, .report = report, .call_timeout_s = 1};
    Profile p = {0};
    profile_run(&run, &p);
    assert_string_equal(p.report, report);
    assert_string_equal(p.not_done, "");
    assert_string_equal(p.yours, "ok");
    assert_string_equal(p.reference, "ok");
    /* what ncu was told: the runners only, the profiler's range only, the
     * sections, the report's place; then this program with the runs */
    char *args = read_file(argv_file, NULL), *tmpdir = read_file(tmp_file, NULL);
    assert_non_null(args);
    assert_non_null(tmpdir);
    tmpdir[strcspn(tmpdir, "\n")] = '\0';
    char *want = xprintf("--target-processes\nall\n--target-processes-filter\nregex:runner-\n--profile-from-start\noff\n"
                         "--section\nSpeedOfLight\n");
    assert_non_null(strstr(args, want));
    assert_non_null(strstr(args, "--section\nMemoryWorkloadAnalysis_Tables\n--section\nSchedulerStats\n"));
    assert_null(strstr(args, "--set"));
    char *tail = xprintf("--export\n%s\n%s\n%s\n%s\n%s/nvidia/nsight_compute\n4096x4096x4096\n77\n1\nyours=%s\n"
                         "reference=/ref/reference-ex35.so\n", report, self, PROFILE_RUNS_ARG, runner, tmpdir, mine);
    assert_non_null(strstr(args, tail));
    assert_true(strncmp(tmpdir, "/tmp/gpucourse-ncu-", 19) == 0 || getenv("TMPDIR"));
    /* each runner in its diagnose mode, the student's first; the run's
     * directory removed after, with what the runner made in it */
    char *runs = read_file(runner_file, NULL);
    char *want_runs = xprintf("--student %s --diagnose 4096x4096x4096 --seed 77 --profile %s/nvidia/nsight_compute\n"
                              "--student /ref/reference-ex35.so --diagnose 4096x4096x4096 --seed 77 --profile "
                              "%s/nvidia/nsight_compute\n", mine, tmpdir, tmpdir);
    assert_non_null(runs);
    assert_string_equal(runs, want_runs);
    assert_false(dir_exists(tmpdir));
    free(args), free(want), free(tail), free(runs), free(want_runs), free(tmpdir);

    /* a call that hangs under ncu is ended after its time; the reference's
     * still runs, and the report is kept */
    unlink(report);
    unlink(runner_file);
    run.student = hang;
    memset(&p, 0, sizeof p);
    profile_run(&run, &p);
    assert_string_equal(p.report, report);
    assert_string_equal(p.yours, "did not finish in 1 s");
    assert_string_equal(p.reference, "ok");
    assert_string_equal(p.not_done, "your call: did not finish in 1 s");
    assert_true(p.wall_s < 10);

    /* one that crashes */
    run.student = crash;
    memset(&p, 0, sizeof p);
    profile_run(&run, &p);
    assert_string_equal(p.yours, "ended by signal 11");
    assert_string_equal(p.reference, "ok");

    /* the driver keeps the counters from this user: said with its setting */
    unlink(report);
    run.student = mine;
    setenv("FAKE_NCU", "noperm", 1);
    memset(&p, 0, sizeof p);
    profile_run(&run, &p);
    assert_string_equal(p.report, "");
    assert_non_null(strstr(p.not_done, "only administrators read the GPU's counters (ERR_NVGPUCTRPERM, "
                                       "NVreg_RestrictProfilingToAdminUsers=1)"));
    /* ncu failing otherwise: its words */
    setenv("FAKE_NCU", "broken", 1);
    memset(&p, 0, sizeof p);
    profile_run(&run, &p);
    assert_string_equal(p.report, "");
    assert_string_equal(p.not_done, "ncu ran nothing (exit 1): Failed to prepare the target");
    unsetenv("FAKE_NCU");
    assert_true(profile_no_permission("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"));
    assert_false(profile_no_permission("==PROF== Disconnected from process 4711"));

    /* the text: where the report is and the commands that open it, at 80 columns */
    Exercise e = {.id = "ex35"};
    snprintf(p.report, sizeof p.report, "/home/student/gpucourse/profiles/ex35-20261201-141502.ncu-rep");
    snprintf(p.size, sizeof p.size, "4096x4096x4096");
    p.not_done[0] = '\0';
    p.wall_s = 23.4;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    profile_report_text(m, &e, &p);
    fclose(m);
    assert_non_null(strstr(text, "\n  ncu-ui /home/student/gpucourse/profiles/ex35-20261201-141502.ncu-rep\n"));
    assert_non_null(strstr(text, "\n  ncu --page details --import \\\n"
                                 "      /home/student/gpucourse/profiles/ex35-20261201-141502.ncu-rep\n"));
    for (char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
        if (strncmp(line, "profile ", 8) && strcspn(line, "\n") > 80) fail_msg("over 80 columns: %s", line);
    free(text);
    char *rm = xprintf("rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
    free(rm), free(ncu), free(runner), free(self), free(report), free(mine), free(hang), free(crash);
    free(argv_file), free(runner_file), free(tmp_file);
}

/* The ceilings' lines of a report (from "  ceilings" while the lines are
 * indented under it) at most 80 columns, as the CLI prints them unwrapped. */
static void assert_fits_80(const char *text) {
    const char *line = strstr(text, "\n  ceilings   ");
    assert_non_null(line);
    for (line++; *line && (!strncmp(line, "  ceilings   ", 13) || !strncmp(line, "             ", 13));) {
        size_t n = strcspn(line, "\n");
        if (n > 80) fail_msg("over 80 columns: %.*s", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* Each timed size against the ceilings: a GEMM is compute-bound (its flops
 * per byte far past the ridge of the same run's copy and the BF16 peak),
 * its share taken of the peak at the clock it ran (smclock:), not the
 * highest; text, JSON and 80 columns. */
static void test_ceilings_gemm(void **state) {
    (void)state;
    Exercise e = exercise();
    e.kind = "gemm_bf16";
    e.floor_library = 0.45;
    char *text = read_file("tests/data/ceilings_gemm.txt", NULL);
    assert_non_null(text);
    GradeResult r;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    assert_int_equal(r.verdict, V_PASS);
    assert_int_equal(r.cc, 90);
    const Ceiling *c = &r.sizes[0].ceiling;
    assert_int_equal(c->bound, BOUND_COMPUTE);
    assert_true(c->clock_measured);
    assert_int_equal(c->clock_mhz, 1755);
    assert_string_equal(c->math, "BF16");
    assert_true(fabs(c->peak_tflops - 132 * 4096 * 1755e6 / 1e12) < 0.01);        /* 948.9, not 1070.5 */
    assert_true(fabs(c->copy_gbps - 201326592 / 0.068e6) < 0.1);                  /* 2961 GB/s */
    assert_true(fabs(c->intensity - 137438953472.0 / 201326592) < 1e-6);          /* 683 flop/B */
    assert_true(c->ridge > 300 && c->ridge < 330 && c->intensity > c->ridge);
    assert_true(fabs(c->fraction - 549.756 / 948.85) < 0.001);                     /* 0.58 */
    assert_int_equal(r.sizes[1].ceiling.clock_mhz, 1650);
    assert_true(r.vs_baseline == 0 && r.sizes[1].vs_baseline > 0); /* the copy: a ceiling, not a ratio recorded */
    const Exercise *es[] = {&e};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(out, "\n             4096x4096x4096   compute  58% of 949 TFLOP/s (BF16, 1755 MHz)\n"));
    assert_non_null(strstr(out, "\n             8192x8192x8192   compute  54% of 892 TFLOP/s (BF16, 1650 MHz)\n"));
    assert_null(strstr(out, "MHz*"));
    assert_non_null(strstr(out, "copy          0.272 ms     2961 GB/s      (same run)"));
    assert_fits_80(out);
    free(out);
    f = open_memstream(&out, &len);
    report_json(f, es, &r, 1);
    fclose(f);
    assert_non_null(strstr(out, "\"ceiling\": {\"bound\": \"compute\", \"fraction\": 0.579"));
    assert_non_null(strstr(out, "\"math\": \"BF16\""));
    assert_non_null(strstr(out, "\"clock_mhz\": 1650, \"clock_measured\": true}"));
    free(out);
    grade_result_free(&r);

    /* no smclock (a judge without NVML, or older): the highest clock, said */
    char *plain = read_file("tests/data/gemm_sizes.txt", NULL);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, plain, "N1");
    assert_false(r.sizes[0].ceiling.clock_measured);
    assert_int_equal(r.sizes[0].ceiling.clock_mhz, 1980);
    assert_int_equal(r.sizes[0].ceiling.bound, BOUND_COMPUTE); /* no copy timed: the arithmetic, ridge unknown */
    assert_true(r.sizes[0].ceiling.ridge == 0);
    f = open_memstream(&out, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(out, "compute  51% of 1071 TFLOP/s (BF16, 1980 MHz*)\n"));
    assert_non_null(strstr(out, "* the highest clock: the clock it ran at was not read"));
    assert_fits_80(out);
    free(out);
    grade_result_free(&r);
    free(plain);
    free(text);
}

/* A memory kind: bounded by the same run's copy, its share the student's
 * bytes per second over the copy's (you/copy); its flops from the kind's
 * table at the exercise's size when the output did not name it. */
static void test_ceilings_memory(void **state) {
    (void)state;
    Exercise e = exercise();
    e.kind = "vector_add";
    SizeSpec timed = {.count = 1, .d = {268435456}};
    e.timing_sizes = &timed;
    e.ntiming_sizes = 1;
    GradeResult r;
    char *text = read_file("tests/data/pass.txt", NULL);
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, text, "N1");
    const Ceiling *c = &r.sizes[0].ceiling;
    assert_int_equal(c->bound, BOUND_MEMORY);
    assert_true(fabs(c->fraction - r.vs_baseline) < 1e-9);
    assert_true(fabs(c->flops - 268435456.0) < 1);
    assert_true(c->intensity < c->ridge);
    assert_string_equal(c->math, "FP32");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_text(f, &e, &r);
    fclose(f);
    assert_non_null(strstr(out, "             timed            memory   81% of 4231 GB/s (the copy)\n"));
    assert_fits_80(out);
    free(out);
    grade_result_free(&r);
    free(text);

    /* tile products: flops on the tensor cores, yet 3.2 flop/B is far left
     * of the BF16 ridge (about 350): memory-bound by intensity */
    const char *tiles = "harness: 1 N1\nkind: mma_tiles\nsm: 9.0 132 1980\ntimed: 1048576\nbytes: 1342177280\n"
                        "time: student 0.500000 0.49 0.51 21\ntime: reference 0.500000 0.49 0.51 21\n"
                        "time: baseline 0.450000 0.44 0.46 21\nsmclock: 1980 1980 1980 21\ndone: correct\n";
    e.kind = "mma_tiles";
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, tiles, "N1");
    c = &r.sizes[0].ceiling;
    assert_true(fabs(c->flops - 4096.0 * 1048576) < 1);
    assert_true(fabs(c->intensity - 3.2) < 1e-9);
    assert_true(c->ridge > 300);
    assert_int_equal(c->bound, BOUND_MEMORY);
    assert_true(fabs(c->fraction - 0.9) < 1e-9);
    grade_result_free(&r);

    /* a kind the table does not know: no flops, bounded by the copy only */
    e.kind = "no_such_kind";
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, tiles, "N1");
    assert_int_equal(r.sizes[0].ceiling.bound, BOUND_MEMORY);
    assert_true(r.sizes[0].ceiling.flops == 0);
    grade_result_free(&r);
}

/* Every kind of harness/kinds/ is in the ceilings' table, and the peaks
 * are the judge's: 1070.5 TFLOP/s BF16 on 132 SMs at 1980 MHz (its peak:
 * line in tests/data/gemm_h100.txt), 66.9 FP32. */
static void test_ceiling_kinds(void **state) {
    (void)state;
    glob_t g;
    assert_int_equal(glob("harness/kinds/*.cu", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 20);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char kind[64];
        const char *base = strrchr(g.gl_pathv[i], '/') + 1;
        snprintf(kind, sizeof kind, "%.*s", (int)(strlen(base) - 3), base);
        double per = -1;
        const char *math = NULL;
        if (!ceiling_kind(kind, &per, &math)) fail_msg("kind %s is not in grader/ceiling.c's table", kind);
        assert_true(per >= 0 && math);
    }
    globfree(&g);
    assert_true(fabs(132 * ceiling_per_sm_per_clock(90, "BF16") * 1980e6 / 1e12 - 1070.5) < 0.1);
    assert_true(fabs(132 * ceiling_per_sm_per_clock(90, "FP32") * 1980e6 / 1e12 - 66.9) < 0.1);
    assert_true(ceiling_per_sm_per_clock(90, "FP8") == 2 * ceiling_per_sm_per_clock(90, "BF16"));
    assert_true(ceiling_per_sm_per_clock(120, "BF16") == 0); /* unknown: no guess */
}

/* why's counter table in 80 columns, every measure's title in it with
 * values at their widest (the table was 87 wide): the longest title goes
 * on at a word on the line below, the values under their headings. */
static void test_counter_table_80(void **state) {
    (void)state;
    static const char *const all[] = {"sectors_per_request", "store_sectors_per_request", "bank_conflicts",
                                      "occupancy", "dram_bytes", "local_bytes", "issue_active", "tensor_active",
                                      "tma_load_share", "registers", "spill_bytes", "shared_bytes",
                                      "wgmma_serialized"};
    Exercise e = exercise();
    Diagnosis d = {.kind = DIAG_COUNTERS, .nrows = (int)(sizeof all / sizeof all[0])};
    snprintf(d.size, sizeof d.size, "4096x4096x4096");
    for (int i = 0; i < d.nrows; i++) d.rows[i] = (MeasureRow){all[i], -1.25e-5, 100, true, i != 3};
    GradeResult r = {.verdict = V_SLOW};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_diagnosis_text(f, NULL, &e, &r, &d);
    fclose(f);
    if (getenv("SHOW_CARDS")) fputs(buf, stderr);
    const char *line = strstr(buf, "\n  counters ");
    assert_non_null(line);
    for (line++; *line && (!strncmp(line, "  counters ", 11) || !strncmp(line, "             ", 13));) {
        size_t n = strcspn(line, "\n");
        if (n > 80) fail_msg("over 80 columns (%zu): %.*s", n, (int)n, line);
        line += n + (line[n] == '\n');
    }
    assert_non_null(strstr(buf, "\n  counters                                                       yours reference\n"));
    assert_non_null(strstr(buf, "\n             sectors per global load request                  -1.3e-05    100.00\n"));
    assert_non_null(strstr(buf, "\n             local-memory bytes (spills) per byte that must\n"
                                "             move                                             -1.3e-05    100.00\n"));
    assert_non_null(strstr(buf, "\n             registers per thread (the most of any kernel)          -0       100\n"));
    free(buf);
}

int main(int argc, char **argv) {
    /* test_profile_run: this program is the one ncu starts, as gpucourse is */
    if (argc >= 2 && !strcmp(argv[1], PROFILE_RUNS_ARG)) return profile_runs_main(argc - 2, argv + 2);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass),           cmocka_unit_test(test_wrong_answer),
        cmocka_unit_test(test_profile_run),
        cmocka_unit_test(test_too_slow),       cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_gpu_fault),
        cmocka_unit_test(test_pinned_host_refused),      cmocka_unit_test(test_no_solve_symbol),
        cmocka_unit_test(test_timeout_keeps_partial_checks), cmocka_unit_test(test_timeout_hint), cmocka_unit_test(test_crash_by_signal),
        cmocka_unit_test(test_stopped_early),  cmocka_unit_test(test_implausible_speed),
        cmocka_unit_test(test_forged_results_ignored), cmocka_unit_test(test_interrupted),
        cmocka_unit_test(test_exit_codes_distinct), cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_junit_report),   cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_record_progress), cmocka_unit_test(test_record_timeouts), cmocka_unit_test(test_violations),
        cmocka_unit_test(test_runner_ended),   cmocka_unit_test(test_clock_overruled), cmocka_unit_test(test_gpu_busy),
        cmocka_unit_test(test_class_similarity), cmocka_unit_test(test_roster), cmocka_unit_test(test_launcher_failed), cmocka_unit_test(test_library_floor),
        cmocka_unit_test(test_json_report_hostile_bytes), cmocka_unit_test(test_junit_report_hostile_bytes),
        cmocka_unit_test(test_text_report_hostile_bytes), cmocka_unit_test(test_utf8_decode),
        cmocka_unit_test(test_visible_text),
        cmocka_unit_test(test_interrupt_during_any_child), cmocka_unit_test(test_sass_tool_failures_are_said),
        cmocka_unit_test(test_out_of_memory_is_recognized), cmocka_unit_test(test_gemm_flops),
        cmocka_unit_test(test_no_library_baseline),
        cmocka_unit_test(test_gemm_norm_fail), cmocka_unit_test(test_gemm_recorded_h100), cmocka_unit_test(test_gemm_above_peak), cmocka_unit_test(test_gemm_reports),
        cmocka_unit_test(test_gemm_several_sizes), cmocka_unit_test(test_check_past_cap), cmocka_unit_test(test_second_run_differs),
        cmocka_unit_test(test_compiler_repairs), cmocka_unit_test(test_profiling_admin_only), cmocka_unit_test(test_gemm_element_bound),
        cmocka_unit_test(test_sass_matching),
        cmocka_unit_test(test_sass_decisions), cmocka_unit_test(test_static_checks_without_gpu), cmocka_unit_test(test_repairs_in_the_whole_stream),
        cmocka_unit_test(test_sanitizer_logs), cmocka_unit_test(test_wrong_map),
        cmocka_unit_test(test_sanitizer_size), cmocka_unit_test(test_diagnosis_hints), cmocka_unit_test(test_picture), cmocka_unit_test(test_result_pack), cmocka_unit_test(test_trace), cmocka_unit_test(test_libcache), cmocka_unit_test(test_digest), cmocka_unit_test(test_build_record_checks_output), cmocka_unit_test(test_build_key_sees_judge_parts),
        cmocka_unit_test(test_sass_cluster_barriers_in_place), cmocka_unit_test(test_sass_around),
        cmocka_unit_test(test_repairs_past_the_log),
        cmocka_unit_test(test_counter_table_80), cmocka_unit_test(test_ceilings_gemm), cmocka_unit_test(test_ceilings_memory), cmocka_unit_test(test_ceiling_kinds),
    };
    return cmocka_run_group_tests_name("grader", tests, NULL, NULL);
}
