/* The CUDA toolchain as gpucourse uses it: where nvcc is, the one place for
 * nvcc flags, the compiler's box, and the build cache of harness programs
 * and reference libraries. The GPUs themselves are gpuprobe.h's. */
#ifndef GPUCOURSE_TOOLCHAIN_H
#define GPUCOURSE_TOOLCHAIN_H

#include "../src/course.h"
#include "../src/proc.h"
#include "gpuprobe.h"

#include <stdint.h>

typedef struct {
    char *nvcc;        /* full path, or NULL when not found */
    char *cuda_home;   /* directory above nvcc's bin/ */
    char *version;     /* "13.0.88" or NULL */
} Toolchain;

/* Finds nvcc: GPUCOURSE_NVCC, PATH, CUDA_HOME/bin, /usr/local/cuda/bin.
 * Returns -1 with a message that says how to fix it when none is found. */
int toolchain_find(Toolchain *t);
void toolchain_free(Toolchain *t);
/* Whether the toolkit is major.minor or later: 1 or 0, -1 when its version
 * is unknown. ex45's baseline needs 12.9 (TOOLKIT_FP8_SCALES_*); the
 * judge's witness, CUPTI's PM sampling, 12.6 (TOOLKIT_PM_SAMPLING_*). */
int toolchain_at_least(const Toolchain *t, int major, int minor);
enum { TOOLKIT_FP8_SCALES_MAJOR = 12, TOOLKIT_FP8_SCALES_MINOR = 9 };
enum { TOOLKIT_PM_SAMPLING_MAJOR = 12, TOOLKIT_PM_SAMPLING_MINOR = 6 };

/* What an nvcc run builds: a shared library (the student's, a reference),
 * the judge of a kind (harness/main.cu), or the student's runner of a kind
 * (harness/runner.cu without the vendor library); or one object of either
 * of the last two (nvcc -c, with their flags): the harness's files that are
 * the same for every kind, built once and linked into each kind's judge and
 * runner (a source ending in .o is linked as it is). */
typedef enum {
    BUILD_SHARED_LIB, BUILD_HARNESS, BUILD_RUNNER, BUILD_HARNESS_OBJECT, BUILD_RUNNER_OBJECT,
    BUILD_PREPROCESSED /* nvcc -E: the source as the compiler read it (toolchain_own_text) */
} BuildTarget;

/* The bounds of every nvcc run. Time: COMPILE_TIMEOUT_S unless the caller
 * gives another (grade --timeout S bounds the student's file). Memory: the
 * address space of nvcc and of each program it starts (cudafe++, cicc,
 * ptxas, cc1plus); the biggest course build (a harness kind with CUB) needs
 * about 0.75 GiB, a student file full of Thrust and CUB about 1 GiB, and an
 * #include of /dev/zero stops at the limit within seconds. */
enum { COMPILE_TIMEOUT_S = 300 };
#define COMPILE_MEMORY_LIMIT ((size_t)2 << 30)

/* Runs nvcc. sources is NULL-terminated; timeout_s 0 means COMPILE_TIMEOUT_S.
 * nvcc hands its steps to sh as command lines that hold the sources' paths
 * (also their real paths), and a '$', '`' or '"' in one breaks them: so it
 * runs in a fresh directory of plain names, with links to the sources'
 * directories and, for each source, a one-line file that includes it. That
 * directory is in tmp/ beside `output` (the build directory; TMPDIR or /tmp
 * when that path is not plain), and is nvcc's TMPDIR too: its intermediate
 * files go with it, and a directory that a gpucourse killed while compiling
 * left is removed by the next compile. `output` is replaced, whole, only
 * when nvcc succeeded. nvcc's output (errors, warnings) is in res. Returns
 * -1 with error set, and res empty, when nvcc could not be started, when
 * `output` cannot be written (checked before nvcc runs), or when PATH is
 * unset or empty or TMPDIR is relative: setup errors, not the code's. */
int toolchain_compile(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                      const char *include_dir, double timeout_s, ProcResult *res,
                      void (*on_output)(const char *, size_t, void *), void *ctx);

/* The compiler's box. Every nvcc run (toolchain_compile) and every program
 * it starts read only the toolkit, the system's programs, libraries and
 * headers (/usr/bin, /usr/lib*, /usr/libexec, /usr/include,
 * /usr/local/include, /bin, /lib*, /etc/ld.so.cache; the same below the
 * host compiler's prefix when it lives elsewhere; CUDA_HOME too, for an
 * nvcc that is a wrapper of another toolkit's), the directories of the
 * sources (the student's exercise directory) and include_dir, and write
 * only nvcc's own directory: an #include of anything else fails with
 * "Permission denied". Landlock does it; where the kernel has none, nvcc
 * runs unconfined. Returns whether it is confined on this machine; when
 * not, *why (may be NULL) says why, for the grade's note. */
