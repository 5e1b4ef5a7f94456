/* The evidence that a technique ran (issue 45), decided on recorded and
 * constructed counters: the counted calls, the shares bounded on both
 * sides, the counted call's own clock, the judge's witness, the code
 * loaded at run time. The rest of the grader's decisions: test_grader.c. */
#include "grader_util.h"

#include <math.h>

#include "../grader/metrics.h"

static const EvidenceKey *evidence_key(const char *name) {
    for (const EvidenceKey *k = course_evidence_keys; k->key; k++)
        if (!strcmp(k->key, name)) return k;
    fail_msg("no evidence key %s", name);
    return NULL;
}

/* ex33's requirements: bf16 wgmma for the products, tiles loaded by TMA. */
static Exercise wgmma_exercise(void) {
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("gmma_type"), 0, "bf16"};
    e.evidence[1] = (Requirement){evidence_key("tma_load_share"), 0.9, NULL};
    e.nevidence = 2;
    return e;
}

/* What the judge adds for the witness (harness/judge/witness.cu) when the
 * code does the same work timed as counted: each counted call reads the
 * tensor pipe at FLOPs / 1024 (as a BF16 GEMM did on the H200) and L2 at a
 * fixed count, and the witness reads the same per timed call. The recorded
 * outputs below predate the witness; the witness's own rules are
 * test_witness's. */
static const char *const witness_names[] = {WITNESS_TENSOR, WITNESS_TENSOR_ALL, WITNESS_L2_SECTORS};

static void honest_witness(Counters *c) {
    if (c->witness != COUNTERS_NONE || c->status != COUNTERS_COLLECTED) return;
    int first = c->n;
    for (int w = 0; w < 3 && c->n < MAX_RESULT_COUNTERS; w++) snprintf(c->names[c->n++], sizeof c->names[0], "%s", witness_names[w]);
    for (int k = 0; k < c->ncalls; k++)
        for (int w = 0; first + w < c->n; w++) {
            CountedCall *call = &c->calls[k];
            double flops = c->sizes[call->size].flops;
            call->values[call->n++] = w < 2 ? flops / 1024 : 1e9;
        }
    c->witness = COUNTERS_COLLECTED;
    c->nwitnessed = c->nsizes;
    for (int s = 0; s < c->nsizes; s++) {
        WitnessedSize *ws = &c->witnessed[s];
        *ws = (WitnessedSize){.calls = 20, .n = 3};
        snprintf(ws->size, sizeof ws->size, "%s", c->sizes[s].size);
        for (int w = 0; w < 3; w++) {
            snprintf(ws->names[w], sizeof ws->names[0], "%s", witness_names[w]);
            ws->values[w] = w < 2 ? c->sizes[s].flops / 1024 : 1e9;
        }
    }
}

/* Decides on tests/data/NAME.txt (a recorded judge's output) for exercise
 * e, its evidence checked too (an honest witness added where it has none). */
static Verdict decide_evidence_for(const char *name, const Exercise *e, GradeResult *r) {
    char *path = xprintf("tests/data/%s.txt", name);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    memset(r, 0, sizeof *r);
    grade_decide(r, e, &exited_ok, text, "N1");
    honest_witness(&r->counters);
    grade_check_evidence(r, e);
    free(text);
    free(path);
    return r->verdict;
}

static Verdict decide_evidence(const char *name, GradeResult *r) {
    Exercise e = wgmma_exercise();
    return decide_evidence_for(name, &e, r);
}

/* Code loaded at run time (issue 45), on recorded judge outputs: each
 * module the student's process loaded must be byte-identical to a cubin of
 * the compiled library or the runner (tests/data/modules/: stand-ins, the
 * foreign one one bit off the library's, of the same size); a foreign
 * module, more than the runner keeps, a runner that could not record them,
 * and no record at all never pass. */
static Verdict decide_loaded(const char *name, const StrList *cubins, GradeResult *r) {
    Exercise e = wgmma_exercise();
    decide_evidence_for(name, &e, r);
    grade_check_loaded(r, &e, cubins);
    return r->verdict;
}

