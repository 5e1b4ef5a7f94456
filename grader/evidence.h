/* The evidence that an exercise's technique ran: its `evidence:` keys
 * (course.h) measured on the hardware counters of the student's counted
 * calls, timed samples picked at random at every timed size (harness/counters.h, the
 * "counters:" and "counter:" result lines). The one place that says which
 * counters each key reads and how it decides. */
#ifndef GPUCOURSE_EVIDENCE_H
#define GPUCOURSE_EVIDENCE_H

#include "../src/course.h"

enum { MAX_RESULT_COUNTERS = 16 };
/* The judge counts every one of the student's samples at every timed size. */
enum { MAX_COUNTED_SIZES = 8, MAX_COUNTED_CALLS = 160 };

typedef enum {
    COUNTERS_NONE,        /* no counters lines (the run stopped before, or an old judge) */
    COUNTERS_COLLECTED,
    COUNTERS_UNAVAILABLE, /* this machine cannot read the GPU's counters */
    COUNTERS_FAILED,      /* the collection failed in the student's process */
} CountersStatus;

/* A timed size, with the work any correct answer must do there. */
typedef struct {
    char size[64];
    double in_bytes, out_bytes; /* the bytes of its inputs and outputs */
    double flops;               /* its matrix products' FLOPs (0: none) */
} CountedSize;

/* One counted call: its size (an index in Counters.sizes) and its values,
 * in the order of Counters.names. */
typedef struct {
    int size;
    int n;
    double values[MAX_RESULT_COUNTERS];
    double ms; /* the call's own time by the runner's events (NAN: not said) */
} CountedCall;

/* The counters of the student's counted calls ("counters: SIZE work IN OUT
 * FLOPS" then "counter: NAME VALUE" lines, once per call). Every call
 * names the same counters in the same order as the first. */
typedef struct {
    CountersStatus status;
    char why[400]; /* UNAVAILABLE, FAILED: what was said */
    int n;         /* counters per call */
    char names[MAX_RESULT_COUNTERS][96];
    int nsizes;
    CountedSize sizes[MAX_COUNTED_SIZES];
    int ncalls;
    CountedCall calls[MAX_COUNTED_CALLS];
} Counters;

/* One requirement as measured, for reports: the call that did worst. */
typedef struct {
    char key[32];
    char text[240];  /* "TMA loads: 1.00 of the bytes loaded (at least 0.90)" */
    char size[64];   /* where */
    double measured, bound;
    bool ok;
} EvidenceLine;

/* The counters e's evidence reads, comma-separated, each once: the judge's
 * --counters. NULL when e has no evidence keys. malloc'd. */
char *evidence_metrics(const Exercise *e);

/* Reads one result line ("key: rest") into c when it is a counters line
 * ("counters: ...", "counter: NAME VALUE"); returns whether it was. */
bool evidence_parse_line(Counters *c, const char *key, const char *rest);

/* The value of counter `name` in c's first call (the one call of a
 * diagnosis), when reported and a finite count. */
bool evidence_value(const Counters *c, const char *name, double *v);
/* The same in call k. */
bool evidence_call_value(const Counters *c, int k, const char *name, double *v);

/* Measures every requirement of e on every counted call of c into lines
 * (at most MAX_EVIDENCE), each line the call that did worst, or the spread
 * between the calls of one size where they disagree (a call doing other
 * work than the rest). Returns the number of lines; *unmet the first that
 * is not met (-1 when all are); *missing names a counter a call did not
 * report (then nothing is decided, and the requirement is not met), or is
 * EVIDENCE_NO_FLOPS when a tensor-core key is set on a kind that defines no
 * FLOPs (the course's mistake). */
extern const char EVIDENCE_NO_FLOPS[];
int evidence_measure(const Exercise *e, const Counters *c, EvidenceLine *lines, int *unmet, const char **missing);

/* Whether a counted call's own time (the runner's events) fits the median
 * of the timed calls of its size; [*lo, *hi] is what fits. */
bool evidence_counted_time_ok(double counted_ms, double timed_ms, double *lo, double *hi);

/* What a requirement is about, for the verdict's sentence when it is unmet. */
const char *evidence_lesson(const char *key);

#endif
