/* The judge's decisions that need no GPU (harness/rules.c): settling a
 * runner's claimed time against the judge's clock, the idle-GPU probe bound,
 * and what a student's runner must not have mapped. The step times are the
 * shape recorded on the H100 (an honest call's wall time is its event time
 * plus ~0.33 ms of messages, context switches and idle probes). */
#include "test_util.h"

#include <math.h>

#include "../harness/rules.h"

static void test_overhead_bound_is_90th_percentile(void **state) {
    (void)state;
    StepTime t[10];
    for (int i = 0; i < 10; i++) t[i] = (StepTime){.event_ms = 1.0, .wall_ms = 1.30 + 0.01 * i};
    assert_true(fabs(rules_overhead_bound(t, 10) - 0.38) < 1e-9);
    assert_true(rules_overhead_bound(t, 0) == 0);
}

static void test_honest_event_time_is_used(void **state) {
    (void)state;
    bool wall;
    double t = rules_settle((StepTime){.event_ms = 0.935, .wall_ms = 1.262}, 0.34, &wall);
    assert_false(wall);
    assert_true(fabs(t - 0.935) < 1e-12);
}

static void test_forged_event_time_is_overruled(void **state) {
    (void)state;
    bool wall;
    /* a runner patched to report 1 us for a call that kept the GPU busy 3.7 ms */
    double t = rules_settle((StepTime){.event_ms = 0.001, .wall_ms = 4.05}, 0.34, &wall);
    assert_true(wall);
    assert_true(fabs(t - 3.71) < 1e-9);
    /* NaN and negative claims are no better */
    t = rules_settle((StepTime){.event_ms = NAN, .wall_ms = 4.05}, 0.34, &wall);
    assert_true(wall && fabs(t - 3.71) < 1e-9);
    t = rules_settle((StepTime){.event_ms = -5, .wall_ms = 4.05}, 0.34, &wall);
    assert_true(wall && fabs(t - 3.71) < 1e-9);
}

static void test_claim_longer_than_the_wall_is_cut(void **state) {
    (void)state;
    bool wall;
    double t = rules_settle((StepTime){.event_ms = 9.0, .wall_ms = 1.2}, 0.34, &wall);
    assert_false(wall);
    assert_true(fabs(t - 1.2) < 1e-12);
}

static void test_median(void **state) {
    (void)state;
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    assert_true(rules_median(odd, 3) == 3);
    assert_true(rules_median(even, 4) == 2.5);
}

static void test_quick_probe_bound(void **state) {
    (void)state;
    double idle[] = {9, 10, 11, 12, 60};
    assert_true(fabs(rules_quick_probe_bound_us(idle, 5) - 63) < 1e-9);
    /* never so high that a context switch (~150 us) counts as idle */
    double slow[] = {50, 60, 70};
    assert_true(rules_quick_probe_bound_us(slow, 3) <= 120);
}

/* A student runner's maps as /proc shows them (shortened). */
static const char maps_clean[] =
    "55d0c0000000-55d0c0010000 r-xp 00000000 fd:01 123 /ws/.build/runner-vector_add\n"
    "7f0000000000-7f0000100000 r-xp 00000000 fd:01 124 /ws/.build/student-ex01.so\n"
    "7f0000200000-7f0000300000 r-xp 00000000 fd:01 125 /usr/local/cuda/lib64/libcudart.so.13.0.96\n"
    "7f0000400000-7f0000500000 r-xp 00000000 fd:01 126 /usr/local/nvidia/lib64/libcuda.so.580.159.04\n"
    "7f0000500000-7f0000510000 r-xp 00000000 fd:01 127 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f0000600000-7f0000700000 rw-s 00000000 00:05 128 /dev/nvidia0\n"
    "7f0000700000-7f0000800000 r--p 00000000 fd:01 129 /usr/share/locale/some.mo\n"
    "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]\n"
    "7ffc00100000-7ffc00102000 r-xp 00000000 00:00 0 [vdso]\n";

