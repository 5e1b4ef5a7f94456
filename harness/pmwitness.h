// A witness the student's process cannot touch (issue 45): the judge reads
// the GPU's counters itself, device-wide, while the student's timed calls
// run.
//
// The student's runner collects its counters (CUPTI's range profiler)
// inside its own process, which can rewrite them. CUPTI's PM sampling takes
// a device index, not a context: a sampler in the judge sees the kernels of
// every process on the GPU at their real times, and the sampled processes
// run no slower (gpu-facts.md, "Counters from outside the student's
// process"). Only one counter session can exist per GPU, across all
// processes: while the runner's range profiler is enabled, pm_begin fails
// (CUPTI_ERROR_HARDWARE_BUSY), and while a window is open the runner cannot
// enable its profiler. So the witness is enabled only for a window
// (pm_begin .. pm_end) and released in between, and the runner keeps its
// profiler disabled between its counted calls (counters_pause).
//
// What a sample holds is everything on the GPU during its interval: the
// judge's own kernels and anyone else's too. Its times are the host's
// CLOCK_REALTIME in nanoseconds (CUPTI's clock: measured on the H200, a
// cuBLAS GEMM's busy samples began 0.16 ms after the host launched it and
// ended 0.02 ms after it returned), so the judge keeps the samples of a
// window and adds up those that overlap the student's calls, with nothing
// else on the GPU for an interval on either side.
//
// CUPTI is loaded with dlopen, as harness/counters.cu does.
#pragma once
#include <sched.h>
#include <stddef.h>

enum { PM_MAX_METRICS = 8 };

// Loads CUPTI and prepares the configuration of `metrics`
// (comma-separated), each a count that adds up over time: the name ends in
// ".sum" and CUPTI calls it a counter (not a ratio or a throughput). A
// window's value is the sum of its samples, and a sum of per-sample rates,
// averages, maxima or percentages means nothing, so those are refused
// here, not summed. `device` is the CUDA device index (as
// CUDA_VISIBLE_DEVICES numbers it). Call once, before any window; no CUDA
// context of the caller's is needed. false with why (no CUPTI, no PM
// sampling in this CUPTI, a metric the chip cannot sample in one pass,
// insufficient privileges, another counter session on the GPU).
bool pm_open(int device, const char *metrics, char *why, size_t why_size);
int pm_count(void);  // metrics configured

// Opens a window: takes the GPU's counter session and starts sampling
// every PM_INTERVAL_NS. A thread drains the hardware buffer while the
// window is open, so a window can be as long as the caller wants. false
// with why, having released whatever it took, e.g. when another process
// holds a counter session: "another counter session holds the GPU ...
// (CUPTI error 26)".
bool pm_begin(char *why, size_t why_size);

// One sample: its interval (CLOCK_REALTIME ns) and each metric's count in it.
struct PmSample {
    unsigned long long start_ns, end_ns;
    double values[PM_MAX_METRICS];
};

// Closes the window: waits for the sample that holds the last work to
// complete, stops, decodes every remaining sample, releases the session.
// *samples, *count: the window's samples in time order, consecutive (valid
// until the next pm_begin). The first one reaches back to before the
// window began (CUPTI's first sample starts where the last session
// stopped), so work must start an interval after pm_begin returns. false
// with why when any sample was lost (the hardware buffer overflowed, a gap
// in the samples' times) or none was taken: never a smaller sum in
// silence.
bool pm_end(const struct PmSample **samples, size_t *count, char *why, size_t why_size);

// What the last window held (after pm_end), to check it covered the work.
struct PmWindow {
    long samples;        // samples taken
    double span_ns;      // time from the second sample's start to the last one's end
    double max_gap_ns;   // the largest step between one sample's end and the next one's start
    double host_ms;      // host time from pm_begin's return to pm_end's call
    double open_ms;      // how long the last pm_begin took (the session, the configuration, the image)
};
void pm_last(struct PmWindow *w);

// Where the thread that drains the samples may run (its own affinity):
// not on the judge's CPU, where the judge waits for the GPU, nor on the
// runners', where the student is timed. Unset: the caller's CPUs.
void pm_drain_cpus(const cpu_set_t *set);

// Moves the calling thread onto those CPUs (when set): the threads that
// call pm_open and pm_begin, so that whatever CUPTI and the driver start
// from them inherits CPUs it can move between, not the judge's one pinned
// CPU, where any other busy thread would hold it up.
void pm_enter_drain_cpus(void);

// Ends an open window without reading it and releases CUPTI's objects.
void pm_close(void);

// The sampling interval. On the H200 (2026-11-28, tools/probe-pmwitness.sh)
// 100 us and 1 ms gave the same sums for a cuBLAS GEMM (to the cycle) with
// no sample lost; 20 us lost samples and read 0 tensor cycles, and CUPTI
// evaluates a sample in 5-11 us of host time, so 50,000 samples a second
// cannot be decoded as they come. An interval is also the judge's margin
// around the student's calls.
enum { PM_INTERVAL_NS = 100000 };
