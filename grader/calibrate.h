/* check-course --calibrate: from several gradings of an exercise's
 * reference (as a student's file), the measured ratios and the floors they
 * suggest. A pure function of the results, tested without a GPU. */
#ifndef GPUCOURSE_CALIBRATE_H
#define GPUCOURSE_CALIBRATE_H

#include "grader.h"

/* The suggestion leaves 15% for noise and for a good answer that is not the
 * reference, rounded down to 0.05. A floor is too tight when the median is
 * under floor / 0.9 (less than 10% margin: noise can fail the reference),
 * too loose when it is under half the median. */
#define CALIBRATE_MARGIN 0.85
#define CALIBRATE_TIGHT 0.9
#define CALIBRATE_LOOSE 0.5

/* FLOOR_LOOSE_ON_PURPOSE: too loose, and the exercise's floors_why says why
 * (a naive kernel that is slow by nature); not flagged. */
typedef enum { FLOOR_OK, FLOOR_TOO_TIGHT, FLOOR_TOO_LOOSE, FLOOR_UNSET, FLOOR_LOOSE_ON_PURPOSE } FloorFlag;

/* One ratio of the YAML's floors: reference, baseline (the copy) or library. */
typedef struct {
    const char *key;      /* as in the YAML's floors: "reference" */
    double floor;         /* the YAML's; 0: none */
    double median, min, max; /* of the runs' ratios (each run's smallest over its timed sizes) */
    double suggested;
    FloorFlag flag;
} FloorCalibration;

typedef struct {
    int runs, timed;      /* gradings, and those that were timed */
    Verdict failed;       /* the first untimed run's verdict (V_PASS when all were timed) */
    char why[256];        /* and its reason */
    FloorCalibration floors[3];
    int nfloors;
} Calibration;

void calibrate(const Exercise *e, const GradeResult *runs, int count, Calibration *out);

/* round down to 0.05, within the loader's range for the key */
double calibrate_suggest(const char *key, double median);

const char *floor_flag_text(FloorFlag f); /* "ok", "too tight", ... */

#endif