static const char *const allowed[] = {"/ws/.build/runner-vector_add", "/ws/.build/student-ex01.so", NULL};
static const char *const lib_dirs[] = {"/usr/local/cuda/lib64", "/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu",
                                       NULL};

static bool offends(const char *extra, char *who) {
    char *maps = xprintf("%s%s", maps_clean, extra);
    MapsAllowed ok = {allowed, lib_dirs, "/ws/.build"};
    bool bad = rules_maps_offender(maps, &ok, who, 4096);
    free(maps);
    return bad;
}

static void test_maps_clean(void **state) {
    (void)state;
    char who[4096] = "";
    assert_false(offends("", who));
}

static void test_maps_vendor_library(void **state) {
    (void)state;
    char who[4096];
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 200 "
                        "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13.1.0.3\n",
                        who));
    assert_string_equal(who, "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13.1.0.3 (a vendor library)");
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 200 /usr/lib/x86_64-linux-gnu/libcudnn.so.9\n",
                        who));
    /* in the loader's directory, but not a library of the runtime's */
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 200 /usr/local/cuda/lib64/libcusparseLt.so.0\n",
                        who));
}

static void test_maps_reference_and_other_builds(void **state) {
    (void)state;
    char who[4096];
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 201 /ws/.build/reference-ex01.so\n", who));
    assert_string_equal(who, "/ws/.build/reference-ex01.so (a file of the build directory)");
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 202 /ws/.build/student-ex05.so (deleted)\n",
                        who));
    assert_string_equal(who, "/ws/.build/student-ex05.so (a file of the build directory)");
    /* read, not executed: still the reference's file */
    assert_true(offends("7f1000000000-7f1000100000 r--p 00000000 fd:01 201 /ws/.build/reference-ex01.so\n", who));
    /* the student's own library, rebuilt since it was loaded */
    assert_false(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 205 /ws/.build/student-ex01.so (deleted)\n",
                         who));
    /* another workspace's build (a class's OUT/build, a classmate): code from outside the runtime */
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 203 /ws/.build2/reference-ex01.so\n", who));
    assert_string_equal(who, "/ws/.build2/reference-ex01.so (code from outside the runtime's libraries)");
}

static void test_maps_code_from_memory(void **state) {
    (void)state;
    char who[4096];
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 00:01 204 /memfd:x (deleted)\n", who));
    assert_string_equal(who, "/memfd:x (code from memory (memfd))");
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 00:00 0 \n", who));
    assert_string_equal(who, "code in memory mapped from no file");
    /* a prebuilt library in the student's repository, whatever its name */
    assert_true(offends("7f1000000000-7f1000100000 r-xp 00000000 fd:01 206 /home/s/repo/exercises/libcudart.so.13\n",
                        who));
    /* plain data from a file is no code */
    assert_false(offends("7f1000000000-7f1000100000 r--p 00000000 fd:01 207 /home/s/repo/data.bin\n", who));
}

/* A copy of a vendor library under a name of the runtime's, where the
 * loader looks: known by its SONAME (issue 44's item 5). */
