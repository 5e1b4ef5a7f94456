#define _GNU_SOURCE
#include "toolchain.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one place for nvcc flags. Hopper's sm_90a target is named with
 * -gencode: the -arch=sm_90a shorthand may add an sm_90 pass that rejects
 * wgmma (gpu-facts.md). The runtime is shared so that the harness, the
 * reference and the student's library use one CUDA runtime in one process. */
static const char *const common_flags[] = {
    "-O3", "-std=c++17", "-lineinfo", "-gencode=arch=compute_90a,code=sm_90a", "-cudart", "shared",
    "-Xcompiler", "-Wall",
};
static const char *const shared_lib_flags[] = {"-shared", "-Xcompiler", "-fPIC"};
/* The judge and the runners share device memory through the driver API's
 * virtual-memory calls: -lcuda (the toolkit's stub where no driver is
 * installed; the real libcuda.so.1 at run time). */
static const char *const harness_libs[] = {"-lcuda", "-ldl"};
/* The student's runner holds no vendor library (harness/harness.h). */
static const char *const runner_flags[] = {"-DGPUCOURSE_STUDENT_RUNNER"};

enum { COMPILE_TIMEOUT_S = 300, COMPILE_LOG_LIMIT = 256 * 1024 };

int toolchain_find(Toolchain *t) {
    memset(t, 0, sizeof *t);
    const char *env = getenv("GPUCOURSE_NVCC");
    if (env && *env) {
        if (access(env, X_OK) != 0) return error("GPUCOURSE_NVCC is '%s', which is not an executable", env);
        t->nvcc = xstrdup(env);
    }
    if (!t->nvcc) t->nvcc = proc_find_in_path("nvcc");
    const char *home = getenv("CUDA_HOME");
    if (!t->nvcc && home && *home) {
        char *p = xprintf("%s/bin/nvcc", home);
        if (access(p, X_OK) == 0) t->nvcc = p;
        else free(p);
    }
    if (!t->nvcc && access("/usr/local/cuda/bin/nvcc", X_OK) == 0) t->nvcc = xstrdup("/usr/local/cuda/bin/nvcc");
    if (!t->nvcc)
        return error("nvcc not found: install the CUDA Toolkit (12.8 or later, for sm_90a) and put its bin/ "
                     "on PATH, e.g. export PATH=/usr/local/cuda/bin:$PATH, or set GPUCOURSE_NVCC");
    char *real = realpath(t->nvcc, NULL);
    if (real) {
        char *bin = path_dirname(real);
        t->cuda_home = path_dirname(bin);
        free(bin);
        free(real);
    } else {
        t->cuda_home = xstrdup("/usr/local/cuda");
    }
    /* the version, from the toolkit's version.json or nvcc --version */
    const char *argv[] = {t->nvcc, "--version", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .capture_limit = 8192};
    ProcResult res;
    if (proc_run(&spec, &res) == 0) {
        const char *v = strstr(res.output, ", V");
        if (v) {
            v += 3;
            size_t n = strspn(v, "0123456789.");
            t->version = xstrndup(v, n);
        }
        proc_result_free(&res);
    }
    return 0;
}

void toolchain_free(Toolchain *t) {
    free(t->nvcc);
    free(t->cuda_home);
    free(t->version);
    memset(t, 0, sizeof *t);
}

char *toolchain_tool(const Toolchain *t, const char *name) {
    if (t && t->cuda_home) {
        char *p = xprintf("%s/bin/%s", t->cuda_home, name);
        if (access(p, X_OK) == 0) return p;
        free(p);
    }
    return proc_find_in_path(name);
}

/* The argv of one nvcc run; `hold` keeps the strings it made. */
static const char **compile_argv(const Toolchain *t, BuildTarget target, const char *const *sources,
                                 const char *output, const char *include_dir, StrList *hold) {
    const char **argv = xcalloc(64, sizeof *argv);
    int n = 0;
    argv[n++] = t->nvcc;
    for (size_t i = 0; i < ARRAY_SIZE(common_flags); i++) argv[n++] = common_flags[i];
    if (target == BUILD_SHARED_LIB)
        for (size_t i = 0; i < ARRAY_SIZE(shared_lib_flags); i++) argv[n++] = shared_lib_flags[i];
    if (target == BUILD_RUNNER)
        for (size_t i = 0; i < ARRAY_SIZE(runner_flags); i++) argv[n++] = runner_flags[i];
    /* find libcudart.so where this nvcc's toolkit has it, wherever we run */
    char *rpath = xprintf("-Xlinker=-rpath=%s/lib64", t->cuda_home);
    strlist_add(hold, rpath);
    free(rpath);
    argv[n++] = hold->items[hold->count - 1];
    if (include_dir) {
        char *inc = xprintf("-I%s", include_dir);
        strlist_add(hold, inc);
        free(inc);
        argv[n++] = hold->items[hold->count - 1];
    }
    argv[n++] = "-o";
    argv[n++] = output;
    for (int i = 0; sources[i] && n < 56; i++) argv[n++] = sources[i];
    if (target == BUILD_HARNESS || target == BUILD_RUNNER)
        for (size_t i = 0; i < ARRAY_SIZE(harness_libs); i++) argv[n++] = harness_libs[i];
    argv[n] = NULL;
    return argv;
}

