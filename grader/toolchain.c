#define _GNU_SOURCE
#include "toolchain.h"

#include "../harness/sandbox.h"
#include "libcache.h"
#include "phases.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The one place for nvcc flags. Hopper's sm_90a target is named with
 * -gencode: the -arch=sm_90a shorthand may add an sm_90 pass that rejects
 * wgmma (gpu-facts.md). The runtime is shared so that the harness, the
 * reference and the student's library use one CUDA runtime in one process. */
static const char *const common_flags[] = {
    "-std=c++17", "-lineinfo", "-gencode=arch=compute_90a,code=sm_90a", "-cudart", "shared", "-Xcompiler", "-Wall",
};
/* nvcc's -O is the host compiler's alone: cicc and ptxas optimize the
 * device code at their default (-O3) whatever it says (the same command
 * lines in nvcc -dryrun, the same cubins for every reference). The judge's
 * host code does the CPU checks: -O3. A library's host code is a launch or
 * two: -O1, which still defines __OPTIMIZE__ as -O3 does (the headers the
 * device pass reads see the same macros), and spares part of gcc's time on
 * every save (docs/benchmarks.md, issue 47). */
static const char *host_optimization(BuildTarget target) {
    return target == BUILD_SHARED_LIB || target == BUILD_PREPROCESSED ? "-O1" : "-O3";
}
/* --resource-usage: ptxas says each kernel's registers, spills, shared
 * memory and stack (grader/kernels.h reads them; the log shown leaves them out). */
static const char *const shared_lib_flags[] = {"-shared", "-Xcompiler", "-fPIC", "--resource-usage"};
/* The driver API for every student and reference library, the one way the
 * course reaches it: TMA tensor maps (cuTensorMapEncodeTiled) are encoded on
 * the host through the driver. Linked, not fetched with
 * cudaGetDriverEntryPointByVersion, so that a lesson's code calls it by its
 * name from <cuda.h>; --as-needed records libcuda.so.1 only in libraries
 * that call it (the runner has it loaded already). */
static const char *const shared_lib_libs[] = {"-Xlinker=--as-needed", "-lcuda"};
/* The judge and the runners share device memory through the driver API's
 * virtual-memory calls: -lcuda (the toolkit's stub where no driver is
 * installed; the real libcuda.so.1 at run time). */
static const char *const harness_libs[] = {"-lcuda", "-ldl"};
/* The judge's trusted runner also runs the vendor library of kinds that
 * have one: cuBLAS (and cuBLASLt for FP8 with block scales), needed only
 * by the kinds that call it (--as-needed). */
static const char *const judge_libs[] = {"-Xlinker=--as-needed", "-lcublas", "-lcublasLt"};
/* The student's runner holds no vendor library (harness/harness.h). */
static const char *const runner_flags[] = {"-DGPUCOURSE_STUDENT_RUNNER"};

