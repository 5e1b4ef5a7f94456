/* Grade results as text for people, JSON and JUnit XML for machines. */
#ifndef GPUCOURSE_REPORT_H
#define GPUCOURSE_REPORT_H

#include <stdio.h>

#include "grader.h"

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_JUNIT } ReportFormat;

/* One exercise's result as text. */
void report_text(FILE *out, const Exercise *e, const GradeResult *r);

/* Several results (one for `grade EX`) as one JSON document or one JUnit
 * test suite. */
void report_json(FILE *out, const Exercise *const *es, const GradeResult *rs, int count);
void report_junit(FILE *out, const Exercise *const *es, const GradeResult *rs, int count);

/* JSON string with quotes and escapes, valid UTF-8 whatever s holds
 * (U+FFFD for bytes that are not). */
void json_string(FILE *out, const char *s);
/* A number, or null for NaN and infinities (not JSON). */
void json_number(FILE *out, double v);

#endif
