/* Grade results as text for people, JSON and JUnit XML for machines. */
#ifndef GPUCOURSE_REPORT_H
#define GPUCOURSE_REPORT_H

#include <stdio.h>

#include "diagnose.h"
#include "grader.h"

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_JUNIT } ReportFormat;

/* One exercise's result as text. */
void report_text(FILE *out, const Exercise *e, const GradeResult *r);

/* A timed size's share of the ceiling that bounds it, "58% of 1006 TFLOP/s
 * (BF16, 1860 MHz)" or "81% of 4231 GB/s (the copy)"; "" when none was
 * placed (t->ceiling, grader/ceiling.h). */
void report_ceiling_text(const TimedSize *t, char *buf, size_t size);

/* The picture of where the output was wrong, as text lines of a report
 * (nothing when there is none) and as a JSON object (null). */
void report_wrong_map(FILE *out, const WrongMap *m);
void json_wrong_map(FILE *out, const WrongMap *m);

/* Several results (one for `grade EX`) as one JSON document ("error":
 * null) or one JUnit test suite. */
void report_json(FILE *out, const Exercise *const *es, const GradeResult *rs, int count);
/* The same with a diagnosis per result (ds may be NULL): "diagnosis". */
void report_json_diagnosed(FILE *out, const Exercise *const *es, const GradeResult *rs, const Diagnosis *ds,
                           int count);
/* A diagnosis (gpucourse why) after the result's report, and as a JSON object (null for NULL). */
void report_diagnosis_text(FILE *out, const Course *c, const Exercise *e, const GradeResult *r, const Diagnosis *d);
void json_diagnosis(FILE *out, const Diagnosis *d);
void report_junit(FILE *out, const Exercise *const *es, const GradeResult *rs, int count);

/* A run that ended before any result, on a usage error (exit_code 64) or a
 * setup error (65): the error member of a JSON document ({"exit_code",
 * "kind": "usage" or "setup", "message", "details": the course's problems,
 * details may be NULL}), grade's document with no results and that error,
 * and a JUnit test suite of one test case, name, that errored. */
void json_error(FILE *out, int exit_code, const char *message, const StrList *details);
void report_json_error(FILE *out, int exit_code, const char *message, const StrList *details);
void report_junit_error(FILE *out, const char *name, int exit_code, const char *message, const StrList *details);

/* JSON string with quotes and escapes, valid UTF-8 whatever s holds
 * (U+FFFD for bytes that are not). */
void json_string(FILE *out, const char *s);
/* A number, or null for NaN and infinities (not JSON). */
void json_number(FILE *out, double v);

#endif
