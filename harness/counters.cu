// CUPTI's range profiler around a counted call, and the host half that reads
// its record in the judge (counters.h). CUPTI is reached
// through dlopen so that runners of exercises without counters never load
// it, and a toolkit without it fails only the exercises that need it.
#include "counters.h"

#if !__has_include(<cupti_range_profiler.h>)
// A toolkit older than CUDA 12.8 has no range profiler: no counters, and
// the exercises that need them say why instead of passing.
#include <stdio.h>
static bool no_range_profiler(char *why, size_t why_size) {
    snprintf(why, why_size, "this CUDA Toolkit's CUPTI has no range profiler (CUDA 12.8 or later has it)");
    return false;
}
bool counters_open(const char *, char *why, size_t why_size) { return no_range_profiler(why, why_size); }
int counters_count(void) { return 0; }
int counters_passes(void) { return 0; }
bool counters_collect(void (*)(void *), void (*)(void *), void *, double *, char *why, size_t why_size) {
    return no_range_profiler(why, why_size);
}
void counters_close(void) {}
bool counters_pause(char *, size_t) { return true; }
bool counters_resume(char *why, size_t why_size) { return no_range_profiler(why, why_size); }
bool counters_record(const void **, size_t *) { return false; }
const void *counters_table(size_t *bytes) {
    *bytes = 0;
    return NULL;
}
bool counters_reader_open(const char *, int, char *why, size_t why_size) { return no_range_profiler(why, why_size); }
int counters_record_ranges(const void *, size_t, char *why, size_t why_size) {
    return no_range_profiler(why, why_size) ? 0 : -1;
}
bool counters_record_values(const void *, size_t, int, double *, char *why, size_t why_size) {
    return no_range_profiler(why, why_size);
}
#else
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <string>
#include <vector>

// The CUPTI functions used here, resolved from the library by name.
#define CUPTI_FUNCTIONS(X)                                                                               \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize)                      \
    X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerHostInitialize)      \
    X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics)                                \
    X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage)                            \
    X(cuptiProfilerHostGetNumOfPasses) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)                                 \
    X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig)                       \
    X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerPushRange)                  \
    X(cuptiRangeProfilerPopRange) X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)

// On a page of its own, made read-only once resolved: a student's library
// in the same process that swaps an entry (the decode, to forge the
// record) faults instead, and the runner's syscall filter refuses to make
// the page writable again, unmap it, map over it or move it
// (counters_table, SandboxSpec.guarded). The judge, not this process,
// evaluates the record (counters_record_values).
struct Api {
#define DECLARE(name) decltype(&::name) name;
    CUPTI_FUNCTIONS(DECLARE)
#undef DECLARE
};
enum { API_PAGE = 4096 };
static_assert(sizeof(Api) <= API_PAGE, "the CUPTI table fits one page");
alignas(API_PAGE) static union {
    Api api;
    char page[API_PAGE];
} table;
#define api table.api
static bool table_sealed;  // made read-only (counters_table)

static void *library;
static bool initialized;
static CUpti_Profiler_Host_Object *host;
static CUpti_RangeProfiler_Object *profiler;
static std::vector<std::string> names;
static std::vector<const char *> name_ptrs;
static std::vector<uint8_t> config, counter_data;
static int passes;

__global__ void counters_empty_kernel(void) {}

static void warm_up(void *) {
    counters_empty_kernel<<<1, 32>>>();
    cudaDeviceSynchronize();
}

// "what: CUPTI's words", with the one cause a person can fix spelled out.
static bool failed(CUptiResult r, const char *what, char *why, size_t why_size) {
    const char *text = NULL;
    if (api.cuptiGetResultString) api.cuptiGetResultString(r, &text);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        snprintf(why, why_size,
                 "%s: the driver lets only administrators read the GPU's counters "
                 "(NVreg_RestrictProfilingToAdminUsers=1; gpucourse doctor says how to allow it)",
                 what);
    else snprintf(why, why_size, "%s: %s (CUPTI error %d)", what, text ? text : "unknown error", (int)r);
    return false;
}

