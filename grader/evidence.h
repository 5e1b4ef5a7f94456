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

/* What the judge's own counters (the witness: PM sampling, out of the
 * student's process) read over the student's timed calls of one size, per
 * call ("witness: SIZE calls N samples S" then "witnessed: NAME VALUE"). */
enum { MAX_WITNESSED = 4 };
typedef struct {
    char size[64];
    int calls;
    int n;
    char names[MAX_WITNESSED][96];
    double values[MAX_WITNESSED];
} WitnessedSize;

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
    /* the witness: NONE (no line), COLLECTED, UNAVAILABLE or FAILED, as above */
    CountersStatus witness;
    char witness_why[400];
    int nwitnessed;
    WitnessedSize witnessed[MAX_COUNTED_SIZES];
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

/* The counters the judge itself samples over the student's timed calls
 * (its --witness), comma-separated: the tensor pipe where e's evidence is
 * about the tensor cores, L2's sectors where it is about multicast. NULL
 * when none. evidence_metrics has them too: the counted calls read the
 * same, to compare. malloc'd. */
char *evidence_witness_metrics(const Exercise *e);

/* How the judge's witness says it lost samples (harness/pmwitness.cu: a gap
 * between samples, the hardware buffer overflowed; tests/pmwitness.sh holds
 * its words): a busy machine, so the grading is done once more. */
#define WITNESS_LOST "samples were lost"

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

/* The witness against the counted calls: at every timed size, each
 * witnessed counter per timed call must match the counted calls' (their
 * median) within a tolerance; a code that does other work while it is
 * counted than while it is timed fails. false when e has no witness (line
 * untouched); else *line is the comparison that did worst, or why none
 * could be made (the witness unavailable: *unavailable; failed or missing:
 * not met). */
bool evidence_witness(const Exercise *e, const Counters *c, EvidenceLine *line, bool *unavailable);

/* Whether a counted call's own time (the runner's events) fits the median
 * of the timed calls of its size; [*lo, *hi] is what fits. */
bool evidence_counted_time_ok(double counted_ms, double timed_ms, double *lo, double *hi);

/* What a requirement is about, for the verdict's sentence when it is unmet. */
const char *evidence_lesson(const char *key);

#endif
