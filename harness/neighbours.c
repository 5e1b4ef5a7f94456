#define _GNU_SOURCE
#include "neighbours.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The part of NVML's ABI used here (nvml.h, which the toolkit does not
 * ship): a process's compute context and a per-process utilization sample. */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned pid;
    unsigned long long used_memory;
    unsigned gpu_instance, compute_instance;
} NvmlProcessInfo;
typedef struct {
    unsigned pid;
    unsigned long long timestamp;
    unsigned sm, memory, encoder, decoder; /* percent of the sample period */
} NvmlUseSample;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7 };
enum { MAX_PROCESSES = 256 };

static struct {
    nvmlDevice_t device;
    int (*processes)(nvmlDevice_t, unsigned *, NvmlProcessInfo *);
    int (*use)(nvmlDevice_t, NvmlUseSample *, unsigned *, unsigned long long);
    const char *(*error_text)(int);
    int (*minor)(nvmlDevice_t, unsigned *);
    int (*cpu_affinity)(nvmlDevice_t, unsigned, unsigned long *);
    int (*clock)(nvmlDevice_t, int, unsigned *);
} nvml;

static const char *nvml_error(int rc) { return nvml.error_text ? nvml.error_text(rc) : "NVML error"; }

bool neighbours_open(const unsigned char uuid[16], char *why, size_t why_size) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_size, "NVML (libnvidia-ml.so.1, part of the driver) cannot be loaded: %s", dlerror());
        return false;
    }
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*by_uuid)(const char *, nvmlDevice_t *) = (int (*)(const char *, nvmlDevice_t *))dlsym(lib, "nvmlDeviceGetHandleByUUID");
    nvml.error_text = (const char *(*)(int))dlsym(lib, "nvmlErrorString");
    nvml.processes = (int (*)(nvmlDevice_t, unsigned *, NvmlProcessInfo *))dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    nvml.use = (int (*)(nvmlDevice_t, NvmlUseSample *, unsigned *, unsigned long long))dlsym(lib, "nvmlDeviceGetProcessUtilization");
    nvml.minor = (int (*)(nvmlDevice_t, unsigned *))dlsym(lib, "nvmlDeviceGetMinorNumber");
    nvml.cpu_affinity = (int (*)(nvmlDevice_t, unsigned, unsigned long *))dlsym(lib, "nvmlDeviceGetCpuAffinity");
    nvml.clock = (int (*)(nvmlDevice_t, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
    if (!init || !by_uuid || !nvml.processes || !nvml.use) {
        snprintf(why, why_size, "this driver's NVML lacks the calls that list a GPU's processes");
        return false;
    }
    int rc = init();
    if (rc != NVML_SUCCESS) {
        snprintf(why, why_size, "NVML did not start: %s", nvml_error(rc));
        return false;
    }
    char text[48];
    snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", uuid[0],
             uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8], uuid[9], uuid[10], uuid[11],
             uuid[12], uuid[13], uuid[14], uuid[15]);
    rc = by_uuid(text, &nvml.device);
    if (rc != NVML_SUCCESS) {
        snprintf(why, why_size, "NVML does not know %s: %s", text, nvml_error(rc));
        return false;
    }
    return true;
}

int neighbours_contexts(int *pids, int max) {
    static NvmlProcessInfo info[MAX_PROCESSES];
    unsigned n = MAX_PROCESSES;
    if (nvml.processes(nvml.device, &n, info) != NVML_SUCCESS) return -1;
    int k = 0;
    for (unsigned i = 0; i < n && k < max; i++) pids[k++] = (int)info[i].pid;
    return k;
}

unsigned long long neighbours_clock_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (unsigned long long)t.tv_sec * 1000000ull + (unsigned long long)t.tv_nsec / 1000;
}

int neighbours_samples(unsigned long long since_us, GpuUse *use, int max, char *why, size_t why_size) {
    static NvmlUseSample samples[4 * MAX_PROCESSES];
    unsigned n = 4 * MAX_PROCESSES;
    int rc = nvml.use(nvml.device, samples, &n, since_us);
    if (rc == NVML_ERROR_NOT_FOUND) return 0; /* no process used the GPU since then */
    if (rc != NVML_SUCCESS) {
        snprintf(why, why_size, "NVML cannot read the processes' use of the GPU: %s", nvml_error(rc));
        return -1;
    }
    int k = 0;
    for (unsigned i = 0; i < n && k < max; i++) use[k++] = (GpuUse){samples[i].pid, samples[i].sm, samples[i].memory};
    return k;
}

int neighbours_sm_clock_mhz(void) {
    enum { NVML_CLOCK_SM = 1 };
    unsigned mhz = 0;
    if (!nvml.device || !nvml.clock || nvml.clock(nvml.device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS || mhz == 0)
        return -1;
    return (int)mhz;
}

bool neighbours_gpu_place(unsigned *minor, int *cpus, int max, int *ncpus) {
    *ncpus = 0;
    if (!nvml.device || !nvml.minor || nvml.minor(nvml.device, minor) != NVML_SUCCESS) return false;
    enum { WORDS = 64 }; /* 4096 CPUs */
    unsigned long set[WORDS] = {0};
    if (!nvml.cpu_affinity || nvml.cpu_affinity(nvml.device, WORDS, set) != NVML_SUCCESS) return true;
    const int bits = (int)(8 * sizeof set[0]);
    for (int cpu = 0; cpu < WORDS * bits && *ncpus < max; cpu++)
        if (set[cpu / bits] >> (cpu % bits) & 1ul) cpus[(*ncpus)++] = cpu;
    return true;
}