enum { COMPILE_LOG_LIMIT = 256 * 1024, SASS_TIMEOUT_S = 60, SASS_LIMIT = 16 << 20, DRY_RUN_TIMEOUT_S = 30 };

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
        return error("nvcc not found: install the CUDA Toolkit (12.0 or later, for sm_90a; 12.9 or later for ex45) "
                     "and put its bin/ "
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

int toolchain_at_least(const Toolchain *t, int major, int minor) {
    int have_major = 0, have_minor = 0;
    if (!t->version || sscanf(t->version, "%d.%d", &have_major, &have_minor) != 2) return -1;
    return have_major > major || (have_major == major && have_minor >= minor);
}

void toolchain_free(Toolchain *t) {
    free(t->nvcc);
    free(t->cuda_home);
    free(t->version);
    memset(t, 0, sizeof *t);
}

char *toolchain_cupti(const Toolchain *t) {
    const char *where[] = {"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so", "lib/libcupti.so"};
    for (size_t i = 0; t && t->cuda_home && i < ARRAY_SIZE(where); i++) {
        char *p = xprintf("%s/%s", t->cuda_home, where[i]);
        if (file_exists(p)) return p;
        free(p);
    }
    return NULL;
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
static const char **compile_argv(const Toolchain *t, const char *nvcc, BuildTarget target,
                                 const char *const *sources, const char *output, const char *include_dir,
                                 StrList *hold) {
    const char **argv = xcalloc(64, sizeof *argv);
    int n = 0;
    argv[n++] = nvcc;
    argv[n++] = host_optimization(target);
    for (size_t i = 0; i < ARRAY_SIZE(common_flags); i++) argv[n++] = common_flags[i];
    if (target == BUILD_SHARED_LIB)
        for (size_t i = 0; i < ARRAY_SIZE(shared_lib_flags); i++) argv[n++] = shared_lib_flags[i];
    bool judge = target == BUILD_HARNESS || target == BUILD_HARNESS_OBJECT;
    bool runner = target == BUILD_RUNNER || target == BUILD_RUNNER_OBJECT;
    bool object = target == BUILD_HARNESS_OBJECT || target == BUILD_RUNNER_OBJECT;
    if (target == BUILD_PREPROCESSED) argv[n++] = "-E";
    if (runner)
        for (size_t i = 0; i < ARRAY_SIZE(runner_flags); i++) argv[n++] = runner_flags[i];
    if (object) argv[n++] = "-c";
    /* find libcudart.so where this nvcc's toolkit has it, wherever we run */
    char *rpath = xprintf("-Xlinker=-rpath=%s/lib64", t->cuda_home);
    strlist_add(hold, rpath);
    free(rpath);
    argv[n++] = hold->items[hold->count - 1];
    /* CUPTI, which the runners load for counters (harness/counters.cu): in
     * include/ and lib64/ since CUDA 13, under extras/CUPTI before */
    char *cupti = xprintf("%s/extras/CUPTI", t->cuda_home);
    if ((judge || runner) && dir_exists(cupti)) {
        char *inc = xprintf("-I%s/include", cupti), *lib = xprintf("-Xlinker=-rpath=%s/lib64", cupti);
        strlist_add(hold, inc);
        argv[n++] = hold->items[hold->count - 1];
        strlist_add(hold, lib);
        argv[n++] = hold->items[hold->count - 1];
        free(inc);
        free(lib);
    }
    free(cupti);
    if (include_dir) {
        char *inc = xprintf("-I%s", include_dir);
        strlist_add(hold, inc);
        free(inc);
        argv[n++] = hold->items[hold->count - 1];
    }
    argv[n++] = "-o";
    argv[n++] = output;
    for (int i = 0; sources[i] && n < 56; i++) argv[n++] = sources[i];
    if (target == BUILD_SHARED_LIB)
        for (size_t i = 0; i < ARRAY_SIZE(shared_lib_libs); i++) argv[n++] = shared_lib_libs[i];
    if ((judge || runner) && !object)
        for (size_t i = 0; i < ARRAY_SIZE(harness_libs); i++) argv[n++] = harness_libs[i];
    if (target == BUILD_HARNESS)
        for (size_t i = 0; i < ARRAY_SIZE(judge_libs); i++) argv[n++] = judge_libs[i];
    argv[n] = NULL;
    return argv;
}

/* What nvcc builds, inside its directory. */
#define OUTPUT_NAME "output"

/* What needs no quoting in the command lines nvcc gives to sh. */
static const char plain_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";

static bool plain_name(const char *s) {
    return *s && strcmp(s, ".") && strcmp(s, "..") && strspn(s, plain_chars) == strlen(s);
}

static char *absolute_path(const char *path) {
    if (path[0] == '/') return xstrdup(path);
    char *cwd = getcwd(NULL, 0);
    char *abs = path_join(cwd ? cwd : ".", path);
    free(cwd);
    return abs;
}

static bool name_taken(const StrList *names, const char *name) {
    if (!strcmp(name, OUTPUT_NAME)) return true;
    for (int i = 0; i < names->count; i++)
        if (!strcmp(names->items[i], name)) return true;
    return false;
}

/* A fresh name in nvcc's directory: `want` when it is plain and free. */
static char *fresh_name(const StrList *names, const char *want, const char *fallback_ext) {
    if (plain_name(want) && !name_taken(names, want)) return xstrdup(want);
    for (int k = 0;; k++) {
        char *name = xprintf("src%d%s", k, fallback_ext);
        if (!name_taken(names, name)) return name;
        free(name);
    }
}

/* The name by which nvcc, inside `work`, sees directory `dir`: a link made
 * once per directory, named like it where that name is plain (so nvcc's
 * messages say exercises/ex01_vector_add.cu). A source included through it
 * finds its own "x.h" and "../x.h" as before. NULL with error set when the
 * link cannot be made. */
static const char *dir_link(const char *work, const char *dir, StrList *targets, StrList *names) {
    char *target = absolute_path(dir);
    for (int i = 0; i < targets->count; i++)
        if (!strcmp(targets->items[i], target)) {
            free(target);
            return names->items[i];
        }
    char *name = fresh_name(names, strrchr(target, '/') + 1, "");
    /* a kind's directory as harness/kinds, where it is in a course and in
     * gpucourse's harness: check-course says harness/kinds/KIND.cu(6) */
    size_t len = strlen(target);
    if (!strcmp(name, "kinds") && len > 14 && !strcmp(target + len - 14, "/harness/kinds") &&
        !name_taken(names, "harness")) {
        char *sub = path_join(work, "harness");
        if (mkdir(sub, 0700) == 0) {
            strlist_add(targets, ""); /* a directory of ours, not a link */
            strlist_add(names, "harness");
            free(name);
            name = xstrdup("harness/kinds");
        }
        free(sub);
    }
    char *link = path_join(work, name);
    bool made = symlink(target, link) == 0;
    if (made) {
        strlist_add(targets, target);
        strlist_add(names, name);
    } else {
        error("cannot create '%s': %s", link, strerror(errno));
    }
    free(link);
    free(name);
    free(target);
    return made ? names->items[names->count - 1] : NULL;
}

/* Removes nvcc's directory, `name` in directory `at` (or a path, at
 * AT_FDCWD): its links and files, and whatever nvcc left there. Only a
 * directory of ours: never through a link, never another user's (a stale
 * one in /tmp may be anyone's, or a link to anywhere). */
static void remove_work_dir(int at, const char *name) {
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    DIR *d = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(fd, e->d_name, 0) < 0 && errno == EISDIR)
            remove_work_dir(fd, e->d_name); /* harness/ (dir_link), or one of nvcc's */
    closedir(d);
    unlinkat(at, name, AT_REMOVEDIR);
}

/* An absolute path that nvcc's command lines can hold as it is. */
static bool plain_path(const char *path) {
    if (!path || path[0] != '/') return false;
    for (const char *p = path; *p; p++)
        if (*p != '/' && !strchr(plain_chars, *p)) return false;
    return true;
}

/* Where nvcc's directories go: tmp/ in the build directory (beside
 * `output`), so that what a compile killed with -9 leaves stays in the
 * workspace until the next compile removes it, not in TMPDIR; when the
 * build directory's real path is not plain, TMPDIR (when plain too), else
 * /tmp. */
static char *work_base(const char *output) {
    char *dir = path_dirname(output), *real = realpath(dir, NULL);
    free(dir);
    char *base = NULL;
    if (plain_path(real)) {
        base = path_join(real, "tmp");
        struct stat st; /* a link or a file there (a repository with its .build committed): a directory of ours */
        if (lstat(base, &st) == 0 && !S_ISDIR(st.st_mode)) unlink(base);
        if (make_dirs(base) < 0) {
            free(base);
            base = NULL;
        }
    }
    free(real);
    if (base) return base;
    const char *tmp = getenv("TMPDIR");
    return xstrdup(plain_path(tmp) ? tmp : "/tmp");
}

/* The start of the name of this host's nvcc directories, gpucourse-nvcc.HOST.;
 * then the pid that made it and mkdtemp's letters. The host, because the
 * build directory may be shared with other machines, whose processes
 * kill() cannot see. */
static char *work_prefix(void) {
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !plain_name(host)) snprintf(host, sizeof host, "host");
    return xprintf("gpucourse-nvcc.%s.", host);
}

