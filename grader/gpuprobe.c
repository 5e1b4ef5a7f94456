/* The GPUs as the driver sees them (gpuprobe.h). */
#define _GNU_SOURCE
#include "gpuprobe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/util.h"

int gpu_profiling_admin_only(const char *params) {
    FILE *f = fopen(params, "r");
    if (!f) return -1;
    char line[256];
    int found = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "RmProfilingAdminOnly:", 21)) found = atoi(line + 21) != 0;
    fclose(f);
    return found;
}

typedef int (*cuInit_t)(unsigned);
typedef int (*cuDriverGetVersion_t)(int *);
typedef int (*cuDeviceGetCount_t)(int *);
typedef int (*cuDeviceGet_t)(int *, int);
typedef int (*cuDeviceGetName_t)(char *, int, int);
typedef int (*cuDeviceGetAttribute_t)(int *, int, int);
typedef int (*cuGetErrorString_t)(int, const char **);
typedef int (*cuDeviceGetUuid_t)(unsigned char *, int); /* CUuuid: 16 bytes */

/* CUdevice_attribute values from cuda.h (stable ABI). */
enum { ATTR_CLOCK_RATE = 13, ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 };

static void probe_driver(GpuInfo *g);

/* A GPU found is kept for the process (the app grades each save: cuInit
 * costs a tenth of a second each time); none found is looked for again. */
void gpu_probe(GpuInfo *g) {
    static GpuInfo found;
    memset(g, 0, sizeof *g);
    const char *forced = getenv("GPUCOURSE_NO_GPU");
    if (forced && *forced && strcmp(forced, "0")) {
        snprintf(g->why, sizeof g->why, "GPUCOURSE_NO_GPU is set");
        return;
    }
    const char *fake = getenv("GPUCOURSE_FAKE_GPUS");
    if (fake && *fake) {
        g->driver = true;
        snprintf(g->name, sizeof g->name, "fake GPU (GPUCOURSE_FAKE_GPUS)");
        g->cc_major = 9;
        char *list = xstrdup(fake), *save = NULL;
        for (char *id = strtok_r(list, ", ", &save); id && g->count < GPU_MAX; id = strtok_r(NULL, ", ", &save))
            snprintf(g->uuids[g->count++], sizeof g->uuids[0], "%s", id);
        free(list);
        if (g->count == 0) snprintf(g->why, sizeof g->why, "GPUCOURSE_FAKE_GPUS names no GPU");
        return;
    }
    if (found.count > 0) {
        *g = found;
        return;
    }
    probe_driver(g);
    if (g->count > 0) found = *g;
}

static void probe_driver(GpuInfo *g) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(g->why, sizeof g->why, "no NVIDIA driver (libcuda.so.1 not found)");
        return;
    }
    cuInit_t init = (cuInit_t)dlsym(lib, "cuInit");
    cuDriverGetVersion_t version = (cuDriverGetVersion_t)dlsym(lib, "cuDriverGetVersion");
    cuDeviceGetCount_t count = (cuDeviceGetCount_t)dlsym(lib, "cuDeviceGetCount");
    cuDeviceGet_t get = (cuDeviceGet_t)dlsym(lib, "cuDeviceGet");
    cuDeviceGetName_t name = (cuDeviceGetName_t)dlsym(lib, "cuDeviceGetName");
    cuDeviceGetAttribute_t attr = (cuDeviceGetAttribute_t)dlsym(lib, "cuDeviceGetAttribute");
    cuGetErrorString_t errstr = (cuGetErrorString_t)dlsym(lib, "cuGetErrorString");
    if (!init || !version || !count || !get || !name || !attr) {
        snprintf(g->why, sizeof g->why, "libcuda.so.1 lacks the driver API");
        return;
    }
    version(&g->driver_version);
    int rc = init(0);
    if (rc != 0) {
        const char *msg = NULL;
        if (errstr) errstr(rc, &msg);
        snprintf(g->why, sizeof g->why, "the driver found no usable GPU (%s)", msg ? msg : "cuInit failed");
        g->driver = rc == 100; /* CUDA_ERROR_NO_DEVICE: the driver itself is fine */
        return;
    }
    g->driver = true;
    if (count(&g->count) != 0 || g->count == 0) {
        g->count = 0;
        snprintf(g->why, sizeof g->why, "the driver sees no CUDA device");
        return;
    }
    if (g->count > GPU_MAX) g->count = GPU_MAX;
    int dev;
    get(&dev, 0);
    name(g->name, sizeof g->name, dev);
    attr(&g->cc_major, ATTR_CC_MAJOR, dev);
    attr(&g->cc_minor, ATTR_CC_MINOR, dev);
    attr(&g->sm_count, ATTR_SM_COUNT, dev);
    int khz = 0;
    attr(&khz, ATTR_CLOCK_RATE, dev);
    g->clock_mhz = khz / 1000;
    /* each one's UUID, as nvidia-smi writes it: what names a GPU to every process and user */
    cuDeviceGetUuid_t uuid = (cuDeviceGetUuid_t)dlsym(lib, "cuDeviceGetUuid_v2");
    if (!uuid) uuid = (cuDeviceGetUuid_t)dlsym(lib, "cuDeviceGetUuid");
    for (int i = 0; i < g->count; i++) {
        unsigned char u[16];
        int each = dev;
        if (get(&each, i) == 0 && uuid && uuid(u, each) == 0)
            snprintf(g->uuids[i], sizeof g->uuids[i],
                     "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                     u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        else snprintf(g->uuids[i], sizeof g->uuids[i], "%.40s-%d", g->name, i); /* an old driver: the name and the index */
    }
    /* the library stays loaded: unloading the driver mid-process is not worth it */
}

char *gpu_visible_env(const GpuInfo *g, const char *uuid) {
    if (g->count <= 1 || !uuid || !*uuid) return NULL;
    return xprintf("CUDA_VISIBLE_DEVICES=%s", uuid);
}