bool toolchain_confined(char *why, size_t size);

/* The path of an #include that the box refused, from nvcc's output (the
 * host preprocessor's "FILE:LINE:COL: fatal error: PATH: Permission
 * denied"), malloc'd; NULL when there is none. */
char *toolchain_refused_include(const char *log);
/* The compiler's log of source as a student reads it: nvcc names files
 * through links in its directory (exercises/ex02_flip_lr.cu(46): ...);
 * each such path made absolute, so that it opens from any directory
 * (malloc'd). The log as nvcc wrote it is what the checks read. */
char *toolchain_log_paths(const char *log, const char *source);

/* What the compiler read of a BUILD_PREPROCESSED output that came from
 * outside the toolkit and the system's headers: the source's own text and
 * every file it included from elsewhere (its own directory, or beyond
 * where the compiler ran unconfined), for comparing sources as compiled.
 * malloc'd. */
char *toolchain_own_text(const Toolchain *t, const char *preprocessed);

/* Whether nvcc's output says that it or a program it started ran out of
 * memory (COMPILE_MEMORY_LIMIT). */
bool toolchain_out_of_memory(const char *log);

/* Whether nvcc's output says that a file it or a program it started wrote
 * found the disk full (ENOSPC) or the user's quota spent (EDQUOT): the
 * machine's fault, never the student's compile error. */
bool toolchain_disk_full(const char *log);

/* Builds `output` from sources unless a record of the user's says the same
 * sources and flags built it already, and that output is the one it wrote
 * (libcache_part_built: the record, in the user's cache directory, names
 * the output's hash; nothing beside the output is trusted, since a build
 * directory may come from a repository). Returns 0 when it is up to date,
 * -1 with error set when it fails: *log is the compiler output when nvcc ran
 * and failed (the error says why: timed out, out of memory, interrupted),
 * NULL when it could not run (a setup error). */
int toolchain_build_cached(const Toolchain *t, BuildTarget target, const char *const *sources,
                           const char *output, const char *include_dir, char **log);

/* Whether output is built from these sources as toolchain_build_cached
 * would build it now (its record matches), without building anything. */
bool toolchain_is_built(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                        const char *include_dir);

/* What goes into a build, as one number (a digest, util.h's digest_bytes): the compiler and its version, the
 * flags, the sources' names and contents, include_dir's headers and the
 * judge's parts (judge/NAME.cu, which harness/main.cu includes), the
 * flags nvcc reads from the environment (NVCC_PREPEND_FLAGS,
 * NVCC_APPEND_FLAGS). The build records hold it. */
uint64_t toolchain_build_key(const Toolchain *t, BuildTarget target, const char *const *sources,
                             const char *include_dir);

/* The toolkit's CUPTI library (harness/counters.cu loads it), malloc'd; NULL when missing. */
char *toolchain_cupti(const Toolchain *t);

/* "nvcc" -> full path of a CUDA tool (nvcc's directory first, then PATH). */
char *toolchain_tool(const Toolchain *t, const char *name);

/* cuobjdump ARGS FILE, where FILE may be a student's library (its bytes
 * are theirs, and cuobjdump parses them): in the compiler's box, reading
 * the system's programs and libraries, the toolkit, the directory of the
 * cuobjdump found (nvdisasm beside it) and FILE alone; writing only into
 * out_dir (its working directory; NULL: nowhere) and a directory of its own
 * for its temporary files (TMPDIR: -sass hands nvdisasm the cubins there,
 * never in a shared /tmp), removed after. 0 with *res as proc_run's; -1
 * with error set when cuobjdump is not found or cannot start. */
int toolchain_cuobjdump(const Toolchain *t, const char *const *args, const char *file, const char *out_dir,
                        int timeout_s, size_t capture_limit, ProcResult *res);

/* The machine code of a compiled file (cuobjdump -sass) in *sass. Returns
 * -1 with error set saying why not: cuobjdump is missing, failed, did not
 * finish in time, or was interrupted (proc_take_interrupted() says so);
 * SASS_TOO_LARGE when the text is over the limit (the file's doing). */
enum { SASS_TOO_LARGE = -2 };
int toolchain_sass(const Toolchain *t, const char *file, char **sass);

#endif