/* Removes this host's nvcc directories in base whose process is gone: what
 * a gpucourse killed while compiling left (kill -9 gives it no time to
 * clean up). Best effort: one left is only clutter. */
static void sweep_work_dirs(const char *base, const char *prefix) {
    DIR *d = opendir(base);
    size_t len = strlen(prefix);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, len)) continue;
        char *end;
        long pid = strtol(e->d_name + len, &end, 10);
        /* PID.XXXXXX exactly: a host named like ours plus ".5" is another's */
        if (pid <= 0 || pid > INT_MAX || *end != '.' || strlen(end) != 7 || strchr(end + 1, '.')) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* EPERM: alive, another user's */
        remove_work_dir(dirfd(d), e->d_name);
    }
    if (d) closedir(d);
}

/* What nvcc needs of the environment, which is no fault of the student's
 * code: a PATH to find the host compiler (gcc) and its programs by, and no
 * relative TMPDIR, which each program would look for in its own working
 * directory. */
static int check_environment(void) {
    const char *path = getenv("PATH"), *tmp = getenv("TMPDIR");
    const char *fix = "nvcc finds the host compiler (gcc) through it; set it, e.g. "
                      "export PATH=/usr/local/cuda/bin:/usr/bin:/bin";
    if (!path) return error("PATH is not set: %s", fix);
    if (path[strspn(path, ":")] == '\0') return error("PATH is empty: %s", fix);
    if (tmp && *tmp && tmp[0] != '/')
        return error("TMPDIR is '%.200s', a relative path, which each program would take from its own working "
                     "directory: set it to an absolute path (export TMPDIR=/tmp) or unset it",
                     tmp);
    return 0;
}

/* ------------------------------------------------------------ the compiler's box */

/* A prefix that other software shares (/usr/bin/nvcc, a gcc in
 * /usr/local/bin): only its programs', libraries' and headers' directories
 * are the compiler's, never the whole (/usr/local/share may hold the
 * course's solutions). */
static bool shared_prefix(const char *dir) {
    return !strcmp(dir, "/") || !strcmp(dir, "/usr") || !strcmp(dir, "/usr/local");
}

/* The directories below `prefix` that a toolkit or a compiler installed
 * there reads: all of it, or its parts where the prefix is shared. */
static void prefix_dirs(const char *prefix, StrList *dirs) {
    static const char *const parts[] = {"bin", "lib", "lib64", "libexec", "include", "nvvm", "targets"};
    if (!shared_prefix(prefix)) {
        strlist_add(dirs, prefix);
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        char *p = path_join(prefix, parts[i]);
        strlist_add(dirs, p);
        free(p);
    }
}

/* The toolkit's directories (real paths): the one above nvcc's bin/, and
 * CUDA_HOME's where it names another (nvcc a wrapper script that runs the
 * toolkit's). */
static void toolkit_dirs(const Toolchain *t, StrList *dirs) {
    const char *homes[] = {t->cuda_home, getenv("CUDA_HOME")};
    for (size_t i = 0; i < ARRAY_SIZE(homes); i++) {
        char *real = homes[i] && *homes[i] ? realpath(homes[i], NULL) : NULL;
        if (real) prefix_dirs(real, dirs);
        free(real);
    }
}

