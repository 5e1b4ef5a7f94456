/* Each timed size against the hardware's ceilings (a roofline): the memory
 * ceiling is the copy the judge timed in the same run at the same bytes; the
 * compute ceiling is the dense peak of the kind's arithmetic (the tensor
 * cores' rate for its type, or FP32) at the SM clock it ran at. Which one
 * applies follows from the work's arithmetic intensity (flops per byte that
 * must move) against the ridge where the two meet. Computed here, once, for
 * the card, the JSON, bench and the app alike. */
#ifndef GPUCOURSE_CEILING_H
#define GPUCOURSE_CEILING_H

#include <stdbool.h>

typedef enum { BOUND_NONE, BOUND_MEMORY, BOUND_COMPUTE } Bound;

typedef struct {
    Bound bound;          /* BOUND_NONE: neither ceiling could be placed */
    double flops;         /* the work's floating-point operations (0: data movement or integer work) */
    double intensity;     /* flops per byte that must move */
    double copy_gbps;     /* the memory ceiling: the same run's copy (0: not timed) */
    double peak_tflops;   /* the compute ceiling at clock_mhz (0: unknown) */
    double ridge;         /* flop/B where the ceilings meet (0: unknown) */
    double fraction;      /* the student's rate over the ceiling that applies */
    int clock_mhz;        /* the clock the peak is taken at */
    bool clock_measured;  /* clock_mhz as NVML read it after the timed calls; false: the highest clock */
    char math[8];         /* "FP32", "TF32", "BF16", "FP8": the arithmetic the peak is of ("" unknown) */
} Ceiling;

/* The name of a bound: "memory", "compute", or NULL for BOUND_NONE. */
const char *ceiling_bound_name(Bound b);

/* Floating-point operations per element of a timed size for kind (a GEMM's
 * come from the judge's flops: line), and the arithmetic its peak is of.
 * False for a kind this table does not know. */
bool ceiling_kind(const char *kind, double *flops_per_element, const char **math);

/* Dense floating-point operations per clock per SM for math on a GPU of
 * compute capability cc (90 for 9.0): harness/peaks.h's, which the judge's
 * peak uses too. 0 for an unknown math or GPU. */
double ceiling_per_sm_per_clock(int cc, const char *math);

#endif