static void test_loaded_modules(void **state) {
    (void)state;
    StrList cubins = {0};
    strlist_add(&cubins, "tests/data/modules/library.cubin");
    strlist_add(&cubins, "tests/data/modules/runner.cubin");
    GradeResult r;

    /* two runners' records (the determinism check starts a second), every module one of the cubins */
    assert_int_equal(decide_loaded("modules_identical", &cubins, &r), V_PASS);
    assert_int_equal(r.loaded.status, LOADED_RECORDED);
    assert_int_equal(r.loaded.loaded, 2);
    assert_int_equal(r.loaded.n, 2);
    assert_string_equal(r.loaded.path[1], "tests/data/modules/student.module-2.cubin");
    grade_result_free(&r);

    assert_int_equal(decide_loaded("modules_foreign", &cubins, &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "your code loaded machine code at run time (cuModuleLoadData or similar): only "
                                     "the kernels nvcc compiled from your file are graded"));
    assert_non_null(strstr(r.reason, "module 3 of 3, 300 bytes"));
    grade_result_free(&r);
    /* the same module with nothing to compare it with is not a pass either */
    assert_int_equal(decide_loaded("modules_identical", NULL, &r), V_SETUP_ERROR);
    grade_result_free(&r);

    assert_int_equal(decide_loaded("modules_over_cap", &cubins, &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "more machine code at run time than the harness keeps (65 modules)"));
    grade_result_free(&r);

    assert_int_equal(decide_loaded("modules_failed", &cubins, &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "could not be recorded (subscribing to CUPTI's callbacks"));
    grade_result_free(&r);

    /* counters but no modules lines: the judge said nothing of them */
    assert_int_equal(decide_loaded("evidence_pass", &cubins, &r), V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "no record of the machine code your process loaded"));
    grade_result_free(&r);

    /* an exercise without evidence asks for no record */
    Exercise plain = exercise();
    assert_int_equal(decide("modules_foreign", &exited_ok, &r), V_PASS);
    grade_check_loaded(&r, &plain, &cubins);
    assert_int_equal(r.verdict, V_PASS);
    grade_result_free(&r);
    strlist_free(&cubins);
}



/* The counters the judge is asked for: each once, in the requirements' order. */
static void test_evidence_metrics(void **state) {
    (void)state;
    Exercise e = wgmma_exercise();
    char *m = evidence_metrics(&e);
    assert_string_equal(m, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,"
                           "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,"
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum," WITNESS_TENSOR "," WITNESS_TENSOR_ALL);
    free(m);
    e.evidence[2] = (Requirement){evidence_key("load_sectors_min"), 8, NULL}; /* shares the sectors counter */
    e.nevidence = 3;
    m = evidence_metrics(&e);
    assert_string_equal(m, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,"
                           "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,"
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
                           WITNESS_TENSOR "," WITNESS_TENSOR_ALL);
    free(m);
    /* the witness samples the tensor pipe for a tensor-core exercise, L2 for multicast, nothing else */
    m = evidence_witness_metrics(&e);
    assert_string_equal(m, WITNESS_TENSOR "," WITNESS_TENSOR_ALL);
    free(m);
    Exercise loads = exercise();
    loads.evidence[0] = (Requirement){evidence_key("tma_load_share"), 0.9, NULL};
    loads.nevidence = 1;
    assert_null(evidence_witness_metrics(&loads));
    loads.evidence[1] = (Requirement){evidence_key("tma_multicast_share"), 0.3, NULL};
    loads.nevidence = 2;
    m = evidence_witness_metrics(&loads);
    assert_string_equal(m, WITNESS_L2_SECTORS);
    free(m);
    Exercise plain = exercise();
    assert_null(evidence_metrics(&plain));
    assert_null(evidence_witness_metrics(&plain));
}

/* Counter values recorded on the H100: ex32's reference submitted for ex33
 * (bf16 wgmma, TMA loads), and a WMMA GEMM (HMMA, plain loads). */
static void test_evidence_decisions(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide_evidence("evidence_pass", &r), V_PASS);
    assert_int_equal(r.nevidence, 3);
    assert_true(r.evidence[2].ok && !strcmp(r.evidence[2].key, "witness"));
    assert_true(r.evidence[0].ok && r.evidence[0].measured > 0.99 && r.evidence[0].measured < 1.01);
    assert_true(r.evidence[1].ok && r.evidence[1].measured > 0.96);
    assert_non_null(strstr(r.evidence[1].text, "TMA loads: 0.97 of the bytes loaded (at least 0.90)"));
    grade_result_free(&r);

    assert_int_equal(decide_evidence("evidence_plain", &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "at size 4096x4096x4096 show wgmma bf16: 0.00 of the products' FLOPs"));
    assert_false(r.evidence[0].ok);
    assert_false(r.evidence[1].ok);
    grade_result_free(&r);

    /* the plain path with a TMA load of everything beside it: half the bytes */
    assert_int_equal(decide_evidence("evidence_decoy", &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "TMA loads: 0.20 of the bytes loaded"));
    grade_result_free(&r);
}

/* ex44's requirement, on counters recorded on the H100 at 4096^3: its
 * reference (half of B loaded by each block of a pair, multicast to both),
 * the same loads each multicast to its own block only (the bytes land, but
 * for twice the requests: nothing shared), and no multicast at all. */