/* Everything nvcc and its programs may read (toolchain_confined): the
 * system's, the toolkit's, the host compiler's, and the directories of the
 * sources and include_dir. */
/* The loader's cache, the shell, binutils, gcc's programs, libraries and headers. */
static const char *const system_dirs[] = {"/usr/bin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
                                          "/usr/libexec", "/usr/include", "/usr/local/include", "/bin",
                                          "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache"};

static void box_reads(const Toolchain *t, const char *const *sources, const char *include_dir, StrList *dirs) {
    for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) strlist_add(dirs, system_dirs[i]);
    toolkit_dirs(t, dirs);
    /* the host compiler that nvcc runs (gcc and g++ from PATH, or NVCC_CCBIN's),
     * installed elsewhere: its prefix, two levels above the program */
    const char *ccbin = getenv("NVCC_CCBIN");
    const char *compilers[] = {"gcc", "g++", ccbin && *ccbin ? ccbin : NULL};
    for (size_t i = 0; i < ARRAY_SIZE(compilers) && compilers[i]; i++) {
        char *found = dir_exists(compilers[i]) ? path_join(compilers[i], "gcc") : proc_find_in_path(compilers[i]);
        char *real = found ? realpath(found, NULL) : NULL;
        if (real) {
            char *bin = path_dirname(real), *prefix = path_dirname(bin);
            prefix_dirs(prefix, dirs);
            free(bin);
            free(prefix);
        }
        free(real);
        free(found);
    }
    /* the student's exercise directory (a course file's, the harness's) */
    for (int i = 0; sources[i]; i++) {
        char *abs = absolute_path(sources[i]), *dir = path_dirname(abs), *real = realpath(dir, NULL);
        if (real) strlist_add(dirs, real);
        free(real);
        free(dir);
        free(abs);
    }
    char *inc = include_dir ? realpath(include_dir, NULL) : NULL;
    if (inc) strlist_add(dirs, inc);
    free(inc);
}

/* ProcSpec.confine of every nvcc run: enters the box (a SandboxSpec). */
static int enter_box(const void *box) {
    return sandbox_restrict_files(box, NULL);
}

bool toolchain_confined(char *why, size_t size) {
    SandboxStatus st;
    sandbox_probe(&st);
    if (!st.landlock && why)
        snprintf(why, size, "the compiler ran unconfined (no Landlock on this kernel): your #includes could read any "
                            "file you can");
    return st.landlock;
}

char *toolchain_refused_include(const char *log) {
    static const char fatal[] = ": fatal error: ", denied[] = ": Permission denied";
    for (const char *at = log ? strstr(log, fatal) : NULL; at; at = strstr(at + 1, fatal)) {
        /* FILE:LINE:COL before it, a place in a source (not "cc1plus: fatal error: ...") */
        const char *p = at;
        while (p > log && p[-1] >= '0' && p[-1] <= '9') p--;
        if (p == at || p == log || p[-1] != ':') continue;
        const char *col = --p;
        while (p > log && p[-1] >= '0' && p[-1] <= '9') p--;
        if (p == col || p == log || p[-1] != ':') continue;
        const char *path = at + strlen(fatal);
        size_t len = strcspn(path, "\n");
        size_t tail = strlen(denied);
        if (len > tail && !strncmp(path + len - tail, denied, tail)) return xstrndup(path, len - tail);
    }
    return NULL;
}

/* One line marker of the preprocessor's output, '# LINE "FILE" FLAGS': the
 * file into *file (its escapes undone) and whether flag 3 (a system header)
 * is set. False for any other line. */
static bool line_marker(const char *line, size_t len, StrBuf *file, bool *system) {
    if (len < 4 || line[0] != '#' || line[1] != ' ' || line[2] < '0' || line[2] > '9') return false;
    const char *p = memchr(line, '"', len), *end = line + len;
    if (!p) return false;
    sb_free(file);
    for (p++; p < end && *p != '"'; p++) {
        if (*p == '\\' && p + 1 < end) p++;
        sb_add(file, p, 1);
    }
    *system = false;
    for (p++; p < end; p++)
        if (*p == '3' && (p[-1] == ' ') && (p + 1 == end || p[1] == ' ')) *system = true;
    return true;
}

/* Whether a file the preprocessor read is the toolkit's or the system's. */
static bool system_file(const StrList *toolkit, const char *file, bool flagged) {
    if (flagged || file[0] == '<') return true; /* <built-in>, <command-line> */
    if (file[0] != '/') return false;           /* below nvcc's directory: the sources' */
    char *real = realpath(file, NULL);
    const char *path = real ? real : file;
    bool inside = false;
    for (int i = 0; i < toolkit->count && !inside; i++) {
        size_t n = strlen(toolkit->items[i]);
        inside = !strncmp(path, toolkit->items[i], n) && (path[n] == '/' || path[n] == '\0');
    }
    free(real);
    return inside;
}

