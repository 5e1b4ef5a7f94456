/* The CUDA toolchain as gpucourse uses it: where nvcc is, the one place for
 * nvcc flags, the build cache of harness programs and reference libraries,
 * and a probe of the driver and GPU that loads libcuda at run time (so
 * gpucourse itself runs, and says what is missing, on a machine without
 * one). */
#ifndef GPUCOURSE_TOOLCHAIN_H
#define GPUCOURSE_TOOLCHAIN_H

#include "../src/course.h"
#include "../src/proc.h"

typedef struct {
    char *nvcc;        /* full path, or NULL when not found */
    char *cuda_home;   /* directory above nvcc's bin/ */
    char *version;     /* "13.0.88" or NULL */
} Toolchain;

/* Finds nvcc: GPUCOURSE_NVCC, PATH, CUDA_HOME/bin, /usr/local/cuda/bin.
 * Returns -1 with a message that says how to fix it when none is found. */
int toolchain_find(Toolchain *t);
void toolchain_free(Toolchain *t);

/* What an nvcc run builds: a shared library (the student's, a reference),
 * the judge of a kind (harness/main.cu), or the student's runner of a kind
 * (harness/runner.cu without the vendor library). */
typedef enum { BUILD_SHARED_LIB, BUILD_HARNESS, BUILD_RUNNER } BuildTarget;

/* Runs nvcc. sources is NULL-terminated. The output (errors, warnings) is in
 * res. Returns -1 only when nvcc could not be started. */
int toolchain_compile(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                      const char *include_dir, ProcResult *res,
                      void (*on_output)(const char *, size_t, void *), void *ctx);

/* Builds `output` from sources unless a stamp beside it says the same
 * sources and flags built it already. Returns 0 when it is up to date,
 * -1 with error set (and *log the compiler output, if any) when it fails. */
int toolchain_build_cached(const Toolchain *t, BuildTarget target, const char *const *sources,
                           const char *output, const char *include_dir, char **log);

/* The GPU as the driver sees it. */
typedef struct {
    bool driver;          /* libcuda could be loaded and initialized */
    int driver_version;   /* 13000 for 13.0 */
    int count;
    char name[128];
    int cc_major, cc_minor, sm_count, clock_mhz;
    char why[256];        /* when !driver or count == 0: what the driver said */
} GpuInfo;

/* Set GPUCOURSE_NO_GPU=1 to take the no-GPU path on a machine with one. */
void gpu_probe(GpuInfo *g);

/* "nvcc" -> full path of a CUDA tool (nvcc's directory first, then PATH). */
char *toolchain_tool(const Toolchain *t, const char *name);

#endif