static void test_evidence_multicast(void **state) {
    (void)state;
    const char *names[] = {"evidence_multicast_pass", "evidence_multicast_self", "evidence_multicast_none"};
    const Verdict expect[] = {V_PASS, V_REQUIREMENT, V_REQUIREMENT};
    const char *text[] = {"TMA multicast: 0.33 of the bytes TMA loaded landed in another block (at least 0.30)",
                          "TMA multicast: 0.00 of the bytes", "TMA multicast: 0.00 of the bytes"};
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("tma_multicast_share"), 0.3, NULL};
    e.nevidence = 1;
    for (int i = 0; i < 3; i++) {
        GradeResult r;
        assert_int_equal(decide_evidence_for(names[i], &e, &r), expect[i]);
        assert_non_null(strstr(r.evidence[0].text, text[i]));
        grade_result_free(&r);
    }
    char *m = evidence_metrics(&e);
    assert_string_equal(m, "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_dest_multicast.sum,"
                           "l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld_dest_multicast.sum,"
                           "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum," WITNESS_L2_SECTORS);
    free(m);
}

/* ex45's requirement, gmma_type: e4m3, on counters recorded on the H100 at
 * 4096^3 (its reference: the tensor pipe 5.0e-4 cycles per FLOP, nothing on
 * the 16-bit paths), and two answers made from them: the operands widened
 * to BF16 for HGMMA (every FLOP on the BF16 path), and FFMA products beside
 * one token QGMMA (the pipe nearly idle). */
static void test_evidence_fp8(void **state) {
    (void)state;
    const char *names[] = {"evidence_fp8_pass", "evidence_fp8_widened", "evidence_fp8_simt"};
    const Verdict expect[] = {V_PASS, V_REQUIREMENT, V_REQUIREMENT};
    const char *text[] = {"wgmma e4m3: the tensor pipe busy 5.0e-04 cycles per FLOP (at least 1e-04), 0.00 of the FLOPs as "
                          "16-bit or TF32 MMAs (at most 0.05)",
                          "busy 1.0e-03 cycles per FLOP (at least 1e-04), 1.00 of the FLOPs as 16-bit",
                          "busy 4.8e-07 cycles per FLOP (at least 1e-04), 0.00 of the FLOPs"};
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("gmma_type"), 0, "e4m3"};
    e.nevidence = 1;
    for (int i = 0; i < 3; i++) {
        GradeResult r;
        assert_int_equal(decide_evidence_for(names[i], &e, &r), expect[i]);
        assert_non_null(strstr(r.evidence[0].text, text[i]));
        if (expect[i] == V_REQUIREMENT) assert_non_null(strstr(r.reason, "wgmma e4m3"));
        grade_result_free(&r);
    }
    char *m = evidence_metrics(&e);
    assert_string_equal(m, "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.sum,"
                           "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_fp16.sum,"
                           "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,"
                           "sm__ops_path_tensor_op_hmma_src_fp16.sum," WITNESS_TENSOR "," WITNESS_TENSOR_ALL);
    free(m);
    /* one counter missing: nothing is decided */
    char *data = read_file("tests/data/evidence_fp8_pass.txt", NULL);
    char *cut = strstr(data, "counter: sm__ops_path_tensor_op_hmma_src_fp16.sum 0\n");
    assert_non_null(cut);
    memset(cut, ' ', strlen("counter: sm__ops_path_tensor_op_hmma_src_fp16.sum 0"));
    GradeResult r;
    memset(&r, 0, sizeof r);
    grade_decide(&r, &e, &exited_ok, data, "N1");
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "without sm__ops_path_tensor_op_hmma_src_fp16.sum"));
    grade_result_free(&r);
    free(data);
}