char *toolchain_own_text(const Toolchain *t, const char *preprocessed) {
    StrList toolkit = {0};
    toolkit_dirs(t, &toolkit);
    StrBuf out = {0}, file = {0}, last = {0};
    bool keep = true, last_keep = true;
    for (const char *line = preprocessed; line && *line;) {
        size_t len = strcspn(line, "\n");
        bool flagged;
        if (line_marker(line, len, &file, &flagged)) {
            const char *name = file.buf ? file.buf : "";
            if (last.buf && !strcmp(last.buf, name)) { /* the same file again: decided already */
                keep = last_keep;
            } else {
                keep = !system_file(&toolkit, name, flagged);
                sb_free(&last);
                sb_puts(&last, name);
                last_keep = keep;
            }
        } else if (keep) {
            sb_add(&out, line, len);
            sb_add(&out, "\n", 1);
        }
        line += len + (line[len] == '\n');
    }
    sb_free(&file);
    sb_free(&last);
    strlist_free(&toolkit);
    return sb_take(&out);
}

/* Copies nvcc's output, with its mode, into fd (a file beside the
 * destination, renamed into place by the caller), a piece at a time: a
 * student's library can be hundreds of MB. */
static int copy_output(const char *built, int fd, const char *dest) {
    int in = open(built, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (in < 0 || fstat(in, &st) < 0) {
        if (in >= 0) close(in);
        return error("nvcc succeeded but left no output");
    }
    char chunk[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = error("cannot read what nvcc built: %s", strerror(errno));
        if (n <= 0) break;
        if (write_all(fd, chunk, (size_t)n) < 0) {
            rc = error("cannot write '%s': %s", dest, strerror(errno));
            break;
        }
    }
    close(in);
    if (rc == 0 && (fchmod(fd, st.st_mode & 0777) < 0 || fsync(fd) < 0))
        rc = error("cannot write '%s': %s", dest, strerror(errno));
    return rc;
}

/* A compile that failed on a disk with less than this left: the disk's
 * doing. gcc's preprocessor (cc1) can end on a failed write with no word of
 * it, and a compile's temporaries are a few MB (ex01's two preprocessed
 * files 1.2 MB), so "nearly nothing left" is the sign that holds. */
#define FULL_DISK_BYTES (8ull << 20)

/* Adds ENOSPC's words to a failed compile's output when the disk
 * under its work directory is (nearly) full and nvcc's programs did not say
 * so: toolchain_disk_full then calls it the machine's, not the file's. */
static void note_full_disk(const char *work, ProcResult *res) {
    struct statvfs fs;
    if (toolchain_disk_full(res->output) || statvfs(work, &fs) < 0) return;
    unsigned long long left = (unsigned long long)fs.f_bavail * fs.f_frsize;
    if (left >= FULL_DISK_BYTES) return;
    /* the C locale's words, which toolchain_disk_full reads, whatever the locale */
    char *note = xprintf("%sgpucourse: nvcc failed with %llu KiB left on the disk of %s: No space left on device\n",
                         res->output_len && res->output[res->output_len - 1] != '\n' ? "\n" : "", left >> 10, work);
    size_t n = strlen(note);
    res->output = xrealloc(res->output, res->output_len + n + 1);
    memcpy(res->output + res->output_len, note, n + 1);
    res->output_len += n;
    free(note);
}

int toolchain_compile(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                      const char *include_dir, double timeout_s, ProcResult *res,
                      void (*on_output)(const char *, size_t, void *), void *ctx) {
    memset(res, 0, sizeof *res);
    if (check_environment() < 0) return -1;
    /* first the file that takes the output's place, so that a workspace we
     * cannot write stops us before nvcc runs (NAME.tmp.PID: what
     * workspace_open clears when a killed gpucourse left it) */
    char *tmp_out = xprintf("%s.tmp.%ld", output, (long)getpid());
    unlink(tmp_out); /* made anew, never through a link put there (a repository with a .build in it) */
    int out_fd = open(tmp_out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out_fd < 0) {
        char *dir = path_dirname(output);
        int rc = error("cannot write in '%s': %s", dir, strerror(errno));
        free(dir);
        free(tmp_out);
        return rc;
    }
    char *parent = work_base(output), *prefix = work_prefix();
    sweep_work_dirs(parent, prefix);
    char *work = xprintf("%s/%s%ld.XXXXXX", parent, prefix, (long)getpid());
    free(prefix);
    if (!mkdtemp(work)) {
        int rc = error("cannot create a directory in '%s': %s", parent, strerror(errno));
        close(out_fd);
        unlink(tmp_out);
        free(tmp_out);
        free(work);
        free(parent);
        return rc;
    }
    free(parent);
    /* nvcc's own intermediate files (tmpxft_*) in its directory too: gone with it */
    char *tmpdir_env = xprintf("TMPDIR=%s", work);
    const char *env[] = {tmpdir_env, NULL};
    /* Each source as nvcc sees it: a one-line file of ours that #includes
     * it through its directory's link. nvcc also puts the real path of the
     * file it was given into its command lines: ours is plain. */
    StrList targets = {0}, names = {0}, hold = {0};
    const char **src = xcalloc(64, sizeof *src);
    int rc = 0, nsrc = 0;
    bool placed = false;
    for (int i = 0; rc == 0 && sources[i] && nsrc < 56; i++) {
        const char *slash = strrchr(sources[i], '/'), *base = slash ? slash + 1 : sources[i];
        const char *dot = strrchr(base, '.');
        char *dir = path_dirname(sources[i]);
        const char *link = NULL;
        if (strpbrk(base, "$`\"\\\n"))
            rc = error("cannot compile '%s': nvcc cannot take a '$', '`', '\"' or '\\' in a file name", sources[i]);
        else if (!(link = dir_link(work, dir, &targets, &names)))
            rc = -1;
        if (link && dot && !strcmp(dot, ".o")) { /* an object of ours (a plain name): linked as it is */
            char *path = xprintf("%s/%s", link, base);
            strlist_add(&hold, path);
            src[nsrc++] = hold.items[hold.count - 1];
            free(path);
        } else if (link) {
            char *name = fresh_name(&names, base, dot && plain_name(dot) ? dot : ".cu");
            char *path = path_join(work, name);
            char *text = xprintf("#include \"%s/%s\"\n", link, base);
            rc = write_file_atomic(path, text, strlen(text));
            strlist_add(&targets, ""); /* names[i] is a link to targets[i]; this one is a file */
            strlist_add(&names, name);
            src[nsrc++] = names.items[names.count - 1];
            free(text);
            free(path);
            free(name);
        }
        free(dir);
    }
    const char *inc = NULL;
    if (rc == 0 && include_dir && !(inc = dir_link(work, include_dir, &targets, &names))) rc = -1;
    if (rc == 0) {
        char *nvcc = absolute_path(t->nvcc); /* it runs in `work` */
        const char **argv = compile_argv(t, nvcc, target, src, OUTPUT_NAME, inc, &hold);
        StrList reads = {0};
        box_reads(t, sources, include_dir, &reads);
        const char *makes[] = {work, NULL};
        const char **read_paths = strlist_argv(&reads);
        SandboxSpec box = {.read_paths = read_paths, .make_paths = makes};
        ProcSpec spec = {.argv = argv, .env = env, .dir = work, .confine = enter_box, .confine_ctx = &box,
                         .timeout_s = timeout_s > 0 ? timeout_s : COMPILE_TIMEOUT_S,
                         .memory_limit = COMPILE_MEMORY_LIMIT, .capture_limit = COMPILE_LOG_LIMIT,
                         .on_output = on_output, .ctx = ctx};
        /* a library: nvcc's phases, the two front ends at once (phases_script) */
        char *script = NULL;
        if (target == BUILD_SHARED_LIB) {
            char module_id[32]; /* one a build: the work directory's */
            snprintf(module_id, sizeof module_id, "_%016llx", (unsigned long long)hash_str(HASH_INIT, work));
            int n = 0;
            while (argv[n]) n++;
            const char **dry = xcalloc((size_t)n + 2, sizeof *dry);
            memcpy(dry, argv, (size_t)n * sizeof *dry);
            dry[n] = "-dryrun";
            ProcSpec plan = spec;
            plan.argv = dry, plan.on_output = NULL, plan.timeout_s = DRY_RUN_TIMEOUT_S;
            ProcResult planned;
            bool ran = proc_run(&plan, &planned) == 0;
            if (ran && planned.exited && planned.exit_code == 0) script = phases_script(planned.output, module_id);
            if (ran && planned.interrupted) *res = planned; /* Ctrl-C: the compile's end, as nvcc's own would be */
            else proc_result_free(&planned);
            free(dry);
        }
        const char *sh[] = {"/bin/sh", "-c", script, NULL};
        if (script) spec.argv = sh;
        if (!res->interrupted) rc = proc_run(&spec, res);
        if (rc == 0 && !res->interrupted && !res->timed_out && !(res->exited && res->exit_code == 0))
            note_full_disk(work, res);
        free(script);
        if (rc == 0 && res->exited && res->exit_code == 0) {
            /* only a whole output takes the place of the old one */
            char *built = path_join(work, OUTPUT_NAME);
            if (copy_output(built, out_fd, output) < 0) rc = -1;
            else if (rename(tmp_out, output) < 0) rc = error("cannot write '%s': %s", output, strerror(errno));
            else placed = true;
            if (rc < 0) {
                proc_result_free(res);
                memset(res, 0, sizeof *res);
            }
            free(built);
        }
        free(argv);
        free(nvcc);
        free(read_paths);
        strlist_free(&reads);
    }
    close(out_fd);
    if (!placed) unlink(tmp_out);
    remove_work_dir(AT_FDCWD, work);
    free(tmpdir_env);
    strlist_free(&targets);
    strlist_free(&names);
    strlist_free(&hold);
    free(src);
    free(work);
    free(tmp_out);
    return rc;
}

bool toolchain_out_of_memory(const char *log) {
    /* cc1plus, cudafe++, the C++ runtime of cicc and ptxas, the C library */
    static const char *const signs[] = {"out of memory", "memory exhausted", "bad_alloc", "Cannot allocate memory",
                                        "Memory allocation failure"};
    for (size_t i = 0; log && i < ARRAY_SIZE(signs); i++)
        if (strstr(log, signs[i])) return true;
    return false;
}

bool toolchain_disk_full(const char *log) {
    /* strerror's words for ENOSPC and EDQUOT, as gcc, cudafe++, cicc and ptxas print them */
    return log && (strstr(log, "No space left on device") || strstr(log, "Disk quota exceeded"));
}

/* Why an nvcc run that did not succeed failed, when it was not simply the
 * code: "" otherwise. */
static const char *compile_failure(const ProcResult *res, char *buf, size_t size) {
    if (res->interrupted) snprintf(buf, size, "nvcc was interrupted");
    else if (res->timed_out) snprintf(buf, size, "nvcc did not finish in %d s", COMPILE_TIMEOUT_S);
    else if (toolchain_disk_full(res->output)) snprintf(buf, size, "the disk is full (no space left, or the quota)");
    else if (toolchain_out_of_memory(res->output))
        snprintf(buf, size, "nvcc ran out of memory (the limit is %zu GiB)", COMPILE_MEMORY_LIMIT >> 30);
    else buf[0] = '\0';
    return buf;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir whose names end in `suffix`, each by name (with
 * `prefix`, its place below the include directory) and contents. */
static uint64_t hash_files(uint64_t h, const char *dir, const char *prefix, const char *suffix) {
    DIR *d = opendir(dir);
    if (!d) return h;
    StrList names = {0};
    size_t slen = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > slen && !strcmp(e->d_name + len - slen, suffix)) strlist_add(&names, e->d_name);
    }
    closedir(d);
    qsort(names.items, (size_t)names.count, sizeof *names.items, compare_names);
    for (int i = 0; i < names.count; i++) {
        char *path = path_join(dir, names.items[i]);
        size_t len = 0;
        char *data = read_file(path, &len);
        h = digest_str(digest_str(h, prefix), names.items[i]);
        if (data) h = digest_bytes(h, data, len);
        free(data);
        free(path);
    }
    strlist_free(&names);
    return h;
}

