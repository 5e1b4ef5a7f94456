// One window of the judge's witness (harness/pmwitness.cu) against the
// stand-in CUPTI of tests/standin/fake_cupti.c (tests/pmwitness.sh runs it
// with FAKE_PM naming how the stand-in's decoder behaves): opens, samples
// for 50 ms, closes, and prints "ok N samples SUM" or "failed: WHY". The
// sampler makes one sample an interval and each holds 100 of every metric.
#include <stdio.h>
#include <time.h>

#include "pmwitness.h"

int main(void) {
    char why[512] = "";
    if (!pm_open(0, "sm__pipe_tensor_cycles_active.sum", why, sizeof why)) {
        printf("failed: %s\n", why);
        return 1;
    }
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
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += samples[i].values[0];
    printf("ok %zu samples %.0f\n", count, sum);
    pm_close();
    return 0;
}
