// Hardware counters of a call, for the evidence that a technique ran
// (docs/harness.md, "Evidence from the GPU").
//
// The counters that tell how a kernel did its work (bytes that arrived
// through TMA, tensor-core operations by input type, ldmatrix and cp.async
// instructions, shared-memory bank conflicts) are per context: CUPTI's range
// profiler collects them in the process that owns the context. So the
// student's runner collects them around a few of the student's timed samples
// (counted calls), the judge reads the record of each in its own process, and
// the grader decides on the numbers (grader/evidence.c). CUPTI is loaded with
// dlopen, and only when an exercise asks for counters: every other grading
// runs exactly as before.
#pragma once
#include <stddef.h>

enum { MAX_COUNTERS = 16 };

// Loads CUPTI, checks that the device can be profiled and prepares the
// configuration of `metrics` (comma-separated, e.g.
// "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,smsp__inst_executed_op_ldsm.sum")
// on the current context. false with why (insufficient privileges, a
// metric the GPU does not have, no CUPTI). Call once, with a context.
bool counters_open(const char *metrics, char *why, size_t why_size);
int counters_count(void);          // metrics configured
int counters_passes(void);         // replays one collection needs (1 for the course's sets)

// Collects the counters of whatever `work` does on the GPU. With more than
// one pass, work is called once per pass and `before_replay` before every
// pass but the first. values[counters_count()] (NULL: left in the record,
// counters_record). false with why.
bool counters_collect(void (*work)(void *), void (*before_replay)(void *), void *ctx, double *values, char *why,
                      size_t why_size);

// Counting a call now and then: the profiler disabled between counted
// calls (enabled, it slows every call of the process) and enabled again
// for one. counters_collect with values NULL leaves the call's counts in a
// record (CUPTI's counter data image, valid until the next collection) that
// the judge reads with the functions below, in its own process: the values
// are never computed where the student's code runs. Each false with why.
bool counters_pause(char *why, size_t why_size);
bool counters_resume(char *why, size_t why_size);
bool counters_record(const void **record, size_t *size);

// The page of CUPTI's entry points, read-only once counters_open resolved
// them (NULL before, or without a range profiler): the runner's sandbox
// keeps it so (SandboxSpec.guarded).
const void *counters_table(size_t *bytes);

// The judge's side: the host half of CUPTI only (no session on the GPU),
// configured with the same metrics in the same order as the runner's.
bool counters_reader_open(const char *metrics, int device, char *why, size_t why_size);
// How many ranges a record holds (-1 when it cannot be read).
int counters_record_ranges(const void *record, size_t size, char *why, size_t why_size);
// The values of range `range`, in the order of the metrics.
bool counters_record_values(const void *record, size_t size, int range, double *values, char *why,
                            size_t why_size);

// Releases the profiler (the context runs unprofiled afterwards).
void counters_close(void);
