/* The GPUs of this machine as the CUDA driver sees them, found without a
 * CUDA context of gpucourse's own (libcuda loaded with dlopen): what a
 * grading locks, points its judge at, and says in doctor. */
#ifndef GPUCOURSE_GPUPROBE_H
#define GPUCOURSE_GPUPROBE_H

#include <stdbool.h>

/* The GPUs as the driver sees them (those CUDA_VISIBLE_DEVICES leaves). */
enum { GPU_MAX = 64 };
typedef struct {
    bool driver;          /* libcuda could be loaded and initialized */
    int driver_version;   /* 13000 for 13.0 */
    int count;            /* how many GPUs; uuids[0..count-1] name them (at most GPU_MAX) */
    char name[128];       /* from here to clock_mhz: device 0's */
    int cc_major, cc_minor, sm_count, clock_mhz;
    char uuids[GPU_MAX][64]; /* "GPU-8c4f...": every GPU's, in the driver's order, the keys of their
                                locks; a grading takes any free one */
    char why[256];        /* when !driver or count == 0: what the driver said */
} GpuInfo;

/* Set GPUCOURSE_NO_GPU=1 to take the no-GPU path on a machine with one.
 * GPUCOURSE_FAKE_GPUS="ID,ID,..." stands in for the driver (tests of how
 * gradings are spread over several GPUs, on a machine with none): those
 * GPUs are "found", and each judge is pointed at one (and finds no GPU). */
void gpu_probe(GpuInfo *g);

/* The environment entry that points a judge (and the runners it starts) at
 * one of g's GPUs, "CUDA_VISIBLE_DEVICES=GPU-...", or NULL when g has one
 * GPU: its judge sees that one as device 0 already. malloc'd. */
char *gpu_visible_env(const GpuInfo *g, const char *uuid);

/* Whether the driver lets only administrators read the GPU's counters
 * (RmProfilingAdminOnly in params, /proc/driver/nvidia/params): 1 yes, 0 no,
 * -1 unknown (no such file, no such line). */
int gpu_profiling_admin_only(const char *params);

#endif