/* What the harness's sources include from it: every .h in its directory,
 * and the judge's parts (judge/NAME.cu), which main.cu #includes: one
 * translation unit, so that a part edited is seen only here. */
static uint64_t hash_headers(uint64_t h, const char *dir) {
    h = hash_files(h, dir, "", ".h");
    char *parts = path_join(dir, "judge");
    h = hash_files(h, parts, "judge/", ".cu");
    free(parts);
    return h;
}

/* What went into a build: the sources' contents, the flags (ours and the
 * environment's) and the compiler. */
uint64_t toolchain_build_key(const Toolchain *t, BuildTarget target, const char *const *sources,
                             const char *include_dir) {
    uint64_t h = digest_str(HASH_INIT, t->nvcc);
    h = digest_str(h, t->version ? t->version : "");
    h = digest_str(h, host_optimization(target));
    for (size_t i = 0; i < ARRAY_SIZE(common_flags); i++) h = digest_str(h, common_flags[i]);
    for (size_t i = 0; i < ARRAY_SIZE(harness_libs); i++) h = digest_str(h, harness_libs[i]);
    for (size_t i = 0; i < ARRAY_SIZE(judge_libs); i++) h = digest_str(h, judge_libs[i]);
    /* a build made outside the compiler's box is never taken for one made in it */
    h = digest_str(h, toolchain_confined(NULL, 0) ? "compiler confined" : "compiler unconfined");
    h = digest_bytes(h, &target, sizeof target);
    for (int i = 0; sources[i]; i++) {
        size_t len = 0;
        char *data = read_file(sources[i], &len);
        const char *base = strrchr(sources[i], '/');
        h = digest_str(h, base ? base + 1 : sources[i]); /* not the directory: a cache built elsewhere stays valid */
        if (data) h = digest_bytes(h, data, len);
        free(data);
    }
    if (include_dir) h = hash_headers(h, include_dir);
    /* the flags nvcc takes from the environment (not PATH: a shell of another
     * PATH would build the harness again for nothing) */
    const char *settings[] = {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"};
    for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
        const char *v = getenv(settings[i]);
        h = digest_str(digest_str(h, settings[i]), v ? v : "\001unset");
    }
    return h;
}

