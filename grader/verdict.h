/* What the grader's files share about a verdict being made (grader.c, checks.c, judge.c,
 * decide.c): not part of grader.h's interface. */
#ifndef GPUCOURSE_VERDICT_H
#define GPUCOURSE_VERDICT_H

#include "grader.h"

/* Sets r's verdict and its reason (printf-style). */
void grade_set_verdict(GradeResult *r, Verdict v, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* The first check size at which the answer was wrong, as the judge wrote
 * it ("?" when none was). */
const char *grade_first_failed_size(const GradeResult *r);

#endif