static void test_maps_vendor_library_by_soname(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *src = path_join(dir, "x.c"), *lib = path_join(dir, "libcudart.so.13");
    put_file(dir, "x.c", "int cublasSgemm_v2(void) { return 0; }\n");
    char *cmd = xprintf("cc -shared -fPIC -Wl,-soname,libcublasLt.so.13 -o %s %s", lib, src);
    if (system(cmd) != 0) {
        print_message("# no C compiler to build a library with\n");
        tmpdir_remove(dir);
        skip();
    }
    char soname[256];
    assert_true(rules_elf_soname(lib, soname, sizeof soname));
    assert_string_equal(soname, "libcublasLt.so.13");
    char *maps = xprintf("%s7f1000000000-7f1000100000 r-xp 00000000 fd:01 300 %s\n", maps_clean, lib);
    const char *const dirs[] = {lib_dirs[0], lib_dirs[1], lib_dirs[2], dir, NULL};
    MapsAllowed ok = {allowed, dirs, "/ws/.build"};
    char who[4096];
    assert_true(rules_maps_offender(maps, &ok, who, sizeof who));
    char *want = xprintf("%s (a vendor library under another name)", lib);
    assert_string_equal(who, want);
    free(want);
    /* not ELF, empty, truncated: no SONAME, no crash */
    put_file(dir, "junk.so", "\177ELF\2\1\1");
    char *junk = path_join(dir, "junk.so");
    assert_false(rules_elf_soname(junk, soname, sizeof soname));
    assert_false(rules_elf_soname(src, soname, sizeof soname));
    assert_false(rules_elf_soname("/nonexistent/lib.so", soname, sizeof soname));
    free(junk), free(maps), free(cmd), free(lib), free(src);
    tmpdir_remove(dir);
}

/* NVML's samples as the judge read them beside a hog on the H100: the
 * judge's own processes and an idle context are no neighbours. */
static void test_neighbours(void **state) {
    (void)state;
    GpuUse use[] = {{488, 1, 0}, {494, 99, 0}, {501, 0, 0}, {494, 97, 3}, {777, 0, 12}, {490, 40, 5}};
    int own[] = {488, 490, 489};
    GpuUse out[4];
    int n = rules_neighbours(use, 6, own, 3, out, 4);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].pid, 494); /* the busiest first, with its largest shares */
    assert_int_equal(out[0].sm_percent, 99);
    assert_int_equal(out[0].memory_percent, 3);
    assert_int_equal(out[1].pid, 777); /* copies alone count: memory, no SMs */
    assert_int_equal(rules_neighbours(use, 6, own, 3, out, 1), 1);
    int all[] = {488, 490, 494, 777};
    assert_int_equal(rules_neighbours(use, 6, all, 4, out, 4), 0);
    assert_int_equal(rules_neighbours(use, 0, own, 3, out, 4), 0);
}

/* Probes after an answer, as (quick, begun after the stop was seen, ended
 * at): the index of the probe the call ended with, or 0 if it never ended. */
typedef struct {
    bool quick, after_stop;
    double at;
} Probe;

static int watch(const Probe *p, int n, CallEnd *end) {
    memset(end, 0, sizeof *end);
    for (int i = 0; i < n; i++)
        if (rules_watch_probe(end, p[i].quick, p[i].after_stop, p[i].at)) return i + 1;
    return 0;
}

/* An honest call: a slow probe (the context switch back), then a quick one
 * begun after the stop: the call ends with that one, two probes. */
static void test_watch_honest(void **state) {
    (void)state;
    CallEnd end;
    Probe p[] = {{false, false, 150}, {true, true, 170}};
    assert_int_equal(watch(p, 2, &end), 2);
    assert_int_equal(end.idle_from, 2);
    assert_true(end.idle_at == 170);
}

/* The runner's threads slow to stop: the GPU was idle from the second probe
 * on, and the call ends there, not when the stop was seen 3 ms later. */
static void test_watch_slow_stop_not_counted(void **state) {
    (void)state;
    CallEnd end;
    Probe p[] = {{false, false, 150}, {true, false, 170}, {true, false, 1000}, {true, false, 2000},
                 {true, true, 3170}};
    assert_int_equal(watch(p, 5, &end), 5);
    assert_int_equal(end.idle_from, 2);
    assert_true(end.idle_at == 170);
}

/* Work launched by the runner while it was being stopped makes a probe slow:
 * the call ends after it, at the first quick probe that followed. */