bool toolchain_is_built(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                        const char *include_dir) {
    return libcache_part_built(output, toolchain_build_key(t, target, sources, include_dir));
}

int toolchain_build_cached(const Toolchain *t, BuildTarget target, const char *const *sources,
                           const char *output, const char *include_dir, char **log) {
    if (log) *log = NULL;
    uint64_t key = toolchain_build_key(t, target, sources, include_dir);
    /* one builder of an output at a time (check-course's workers, a class's
     * array tasks on one build directory): the next finds it built */
    char *lock_path = xprintf("%s.lock", output);
    int lock = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    free(lock_path);
    if (lock >= 0) while (flock(lock, LOCK_EX) < 0 && errno == EINTR) {}
    if (libcache_part_built(output, key)) { /* a record of ours, not a stamp beside it (libcache.h) */
        if (lock >= 0) close(lock);
        return 0;
    }
    /* toolchain_compile renames a whole output into place: a concurrent
     * gpucourse never runs half a file */
    ProcResult res;
    int rc = toolchain_compile(t, target, sources, output, include_dir, 0, &res, NULL, NULL);
    if (rc == 0) {
        char why[128];
        if (!res.exited || res.exit_code != 0) {
            compile_failure(&res, why, sizeof why);
            rc = error("cannot build '%s'%s%s", output, why[0] ? ": " : "", why);
            /* the reason also where only the log is shown */
            if (log) *log = why[0] ? xprintf("%sgpucourse: %s\n", res.output, why) : xstrdup(res.output);
        } else if (target == BUILD_SHARED_LIB) { /* ptxas's figures of a reference, for a diagnosis */
            char *log_path = xprintf("%s.log", output);
            if (write_file_atomic(log_path, res.output, strlen(res.output)) < 0) rc = -1;
            free(log_path);
        }
        if (rc == 0) libcache_store_part(output, key); /* none where no record can be kept: built again */
        proc_result_free(&res);
    }
    if (lock >= 0) close(lock);
    return rc;
}

