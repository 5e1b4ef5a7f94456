// The judge's own counters: CUPTI's PM sampling over a window (pmwitness.h).
// CUPTI is reached through dlopen, in the style of counters.cu: a toolkit
// without it fails the witness with a reason, and nothing else.
#include "pmwitness.h"

#if !__has_include(<cupti_pmsampling.h>)
// CUPTI gained PM sampling in CUDA 12.6: an older toolkit has no witness.
#include <stdio.h>
static bool no_pm_sampling(char *why, size_t why_size) {
    snprintf(why, why_size, "this CUDA Toolkit's CUPTI has no PM sampling (CUDA 12.6 or later has it)");
    return false;
}
bool pm_open(int, const char *, char *why, size_t why_size) { return no_pm_sampling(why, why_size); }
int pm_count(void) { return 0; }
bool pm_begin(char *why, size_t why_size) { return no_pm_sampling(why, why_size); }
bool pm_end(const PmSample **, size_t *, char *why, size_t why_size) { return no_pm_sampling(why, why_size); }
void pm_last(struct PmWindow *w) { *w = PmWindow{}; }
void pm_drain_cpus(const cpu_set_t *) {}
void pm_enter_drain_cpus(void) {}
void pm_close(void) {}
#else
#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// The CUPTI functions used here, resolved from the library by name.
#define PM_FUNCTIONS(X)                                                                                    \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName)                           \
    X(cuptiPmSamplingGetCounterAvailability) X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize)                            \
    X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses)                                  \
    X(cuptiProfilerHostGetMetricProperties) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiPmSamplingEnable) \
    X(cuptiPmSamplingDisable) X(cuptiPmSamplingSetConfig) X(cuptiPmSamplingStart) X(cuptiPmSamplingStop)   \
    X(cuptiPmSamplingDecodeData) X(cuptiPmSamplingGetCounterDataSize)                                      \
    X(cuptiPmSamplingCounterDataImageInitialize) X(cuptiPmSamplingGetCounterDataInfo)                      \
    X(cuptiPmSamplingCounterDataGetSampleInfo)

// Read-only once resolved, as in counters.cu (the judge runs no student
// code, but the table is the same kind of thing and kept the same way).
struct PmApi {
#define DECLARE(name) decltype(&::name) name;
    PM_FUNCTIONS(DECLARE)
#undef DECLARE
};
enum { PM_API_PAGE = 4096 };
static_assert(sizeof(PmApi) <= PM_API_PAGE, "the CUPTI table fits one page");
alignas(PM_API_PAGE) static union {
    PmApi api;
    char page[PM_API_PAGE];
} table;
#define api table.api

// Sizes. The hardware buffer takes the samples until the drain thread
// decodes them: every DRAIN_MS that is about 100 samples at 100 us (the
// H200 decodes and evaluates one in about 60 us). 64 MiB (XLA's default).
// The host image holds DECODE_SAMPLES decoded samples at a time (about
// 23 KB each with three metrics on the H200) and is emptied after each
// decode (from a copy of the empty image: initializing it costs
// milliseconds), so its size bounds memory, not the window's length. An
// image that fills loses samples at the boundary (the H200 lost 7 ms of
// them at each full 256-sample image), so it holds five times what a drain
// on time finds.
static const size_t HARDWARE_BUFFER_BYTES = 64u << 20;
enum { DRAIN_MS = 10, DECODE_SAMPLES = 512 };
// pm_end waits this long before stopping, so that the sample that holds the
// last of the work has ended and reached the buffer: 10 intervals.
static const long SETTLE_NS = 10L * PM_INTERVAL_NS;
// A probe of the samples' times builds with 0 to keep the samples across a
// gap (.probe's pmgap.cu: a lost sample, or a jump in CUPTI's conversion
// to host time?); the judge and its tests with 1.
#ifndef PM_GAPS_ARE_FATAL
#define PM_GAPS_ARE_FATAL 1
#endif

static void *library;
static int device_index;
static CUpti_Profiler_Host_Object *host;
static std::vector<std::string> names;
static std::vector<const char *> name_ptrs;
static std::vector<uint8_t> config, image, empty_image, availability;
static cpu_set_t drain_cpus;
static bool drain_cpus_set;
static std::string chip_name;

