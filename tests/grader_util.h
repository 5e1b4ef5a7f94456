/* Shared by the grader's C tests (test_grader.c, test_evidence.c): a plain
 * exercise, and its verdict on a recorded judge's output. */
#ifndef GPUCOURSE_GRADER_UTIL_H
#define GPUCOURSE_GRADER_UTIL_H

#include "test_util.h"

#include "../grader/grader.h"

static inline Exercise exercise(void) {
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
static inline Verdict decide(const char *name, const RunStatus *st, GradeResult *r) {
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

#endif
