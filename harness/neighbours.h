/* Other processes' work on the judge's GPU, as the driver's NVML library
 * sees it. NVML ships with the driver, not the toolkit: it is opened at run
 * time, and a judge without it still runs (and says it could not watch).
 * Which processes count as neighbours is decided in rules.c. */
#ifndef GPUCOURSE_NEIGHBOURS_H
#define GPUCOURSE_NEIGHBOURS_H

#include <stdbool.h>
#include <stddef.h>

#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens NVML for the GPU whose 16-byte UUID this is (cudaDeviceProp.uuid).
 * False, with the reason in why, when it cannot. */
bool neighbours_open(const unsigned char uuid[16], char *why, size_t why_size);

/* The processes that hold a compute context on the GPU, at most max pids;
 * how many, or -1 on error. */
int neighbours_contexts(int *pids, int max);

/* NVML's clock, in which its samples are stamped: microseconds of real time. */
unsigned long long neighbours_clock_us(void);

/* NVML's samples of the processes' use of the GPU since `since_us`, at most
 * max into use; how many, or -1 with why on error. The driver takes one
 * sample every ~200 ms (H100, driver 580), of one process: the one that used
 * the GPU most in that period. */
int neighbours_samples(unsigned long long since_us, GpuUse *use, int max, char *why, size_t why_size);

/* The GPU's SM clock now, in MHz (NVML's current clock, not its highest):
 * -1 when NVML was not opened or cannot say. */
int neighbours_sm_clock_mhz(void);

/* The opened GPU's place on the host: its minor number (/dev/nvidiaN, which
 * no other GPU of the host shares) and up to max of the CPUs nearest it, in
 * order, into cpus (how many; 0 when NVML cannot say). False when NVML was not
 * opened or knows no minor number. */
bool neighbours_gpu_place(unsigned *minor, int *cpus, int max, int *ncpus);

#ifdef __cplusplus
}
#endif

#endif