/* A check that cannot be made is never a pass, and says why. */
static void test_evidence_fails_closed(void **state) {
    (void)state;
    GradeResult r;
    assert_int_equal(decide_evidence("evidence_unavailable", &r), V_SETUP_ERROR);
    assert_non_null(strstr(r.reason, "cannot be read on this machine"));
    assert_non_null(strstr(r.reason, "gpucourse doctor"));
    grade_result_free(&r);
    assert_int_equal(decide_evidence("evidence_failed", &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "could not be collected around your code (starting a collection"));
    grade_result_free(&r);
    assert_int_equal(decide_evidence("evidence_missing", &r), V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "without l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
    grade_result_free(&r);
    assert_int_equal(decide_evidence("gemm_pass", &r), V_SETUP_ERROR); /* no counters lines at all */
    assert_non_null(strstr(r.reason, "reported no counters"));
    grade_result_free(&r);
    /* tensor-core evidence on a kind without FLOPs is the course's mistake, not the student's */
    GradeResult course_error = {.verdict = V_PASS};
    course_error.counters = (Counters){.status = COUNTERS_COLLECTED, .n = 3, .nsizes = 1, .ncalls = 1};
    course_error.counters.sizes[0] = (CountedSize){"4096", 1e9, 1e9, 0};
    course_error.counters.calls[0].n = 3;
    const char *names[] = {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
                           "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
    for (int i = 0; i < 3; i++) snprintf(course_error.counters.names[i], sizeof course_error.counters.names[0], "%s", names[i]);
    Exercise e = wgmma_exercise();
    grade_check_evidence(&course_error, &e);
    assert_int_equal(course_error.verdict, V_SETUP_ERROR);
    assert_non_null(strstr(course_error.reason, "defines no FLOPs"));
    /* a wrong answer stays a wrong answer: evidence decides only among correct ones */
    assert_int_equal(decide_evidence("gemm_norm_fail", &r), V_WRONG);
    grade_result_free(&r);
}

/* Each rule on its own counters. */
static void test_evidence_rules(void **state) {
    (void)state;
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("bank_conflicts_max"), 0.05, NULL};
    e.evidence[1] = (Requirement){evidence_key("load_sectors_min"), 8, NULL};
    e.evidence[2] = (Requirement){evidence_key("tensor_cores"), 0, "none"};
    e.evidence[3] = (Requirement){evidence_key("ldsm_share"), 0.8, NULL};
    e.nevidence = 4;
    Counters c = {.status = COUNTERS_COLLECTED, .nsizes = 1, .ncalls = 1};
    c.sizes[0] = (CountedSize){"4096x4096x4096", 134217728, 67108864, 137438953472.0};
    const char *names[] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
                           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                           "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                           "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.sum",
                           "smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_ld.sum",
                           "sm__pipe_tensor_op_dmma_cycles_active.sum"};
    /* ex40's reference, measured: conflicts 0.010, 16 sectors per request, 5.4e-8 tensor cycles per FLOP */
    double ok[] = {4502098, 441709864, 136314880, 8519680, 7424, 900000, 100, 0};
    for (int i = 0; i < 8; i++) {
        snprintf(c.names[i], sizeof c.names[0], "%s", names[i]);
        c.calls[0].values[i] = ok[i];
    }
    c.n = c.calls[0].n = 8;
    EvidenceLine lines[MAX_EVIDENCE];
    int unmet;
    const char *missing;
    assert_int_equal(evidence_measure(&e, &c, lines, &unmet, &missing), 4);
    assert_null(missing);
    assert_int_equal(unmet, -1);
    /* ex39's reference in ex40: conflicts 0.397 */
    c.calls[0].values[0] = 287619847, c.calls[0].values[1] = 724872270;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "bank conflicts: 0.397 per shared-memory wavefront (at most 0.050)"));
    /* the same conflicts diluted with ten times the wavefronts, none of them conflicting: counted
     * up to 8e-3 per FLOP, still 0.26 */
    c.calls[0].values[1] = 7248722700;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "bank conflicts: 0.262 per shared-memory wavefront"));
    /* ex38's reference in ex39: 4-byte loads, 4.4 sectors per request; and a tensor-core answer */
    c.calls[0].values[0] = 0, c.calls[0].values[2] = 150994944, c.calls[0].values[3] = 34078720, c.calls[0].values[4] = 2.68e8;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 1);
    assert_false(lines[2].ok);
    assert_true(lines[3].ok);
    /* an FP64 tensor-core (DMMA) answer */
    c.calls[0].values[4] = 0, c.calls[0].values[7] = 3.1e8;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_false(lines[2].ok);
    /* no shared-memory loads at all is no ldmatrix share */
    c.calls[0].values[5] = 0, c.calls[0].values[6] = 0;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_false(lines[3].ok);
    /* a share of almost nothing: one ldmatrix a warp, the fragments loaded
     * from registers (ex24's attack): 1.00 of the shared loads, room for
     * nothing of the inputs */
    c.calls[0].values[5] = 1056, c.calls[0].values[6] = 0;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_false(lines[3].ok);
    assert_non_null(strstr(lines[3].text, "ldmatrix: 1.00 of the shared-memory loads (at least 0.80), room for 0.00x"));
    /* a NaN or negative counter is not a value */
    c.calls[0].values[0] = NAN;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_string_equal(missing, names[0]);
}

/* Chapters 2-6: wide loads and stores counted in the calls that ran. A
 * float4 kernel compiled beside a plain one that does the work, and never
 * launched, showed in the machine code alone. */
