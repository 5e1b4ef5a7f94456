/* What ptxas says of each kernel it compiled (nvcc --resource-usage, the
 * one place for nvcc flags adds it to every library): registers, spills,
 * shared memory, stack. On every result card, and beside the counters in
 * a diagnosis; no GPU needed. */
#ifndef GPUCOURSE_KERNELS_H
#define GPUCOURSE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char name[96];        /* readable: "sgemm_smem", "ns::tile<128>" */
    int registers, barriers;
    long stack, spill_stores, spill_loads, shared; /* bytes; shared: static __shared__ only */
    char serialized[8]; /* "C7514": ptxas made this kernel's wgmma wait for one another (it says so
                           as an info line, which the log shown leaves out); "" when it did not */
} KernelInfo;

enum { MAX_KERNELS = 16 };

/* Reads ptxas's "info" lines out of nvcc's output into out (at most max).
 * Returns the number of kernels; a line it cannot read is skipped. */
int kernels_parse(const char *log, KernelInfo *out, int max);

/* nvcc's output without ptxas's info lines (warnings and errors stay), malloc'd. */
char *kernels_strip_log(const char *log);

/* "sgemm_smem: 40 registers, 8192 B shared, no spills" (and ", WGMMA SERIALIZED (ptxas
 * C7514)" where ptxas serialized the kernel's wgmma) */
void kernel_text(const KernelInfo *k, char *buf, size_t size);

/* A mangled C++ name made readable enough for a card ("_ZN2ns5spillEPfi" ->
 * "ns::spill"): the names, and template arguments that are plain integers. */
void kernel_name(const char *mangled, char *buf, size_t size);

#endif
