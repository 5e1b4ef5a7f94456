/* A stand-in for CUPTI's PM sampling (libcupti.so) for tests/pmwitness.sh:
 * the calls harness/pmwitness.cu makes, with a sampler that makes one
 * sample every interval of real time between Start and Stop, and a decoder
 * that behaves as FAKE_PM says:
 *   h200      as the H200 did (2026-11-28): while sampling, a decode hands
 *             over what has come since the last and stops with OTHER, and
 *             takes 2 ms, in which about as many samples come again; after
 *             the stop, END_OF_RECORDS once all is handed over
 *   quiet     the same, but OTHER after the stop too (never END_OF_RECORDS)
 *   gap       a hole of two intervals between samples 29 and 30
 *   overflow  the hardware buffer overflowed
 *   phantom   100000 samples at the first decode, more than the time holds
 *   fullnone  the image full with no sample completed
 * Its image: a header, then nothing (a sample's times follow from its index). */
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT extern "C" __attribute__((visibility("default")))

struct Image {
    uint64_t magic;
    size_t capacity, count, first;
};
static const uint64_t MAGIC = 0x66616b6563757074ull;
static struct {
    uint64_t interval, start, stop;
    size_t delivered; /* samples handed over so far, each index once */
    int decodes;
} sampler;
static int object; /* the sampler and the host object are its address */

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
static const char *scenario(void) {
    const char *s = getenv("FAKE_PM");
    return s ? s : "h200";
}
static bool is(const char *name) { return !strcmp(scenario(), name); }

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s) {
    (void)r;
    *s = "fake CUPTI";
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p) {
    (void)p;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p) {
    p->pChipName = "GH100";
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p) {
    if (!p->pCounterAvailabilityImage) p->counterAvailabilityImageSize = 16;
    else memset(p->pCounterAvailabilityImage, 1, p->counterAvailabilityImageSize);
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p) {
    p->pHostObject = (CUpti_Profiler_Host_Object *)&object;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p) {
    (void)p;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p) {
    (void)p;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p) {
    p->configImageSize = 16;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p) {
    memset(p->pConfigImage, 0, p->configImageSize);
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p) {
    p->numOfPasses = 1;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *p) {
    p->metricType = CUPTI_METRIC_TYPE_COUNTER;
    return CUPTI_SUCCESS;
}
/* every sample holds 100 of each metric */
EXPORT CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p) {
    for (size_t m = 0; m < p->numMetrics; m++) p->pMetricValues[m] = 100;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p) {
    p->pPmSamplingObject = (CUpti_PmSampling_Object *)&object;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p) {
    (void)p;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p) {
    sampler.interval = p->samplingInterval;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p) {
    (void)p;
    sampler.start = now_ns();
    sampler.stop = 0;
    sampler.delivered = 0;
    sampler.decodes = 0;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p) {
    (void)p;
    sampler.stop = now_ns();
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p) {
    p->counterDataSize = sizeof(struct Image) + p->maxSamples * 8;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p) {
    struct Image *im = (struct Image *)p->pCounterData;
    im->magic = MAGIC;
    im->capacity = (p->counterDataSize - sizeof *im) / 8;
    im->count = im->first = 0;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p) {
    struct Image *im = (struct Image *)p->pCounterDataImage;
    if (im->magic != MAGIC) return CUPTI_ERROR_INVALID_PARAMETER;
    sampler.decodes++;
    p->overflow = 0;
    if (is("overflow") && sampler.decodes == 2) {
        p->overflow = 1;
        return CUPTI_SUCCESS;
    }
    if (is("fullnone")) {
        p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
        return CUPTI_SUCCESS;
    }
    struct timespec two_ms = {0, 2000000};
    nanosleep(&two_ms, NULL); /* a decode's own time, in which samples keep coming */
    uint64_t end = sampler.stop ? sampler.stop : now_ns();
    size_t made = (size_t)((end - sampler.start) / sampler.interval);
    if (is("phantom") && sampler.decodes == 1) made = sampler.delivered + 100000;
    if (im->count == 0) im->first = sampler.delivered;
    while (sampler.delivered < made && im->count < im->capacity) {
        sampler.delivered++;
        im->count++;
    }
    if (im->count == im->capacity) p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    else if (sampler.stop && sampler.delivered >= made && !is("quiet"))
        p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    else p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER;
    return CUPTI_SUCCESS;
}
EXPORT CUptiResult cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p) {
    const struct Image *im = (const struct Image *)p->pCounterDataImage;
    p->numTotalSamples = im->capacity;
    p->numPopulatedSamples = p->numCompletedSamples = im->count;
    return CUPTI_SUCCESS;
}
/* sample k of the window lies over [start + k interval, start + (k + 1) interval) */
EXPORT CUptiResult cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p) {
    const struct Image *im = (const struct Image *)p->pCounterDataImage;
    if (p->sampleIndex >= im->count) return CUPTI_ERROR_INVALID_PARAMETER;
    size_t k = im->first + p->sampleIndex;
    if (is("gap") && k >= 30) k += 2; /* two samples' time that none covers */
    p->startTimestamp = sampler.start + k * sampler.interval;
    p->endTimestamp = p->startTimestamp + sampler.interval;
    return CUPTI_SUCCESS;
}
