// One window of the judge's witness (harness/pmwitness.cu) against the
// stand-in CUPTI of tests/standin/fake_cupti.c (tests/pmwitness.sh runs it
// with FAKE_PM naming how the stand-in's decoder behaves): opens, samples
// for 50 ms, closes, and prints "ok N samples SUM MS" (MS: the wall time
// from before the window's start to after its end, which a loaded machine
// stretches) or "failed: WHY". The sampler makes one sample an interval of
// wall time, and each holds 100 of every metric.
#include <stdio.h>
#include <time.h>

#include "pmwitness.h"

int main(void) {
    char why[512] = "";
    if (!pm_open(0, "sm__pipe_tensor_cycles_active.sum", why, sizeof why)) {
        printf("failed: %s\n", why);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!pm_begin(why, sizeof why)) {
        printf("failed: %s\n", why);
        return 1;
    }
    struct timespec t = {0, 50 * 1000000};
    nanosleep(&t, NULL);
    const PmSample *samples;
    size_t count;
    if (!pm_end(&samples, &count, why, sizeof why)) {
        printf("failed: %s\n", why);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += samples[i].values[0];
    printf("ok %zu samples %.0f %.1f\n", count, sum, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    pm_close();
    return 0;
}