int toolchain_compile(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                      const char *include_dir, ProcResult *res,
                      void (*on_output)(const char *, size_t, void *), void *ctx) {
    StrList hold = {0};
    const char **argv = compile_argv(t, target, sources, output, include_dir, &hold);
    ProcSpec spec = {.argv = argv, .timeout_s = COMPILE_TIMEOUT_S, .capture_limit = COMPILE_LOG_LIMIT,
                     .on_output = on_output, .ctx = ctx};
    int rc = proc_run(&spec, res);
    free(argv);
    strlist_free(&hold);
    return rc;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The headers the harness includes: every .h in its directory, by name. */
static uint64_t hash_headers(uint64_t h, const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return h;
    StrList names = {0};
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 2 && !strcmp(e->d_name + len - 2, ".h")) strlist_add(&names, e->d_name);
    }
    closedir(d);
    qsort(names.items, (size_t)names.count, sizeof *names.items, compare_names);
    for (int i = 0; i < names.count; i++) {
        char *path = path_join(dir, names.items[i]);
        size_t len = 0;
        char *data = read_file(path, &len);
        h = hash_str(h, names.items[i]);
        if (data) h = hash_bytes(h, data, len);
        free(data);
        free(path);
    }
    strlist_free(&names);
    return h;
}

/* What went into a build: the sources' contents, the flags and the compiler. */
static uint64_t build_hash(const Toolchain *t, BuildTarget target, const char *const *sources,
                           const char *include_dir) {
    uint64_t h = hash_str(HASH_INIT, t->nvcc);
    h = hash_str(h, t->version ? t->version : "");
    for (size_t i = 0; i < ARRAY_SIZE(common_flags); i++) h = hash_str(h, common_flags[i]);
    h = hash_bytes(h, &target, sizeof target);
    for (int i = 0; sources[i]; i++) {
        size_t len = 0;
        char *data = read_file(sources[i], &len);
        const char *base = strrchr(sources[i], '/');
        h = hash_str(h, base ? base + 1 : sources[i]); /* not the directory: a cache built elsewhere stays valid */
        if (data) h = hash_bytes(h, data, len);
        free(data);
    }
    if (include_dir) h = hash_headers(h, include_dir);
    return h;
}

int toolchain_build_cached(const Toolchain *t, BuildTarget target, const char *const *sources,
                           const char *output, const char *include_dir, char **log) {
    if (log) *log = NULL;
    char want[32];
    snprintf(want, sizeof want, "%016llx\n", (unsigned long long)build_hash(t, target, sources, include_dir));
    char *stamp_path = xprintf("%s.stamp", output);
    char *have = file_exists(output) ? read_file(stamp_path, NULL) : NULL;
    bool fresh = have && !strcmp(have, want);
    free(have);
    if (fresh) {
        free(stamp_path);
        return 0;
    }
    /* build beside and rename: a concurrent gpucourse never runs half a file */
    char *tmp = xprintf("%s.tmp.%ld", output, (long)getpid());
    ProcResult res;
    int rc = toolchain_compile(t, target, sources, tmp, include_dir, &res, NULL, NULL);
    if (rc == 0) {
        bool ok = res.exited && res.exit_code == 0;
        if (!ok) {
            rc = error("cannot build '%s'%s", output, res.timed_out ? ": nvcc timed out" : "");
            if (log) *log = xstrdup(res.output);
            unlink(tmp);
        } else if (rename(tmp, output) < 0 || write_file_atomic(stamp_path, want, strlen(want)) < 0) {
            rc = error("cannot write '%s'", output);
        }
        proc_result_free(&res);
    }
    free(tmp);
    free(stamp_path);
    return rc;
}

/* ------------------------------------------------------------ GPU probe */

typedef int (*cuInit_t)(unsigned);
typedef int (*cuDriverGetVersion_t)(int *);
typedef int (*cuDeviceGetCount_t)(int *);
typedef int (*cuDeviceGet_t)(int *, int);
typedef int (*cuDeviceGetName_t)(char *, int, int);
typedef int (*cuDeviceGetAttribute_t)(int *, int, int);
typedef int (*cuGetErrorString_t)(int, const char **);

/* CUdevice_attribute values from cuda.h (stable ABI). */
enum { ATTR_CLOCK_RATE = 13, ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 };

void gpu_probe(GpuInfo *g) {
    memset(g, 0, sizeof *g);
    const char *forced = getenv("GPUCOURSE_NO_GPU");
    if (forced && *forced && strcmp(forced, "0")) {
        snprintf(g->why, sizeof g->why, "GPUCOURSE_NO_GPU is set");
        return;
    }
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
    int dev;
    get(&dev, 0);
    name(g->name, sizeof g->name, dev);
    attr(&g->cc_major, ATTR_CC_MAJOR, dev);
    attr(&g->cc_minor, ATTR_CC_MINOR, dev);
    attr(&g->sm_count, ATTR_SM_COUNT, dev);
    int khz = 0;
    attr(&khz, ATTR_CLOCK_RATE, dev);
    g->clock_mhz = khz / 1000;
    /* the library stays loaded: unloading the driver mid-process is not worth it */
}
