// The judge's witness refuses what it cannot sum and says why, before and
// without a GPU (TAP; tests/pmwitness.sh builds and runs it). What it sees on
// a GPU: tools/probe-pmwitness.sh.
#include <stdio.h>
#include <string.h>

#include "pmwitness.h"

static int n, failed;

static void ok(bool cond, const char *name, const char *why) {
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, name);
    if (!cond) {
        printf("# why: %s\n", why);
        failed++;
    }
}

int main(void) {
    char why[512];
    bool r;

    why[0] = 0;
    r = pm_open(0, "sm__pipe_tensor_cycles_active.avg", why, sizeof why);
    ok(!r && strstr(why, "sm__pipe_tensor_cycles_active.avg:") && strstr(why, "NAME.sum"),
       "an average is refused by name: its samples do not add up", why);

    why[0] = 0;
    r = pm_open(0, "sm__pipe_tensor_cycles_active.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed", why,
                sizeof why);
    ok(!r && strstr(why, "sm__throughput.avg.pct_of_peak_sustained_elapsed:"),
       "a percentage among counts is refused, and named", why);

    why[0] = 0;
    r = pm_open(0, "a.sum,b.sum,c.sum,d.sum,e.sum,f.sum,g.sum,h.sum,i.sum", why, sizeof why);
    ok(!r && strstr(why, "between 1 and 8 metrics, not 9"), "nine metrics are too many", why);

    why[0] = 0;
    r = pm_open(0, ",", why, sizeof why);
    ok(!r && strstr(why, "not 0"), "no metric at all is refused", why);
    ok(pm_count() == 0, "a refused open configures nothing", "pm_count() is not 0");

    why[0] = 0;
    r = pm_begin(why, sizeof why);
    ok(!r && strstr(why, "not opened"), "a window before pm_open is refused", why);

    const PmSample *samples;
    size_t count;
    why[0] = 0;
    r = pm_end(&samples, &count, why, sizeof why);
    ok(!r && strstr(why, "no window is open"), "pm_end without a window is refused", why);

    // Here there is no GPU (the stub driver, or none): a valid list fails
    // with a reason, never an open witness that sums nothing.
    why[0] = 0;
    r = pm_open(0, "sm__pipe_tensor_cycles_active.sum", why, sizeof why);
    ok(!r && why[0], "without a GPU pm_open fails and says why", why);
    if (why[0]) printf("# without a GPU: %s\n", why);
    pm_close();

    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
