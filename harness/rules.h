/* The judge's decisions that need no GPU, kept apart so that `make test`
 * checks them on recorded numbers: how a runner's reported time is settled
 * against the judge's own clock, when the GPU counts as idle, and which
 * files a student's runner must not have mapped. Plain C, compiled into the
 * judge by nvcc and into the tests by gcc. */
#ifndef GPUCOURSE_RULES_H
#define GPUCOURSE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One call as the two sides saw it: the runner's CUDA-event time of the call
 * (what it says; untrusted) and the judge's clock from sending the request
 * to seeing the GPU idle again (trusted, but it includes fixed overhead). */
typedef struct {
    double event_ms, wall_ms;
} StepTime;

/* The most overhead (wall - event) an honest call shows: the 90th
 * percentile over the trusted calls of the same timed size that were made
 * as the student's are (harness/main.cu, timed_run). Not capped: a cap at
 * their median + 0.1 ms (which would bound a lying runner's gain in a
 * noisy grading, where a few slow calls lift the 90th percentile up to
 * 1.2 ms above the median) came with honest fixtures graded too slow on
 * the H100 (ex05_tiled_2d, ex10_atomic_add) and references at 0.92x
 * themselves; docs/benchmarks.md has the numbers. */
double rules_overhead_bound(const StepTime *trusted, int n);

/* The time the verdict uses for one call: the runner's event time where the
 * judge's clock allows it, never less than wall - bound (a runner that
 * under-reports gains at most the spread of the overhead), never more than
 * the wall time. *used_wall says the event time was not believable. */
double rules_settle(StepTime s, double bound_ms, bool *used_wall);

/* Where a timed call ends, as the judge watches for it (main.cu, call):
 * after the runner's answer it probes the GPU with empty kernels back to
 * back while the runner stops. The call ends when the first quick probe
 * after the last slow one ended (work the runner launched before it stopped
 * makes a probe slow: time slicing), once a quick probe has begun after the
 * stop was seen; how long the runner's threads take to stop is not its time. */
typedef struct {
    int probes;      /* probes so far */
    int idle_from;   /* the first of the last run of quick probes (1-based), 0 after a slow one */
    double idle_at;  /* when that probe ended: the call's end */
} CallEnd;

/* One probe into the watch: whether it was quick, whether it began after the
 * runner's stop was seen, when it ended. True once the call has ended. */
bool rules_watch_probe(CallEnd *end, bool quick, bool after_stop, double ended_at);

/* The median of n values (n > 0); values is reordered. */
double rules_median(double *values, int n);

/* A GPU probe (an empty kernel and a synchronize) that took less than this
 * ran without waiting for another process's work: the GPU was idle. From
 * the median of probes timed back to back on an idle GPU. */
double rules_quick_probe_bound_us(double *idle_probe_us, int n);

/* One NVML sample of a process's use of the GPU: the share of the sample
 * period (percent) in which its kernels ran on the SMs, and in which it
 * read or wrote device memory. */
typedef struct {
    unsigned pid, sm_percent, memory_percent;
} GpuUse;

/* The processes other than the judge's own (`own`, n_own pids) that used
 * the GPU in these samples: one entry per process, with its largest
 * shares, into out (at most max, the busiest first); returns how many. A
 * process that only holds a context (an idle notebook) is no neighbour. */
int rules_neighbours(const GpuUse *use, int n, const int *own, int n_own, GpuUse *out, int max);

/* Where a judge and its runners run: of the CPUs the judge may use (`cpus`,
 * n of them, those nearest its GPU first where known; core[i] names cpus[i]'s
 * physical core), taken by cores, each its first CPU in the list, the judge
 * whose slot is `slot` (a number no other judge on the host shares: its
 * GPU's) takes core 2 slot mod cores and gives both runners core 2 slot + 1:
 * the runners never run at once (one is frozen while the other is called),
 * and on one CPU they wake up alike; judges on one host share no core until
 * there are more GPUs than pairs of cores. False, and nothing picked, with
 * fewer than two cores. */
bool rules_pick_cpus(const int *cpus, const int *core, int n, unsigned slot, int *judge_cpu, int *runner_cpu);

/* What a student's runner may have mapped. */
typedef struct {
    const char *const *files;    /* exact paths: the runner and the student's library (NULL-terminated) */
    const char *const *lib_dirs; /* the loader's directories (sandbox_library_dirs): there, the files
                                    named as runtime libraries (sandbox_runtime_library) */
    const char *build_dir;       /* nothing else from here, executable or not (the reference, other builds) */
} MapsAllowed;

/* The first mapping in a /proc/PID/maps text that a student's runner must
 * not have: executable memory from anywhere but the allowed files and the
 * runtime's libraries in the loader's directories (anonymous code, memfd,
 * a library in a student's repository under any name); a vendor library
 * (cuBLAS, cuDNN, ...) known by its file name or by its SONAME, wherever it
 * lies, so that a renamed copy is known too; anything from the build
 * directory but the allowed files. Writes what it is into `offender` and
 * returns true; false when the maps are clean. */
bool rules_maps_offender(const char *maps, const MapsAllowed *ok, char *offender, size_t size);

/* The SONAME in an ELF shared library's dynamic section, read as the loader
 * reads it (program headers, not sections, which can be stripped); false
 * when the file cannot be read, is not ELF64, or names none. */
bool rules_elf_soname(const char *path, char *soname, size_t size);

#ifdef __cplusplus
}
#endif

#endif