#define CALL(fn, params, what)                                              \
    do {                                                                    \
        CUptiResult r_ = api.fn(&params);                                   \
        if (r_ != CUPTI_SUCCESS) return failed(r_, what, why, why_size);    \
    } while (0)

static bool load(char *why, size_t why_size) {
    if (library) return true;
    // the toolkit's lib64 is on the runner's run path (grader/toolchain.c)
    const char *candidates[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    for (const char *c : candidates)
        if ((library = dlopen(c, RTLD_NOW | RTLD_LOCAL))) break;
    if (!library) {
        snprintf(why, why_size, "CUPTI (libcupti.so, part of the CUDA Toolkit) cannot be loaded: %s", dlerror());
        return false;
    }
#define RESOLVE(name)                                                                        \
    if (!(api.name = (decltype(api.name))dlsym(library, #name))) {                           \
        snprintf(why, why_size, "this CUPTI has no %s: the toolkit is older than 12.8", #name); \
        return false;                                                                        \
    }
    CUPTI_FUNCTIONS(RESOLVE)
#undef RESOLVE
    table_sealed = mprotect(&table, sizeof table, PROT_READ) == 0;
    return true;
}

const void *counters_table(size_t *bytes) {
    *bytes = table_sealed ? sizeof table : 0;
    return table_sealed ? &table : NULL;
}

// The counter data of one range, for the profiler object just enabled.
static bool size_counter_data(char *why, size_t why_size) {
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = profiler;
    ds.pMetricNames = name_ptrs.data();
    ds.numMetrics = name_ptrs.size();
    ds.maxNumOfRanges = 1;
    ds.maxNumRangeTreeNodes = 1;
    CALL(cuptiRangeProfilerGetCounterDataSize, ds, "sizing the counter data");
    counter_data.assign(ds.counterDataSize, 0);
    return true;
}

bool counters_open(const char *metrics, char *why, size_t why_size) {
    if (!load(why, why_size)) return false;
    names.clear();
    for (const char *s = metrics; *s;) {
        size_t n = strcspn(s, ",");
        if (n) names.emplace_back(s, n);
        s += n + (s[n] == ',');
    }
    if (names.empty() || names.size() > MAX_COUNTERS) {
        snprintf(why, why_size, "between 1 and %d counters, not %zu", (int)MAX_COUNTERS, names.size());
        return false;
    }
    name_ptrs.clear();
    for (auto &n : names) name_ptrs.push_back(n.c_str());

    CUcontext ctx = NULL;
    CUdevice dev = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || cuCtxGetDevice(&dev) != CUDA_SUCCESS) {
        snprintf(why, why_size, "no CUDA context to profile");
        return false;
    }
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CALL(cuptiProfilerInitialize, init, "starting the profiler");
    initialized = true;
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)dev;
    CALL(cuptiDeviceGetChipName, chip, "naming the GPU's chip");
    CUpti_Profiler_GetCounterAvailability_Params avail = {CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.ctx = ctx;
    CALL(cuptiProfilerGetCounterAvailability, avail, "asking which counters the GPU has");
    std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = image.data();
    CALL(cuptiProfilerGetCounterAvailability, avail, "asking which counters the GPU has");

    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.pChipName;
    hi.pCounterAvailabilityImage = image.data();
    CALL(cuptiProfilerHostInitialize, hi, "preparing the counters' configuration");
    host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host;
    add.ppMetricNames = name_ptrs.data();
    add.numMetrics = name_ptrs.size();
    std::string what = "configuring the counters " + std::string(metrics) + " on " + chip.pChipName;
    CALL(cuptiProfilerHostConfigAddMetrics, add, what.c_str());
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = host;
    CALL(cuptiProfilerHostGetConfigImageSize, size, "sizing the configuration");
    config.assign(size.configImageSize, 0);
    CUpti_Profiler_Host_GetConfigImage_Params get = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    get.pHostObject = host;
    get.configImageSize = config.size();
    get.pConfigImage = config.data();
    CALL(cuptiProfilerHostGetConfigImage, get, "building the configuration");
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    CALL(cuptiProfilerHostGetNumOfPasses, np, "counting the passes");
    passes = (int)np.numOfPasses;

    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CALL(cuptiRangeProfilerEnable, en, "enabling the range profiler");
    profiler = en.pRangeProfilerObject;
    if (!size_counter_data(why, why_size)) return false;
    // The first collection opens what the profiler needs from the driver
    // (device files for writing, among others): done here, before the
    // runner's syscall filter refuses such opens, every later one works.
    double unused[MAX_COUNTERS];
    return counters_collect(warm_up, NULL, NULL, unused, why, why_size);
}

int counters_count(void) { return (int)names.size(); }
int counters_passes(void) { return passes; }

bool counters_collect(void (*work)(void *), void (*before_replay)(void *), void *ctx, double *values, char *why,
                      size_t why_size) {
    if (!profiler) {
        snprintf(why, why_size, "the counters were not opened");
        return false;
    }
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.pRangeProfilerObject = profiler;
    ci.counterDataSize = counter_data.size();
    ci.pCounterData = counter_data.data();
    CALL(cuptiRangeProfilerCounterDataImageInitialize, ci, "initializing the counter data");
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = profiler;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = counter_data.size();
    sc.pCounterDataImage = counter_data.data();
    sc.range = CUPTI_UserRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = 1;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CALL(cuptiRangeProfilerSetConfig, sc, "configuring the range profiler");
    for (int pass = 0;; pass++) {
        if (pass > 0 && before_replay) before_replay(ctx);
        CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = profiler;
        CALL(cuptiRangeProfilerStart, st, "starting a collection");
        CUpti_RangeProfiler_PushRange_Params push = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        push.pRangeProfilerObject = profiler;
        push.pRangeName = "call";
        CALL(cuptiRangeProfilerPushRange, push, "opening the range");
        work(ctx);
        CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        pop.pRangeProfilerObject = profiler;
        CALL(cuptiRangeProfilerPopRange, pop, "closing the range");
        CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        stop.pRangeProfilerObject = profiler;
        CALL(cuptiRangeProfilerStop, stop, "ending a collection");
        if (stop.isAllPassSubmitted) break;
        if (pass > 2 * passes + 2) {
            snprintf(why, why_size, "the profiler asked for more than %d passes", passes);
            return false;
        }
    }
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = profiler;
    CALL(cuptiRangeProfilerDecodeData, dd, "decoding the counters");
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    CALL(cuptiRangeProfilerGetCounterDataInfo, info, "reading the counter data");
    if (info.numTotalRanges != 1 || dd.numOfRangeDropped) {
        snprintf(why, why_size, "the profiler recorded %zu ranges (%zu dropped), not the one call", info.numTotalRanges,
                 dd.numOfRangeDropped);
        return false;
    }
    if (!values) return true;  // the judge reads the record itself (counters_record)
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = host;
    ev.pCounterDataImage = counter_data.data();
    ev.counterDataImageSize = counter_data.size();
    ev.rangeIndex = 0;
    ev.ppMetricNames = name_ptrs.data();
    ev.numMetrics = name_ptrs.size();
    ev.pMetricValues = values;
    CALL(cuptiProfilerHostEvaluateToGpuValues, ev, "evaluating the counters");
    return true;
}

// ---------------------------------------------------------------- between counted calls

// The profiler enabled costs every call of the process about 0.55 ms on the
// H100 (counters saved and restored at each switch between the judge's and
// the runner's contexts: ex33's reference measured 0.27 of itself), so it is
// enabled only around a counted call. Enabling again takes microseconds and
// opens nothing (the first collection opened what it needs, before the
// syscall filter); disabling about 10 ms.
bool counters_pause(char *why, size_t why_size) {
    if (!profiler) return true;
    CUpti_RangeProfiler_Disable_Params d = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = profiler;
    profiler = NULL;
    CALL(cuptiRangeProfilerDisable, d, "pausing the profiler");
    return true;
}

bool counters_resume(char *why, size_t why_size) {
    if (profiler) return true;
    if (!host) {
        snprintf(why, why_size, "the counters were not opened");
        return false;
    }
    CUcontext ctx = NULL;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
        snprintf(why, why_size, "no CUDA context to profile");
        return false;
    }
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CALL(cuptiRangeProfilerEnable, en, "enabling the range profiler");
    profiler = en.pRangeProfilerObject;
    return size_counter_data(why, why_size);
}

bool counters_record(const void **record, size_t *size) {
    if (counter_data.empty()) return false;
    *record = counter_data.data();
    *size = counter_data.size();
    return true;
}

// ---------------------------------------------------------------- reading a record (the judge)

static CUpti_Profiler_Host_Object *reader;
static std::vector<std::string> reader_names;
static std::vector<const char *> reader_ptrs;

bool counters_reader_open(const char *metrics, int device, char *why, size_t why_size) {
    if (reader) return true;
    if (!load(why, why_size)) return false;
    for (const char *s = metrics; *s;) {
        size_t n = strcspn(s, ",");
        if (n) reader_names.emplace_back(s, n);
        s += n + (s[n] == ',');
    }
    for (auto &n : reader_names) reader_ptrs.push_back(n.c_str());
    if (reader_names.empty() || reader_names.size() > MAX_COUNTERS) {
        snprintf(why, why_size, "between 1 and %d counters, not %zu", (int)MAX_COUNTERS, reader_names.size());
        return false;
    }
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CALL(cuptiProfilerInitialize, init, "starting the profiler's host side");
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)device;
    CALL(cuptiDeviceGetChipName, chip, "naming the GPU's chip");
    // Host-side only: no counter availability image, which would need a
    // session on the GPU, where the student's runner's profiler may be.
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.pChipName;
    CALL(cuptiProfilerHostInitialize, hi, "preparing to read the counters");
    reader = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = reader;
    add.ppMetricNames = reader_ptrs.data();
    add.numMetrics = reader_ptrs.size();
    CALL(cuptiProfilerHostConfigAddMetrics, add, "naming the counters to read");
    return true;
}

int counters_record_ranges(const void *record, size_t size, char *why, size_t why_size) {
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = (const uint8_t *)record;
    info.counterDataImageSize = size;
    CUptiResult r = api.cuptiRangeProfilerGetCounterDataInfo(&info);
    if (r != CUPTI_SUCCESS) return failed(r, "reading the record of the calls", why, why_size), -1;
    return (int)info.numTotalRanges;
}

bool counters_record_values(const void *record, size_t size, int range, double *values, char *why,
                            size_t why_size) {
    if (!reader) {
        snprintf(why, why_size, "the reader was not opened");
        return false;
    }
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = reader;
    ev.pCounterDataImage = (const uint8_t *)record;
    ev.counterDataImageSize = size;
    ev.rangeIndex = (size_t)range;
    ev.ppMetricNames = reader_ptrs.data();
    ev.numMetrics = reader_ptrs.size();
    ev.pMetricValues = values;
    CALL(cuptiProfilerHostEvaluateToGpuValues, ev, "reading a call's counters");
    return true;
}

void counters_close(void) {
    if (profiler) {
        CUpti_RangeProfiler_Disable_Params d = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        d.pRangeProfilerObject = profiler;
        api.cuptiRangeProfilerDisable(&d);
        profiler = NULL;
    }
    if (host) {
        CUpti_Profiler_Host_Deinitialize_Params d = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        d.pHostObject = host;
        api.cuptiProfilerHostDeinitialize(&d);
        host = NULL;
    }
    if (initialized) {
        CUpti_Profiler_DeInitialize_Params d = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        api.cuptiProfilerDeInitialize(&d);
        initialized = false;
    }
}
#endif