// One window. The drain thread and pm_end both decode; `lock` keeps every
// call on the sampler object to one thread at a time.
static struct {
    CUpti_PmSampling_Object *sampler;  // non-NULL while the GPU's session is ours
    bool started;
    std::thread *drain;  // a pointer: never destroyed at exit, where a joinable std::thread aborts the process
    std::mutex lock;
    std::condition_variable wake;
    bool stop;                // pm_end asks the drain thread to finish
    std::string error;        // the first failure of a decode; the window's samples are void then
    std::vector<PmSample> samples;
    size_t decoded;             // every sample decoded, kept or not: what bounds the decoding's time
    size_t before_start;        // of them, those that ended before the sampler started
    uint64_t first_before_start_ns, first_before_end_ns;  // the first of those (for the reason)
    uint64_t last_end;
    uint64_t started_ns;  // CLOCK_REALTIME when the sampler started
    double max_gap_ns;
    std::chrono::steady_clock::time_point opened, closing;
} window;
static PmWindow last;

// "what: CUPTI's words", with the causes a person can act on spelled out.
static bool failed(CUptiResult r, const char *what, char *why, size_t why_size) {
    const char *text = NULL;
    if (api.cuptiGetResultString) api.cuptiGetResultString(r, &text);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        snprintf(why, why_size,
                 "%s: the driver lets only administrators read the GPU's counters "
                 "(NVreg_RestrictProfilingToAdminUsers=1; gpucourse doctor says how to allow it)",
                 what);
    else if (r == CUPTI_ERROR_HARDWARE_BUSY)
        snprintf(why, why_size,
                 "%s: another counter session holds the GPU (a range profiler or PM sampler in another "
                 "process, or ncu): %s (CUPTI error %d)",
                 what, text ? text : "hardware busy", (int)r);
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
    const char *candidates[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    for (const char *c : candidates)
        if ((library = dlopen(c, RTLD_NOW | RTLD_LOCAL))) break;
    if (!library) {
        snprintf(why, why_size, "CUPTI (libcupti.so, part of the CUDA Toolkit) cannot be loaded: %s", dlerror());
        return false;
    }
#define RESOLVE(name)                                                                               \
    if (!(api.name = (decltype(api.name))dlsym(library, #name))) {                                  \
        snprintf(why, why_size, "this CUPTI has no %s: PM sampling needs CUDA 12.6 or later", #name); \
        return false;                                                                               \
    }
    PM_FUNCTIONS(RESOLVE)
#undef RESOLVE
    mprotect(&table, sizeof table, PROT_READ);
    return true;
}

// A metric whose per-sample values add up to the window's value: a counter
// (CUPTI's type) summed over its units (".sum").
// The name is checked before CUPTI is loaded, the type after.
static bool sum_named(const char *name, char *why, size_t why_size) {
    size_t n = strlen(name);
    if (n < 4 || strcmp(name + n - 4, ".sum") != 0) {
        snprintf(why, why_size,
                 "%s: the witness sums each metric over its samples, so it takes counts only (NAME.sum); "
                 "a rate, average, maximum or percentage per sample does not add up over time",
                 name);
        return false;
    }
    return true;
}

static bool build_host(char *why, size_t why_size);

static bool summable(const char *name, char *why, size_t why_size) {
    CUpti_Profiler_Host_GetMetricProperties_Params p = {CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    p.pHostObject = host;
    p.pMetricName = name;
    std::string what = std::string("looking up the metric ") + name;
    CALL(cuptiProfilerHostGetMetricProperties, p, what.c_str());
    if (p.metricType != CUPTI_METRIC_TYPE_COUNTER) {
        snprintf(why, why_size, "%s: CUPTI calls it a %s, not a counter: its samples do not add up", name,
                 p.metricType == CUPTI_METRIC_TYPE_RATIO ? "ratio" : "throughput");
        return false;
    }
    return true;
}

bool pm_open(int device, const char *metrics, char *why, size_t why_size) {
    if (host) {
        snprintf(why, why_size, "the witness is open already");
        return false;
    }
    names.clear();
    for (const char *s = metrics; *s;) {
        size_t n = strcspn(s, ",");
        if (n) names.emplace_back(s, n);
        s += n + (s[n] == ',');
    }
    if (names.empty() || names.size() > PM_MAX_METRICS) {
        snprintf(why, why_size, "between 1 and %d metrics, not %zu", (int)PM_MAX_METRICS, names.size());
        return false;
    }
    for (auto &n : names)
        if (!sum_named(n.c_str(), why, why_size)) return false;
    name_ptrs.clear();
    for (auto &n : names) name_ptrs.push_back(n.c_str());
    device_index = device;
    if (!load(why, why_size)) return false;

    if (cuInit(0) != CUDA_SUCCESS) {
        snprintf(why, why_size, "the CUDA driver did not start (cuInit)");
        return false;
    }
    // Initializing twice in one process is allowed (the judge's counters
    // reader does it too); it is never undone here, for the same reason.
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CALL(cuptiProfilerInitialize, init, "starting the profiler");
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)device;
    CALL(cuptiDeviceGetChipName, chip, "naming the GPU's chip");
    // Which counters this GPU has; asked now, before any runner starts a
    // session (the answer is HARDWARE_BUSY while one runs).
    CUpti_PmSampling_GetCounterAvailability_Params avail = {
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.deviceIndex = (size_t)device;
    CALL(cuptiPmSamplingGetCounterAvailability, avail, "asking which counters the GPU can sample");
    availability.assign(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = availability.data();
    CALL(cuptiPmSamplingGetCounterAvailability, avail, "asking which counters the GPU can sample");
    chip_name = chip.pChipName;
    return build_host(why, why_size);
}

// The configuration of the metrics: a host object and its config image,
// built once; every window is configured from them.
static bool build_host(char *why, size_t why_size) {
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip_name.c_str();
    hi.pCounterAvailabilityImage = availability.data();
    CALL(cuptiProfilerHostInitialize, hi, "preparing the sampler's configuration");
    host = hi.pHostObject;
    for (auto &n : names)
        if (!summable(n.c_str(), why, why_size)) return pm_close(), false;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host;
    add.ppMetricNames = name_ptrs.data();
    add.numMetrics = name_ptrs.size();
    std::string what = "configuring the sampled metrics on " + chip_name;
    CUptiResult r = api.cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS) return failed(r, what.c_str(), why, why_size), pm_close(), false;
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = host;
    r = api.cuptiProfilerHostGetConfigImageSize(&size);
    if (r != CUPTI_SUCCESS) return failed(r, "sizing the configuration", why, why_size), pm_close(), false;
    config.assign(size.configImageSize, 0);
    CUpti_Profiler_Host_GetConfigImage_Params get = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    get.pHostObject = host;
    get.configImageSize = config.size();
    get.pConfigImage = config.data();
    r = api.cuptiProfilerHostGetConfigImage(&get);
    if (r != CUPTI_SUCCESS) return failed(r, "building the configuration", why, why_size), pm_close(), false;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = config.size();
    np.pConfigImage = config.data();
    r = api.cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS) return failed(r, "counting the passes", why, why_size), pm_close(), false;
    // Sampling has no replay: what needs a second pass cannot be sampled.
    if (np.numOfPasses != 1) {
        snprintf(why, why_size, "the metrics need %zu passes; PM sampling collects one (sample fewer)",
                 (size_t)np.numOfPasses);
        return pm_close(), false;
    }
    return true;
}

int pm_count(void) { return host ? (int)names.size() : 0; }

// Gives the GPU's counter session back (the window's sampler, started or not).
static void release(void) {
    if (!window.sampler) return;
    if (window.started) {
        CUpti_PmSampling_Stop_Params st = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
        st.pPmSamplingObject = window.sampler;
        api.cuptiPmSamplingStop(&st);
        window.started = false;
    }
    CUpti_PmSampling_Disable_Params d = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    d.pPmSamplingObject = window.sampler;
    api.cuptiPmSamplingDisable(&d);
    window.sampler = NULL;
}

static bool reset_image(char *why, size_t why_size) {
    if (empty_image.size() == image.size()) {
        memcpy(image.data(), empty_image.data(), image.size());
        return true;
    }
    CUpti_PmSampling_CounterDataImage_Initialize_Params ci = {
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.pPmSamplingObject = window.sampler;
    ci.counterDataSize = image.size();
    ci.pCounterData = image.data();
    CALL(cuptiPmSamplingCounterDataImageInitialize, ci, "emptying the decoded samples");
    return true;
}

// More samples than the window's time holds are not the GPU's; the
// reason says where they lay in time, which is what tells them apart.
static bool too_many(double open_ns, char *why, size_t why_size) {
    int n = snprintf(why, why_size, "the sampler returned %zu samples of %.0f us in a window of %.1f ms: not the GPU's",
                     window.decoded, PM_INTERVAL_NS / 1e3, open_ns / 1e6);
    if (window.before_start && n > 0 && (size_t)n < why_size)
        snprintf(why + n, why_size - n, " (%zu ended before the sampler started, the first from %.3f to %.3f ms before)",
                 window.before_start, ((double)window.started_ns - (double)window.first_before_start_ns) / 1e6,
                 ((double)window.started_ns - (double)window.first_before_end_ns) / 1e6);
    if (!window.samples.empty() && n > 0 && (size_t)n < why_size) {
        size_t k = strlen(why);
        snprintf(why + k, why_size - k, "; kept %zu, from %.3f to %.3f ms after the start", window.samples.size(),
                 ((double)window.samples.front().start_ns - (double)window.started_ns) / 1e6,
                 ((double)window.last_end - (double)window.started_ns) / 1e6);
    }
    return false;
}

// Decodes what the hardware buffer holds, keeps each completed sample
// (its times and values) and empties the image; again while the image
// filled up.
// With the lock held. *drained: the decoder reached the end of the records.
static bool decode(bool *drained, char *why, size_t why_size) {
    *drained = false;
    for (int round = 0; round < 100000; round++) {
        CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        dd.pPmSamplingObject = window.sampler;
        dd.pCounterDataImage = image.data();
        dd.counterDataImageSize = image.size();
        CUptiResult r = api.cuptiPmSamplingDecodeData(&dd);
        // CUPTI answers OUT_OF_MEMORY when the hardware buffer overflowed.
        if (r == CUPTI_ERROR_OUT_OF_MEMORY || (r == CUPTI_SUCCESS && dd.overflow)) {
            snprintf(why, why_size,
                     "the sampler's hardware buffer overflowed: samples were lost (%zu MiB, drained every %d ms)",
                     HARDWARE_BUFFER_BYTES >> 20, (int)DRAIN_MS);
            return false;
        }
        if (r != CUPTI_SUCCESS) return failed(r, "decoding the samples", why, why_size);
        CUpti_PmSampling_GetCounterDataInfo_Params info = {CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = image.data();
        info.counterDataImageSize = image.size();
        CALL(cuptiPmSamplingGetCounterDataInfo, info, "counting the decoded samples");
        for (size_t i = 0; i < info.numCompletedSamples; i++) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
                CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
            si.pPmSamplingObject = window.sampler;
            si.pCounterDataImage = image.data();
            si.counterDataImageSize = image.size();
            si.sampleIndex = i;
            CALL(cuptiPmSamplingCounterDataGetSampleInfo, si, "reading a sample's time");
            window.decoded++;
            // CUPTI's first sample reaches back to before the window (once
            // to a fixed time long ago): what ended before the sampler
            // started is not the window's
            if (si.endTimestamp <= window.started_ns) {
                if (!window.before_start++) {
                    window.first_before_start_ns = si.startTimestamp;
                    window.first_before_end_ns = si.endTimestamp;
                }
                continue;
            }
            if (si.endTimestamp < si.startTimestamp) {
                snprintf(why, why_size, "sample %zu ends before it starts", window.samples.size());
                return false;
            }
            // Consecutive samples meet: a step of more than one and a half
            // intervals is a sample that never reached the image, an
            // overlap of more than half of one a sample counted twice.
            if (!window.samples.empty()) {
                double gap = (double)si.startTimestamp - (double)window.last_end;
                if (gap > window.max_gap_ns) window.max_gap_ns = gap;
                if (PM_GAPS_ARE_FATAL && (gap > 1.5 * PM_INTERVAL_NS || gap < -0.5 * PM_INTERVAL_NS)) {
                    snprintf(why, why_size,
                             "the samples are not consecutive: %.1f us from the end of sample %zu to the start "
                             "of the next (the interval is %.1f us): samples were lost",
                             gap / 1e3, window.samples.size() - 1, PM_INTERVAL_NS / 1e3);
                    return false;
                }
            }
            window.last_end = si.endTimestamp;
            PmSample sample = {};
            sample.start_ns = si.startTimestamp;
            sample.end_ns = si.endTimestamp;
            double *values = sample.values;
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            ev.pHostObject = host;
            ev.pCounterDataImage = image.data();
            ev.counterDataImageSize = image.size();
            ev.rangeIndex = i;
            ev.ppMetricNames = name_ptrs.data();
            ev.numMetrics = name_ptrs.size();
            ev.pMetricValues = values;
            CALL(cuptiProfilerHostEvaluateToGpuValues, ev, "evaluating a sample");
            for (size_t m = 0; m < names.size(); m++) {
                if (!isfinite(values[m]) || values[m] < 0) {
                    snprintf(why, why_size, "sample %zu has %g for %s", window.samples.size(), values[m],
                             names[m].c_str());
                    return false;
                }
            }
            window.samples.push_back(sample);
        }
        if (!reset_image(why, why_size)) return false;
        // more samples than the time since the window opened holds: stop
        // at once (decoding them all would take the host seconds)
        double open_ns =
            std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - window.opened).count();
        if ((double)window.decoded > open_ns / PM_INTERVAL_NS + 64) return too_many(open_ns, why, why_size);
        if (dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) {
            *drained = true;
            return true;
        }
        // Full: decode the rest, unless nothing completed (decoding again
        // would find the same). Any other stop: the decoder caught up with
        // the sampler (the H200 says OTHER then, not END_OF_RECORDS, while
        // it samples), and the next drain goes on from there; decoding
        // again at once would follow the sampler for ever.
        if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return true;
        if (info.numCompletedSamples == 0) {
            snprintf(why, why_size, "the decoder filled its image (%d samples) without completing one", (int)DECODE_SAMPLES);
            return false;
        }
    }
    snprintf(why, why_size, "decoding the samples did not come to an end");
    return false;
}

// While the window is open: decode every DRAIN_MS, so that the hardware
// buffer never holds more than a few drains' worth.
static void drain_loop(void) {
    pm_enter_drain_cpus();
    std::unique_lock<std::mutex> hold(window.lock);
    while (!window.stop && window.error.empty()) {
        window.wake.wait_for(hold, std::chrono::milliseconds(DRAIN_MS));
        if (window.stop) break;
        char why[512];
        bool drained;
        if (!decode(&drained, why, sizeof why)) window.error = why;
    }
}

bool pm_begin(char *why, size_t why_size) {
    if (!host) {
        snprintf(why, why_size, "the witness was not opened");
        return false;
    }
    if (window.sampler) {
        snprintf(why, why_size, "a window is open already");
        return false;
    }
    image.clear();  // sized for this window's sampler below
    auto began = std::chrono::steady_clock::now();
    CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    en.deviceIndex = (size_t)device_index;
    CALL(cuptiPmSamplingEnable, en, "taking the GPU's counter session");
    window.sampler = en.pPmSamplingObject;
    CUptiResult r;
    CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    sc.pPmSamplingObject = window.sampler;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.hardwareBufferSize = HARDWARE_BUFFER_BYTES;
    sc.samplingInterval = PM_INTERVAL_NS;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;  // nanoseconds, whatever the clocks do
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;  // overflow is reported
    if ((r = api.cuptiPmSamplingSetConfig(&sc)) != CUPTI_SUCCESS)
        return failed(r, "configuring the sampler", why, why_size), release(), false;
    CUpti_PmSampling_GetCounterDataSize_Params ds = {CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pPmSamplingObject = window.sampler;
    ds.pMetricNames = name_ptrs.data();
    ds.numMetrics = name_ptrs.size();
    ds.maxSamples = DECODE_SAMPLES;
    if ((r = api.cuptiPmSamplingGetCounterDataSize(&ds)) != CUPTI_SUCCESS)
        return failed(r, "sizing the decoded samples", why, why_size), release(), false;
    image.assign(ds.counterDataSize, 0);
    empty_image.clear();
    if (!reset_image(why, why_size)) return release(), false;
    empty_image = image;
    window.samples.clear();
    window.decoded = window.before_start = 0;
    window.last_end = 0;
    window.max_gap_ns = 0;
    window.error.clear();
    window.stop = false;
    CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    st.pPmSamplingObject = window.sampler;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    window.started_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    if ((r = api.cuptiPmSamplingStart(&st)) != CUPTI_SUCCESS)
        return failed(r, "starting the sampler", why, why_size), release(), false;
    window.started = true;
    window.opened = std::chrono::steady_clock::now();
    last.open_ms = std::chrono::duration<double, std::milli>(window.opened - began).count();
    window.drain = new std::thread(drain_loop);
    return true;
}

// Ends the drain thread (the lock is free afterwards).
static void stop_drain(void) {
    if (!window.drain) return;
    {
        std::lock_guard<std::mutex> hold(window.lock);
        window.stop = true;
    }
    window.wake.notify_all();
    window.drain->join();
    delete window.drain;
    window.drain = NULL;
}

bool pm_end(const PmSample **samples, size_t *count, char *why, size_t why_size) {
    if (!window.sampler) {
        snprintf(why, why_size, "no window is open");
        return false;
    }
    window.closing = std::chrono::steady_clock::now();
    struct timespec settle = {0, SETTLE_NS};
    nanosleep(&settle, NULL);
    stop_drain();
    CUpti_PmSampling_Stop_Params st = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    st.pPmSamplingObject = window.sampler;
    CUptiResult r = api.cuptiPmSamplingStop(&st);
    window.started = false;
    if (r != CUPTI_SUCCESS) return failed(r, "stopping the sampler", why, why_size), release(), false;
    if (!window.error.empty()) {
        snprintf(why, why_size, "%s", window.error.c_str());
        return release(), false;
    }
    // After the stop nothing more is sampled: decode until the end of the
    // records, said as such or seen as two decodes a settling time apart
    // that find nothing new (records may still be on their way). Every
    // decode that finds some is progress towards a count the window's time
    // bounds (too_many); AFTER_STOP_ROUNDS bounds the rest.
    enum { AFTER_STOP_ROUNDS = 4096 };
    bool drained = false;
    for (int round = 0, empty = 0; !drained; round++) {
        if (round == AFTER_STOP_ROUNDS) {
            snprintf(why, why_size, "decoding the samples did not come to an end after the sampler stopped");
            return release(), false;
        }
        size_t had = window.decoded;
        if (!decode(&drained, why, why_size)) return release(), false;
        if (window.decoded != had) empty = 0;
        else if (++empty == 2) drained = true;
        else nanosleep(&settle, NULL);
    }
    release();
    last.samples = (long)window.samples.size();
    last.span_ns = window.samples.size() > 1 ? (double)(window.last_end - window.samples[1].start_ns) : 0;
    last.max_gap_ns = window.max_gap_ns;
    last.host_ms = std::chrono::duration<double, std::milli>(window.closing - window.opened).count();
    if (window.samples.empty()) {
        snprintf(why, why_size, "the sampler took no sample in %.3f ms", last.host_ms);
        return false;
    }
    // More samples than the window's time holds are not the GPU's: the
    // first reaches back, the rest are one interval each.
    double host_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - window.opened).count();
    if ((double)(window.samples.size() - 1) * PM_INTERVAL_NS > host_ns + 4.0 * PM_INTERVAL_NS)
        return too_many(host_ns, why, why_size);
    *samples = window.samples.data();
    *count = window.samples.size();
    return true;
}

void pm_last(struct PmWindow *w) { *w = last; }

void pm_drain_cpus(const cpu_set_t *set) {
    drain_cpus = *set;
    drain_cpus_set = true;
}

void pm_enter_drain_cpus(void) {
    if (drain_cpus_set) sched_setaffinity(0, sizeof drain_cpus, &drain_cpus);  // this thread only
}

void pm_close(void) {
    stop_drain();
    release();
    if (host) {
        CUpti_Profiler_Host_Deinitialize_Params d = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        d.pHostObject = host;
        api.cuptiProfilerHostDeinitialize(&d);
        host = NULL;
    }
    names.clear();
    name_ptrs.clear();
}
#endif
