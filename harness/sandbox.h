/* Confining the runner before it loads student code, by allow-list:
 * resource limits, no capability, Landlock (which files may be read, written
 * or made) and a seccomp filter (no new processes, no reaching into other
 * processes, no socket, no terminal request, no System V IPC, no code or
 * shared memory from nowhere). Linux only, no root needed. Also the
 * compiler's box (Landlock alone, through sandbox_restrict_files).
 *
 * The runner enters Landlock while it is its only thread
 * (sandbox_restrict_files), initializes CUDA (the driver opens /dev/nvidia*
 * and maps its libraries), calls sandbox_enter, then dlopen()s the student's
 * library, so that its static initializers already run confined. */
#ifndef GPUCOURSE_SANDBOX_H
#define GPUCOURSE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* NULL-terminated, may be NULL. Paths that do not exist are skipped. */
    const char *const *read_paths;  /* read and execute: a directory means its whole hierarchy */
    const char *const *write_paths; /* read and write (not create): device files such as /dev/nvidia0 */
    const char *const *make_paths;  /* directories whose hierarchy may be read, written, and have files and
                                       directories made and removed in it (a compiler's temporary directory);
                                       nothing there may be executed */
    double cpu_seconds;             /* RLIMIT_CPU, rounded up; 0 = leave */
    long long file_size_bytes;      /* RLIMIT_FSIZE; 0 = leave */
    int max_open_files;             /* RLIMIT_NOFILE; 0 = leave */
    int max_threads;                /* threads this process may start beyond those it has (RLIMIT_NPROC
                                       over the user's count before the sandbox); 0 = leave */
    const void *guarded;            /* memory made read-only before sandbox_enter that the process may not
                                       make writable, unmap, map over or move again (the runner's table of
                                       CUPTI's entry points); NULL: none */
    size_t guarded_bytes;
    bool no_new_threads;            /* no thread starts once the filter is on (clone refused): the counting
                                       runner, so that no code of the student's runs beside its decode */
} SandboxSpec;

typedef struct {
    int landlock_abi; /* 0: Landlock not available */
    bool landlock;    /* file access (and TCP, signals, where the ABI has them) restricted */
    bool seccomp;     /* syscall filter installed */
    char note[256];   /* what is not enforced on this machine and why; empty if everything is */
} SandboxStatus;

/* Landlock alone (and no_new_privs), for a process that has no other
 * thread yet: before ABI 8 a Landlock domain binds only the calling thread
 * and the threads it starts later, so the runner calls this before CUDA
 * starts its own threads, and sandbox_enter (which then skips Landlock)
 * after CUDA is up. Same return convention as sandbox_enter. */
int sandbox_restrict_files(const SandboxSpec *spec, SandboxStatus *status);

/* Whether a library's file name is one a runner may load from the
 * loader's directories: the C and C++ runtimes, CUDA's runtime, driver and
 * profiler (never cuBLAS, cuDNN or another library of the toolkit). */
bool sandbox_runtime_library(const char *name);

/* The directories the loader searches for this program (LD_LIBRARY_PATH,
 * its run path, the system's), each as realpath gives it, once. A
 * NULL-terminated array freed by sandbox_free_paths; empty when unknown. */
char **sandbox_library_dirs(void);
void sandbox_free_paths(char **paths);

/* Sets the limits, no_new_privs, Landlock and the seccomp filter, in that
 * order, for the calling process. What the kernel lacks is reported in
 * status->note and is not an error. Returns 0, or -1 with the reason in
 * status->note when something available could not be installed: the
 * process may then be partly restricted and must not run untrusted code. */
int sandbox_enter(const SandboxSpec *spec, SandboxStatus *status);

/* What this machine would enforce, without entering anything (for
 * `gpucourse doctor`): the Landlock ABI and whether seccomp filters work;
 * note says what would be missing. */
void sandbox_probe(SandboxStatus *status);

/* The files mapped in this process (from /proc/self/maps: libraries, the
 * executable, mapped devices), each once, in order of first mapping: to add
 * to read_paths the libraries already loaded. A NULL-terminated array;
 * *count (may be NULL) gets its length. One allocation: free() the array
 * alone. NULL when /proc/self/maps cannot be read. */
char **sandbox_mapped_files(int *count);

#ifdef __cplusplus
}
#endif

#endif
