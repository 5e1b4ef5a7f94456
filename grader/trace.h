/* Where a grading's time went (gpucourse grade --trace, GPUCOURSE_TRACE=1):
 * the grader's own steps, timed where they run, and the judge's, from its
 * "trace: SECONDS WHAT" result lines (each the end of a step, on the same
 * monotonic clock), on one time line from the grading's start. Measured on
 * every grading; shown only when asked, and in JSON. */
#ifndef GPUCOURSE_TRACE_H
#define GPUCOURSE_TRACE_H

#include <stdbool.h>
#include <stdio.h>

enum { TRACE_MAX = 96 };

typedef struct {
    char who[8];     /* "grader" or "judge" */
    char what[96];
    double start_s;  /* from the grading's start */
    double seconds;
} TraceStep;

typedef struct {
    double origin;          /* now_seconds() when the grading began */
    TraceStep steps[TRACE_MAX];
    int n, dropped;         /* steps past TRACE_MAX are counted, not kept */
} Trace;

/* A step of the grader's that began at `since` (now_seconds()) and ends
 * now; returns now, the start of the next step. */
double trace_step(Trace *t, const char *what, double since);

/* One of the judge's result lines (the value of its "trace:" key); false
 * when it is not one. Kept unplaced until trace_place_judge. */
bool trace_judge_line(Trace *t, const char *val);

/* Places the judge's marks read since the last call in its process's run,
 * which the grader started at `spawned` and saw end at `ended`: each step
 * runs from the mark before it (the first from the start), and the time
 * from the last mark to the end is the judge's exit. A judge on another
 * machine (a launcher) has another clock: its marks are shifted to start
 * at `spawned`. */
void trace_place_judge(Trace *t, double spawned, double ended);

/* The table: each step's start, its length and what it was, then the
 * totals by process and the grading's wall time. */
void trace_print(FILE *out, const char *title, const Trace *t, double wall_s);

/* The steps as a JSON array of {"who", "step", "start_seconds", "seconds"}. */
void trace_json(FILE *out, const Trace *t);

#endif