static void test_evidence_wide(void **state) {
    (void)state;
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("load_sectors_min"), 12, NULL};
    e.evidence[1] = (Requirement){evidence_key("store_sectors_min"), 12, NULL};
    e.nevidence = 2;
    char *m = evidence_metrics(&e);
    assert_string_equal(m, LOAD_SECTORS "," LOAD_REQUESTS "," STORE_SECTORS "," STORE_REQUESTS);
    free(m);
    /* ex06 at n = 2^28 + 3: x in, y out */
    double bytes = 4.0 * 268435459;
    Counters c = {.status = COUNTERS_COLLECTED, .n = 4, .nsizes = 1, .ncalls = 1};
    c.sizes[0] = (CountedSize){"268435459", bytes, bytes, 0};
    const char *names[] = {LOAD_SECTORS, LOAD_REQUESTS, STORE_SECTORS, STORE_REQUESTS};
    for (int i = 0; i < 4; i++) snprintf(c.names[i], sizeof c.names[0], "%s", names[i]);
    c.calls[0].n = 4;
    double *v = c.calls[0].values;
    EvidenceLine lines[MAX_EVIDENCE];
    int unmet;
    const char *missing;
    /* float4 both ways: 16 sectors a request, every byte once */
    v[0] = bytes / 32, v[1] = bytes / 32 / 16, v[2] = bytes / 32, v[3] = bytes / 32 / 16;
    assert_int_equal(evidence_measure(&e, &c, lines, &unmet, &missing), 2);
    assert_int_equal(unmet, -1);
    assert_non_null(strstr(lines[0].text, "global loads: 16.0 sectors per request (at least 12.0), 1.00x the inputs'"));
    assert_non_null(strstr(lines[1].text, "global stores: 16.0 sectors per request (at least 12.0), 1.00x the outputs'"));
    /* the plain kernel that ran (floats: 4 sectors a request) beside a float4 one that did not */
    v[1] = bytes / 32 / 4;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "global loads: 4.0 sectors per request"));
    /* float4 stores but no loads of its threads at all (read some other way) */
    v[0] = 0, v[1] = 0;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_false(lines[0].ok);
    /* a few wide loads and the rest of the inputs not through the threads' loads */
    v[0] = bytes / 32 / 10, v[1] = v[0] / 16;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "0.10x the inputs' bytes (at least 0.50x)"));
    /* the same for the stores */
    v[0] = bytes / 32, v[1] = v[0] / 16, v[2] = bytes / 32, v[3] = v[2] / 4;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 1);
}

/* Every sample of every timed size is counted, and the worst call decides:
 * a decoy in some calls only (the tensor path beside plain code), calls that
 * disagree, a burst of the instruction on top of the work, a call without
 * its counts. */
static void set_call(Counters *c, int k, int size, double ops) {
    c->calls[k] = (CountedCall){.size = size, .n = 1};
    c->calls[k].values[0] = ops;
}

static void test_evidence_counted_calls(void **state) {
    (void)state;
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("gmma_type"), 0, "bf16"};
    e.nevidence = 1;
    Counters c = {.status = COUNTERS_COLLECTED, .n = 1, .nsizes = 2, .ncalls = 6};
    snprintf(c.names[0], sizeof c.names[0], "%s", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum");
    c.sizes[0] = (CountedSize){"4096x4096x4096", 67108864, 33554432, 137438953472.0};
    c.sizes[1] = (CountedSize){"5000x3000x4096", 65536000, 30000000, 122880000000.0};
    for (int k = 0; k < 3; k++) set_call(&c, k, 0, 137438953472.0);
    for (int k = 3; k < 6; k++) set_call(&c, k, 1, 122880000000.0 * 1.06); /* tail tiles padded */
    EvidenceLine lines[MAX_EVIDENCE];
    int unmet;
    const char *missing;
    assert_int_equal(evidence_measure(&e, &c, lines, &unmet, &missing), 1);
    assert_int_equal(unmet, -1);
    assert_non_null(strstr(lines[0].text, "wgmma bf16: 1.00 of the products' FLOPs (between 0.95 and 1.30)"));

    /* the technique in one sample of the second size only: that call decides */
    set_call(&c, 4, 1, 0);
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_string_equal(lines[0].size, "5000x3000x4096");
    assert_non_null(strstr(lines[0].text, "wgmma bf16: 0.00 of the products' FLOPs"));

    /* every call passes on its own, yet one did a fifth more tensor work */
    set_call(&c, 4, 1, 122880000000.0 * 1.28);
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "between calls of the same size"));

    /* a burst of the instruction on top of the work: twice the FLOPs */
    for (int k = 3; k < 6; k++) set_call(&c, k, 1, 122880000000.0 * 2);
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "wgmma bf16: 2.00 of the products' FLOPs (between 0.95 and 1.30)"));

    /* one call without its count: not decided, and not a pass */
    for (int k = 3; k < 6; k++) set_call(&c, k, 1, 122880000000.0);
    c.calls[5].n = 0;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_non_null(missing);
    GradeResult r = {.verdict = V_PASS};
    r.counters = c;
    honest_witness(&r.counters);
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    grade_result_free(&r);

    /* collected, but no call counted at all */
    c.ncalls = 0;
    assert_int_equal(evidence_measure(&e, &c, lines, &unmet, &missing), 0);
    assert_non_null(missing);
}

