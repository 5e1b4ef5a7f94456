#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A run's ratio for one floor: the smallest over its timed sizes, since the
 * floors hold at every size. NAN when the run did not measure it. */
static double run_ratio(const GradeResult *r, int which) {
    double least = NAN;
    for (int k = 0; k < r->nsizes; k++) {
        const TimedSize *t = &r->sizes[k];
        double v = which == 0   ? t->vs_reference
                   : which == 1 ? (t->baseline.samples ? t->vs_baseline : NAN)
                                : (t->library.samples ? t->vs_library : NAN);
        if (v > 0 && (isnan(least) || v < least)) least = v;
    }
    return least;
}

double calibrate_suggest(const char *key, double median) {
    double s = floor(median * CALIBRATE_MARGIN * 20 + 1e-9) / 20;
    double lo = !strcmp(key, "reference") ? 0.05 : 0, hi = 1.5; /* course.c's ranges */
    return s < lo ? lo : s > hi ? hi : s;
}

const char *floor_flag_text(FloorFlag f) {
    static const char *const text[] = {"ok", "too tight", "too loose", "not set", "loose on purpose"};
    return f <= FLOOR_LOOSE_ON_PURPOSE ? text[f] : "?";
}

void calibrate(const Exercise *e, const GradeResult *runs, int count, Calibration *out) {
    memset(out, 0, sizeof *out);
    out->runs = count;
    out->failed = V_PASS;
    static const char *const keys[] = {"reference", "baseline", "library"};
    const double floors[] = {e->floor_reference, e->floor_baseline, e->floor_library};
    double *values = xcalloc((size_t)count + 1, sizeof *values);
    bool compute = false;
    for (int i = 0; i < count; i++) {
        if (runs[i].timed) {
            out->timed++;
            compute |= runs[i].flops > 0;
        } else if (out->failed == V_PASS) {
            out->failed = runs[i].verdict;
            snprintf(out->why, sizeof out->why, "%s", runs[i].reason);
        }
    }
    for (int which = 0; which < 3; which++) {
        if (which == 1 && compute) continue; /* compute-bound kinds have no copy baseline */
        int n = 0;
        for (int i = 0; i < count; i++) {
            double v = runs[i].timed ? run_ratio(&runs[i], which) : NAN;
            if (!isnan(v)) values[n++] = v;
        }
        if (n == 0) continue;
        qsort(values, (size_t)n, sizeof *values, compare_doubles);
        FloorCalibration *f = &out->floors[out->nfloors++];
        f->key = keys[which];
        f->floor = floors[which];
        f->median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        f->min = values[0];
        f->max = values[n - 1];
        f->suggested = calibrate_suggest(f->key, f->median);
        f->flag = f->floor <= 0                                ? FLOOR_UNSET
                  : f->median < f->floor / CALIBRATE_TIGHT      ? FLOOR_TOO_TIGHT
                  : f->floor >= CALIBRATE_LOOSE * f->median     ? FLOOR_OK
                  : e->floors_why                               ? FLOOR_LOOSE_ON_PURPOSE
                                                               : FLOOR_TOO_LOOSE;
    }
    free(values);
}
