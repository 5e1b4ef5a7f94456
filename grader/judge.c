/* The judge's run (judge.h). */
#define _GNU_SOURCE
#include "judge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "evidence.h"
#include "trace.h"
#include "verdict.h"

/* The judge's results are whole: their last line is `end: CODE`, which only
 * the judge writes (no runner holds the pipe), just before it closes them. */
static bool judge_said_all(const char *results, size_t len) {
    if (len < 2 || results[len - 1] != '\n') return false;
    const char *last = results + len - 1;
    while (last > results && last[-1] != '\n') last--;
    return !strncmp(last, "end: ", 5);
}

bool judge_start(Judge *j, const Exercise *e, const CourseParts *parts, const char *student,
                        const GradeOptions *o, JudgePlan plan, bool go, GradeResult *r) {
    StrList *args = &j->args;
    char text[64];
    const Launcher *launch = j->launch = plan.launch;
    if (launch) /* its words first: srun ... harness-KIND ... */
        for (int i = 0; i < launch->words.count; i++) strlist_add(args, launch->words.items[i]);
    strlist_add(args, parts->harness);
    strlist_add(args, "--student");
    strlist_add(args, student);
    strlist_add(args, "--runner");
    strlist_add(args, parts->runner);
    strlist_add(args, "--reference");
    strlist_add(args, parts->reference);
    snprintf(text, sizeof text, "%llu", r->seed);
    strlist_add(args, "--seed");
    strlist_add(args, text);
    snprintf(text, sizeof text, "%.9g", e->tol_rel);
    strlist_add(args, "--rel");
    strlist_add(args, text);
    snprintf(text, sizeof text, "%.9g", e->tol_abs);
    strlist_add(args, "--abs");
    strlist_add(args, text);
    if (e->deterministic) {
        strlist_add(args, "--deterministic");
        strlist_add(args, "1");
    }
    for (int i = 0; i < plan.nchecks; i++) {
        size_text(&plan.checks[i], text, sizeof text);
        strlist_add(args, "--check");
        strlist_add(args, text);
    }
    for (int i = 0; plan.timed && i < e->ntiming_sizes; i++) {
        size_text(&e->timing_sizes[i], text, sizeof text);
        strlist_add(args, "--timing");
        strlist_add(args, text);
    }
    char *metrics = plan.timed ? evidence_metrics(e) : NULL;
    if (metrics) {
        strlist_add(args, "--counters");
        strlist_add(args, metrics);
        free(metrics);
        char *witnessed = evidence_witness_metrics(e);
        if (witnessed) {
            strlist_add(args, "--witness");
            strlist_add(args, witnessed);
            free(witnessed);
        }
    }
    j->timeout_s = o && o->timeout_s ? o->timeout_s : e->timeout_s;
    /* the judge's lines carry it: nothing the student's process sees can guess it */
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        grade_set_verdict(r, V_SETUP_ERROR, "cannot make the judge's nonce: %s", strerror(errno));
        return false;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(j->nonce + 2 * i, 3, "%02x", raw[i]);
    j->nonce_env = xprintf("GPUCOURSE_NONCE=%s", j->nonce);
    if (launch) { /* no pipe reaches another node: a file, and the judge's own bound */
        j->result_file = xprintf("%s.%s.results", parts->harness, j->nonce); /* in the build directory */
        j->result_env = xprintf("GPUCOURSE_RESULT_FILE=%s", j->result_file);
        snprintf(text, sizeof text, "%d", j->timeout_s);
        strlist_add(args, "--timeout");
        strlist_add(args, text);
    }
    j->argv = strlist_argv(args);

    const char *env[4];
    int nenv = 0;
    env[nenv++] = j->nonce_env;
    if (plan.gpu_env) env[nenv++] = plan.gpu_env;
    if (j->result_env) env[nenv++] = j->result_env;
    env[nenv] = NULL;
    ProcSpec spec = {.argv = j->argv, .env = env, .timeout_s = launch ? j->timeout_s + launch->wait_s : j->timeout_s,
                     .capture_limit = JUDGE_OUTPUT_LIMIT, .result_fd = launch ? -1 : RESULT_FD,
                     .go_fd = go ? RESULT_FD + 1 : -1, .on_output = o ? o->on_output : NULL,
                     .ctx = o ? o->ctx : NULL};
    j->spawned = now_seconds();
    if (proc_start(&spec, &j->res, &j->run) < 0) {
        grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
        return false;
    }
    return true;
}

void judge_decide(Judge *j, const Exercise *e, GradeResult *r) {
    bool over = proc_wait(j->run, &j->res, j->launch ? NULL : judge_said_all);
    if (over) j->run = NULL;
    ProcResult *res = &j->res;
    double ended = now_seconds();
    if (j->launch) {
        free(res->results);
        size_t len = 0;
        res->results = read_file(j->result_file, &len);
        if (res->results && len > JUDGE_OUTPUT_LIMIT) res->results[JUDGE_OUTPUT_LIMIT] = '\0';
        unlink(j->result_file);
    }
    RunStatus st = {res->exited,      res->exit_code, res->signal, res->timed_out, res->interrupted, j->timeout_s,
                    j->launch ? j->launch->text : NULL, j->launch ? j->launch->wait_s : 0};
    if (!over) { /* its results are whole: the exit code is the one it said it ends with */
        const char *end = strstr(res->results, "\nend: ");
        st.exit_code = end ? atoi(end + 6) : 0;
    }
    r->program_output = xstrdup(res->output);
    r->output_dropped = res->output_dropped;
    grade_decide(r, e, &st, res->results, j->nonce);
    trace_place_judge(&r->trace, j->spawned, ended);
    trace_step(&r->trace, "read the judge's results, decide", ended);
}

void judge_settle(Judge *j, bool kill) {
    if (j->run) {
        if (kill) proc_kill(j->run);
        proc_wait(j->run, &j->res, NULL);
        j->run = NULL;
    }
    gpu_unlock(&j->lock);
    if (j->library_fd >= 0) close(j->library_fd); /* releases its flock */
    proc_result_free(&j->res);
    free(j->nonce_env);
    free(j->result_env);
    free(j->result_file);
    free(j->argv);
    strlist_free(&j->args);
    judge_init(j);
}

void judge_init(Judge *j) {
    memset(j, 0, sizeof *j);
    j->lock.fd = j->lock.dir_fd = j->lock.machine_fd = -1;
    j->library_fd = -1;
}

void judge_run(const Exercise *e, const CourseParts *parts, const char *student, const GradeOptions *o,
                        JudgePlan plan, GradeResult *r) {
    Judge j;
    judge_init(&j);
    if (judge_start(&j, e, parts, student, o, plan, false, r)) judge_decide(&j, e, r);
    judge_settle(&j, false);
}