/* ex43's split: bytes stored besides the outputs at the timed size where the
 * plan cuts (a kernel that cuts nothing stores only its outputs, 37.7 MB of
 * floats at 3072^2; five parts of 24 tiles hand over 4 x 24 x 128 KB). */
static void test_evidence_partial_sums(void **state) {
    (void)state;
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("partial_sums_min"), 0.1, NULL};
    e.nevidence = 1;
    Counters c = {.status = COUNTERS_COLLECTED, .n = 2, .nsizes = 2, .ncalls = 4};
    snprintf(c.names[0], sizeof c.names[0], "%s", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    snprintf(c.names[1], sizeof c.names[1], "%s", "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum");
    double out0 = 3072.0 * 3072 * 4, out1 = 5000.0 * 3000 * 4;
    c.sizes[0] = (CountedSize){"3072x3072x8192", 1e8, out0, 2.0 * 3072 * 3072 * 8192};
    c.sizes[1] = (CountedSize){"5000x3000x4096", 1e8, out1, 2.0 * 5000 * 3000 * 4096};
    double cut = 4.0 * 24 * 128 * 1024;
    for (int k = 0; k < 4; k++) {
        c.calls[k] = (CountedCall){.size = k / 2, .n = 2};
        c.calls[k].values[0] = ((k < 2 ? out0 + cut : out1)) / 32; /* the second size cuts nothing */
    }
    EvidenceLine lines[MAX_EVIDENCE];
    int unmet;
    const char *missing;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_null(missing);
    assert_int_equal(unmet, -1);
    assert_string_equal(lines[0].size, "3072x3072x8192");
    assert_non_null(strstr(lines[0].text, "partial sums: 0.33 of the outputs' bytes stored besides them"));
    /* ex33's whole tiles submitted here: nothing cut anywhere */
    c.calls[0].values[0] = c.calls[1].values[0] = out0 / 32;
    evidence_measure(&e, &c, lines, &unmet, &missing);
    assert_int_equal(unmet, 0);
    assert_non_null(strstr(lines[0].text, "partial sums: 0.00 of the outputs' bytes"));
}

/* A counted call's own time against the timed calls of its size: TF32 in
 * the counted call and FP16 in the timed ones (twice the time), or the
 * technique only when counted and plain code timed (half). */
static void test_counted_clock(void **state) {
    (void)state;
    Exercise e = exercise();
    e.evidence[0] = (Requirement){evidence_key("gmma_type"), 0, "bf16"};
    e.nevidence = 1;
    GradeResult r = {.verdict = V_PASS, .nsizes = 1};
    snprintf(r.sizes[0].size, sizeof r.sizes[0].size, "8192x8192x8192");
    r.sizes[0].student.median_ms = 1.8;
    Counters *c = &r.counters;
    *c = (Counters){.status = COUNTERS_COLLECTED, .n = 1, .nsizes = 1, .ncalls = 2};
    snprintf(c->names[0], sizeof c->names[0], "%s", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum");
    c->sizes[0] = (CountedSize){"8192x8192x8192", 268435456, 268435456, 1099511627776.0};
    for (int k = 0; k < 2; k++) {
        set_call(c, k, 0, 1099511627776.0);
        c->calls[k].ms = 1.9;
    }
    honest_witness(c);
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_PASS);
    /* TF32 when counted, FP16 timed: twice the time */
    c->calls[1].ms = 3.6;
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    assert_non_null(strstr(r.reason, "took 3.600 ms at size 8192x8192x8192, and your timed calls there 1.800 ms"));
    /* the technique when counted, plain code timed: the counted call far faster */
    r.verdict = V_PASS;
    c->calls[1].ms = 0.6;
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_REQUIREMENT);
    /* the profiler's own cost on a short call, as measured on the H100 (ex43's reference at
     * 5000 x 3000 x 4096: 0.310 ms counted, 0.224 ms timed) */
    r.verdict = V_PASS;
    r.sizes[0].student.median_ms = 0.224;
    c->calls[0].ms = c->calls[1].ms = 0.310;
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_PASS);
    /* not said (an older judge's lines): the counts alone decide */
    c->calls[1].ms = NAN;
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_PASS);
    /* the judge's line carries the time */
    Counters d = {0};
    evidence_parse_line(&d, "counters", "4096 work 1 2 3 ms 0.25");
    assert_true(d.calls[0].ms == 0.25);
    evidence_parse_line(&d, "counters", "4096 work 1 2 3");
    assert_true(isnan(d.calls[1].ms));
}

/* The witness (issue 45): the judge's own counters over the timed calls
 * against the counted calls, at each size. */