int toolchain_cuobjdump(const Toolchain *t, const char *const *args, const char *file, const char *out_dir,
                        int timeout_s, size_t capture_limit, ProcResult *res) {
    memset(res, 0, sizeof *res);
    char *cuobjdump = toolchain_tool(t, "cuobjdump");
    if (!cuobjdump) return error("cuobjdump not found");
    /* its temporary files in a directory of its own (the prefix of nvcc's, which
     * sweep_work_dirs clears when a killed gpucourse left one) */
    char *base = work_base(file), *prefix = work_prefix();
    char *work = xprintf("%s/%s%ld.XXXXXX", base, prefix, (long)getpid());
    free(base);
    free(prefix);
    if (!mkdtemp(work)) {
        int rc = error("cannot create a directory for cuobjdump: %s", strerror(errno));
        free(work);
        free(cuobjdump);
        return rc;
    }
    StrList reads = {0};
    for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) strlist_add(&reads, system_dirs[i]);
    toolkit_dirs(t, &reads);
    char *real_tool = realpath(cuobjdump, NULL), *real_file = realpath(file, NULL);
    if (real_tool) { /* nvdisasm, which it runs, lies beside it */
        char *tool_dir = path_dirname(real_tool);
        strlist_add(&reads, tool_dir);
        free(tool_dir);
    }
    if (real_file) strlist_add(&reads, real_file); /* else cuobjdump says it cannot open it */
    const char **read_paths = strlist_argv(&reads);
    const char *makes[] = {work, out_dir, NULL};
    SandboxSpec box = {.read_paths = read_paths, .make_paths = makes};
    const char *argv[8];
    int n = 0;
    argv[n++] = cuobjdump;
    for (int i = 0; args[i] && n < 6; i++) argv[n++] = args[i];
    argv[n++] = file;
    argv[n] = NULL;
    char *tmpdir_env = xprintf("TMPDIR=%s", work);
    const char *env[] = {tmpdir_env, NULL};
    ProcSpec spec = {.argv = argv, .env = env, .dir = out_dir ? out_dir : work, .confine = enter_box,
                     .confine_ctx = &box, .timeout_s = timeout_s, .capture_limit = capture_limit};
    int rc = proc_run(&spec, res);
    remove_work_dir(AT_FDCWD, work);
    free(tmpdir_env);
    free(read_paths);
    strlist_free(&reads);
    free(real_tool);
    free(real_file);
    free(work);
    free(cuobjdump);
    return rc;
}

int toolchain_sass(const Toolchain *t, const char *file, char **sass) {
    *sass = NULL;
    const char *args[] = {"-sass", NULL};
    ProcResult res;
    if (toolchain_cuobjdump(t, args, file, NULL, SASS_TIMEOUT_S, SASS_LIMIT, &res) < 0) return -1;
    int rc = 0;
    int first_line = (int)strcspn(res.output, "\n");
    if (res.interrupted) rc = error("cuobjdump was interrupted");
    else if (res.timed_out) rc = error("cuobjdump did not finish in %d s", SASS_TIMEOUT_S);
    else if (!res.exited) rc = error("cuobjdump was killed by signal %d (%s)", res.signal, strsignal(res.signal));
    else if (res.exit_code != 0)
        rc = error("cuobjdump failed (exit code %d)%s%.*s", res.exit_code, first_line ? ": " : "",
                   first_line < 200 ? first_line : 200, res.output);
    else if (res.output_dropped) { /* an instruction may be in what was not kept */
        error("its machine code is more than %d MiB as text", SASS_LIMIT >> 20);
        rc = SASS_TOO_LARGE;
    }
    else *sass = xstrdup(res.output);
    proc_result_free(&res);
    return rc;
}

char *toolchain_log_paths(const char *log, const char *source) {
    char *dir = path_dirname(source), *target = absolute_path(dir);
    const char *name = strrchr(target, '/') ? strrchr(target, '/') + 1 : "";
    size_t name_len = strlen(name), n = strlen(log);
    StrBuf sb = {0};
    for (size_t i = 0; i < n;) {
        bool starts = i == 0 || strchr(" \t\n\"'(`", log[i - 1]);
        if (starts && name_len && name_len < n - i && !strncmp(log + i, name, name_len) && log[i + name_len] == '/') {
            sb_puts(&sb, target);
            i += name_len;
        } else {
            sb_add(&sb, log + i++, 1);
        }
    }
    free(dir);
    free(target);
    return sb_take(&sb);
}