static void test_watch_work_before_stop_counted(void **state) {
    (void)state;
    CallEnd end;
    Probe p[] = {{false, false, 150}, {true, false, 170}, {false, false, 2600}, {true, false, 2620},
                 {true, true, 2700}};
    assert_int_equal(watch(p, 5, &end), 5);
    assert_int_equal(end.idle_from, 4);
    assert_true(end.idle_at == 2620);
}

/* Quick probes that began before the stop was seen never end the call by
 * themselves; a slow one after the stop (work still queued) moves the end. */
static void test_watch_needs_a_quick_probe_after_the_stop(void **state) {
    (void)state;
    CallEnd end;
    Probe before[] = {{true, false, 20}, {true, false, 40}, {true, false, 60}};
    assert_int_equal(watch(before, 3, &end), 0);
    Probe queued[] = {{true, false, 20}, {false, true, 2500}, {true, true, 2520}};
    assert_int_equal(watch(queued, 3, &end), 3);
    assert_int_equal(end.idle_from, 3);
    assert_true(end.idle_at == 2520);
}

/* Judges on one host (GPU slots 0, 1, ...) take cores of their own, each
 * giving its runners a core other than its own; hyperthread siblings, in
 * whichever order the host numbers them, are never split between two. */
static void test_pick_cpus(void **state) {
    (void)state;
    int cpus[] = {0, 1, 2, 3, 16, 17, 18, 19}, core[] = {0, 1, 2, 3, 0, 1, 2, 3}, judge = -1, runner = -1;
    assert_true(rules_pick_cpus(cpus, core, 8, 0, &judge, &runner));
    assert_int_equal(judge, 0);
    assert_int_equal(runner, 1);
    assert_true(rules_pick_cpus(cpus, core, 8, 1, &judge, &runner));
    assert_int_equal(judge, 2);
    assert_int_equal(runner, 3);
    assert_true(rules_pick_cpus(cpus, core, 8, 2, &judge, &runner)); /* more GPUs than pairs of cores: they wrap */
    assert_int_equal(judge, 0);
    assert_int_equal(runner, 1);
    /* siblings numbered side by side: slot 0 takes cores 2 and 3 (CPUs 4 and 6), slot 1 cores 4 and 5 */
    int paired[] = {4, 5, 6, 7, 8, 9, 10, 11}, paired_core[] = {2, 2, 3, 3, 4, 4, 5, 5};
    assert_true(rules_pick_cpus(paired, paired_core, 8, 0, &judge, &runner));
    assert_int_equal(judge, 4);
    assert_int_equal(runner, 6);
    assert_true(rules_pick_cpus(paired, paired_core, 8, 1, &judge, &runner));
    assert_int_equal(judge, 8);
    assert_int_equal(runner, 10);
    /* one core (even with two hyperthreads), or one CPU: nothing picked */
    judge = runner = -1;
    assert_false(rules_pick_cpus(paired, paired_core, 2, 0, &judge, &runner));
    assert_false(rules_pick_cpus(cpus, core, 1, 0, &judge, &runner));
    assert_int_equal(judge, -1);
    assert_int_equal(runner, -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overhead_bound_is_90th_percentile),
        cmocka_unit_test(test_honest_event_time_is_used),
        cmocka_unit_test(test_forged_event_time_is_overruled),
        cmocka_unit_test(test_claim_longer_than_the_wall_is_cut),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_quick_probe_bound),
        cmocka_unit_test(test_maps_clean),
        cmocka_unit_test(test_maps_vendor_library),
        cmocka_unit_test(test_maps_reference_and_other_builds),
        cmocka_unit_test(test_maps_code_from_memory),
        cmocka_unit_test(test_maps_vendor_library_by_soname),
        cmocka_unit_test(test_neighbours),
        cmocka_unit_test(test_pick_cpus),
        cmocka_unit_test(test_watch_honest),
        cmocka_unit_test(test_watch_slow_stop_not_counted),
        cmocka_unit_test(test_watch_work_before_stop_counted),
        cmocka_unit_test(test_watch_needs_a_quick_probe_after_the_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