static void test_witness(void **state) {
    (void)state;
    Exercise e = wgmma_exercise();
    const char *honest[][2] = {
        {"counters", "4096x4096x4096 work 67108864 33554432 137438953472 ms 0.2"},
        {"counter", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum 137438953472"},
        {"counter", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum 800000000"},
        {"counter", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 1000000"},
        {"counter", WITNESS_TENSOR " 134217728"},
        {"counter", WITNESS_TENSOR_ALL " 134217728"},
        {"witness", "4096x4096x4096 calls 20 samples 61"},
        {"witnessed", WITNESS_TENSOR " 134217728"},
        {"witnessed", WITNESS_TENSOR_ALL " 134217728"},
    };
    GradeResult r = {.verdict = V_PASS, .nsizes = 1};
    snprintf(r.sizes[0].size, sizeof r.sizes[0].size, "4096x4096x4096");
    r.sizes[0].student.median_ms = 0.2;
    for (size_t i = 0; i < sizeof honest / sizeof honest[0]; i++)
        assert_true(evidence_parse_line(&r.counters, honest[i][0], honest[i][1]));
    assert_int_equal(r.counters.witness, COUNTERS_COLLECTED);
    assert_int_equal(r.counters.nwitnessed, 1);
    assert_int_equal(r.counters.witnessed[0].calls, 20);
    grade_check_evidence(&r, &e);
    assert_int_equal(r.verdict, V_PASS);
    assert_int_equal(r.nevidence, 3);
    assert_string_equal(r.evidence[2].key, "witness");
    assert_true(r.evidence[2].ok);

    /* TF32 while counted, FP16 while timed: half the tensor pipe's cycles per call */
    GradeResult cheat = r;
    cheat.nevidence = 0;
    cheat.counters.witnessed[0].values[0] = 134217728 / 2.0;
    grade_check_evidence(&cheat, &e);
    assert_int_equal(cheat.verdict, V_REQUIREMENT);
    assert_non_null(strstr(cheat.reason, "at size 4096x4096x4096 the GPU's counters show tensor-pipe cycles: 6.711e+07 "
                                         "per timed call (the judge's own reading) against 1.342e+08 in the counted calls"));
    assert_non_null(strstr(cheat.reason, "does other work when its counters are read than when it is timed"));
    /* within the spread: a few percent apart passes */
    cheat.verdict = V_PASS;
    cheat.counters.witnessed[0].values[0] = 134217728 * 1.05;
    grade_check_evidence(&cheat, &e);
    assert_int_equal(cheat.verdict, V_PASS);
    /* the technique only when counted: the timed calls with no tensor work at all */
    cheat.counters.witnessed[0].values[0] = cheat.counters.witnessed[0].values[1] = 0;
    grade_check_evidence(&cheat, &e);
    assert_int_equal(cheat.verdict, V_REQUIREMENT);

    /* what the judge could not see is never a pass */
    GradeResult failed = r;
    failed.verdict = V_PASS;
    failed.nevidence = 0;
    failed.counters.witness = COUNTERS_NONE;
    assert_true(evidence_parse_line(&failed.counters, "witness", "failed: the samples are not consecutive (the "
                                                                    "interval is 100.0 us): samples were lost"));
    grade_check_evidence(&failed, &e);
    /* lost samples: the machine's busy CPUs, not the code: GPU busy (not recorded, never a pass) */
    assert_int_equal(failed.verdict, V_GPU_BUSY);
    assert_non_null(strstr(failed.reason, "the samples are not consecutive"));
    /* said as what the judge could not see, not as what the code did, with the likely cause */
    assert_non_null(strstr(failed.reason, "lost samples"));
    assert_null(strstr(failed.reason, "does other work"));
    assert_non_null(strstr(failed.reason, "grade again when the machine is quieter (the witness loses samples while "
                                          "the machine's CPUs are busy"));
    assert_true(failed.witness_lost); /* grade_exercise grades it once more */
    failed.verdict = V_PASS;
    failed.nevidence = 0;
    failed.counters.witness = COUNTERS_NONE;
    grade_check_evidence(&failed, &e);
    assert_int_equal(failed.verdict, V_REQUIREMENT);
    assert_non_null(strstr(failed.reason, "the judge said nothing of them"));
    assert_false(failed.witness_lost); /* not a busy machine: decided at once */
    failed.verdict = V_PASS;
    failed.nevidence = 0;
    assert_true(evidence_parse_line(&failed.counters, "witness", "unavailable: this CUDA Toolkit's CUPTI has no PM sampling"));
    grade_check_evidence(&failed, &e);
    assert_int_equal(failed.verdict, V_SETUP_ERROR);
    /* a size witnessed but its counter missing from the counted calls */
    GradeResult missing = r;
    missing.verdict = V_PASS;
    missing.nevidence = 0;
    snprintf(missing.counters.witnessed[0].names[0], sizeof missing.counters.witnessed[0].names[0], "other.sum");
    grade_check_evidence(&missing, &e);
    assert_int_equal(missing.verdict, V_REQUIREMENT);

    /* malformed lines: nothing of the witness is trusted */
    Counters m = {0};
    assert_true(evidence_parse_line(&m, "witnessed", "x.sum 1"));
    assert_int_equal(m.witness, COUNTERS_FAILED);
    Counters z = {0};
    assert_true(evidence_parse_line(&z, "witness", "4096 calls 0 samples 0"));
    assert_int_equal(z.witness, COUNTERS_FAILED);
    Counters twice = {0};
    assert_true(evidence_parse_line(&twice, "witness", "4096 calls 3 samples 9"));
    assert_true(evidence_parse_line(&twice, "witness", "4096 calls 3 samples 9"));
    assert_int_equal(twice.witness, COUNTERS_FAILED);

    /* multicast while counted only: the timed calls ask L2 for more sectors */
    Exercise mc = exercise();
    mc.evidence[0] = (Requirement){evidence_key("tma_multicast_share"), 0.3, NULL};
    mc.nevidence = 1;
    GradeResult l2 = {.verdict = V_PASS};
    const char *l2_lines[][2] = {
        {"counters", "4096x4096x4096 work 67108864 33554432 137438953472 ms 0.2"},
        {"counter", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_dest_multicast.sum 1070000000"},
        {"counter", "l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld_dest_multicast.sum 4190000"},
        {"counter", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum 1070000000"},
        {"counter", WITNESS_L2_SECTORS " 25000000"},
        {"witness", "4096x4096x4096 calls 20 samples 61"},
        {"witnessed", WITNESS_L2_SECTORS " 33400000"},
    };
    for (size_t i = 0; i < sizeof l2_lines / sizeof l2_lines[0]; i++)
        assert_true(evidence_parse_line(&l2.counters, l2_lines[i][0], l2_lines[i][1]));
    grade_check_evidence(&l2, &mc);
    assert_int_equal(l2.verdict, V_REQUIREMENT);
    assert_non_null(strstr(l2.reason, "L2 sectors asked by the SMs: 3.34e+07 per timed call"));
}

/* The judge's lines, several calls: parsed call by call; a call naming other
 * counters than the first, or a counter outside a call, is a malformed
 * record (failed, never a pass). */
static void test_evidence_parse_calls(void **state) {
    (void)state;
    Counters c = {0};
    const char *lines[][2] = {{"counters", "4096 work 100 50 1000"}, {"counter", "a.sum 1"}, {"counter", "b.sum 2"},
                              {"counters", "4096 work 100 50 1000"}, {"counter", "a.sum 3"}, {"counter", "b.sum 4"},
                              {"counters", "8192 work 400 200 8000"}, {"counter", "a.sum 5"}, {"counter", "b.sum 6"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) assert_true(evidence_parse_line(&c, lines[i][0], lines[i][1]));
    assert_int_equal(c.status, COUNTERS_COLLECTED);
    assert_int_equal(c.ncalls, 3);
    assert_int_equal(c.nsizes, 2);
    assert_int_equal(c.n, 2);
    double v;
    assert_true(evidence_call_value(&c, 1, "b.sum", &v) && v == 4);
    assert_true(evidence_call_value(&c, 2, "a.sum", &v) && v == 5);
    assert_int_equal(c.calls[2].size, 1);
    assert_false(evidence_parse_line(&c, "time", "student 1 1 1 1"));

    evidence_parse_line(&c, "counters", "4096 work 100 50 1000");
    evidence_parse_line(&c, "counter", "c.sum 7"); /* not what the first call counted */
    assert_int_equal(c.status, COUNTERS_FAILED);
    assert_non_null(strstr(c.why, "malformed"));

    Counters d = {0};
    evidence_parse_line(&d, "counters", "4096 work 100 50 1000");
    evidence_parse_line(&d, "counter", "a.sum 1");
    evidence_parse_line(&d, "counters", "4096 work 999 50 1000"); /* one size, two works */
    assert_int_equal(d.status, COUNTERS_FAILED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evidence_metrics),
        cmocka_unit_test(test_evidence_decisions),
        cmocka_unit_test(test_evidence_multicast),
        cmocka_unit_test(test_evidence_fp8),
        cmocka_unit_test(test_evidence_fails_closed),
        cmocka_unit_test(test_evidence_rules),
        cmocka_unit_test(test_evidence_wide),
        cmocka_unit_test(test_evidence_counted_calls),
        cmocka_unit_test(test_evidence_partial_sums),
        cmocka_unit_test(test_counted_clock),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_evidence_parse_calls),
        cmocka_unit_test(test_loaded_modules),
    };
    return cmocka_run_group_tests_name("evidence", tests, NULL, NULL);
}
