#define _GNU_SOURCE
#include "grader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/proc.h"
#include "checks.h"
#include "evidence.h"
#include "gpulock.h"
#include "judge.h"
#include "launcher.h"
#include "libcache.h"
#include "libscan.h"
#include "toolchain.h"
#include "verdict.h"

static const struct {
    const char *key, *title;
    int exit_code;
} verdicts[V_COUNT] = {
    [V_PASS] = {"pass", "pass", EXIT_PASS},
    [V_WRONG] = {"wrong_answer", "wrong answer", EXIT_WRONG},
    [V_SLOW] = {"too_slow", "too slow", EXIT_SLOW},
    [V_COMPILE_ERROR] = {"compile_error", "compile error", EXIT_COMPILE},
    [V_RUNTIME_ERROR] = {"runtime_error", "runtime error", EXIT_RUNTIME},
    [V_TIMEOUT] = {"timeout", "timeout", EXIT_RUNTIME},
    [V_REQUIREMENT] = {"requirement_not_met", "requirement not met", EXIT_REQUIREMENT},
    [V_GPU_BUSY] = {"gpu_busy", "GPU busy", EXIT_GPU_BUSY},
    [V_SKIPPED] = {"skipped", "skipped", EXIT_SKIPPED},
    [V_INTERRUPTED] = {"interrupted", "interrupted", EXIT_INTERRUPTED},
    [V_SETUP_ERROR] = {"setup_error", "setup error", EXIT_SETUP},
};

const char *verdict_key(Verdict v) { return v < V_COUNT ? verdicts[v].key : "?"; }
const char *verdict_title(Verdict v) { return v < V_COUNT ? verdicts[v].title : "?"; }
int verdict_exit_code(Verdict v) { return v < V_COUNT ? verdicts[v].exit_code : EXIT_SETUP; }

const char *static_check_key(int check) {
    static const char *const keys[STATIC_COUNT] = {"libraries", "machine_code", "compiler_repairs"};
    return check >= 0 && check < STATIC_COUNT ? keys[check] : "?";
}

const char *static_outcome_key(StaticOutcome o) {
    static const char *const keys[] = {"unchecked", "passed", "failed", "not_run"};
    return o <= STATIC_NOT_RUN ? keys[o] : "?";
}

Verdict verdict_from_key(const char *key) {
    Verdict v = 0;
    while (v < V_COUNT && strcmp(verdicts[v].key, key)) v++;
    return v;
}

void grade_result_free(GradeResult *r) {
    free(r->compile_log);
    free(r->program_output);
    strlist_free(&r->mismatches);
    strlist_free(&r->notes);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ a result as bytes */

/* A string: its length (NO_TEXT for NULL), then its bytes. */
static const uint64_t NO_TEXT = UINT64_MAX;

static void pack_text(StrBuf *out, const char *text) {
    uint64_t len = text ? strlen(text) : NO_TEXT;
    sb_add(out, (const char *)&len, sizeof len);
    if (text) sb_add(out, text, (size_t)len);
}

static void pack_list(StrBuf *out, const StrList *l) {
    uint32_t n = (uint32_t)l->count;
    sb_add(out, (const char *)&n, sizeof n);
    for (int i = 0; i < l->count; i++) pack_text(out, l->items[i]);
}

void grade_result_pack(const GradeResult *r, StrBuf *out) {
    GradeResult flat = *r; /* the struct as it is, less what its pointers point to: that follows */
    flat.compile_log = flat.program_output = NULL;
    flat.mismatches = flat.notes = (StrList){0};
    sb_add(out, (const char *)&flat, sizeof flat);
    pack_text(out, r->compile_log);
    pack_text(out, r->program_output);
    pack_list(out, &r->mismatches);
    pack_list(out, &r->notes);
}

typedef struct {
    const char *at, *end;
} Unpacking;

static bool unpack_bytes(Unpacking *u, void *dst, size_t len) {
    if ((size_t)(u->end - u->at) < len) return false;
    memcpy(dst, u->at, len);
    u->at += len;
    return true;
}

static bool unpack_text(Unpacking *u, char **text) {
    uint64_t len;
    *text = NULL;
    if (!unpack_bytes(u, &len, sizeof len)) return false;
    if (len == NO_TEXT) return true;
    if (len > (uint64_t)(u->end - u->at)) return false;
    *text = xmalloc((size_t)len + 1);
    unpack_bytes(u, *text, (size_t)len);
    (*text)[len] = '\0';
    return true;
}

static bool unpack_list(Unpacking *u, StrList *l) {
    uint32_t n;
    if (!unpack_bytes(u, &n, sizeof n)) return false;
    for (uint32_t i = 0; i < n; i++) {
        char *text;
        if (!unpack_text(u, &text) || !text) return free(text), false;
        strlist_add(l, text);
        free(text);
    }
    return true;
}

bool grade_result_unpack(const char *data, size_t len, GradeResult *r) {
    memset(r, 0, sizeof *r);
    Unpacking u = {data, data + len};
    bool ok = unpack_bytes(&u, r, sizeof *r);
    if (ok) { /* the pointers packed were NULL; what they held follows */
        r->compile_log = r->program_output = NULL;
        r->mismatches = r->notes = (StrList){0};
        ok = unpack_text(&u, &r->compile_log) && unpack_text(&u, &r->program_output) &&
             unpack_list(&u, &r->mismatches) && unpack_list(&u, &r->notes) && u.at == u.end;
    }
    if (!ok) {
        grade_result_free(r);
        memset(r, 0, sizeof *r);
    }
    return ok;
}

/* ------------------------------------------------------------ grading */

static unsigned long long fresh_seed(void) {
    unsigned long long s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s) s = 0;
        close(fd);
    }
    if (!s) s = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
    return s % 1000000000000ull + 1; /* short enough to type back */
}

static void phase(const GradeOptions *o, const char *what) {
    if (o && o->on_phase) o->on_phase(what, o->ctx);
}

void course_parts_free(CourseParts *p) {
    free(p->harness);
    free(p->runner);
    free(p->reference);
    memset(p, 0, sizeof *p);
}

/* Builds what grade_build_course_parts says; with only_check, builds
 * nothing and returns 1 at the first part not built already (the judge is
 * started beside nvcc only then: a first grading's compile error is not
 * kept waiting for the harness's build). */
static int build_course_parts(const Toolchain *t, const Course *c, const Workspace *w, const Exercise *e,
                              CourseParts *parts, char **log, bool only_check);

int grade_build_course_parts(const Toolchain *t, const Course *c, const Workspace *w, const Exercise *e,
                             CourseParts *parts, char **log) {
    return build_course_parts(t, c, w, e, parts, log, false);
}

/* toolchain_build_cached, or with only_check whether it would build nothing (0) or something (1) */
static int build_or_check(const Toolchain *t, BuildTarget target, const char *const *sources, const char *output,
                          const char *include_dir, char **log, bool only_check) {
    if (only_check) return toolchain_is_built(t, target, sources, output, include_dir) ? 0 : 1;
    return toolchain_build_cached(t, target, sources, output, include_dir, log);
}

static int build_course_parts(const Toolchain *t, const Course *c, const Workspace *w, const Exercise *e,
                              CourseParts *parts, char **log, bool only_check) {
    memset(parts, 0, sizeof *parts);
    if (log) *log = NULL;
    if (!c->harness_dir)
        return error("no harness: the course has no harness/main.cu, and none is installed beside gpucourse "
                     "(make install puts it in PREFIX/share/gpucourse/harness)");
    /* the shared harness, also for a course of its own; the kind may be the course's own */
    char *hdir = xstrdup(c->harness_dir);
    /* the judge with its trusted runner (and NVML's watch); the student's runner: no judge, no vendor library.
     * main.cu #includes the judge's parts (judge/NAME.cu): one object, which the build key rebuilds when a
     * part changes (toolchain_build_key) */
    static const char *const judge_files[] = {"main.cu",     "runner.cu",    "protocol.cu", "rules.c",
                                              "sandbox.c",   "seccomp.c",    "counters.cu", "neighbours.c",
                                              "modules.cu",  "pmwitness.cu"};
    static const char *const runner_files[] = {"runner.cu",   "protocol.cu", "sandbox.c", "seccomp.c",
                                               "counters.cu", "modules.cu"};
    enum { NJUDGE = ARRAY_SIZE(judge_files), NRUNNER = ARRAY_SIZE(runner_files) };
    char *kind_cu = course_kind_path(c, e->kind);
    /* what every kind shares, compiled once into objects (build/harness-obj/), then linked with each kind's file */
    char *objects[NJUDGE + NRUNNER] = {0};
    const char *hsrc[NJUDGE + 2] = {0}, *rsrc[NRUNNER + 2] = {0};
    char *obj_dir = xprintf("%s/harness-obj", w->build);
    int rc = only_check ? 0 : make_dirs(obj_dir);
    const char *what = "the harness's part", *name = "";
    /* from a place of this process's own: gradings that build at once (check-course's workers, a
     * class) build different objects, each waiting only where another is building */
    int first = (int)(getpid() % (NJUDGE + NRUNNER));
    for (int step = 0; rc == 0 && step < NJUDGE + NRUNNER; step++) {
        int i = (first + step) % (NJUDGE + NRUNNER);
        bool judge = i < NJUDGE;
        const char *file = judge ? judge_files[i] : runner_files[i - NJUDGE];
        char *src = path_join(hdir, file);
        const char *one[] = {src, NULL};
        objects[i] = xprintf("%s/%s-%.*s.o", obj_dir, judge ? "judge" : "runner", (int)strcspn(file, "."), file);
        rc = build_or_check(t, judge ? BUILD_HARNESS_OBJECT : BUILD_RUNNER_OBJECT, one, objects[i], hdir, log,
                            only_check);
        if (rc < 0) name = file;
        if (judge) hsrc[i] = objects[i];
        else rsrc[i - NJUDGE] = objects[i];
        free(src);
    }
    hsrc[NJUDGE] = rsrc[NRUNNER] = kind_cu;
    char *sol = course_solution_path(c, e);
    const char *lsrc[] = {sol, NULL};
    parts->harness = xprintf("%s/harness-%s", w->build, e->kind);
    parts->runner = xprintf("%s/runner-%s", w->build, e->kind);
    parts->reference = xprintf("%s/reference-%s.so", w->build, e->id);
    if (rc == 0) {
        rc = build_or_check(t, BUILD_HARNESS, hsrc, parts->harness, hdir, log, only_check);
        what = "the harness of kind", name = e->kind;
    }
    if (rc == 0) {
        rc = build_or_check(t, BUILD_RUNNER, rsrc, parts->runner, hdir, log, only_check);
        what = "the student runner of kind";
    }
    if (rc == 0) {
        rc = build_or_check(t, BUILD_SHARED_LIB, lsrc, parts->reference, NULL, log, only_check);
        what = "the reference solution of", name = e->id;
        parts->reference_failed = rc < 0;
    }
    if (rc < 0) {
        char *why = xstrdup(last_error());
        error("cannot build %s %s: %s", what, name, why);
        free(why);
    }
    free(sol);
    free(hdir);
    free(kind_cu);
    free(obj_dir);
    for (int i = 0; i < NJUDGE + NRUNNER; i++) free(objects[i]);
    return rc;
}

/* The judge of the last grading, while it tears down after the verdict
 * (GradeOptions.settle_later): grade_settle ends it. */
static Judge pending;

void grade_settle(void) {
    if (pending.run || pending.lock.held) judge_settle(&pending, false);
}

/* nvcc's output as it comes: scanned whole for ptxas's repairs (the log
 * kept is capped, and warnings must not push them out of it), then passed
 * on to the caller's live log. */
typedef struct {
    RepairScan scan;
    const GradeOptions *o;
} CompileWatch;

static void watch_compile(const char *data, size_t len, void *ctx) {
    CompileWatch *w = ctx;
    grade_scan_repairs(&w->scan, data, len);
    if (w->o && w->o->on_output) w->o->on_output(data, len, w->o->ctx);
}

/* Whether the #include that the compiler's box refused is the one of
 * toolchain_compile's own, of the student's file through its directory's
 * link ("exercises/FILE"): the file is a link to elsewhere. */
static bool refused_is_the_file(const char *refused, const char *file) {
    const char *slash = strchr(refused, '/');
    return slash && !strchr(slash + 1, '/') && !strcmp(slash + 1, file) && refused[0] != '/' && refused[0] != '.';
}

/* Whether the student's file, links followed, lies in their workspace
 * (*real: where it lies, malloc'd). The compiler's box reads the directory
 * the file really is in: an exercises/ linked to the course's installed
 * solutions, or to a classmate's, would have it compile someone else's
 * file as theirs (a classroom CI grading the student's repository, class
 * grade a class's). */
static bool in_workspace(const Workspace *w, const char *file, char **real) {
    *real = realpath(file, NULL);
    return path_within(file, w->root);
}

/* Compiles the student's file into student_so, streaming nvcc's output;
 * sets the verdict when it does not compile. */
static bool compile_student(const Toolchain *t, const Exercise *e, const char *student_cu, const char *student_so,
                            const GradeOptions *o, GradeResult *r, void (*before_nvcc)(void *), void *before_ctx) {
    const char *src[] = {student_cu, NULL};
    /* the same box now as for the build it may reuse: the build key says which */
    char unconfined[256];
    if (!(r->compiler_confined = toolchain_confined(unconfined, sizeof unconfined))) strlist_add(&r->notes, unconfined);
    uint64_t key = toolchain_build_key(t, BUILD_SHARED_LIB, src, NULL);
    char *kept_log = NULL;
    unsigned kept_repairs = 0;
    if (libcache_lookup(student_cu, student_so, key, &kept_log, &kept_repairs)) { /* unchanged since its build */
        r->compile_log = toolchain_log_paths(kept_log, student_cu); /* its paths open from anywhere */
        r->compiler_repairs = kept_repairs;
        r->compile_reused = true;
        if (o && o->on_output) o->on_output(kept_log, strlen(kept_log), o->ctx);
        free(kept_log);
        return true;
    }
    if (before_nvcc) before_nvcc(before_ctx); /* what does not need the library starts beside nvcc */
    int timeout_s = o && o->timeout_s ? o->timeout_s : COMPILE_TIMEOUT_S;
    ProcResult cres;
    CompileWatch watch = {{{0}, 0, 0}, o};
    int rc = toolchain_compile(t, BUILD_SHARED_LIB, src, student_so, NULL, timeout_s, &cres, watch_compile, &watch);
    r->compiler_repairs = watch.scan.seen;
    if (rc < 0) {
        /* ours, not the student's code: a workspace that cannot be written, nvcc that cannot start */
        grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
        return false;
    }
    bool compiled = cres.exited && cres.exit_code == 0;
    char *refused = NULL; /* an #include that the compiler's box refused */
    /* no log when nvcc did not finish: a report would call the compile ok */
    if (!cres.interrupted && !cres.timed_out) {
        r->compile_log = toolchain_log_paths(cres.output, student_cu); /* its paths open from anywhere */
        r->compile_log_dropped = cres.output_dropped;
    }
    if (compiled && !cres.output_dropped) libcache_store(student_cu, student_so, key, cres.output, r->compiler_repairs);
    if (cres.interrupted) grade_set_verdict(r, V_INTERRUPTED, "grading was interrupted; nothing was recorded");
    else if (cres.timed_out)
        grade_set_verdict(r, V_TIMEOUT,
                    "the compiler did not finish in %d s: does %s #include a pipe or a device, or keep the compiler "
                    "busy that long? (--timeout S sets the bound)",
                    timeout_s, e->file);
    else if (!compiled && toolchain_disk_full(cres.output)) { /* the machine's, not the student's: not recorded */
        /* the line that says so in the reason, no log: the report would show it as the file's compile error */
        const char *at = strstr(cres.output, "No space left on device");
        if (!at) at = strstr(cres.output, "Disk quota exceeded");
        const char *line = at;
        while (line > cres.output && line[-1] != '\n' && at - line < 200) line--;
        char *dir = path_dirname(student_so);
        grade_set_verdict(r, V_SETUP_ERROR,
                    "the disk was full while nvcc compiled %s (its temporary files go in %s/tmp): free some space and "
                    "grade again; nvcc said: %.*s",
                    e->file, dir, (int)strcspn(line, "\n"), line);
        free(dir);
        free(r->compile_log);
        r->compile_log = NULL;
    }
    else if (!compiled && toolchain_out_of_memory(cres.output))
        grade_set_verdict(r, V_COMPILE_ERROR,
                    "the compiler ran out of memory on %s (the limit is %zu GiB for nvcc and each program it starts): "
                    "an #include of a device file, or code that makes it build something huge?",
                    e->file, COMPILE_MEMORY_LIMIT >> 30);
    else if (!compiled && (refused = toolchain_refused_include(cres.output)) && refused_is_the_file(refused, e->file))
        grade_set_verdict(r, V_COMPILE_ERROR,
                    "%s is a link to a file outside your exercise directory, which the compiler may not read: "
                    "it reads only the toolkit, the system's headers and your exercise directory",
                    e->file);
    else if (!compiled && refused)
        grade_set_verdict(r, V_COMPILE_ERROR,
                    "%s includes '%s', which the compiler may not read: it reads only the toolkit, the system's "
                    "headers and your exercise directory",
                    e->file, refused);
    else if (!compiled) grade_set_verdict(r, V_COMPILE_ERROR, "nvcc could not compile %s", e->file);
    free(refused);
    proc_result_free(&cres);
    return compiled;
}

/* A course file (a stub or a reference, graded by check-course or bench)
 * comes from the build cache: it changes only when the course does. */
static bool compile_course_file(const Toolchain *t, const Exercise *e, const char *source, const char *so,
                                GradeResult *r) {
    const char *src[] = {source, NULL};
    char *log = NULL;
    bool compiled = toolchain_build_cached(t, BUILD_SHARED_LIB, src, so, NULL, &log) == 0;
    r->compiler_confined = toolchain_confined(NULL, 0);
    r->compile_log = log ? log : xstrdup("");
    if (!compiled && (!log || toolchain_disk_full(log))) grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error()); /* not the file's */
    else if (!compiled) grade_set_verdict(r, V_COMPILE_ERROR, "nvcc could not compile %s (%s)", source, e->id);
    return compiled;
}

/* ptxas's figures of the kernels: from nvcc's output, which is shown
 * without them, or for a course file from the build cache's log beside it. */
static void read_kernels(GradeResult *r, const char *so) {
    char *cached = NULL;
    const char *log = r->compile_log;
    if (log && !log[0]) {
        char *path = xprintf("%s.log", so);
        log = cached = read_file(path, NULL);
        free(path);
    }
    r->nkernels = log ? kernels_parse(log, r->kernels, MAX_KERNELS) : 0;
    if (r->compile_log) {
        char *shown = kernels_strip_log(r->compile_log);
        free(r->compile_log);
        r->compile_log = shown;
    }
    free(cached);
}

/* Ctrl-C during any program that grading ran (also one whose result does
 * not reach us, like nvcc --version or a cached build) ends the grading. */
static bool interrupted(GradeResult *r) {
    if (!proc_take_interrupted()) return false;
    grade_set_verdict(r, V_INTERRUPTED, "grading was interrupted; nothing was recorded");
    return true;
}

/* What a grading has found out about the GPU's side, before or after nvcc. */
typedef struct {
    const Toolchain *t;
    const Course *c;
    const Workspace *w;
    const Exercise *e;
    const GradeOptions *o;
    GradeResult *r;
    const char *student_so;
    double gpu_wait_s;
    Launcher launch;
    bool launched;
    GpuInfo gpu;
    CourseParts parts;
    Judge judge;
    bool early;      /* the judge was started while nvcc compiled, and waits for its go */
    bool decided;    /* judge_decide read its results */
    double step;
} Grading;

/* The GPU's lock (see grade_exercise), and the GPU it names; false with the
 * verdict set when the grading cannot go on. */
static bool take_gpu(Grading *g, bool no_wait) {
    GradeResult *r = g->r;
    const GradeOptions *o = g->o;
    const char *gpus[GPU_MAX];
    for (int i = 0; i < g->gpu.count; i++) gpus[i] = g->gpu.uuids[i];
    /* a witnessed exercise: its judge samples the GPU's counters, which lose samples beside other work (gpulock.h) */
    char *witnessed = evidence_witness_metrics(g->e);
    GpuLockRequest want = {.gpus = gpus, .ngpus = g->gpu.count, .alone = witnessed != NULL, .what = g->e->id,
                           .timeout_s = g->gpu_wait_s, .no_wait = no_wait, .on_wait = o ? o->on_phase : NULL,
                           .ctx = o ? o->ctx : NULL};
    free(witnessed);
    GpuLock *lock = &g->judge.lock;
    GpuLockResult locked = g->launched ? GPU_LOCK_HELD : gpu_lock(&want, lock);
    if (no_wait && locked != GPU_LOCK_HELD) return false; /* busy, or to be said by the wait after nvcc */
    g->step = trace_step(&r->trace, "the GPU's lock", g->step);
    if (interrupted(r)) return false;
    if (locked == GPU_LOCK_TIMED_OUT) {
        grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
        return false;
    }
    if (locked == GPU_LOCK_FAILED) /* timed anyway, and marked in the result (report, JSON, gradebook) */
        snprintf(r->unlocked, sizeof r->unlocked, "%s", last_error());
    if (lock->held && lock->why[0]) { /* held through the whole directory: slower, still alone */
        char *note = xprintf("the GPU's own lock could not serve (%s): this grading waited for every other", lock->why);
        strlist_add(&r->notes, note);
        free(note);
    }
    /* without a lock, one of several GPUs by the process: gradings at once are likely on different ones */
    int which = lock->held ? lock->which : g->gpu.count > 1 ? (int)(getpid() % g->gpu.count) : 0;
    if (!g->launched) snprintf(r->gpu_id, sizeof r->gpu_id, "%s", g->gpu.uuids[which]);
    return true;
}

static bool start_judge(Grading *g, const char *student, bool go) {
    char *gpu_env = g->launched ? NULL : gpu_visible_env(&g->gpu, g->r->gpu_id);
    bool started = judge_start(&g->judge, g->e, &g->parts, student, g->o,
                               (JudgePlan){g->e->check_sizes, g->e->ncheck_sizes, true, g->launched ? &g->launch : NULL,
                                           gpu_env},
                               go, g->r);
    free(gpu_env);
    return started;
}

/* The student's runner of a judge started beside nvcc makes its context and
 * loads the profiler while nvcc compiles, so its sandbox must name the
 * library's file before nvcc writes it (a Landlock rule holds the inode,
 * and nvcc puts a new file in place). It is given this copy instead,
 * BUILD/LABEL-EXnn.run.so: made here, empty, and filled in place once the
 * library is built and read (library_copy_fill). One grading at a time
 * holds it, until its judge is gone (judge_settle); a second one of the
 * same file at once starts its judge after nvcc, as before. Returns the
 * copy's path, or NULL. */
static char *library_copy_take(Grading *g) {
    size_t n = strlen(g->student_so);
    char *path = xprintf("%.*s.run.so", (int)(n > 3 ? n - 3 : n), g->student_so);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || ftruncate(fd, 0) < 0) {
        if (fd >= 0) close(fd);
        free(path);
        return NULL;
    }
    g->judge.library_fd = fd;
    return path;
}

/* The built library's bytes into the runner's copy (library_copy_take), in
 * place. False with the verdict set when it could not. */
static bool library_copy_fill(Grading *g) {
    size_t len = 0;
    char *bytes = read_file_max(g->student_so, LIBSCAN_SIZE_LIMIT, &len); /* what check_library read */
    int to = g->judge.library_fd;
    bool ok = bytes && ftruncate(to, 0) == 0 && lseek(to, 0, SEEK_SET) == 0 && write_all(to, bytes, len) == 0;
    if (!ok) grade_set_verdict(g->r, V_SETUP_ERROR, "cannot copy your library for its runner: %s",
                               bytes ? strerror(errno) : last_error());
    free(bytes);
    return ok;
}

/* Just before nvcc runs: when the harness is built, the GPU here and free
 * now, the judge starts (its context, the trusted runner's, the reference
 * loaded and warmed) and waits for the library on its go pipe. Anything
 * else (a launcher, no GPU, a busy GPU, a harness to build) waits for
 * nvcc as before: a compile error is never kept waiting. */
static void judge_beside_nvcc(void *ctx) {
    Grading *g = ctx;
    if (getenv("GPUCOURSE_NO_EARLY_JUDGE") || g->launched) return;
    gpu_probe(&g->gpu);
    if (g->gpu.count == 0) return;
    if (build_course_parts(g->t, g->c, g->w, g->e, &g->parts, NULL, true) != 0) {
        course_parts_free(&g->parts);
        return;
    }
    /* what the lock and the start say goes into the grading's result only when the judge did start */
    GradeResult scratch = {0}, *r = g->r;
    scratch.trace.origin = r->trace.origin;
    scratch.seed = r->seed;
    g->r = &scratch;
    char *copy = take_gpu(g, true) ? library_copy_take(g) : NULL;
    bool started = copy && start_judge(g, copy, true);
    free(copy);
    g->r = r;
    if (!started) { /* said again, and so, after nvcc */
        judge_settle(&g->judge, true);
        course_parts_free(&g->parts);
        grade_result_free(&scratch);
        return;
    }
    snprintf(r->gpu_id, sizeof r->gpu_id, "%s", scratch.gpu_id);
    snprintf(r->unlocked, sizeof r->unlocked, "%s", scratch.unlocked);
    for (int i = 0; i < scratch.notes.count; i++) strlist_add(&r->notes, scratch.notes.items[i]);
    grade_result_free(&scratch);
    g->early = true;
}

static void grade_once(const Course *c, const Workspace *w, const Exercise *e, const GradeOptions *o,
                       GradeResult *r);

void grade_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeOptions *o,
                    GradeResult *r) {
    grade_once(c, w, e, o, r);
    if (!r->witness_lost) return;
    /* the machine was busy, not the code wrong: once more, and that one decides */
    double first_s = r->wall_s;
    if (o && o->on_phase) o->on_phase("the judge's own counters lost samples (a busy machine): grading again", o->ctx);
    grade_result_free(r);
    grade_once(c, w, e, o, r);
    r->wall_s += first_s;
    strlist_add(&r->notes, r->witness_lost ? "graded twice: the judge's own counters lost samples both times"
                                           : "graded twice: the judge's own counters lost samples in the first "
                                             "grading (a busy machine); this is the second");
}

static void grade_once(const Course *c, const Workspace *w, const Exercise *e, const GradeOptions *o,
                       GradeResult *r) {
    grade_settle(); /* the last grading's judge, still tearing down */
    memset(r, 0, sizeof *r);
    double start = now_seconds();
    r->trace.origin = start;
    r->seed = o && o->seed ? o->seed : fresh_seed();
    r->floor_reference = e->floor_reference;
    r->floor_baseline = e->floor_baseline;
    r->floor_library = e->floor_library;
    Toolchain t;
    char *student_cu = o && o->source ? xstrdup(o->source) : workspace_exercise_path(w, e);
    char *student_so = xprintf("%s/%s-%s.so", w->build, o && o->label ? o->label : "student", e->id);
    Grading g = {.t = &t, .c = c, .w = w, .e = e, .o = o, .r = r, .student_so = student_so};
    judge_init(&g.judge);
    proc_take_interrupted(); /* what was interrupted before is not this grading's */
    /* how long the GPU's lock, and a launcher's queue, may keep us */
    double launch_wait_s;
    if (toolchain_find(&t) < 0 || env_seconds("GPUCOURSE_GPU_WAIT", 600, 86400, &g.gpu_wait_s) < 0 ||
        env_seconds("GPUCOURSE_LAUNCH_WAIT", 600, 86400, &launch_wait_s) < 0) {
        grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
        goto out;
    }
    /* through a launcher, the GPU is the launcher's: the judge says whether it has one */
    g.launched = launcher_from_env(&g.launch);
    g.launch.wait_s = launch_wait_s;
    double step = trace_step(&r->trace, "find nvcc (nvcc --version), read settings", start);
    if (interrupted(r)) goto out;
    struct stat st;
    if (!file_exists(student_cu) && stat(student_cu, &st) == 0) { /* a pipe would keep the compiler waiting */
        grade_set_verdict(r, V_SETUP_ERROR, "your file '%s' is not a regular file (a pipe, a device or a directory): "
                    "'gpucourse reset %s' brings back the stub", student_cu, e->id);
        goto out;
    }
    if (!file_exists(student_cu)) {
        grade_set_verdict(r, V_SETUP_ERROR, "your file '%s' is missing: 'gpucourse reset %s' brings back the stub",
                    student_cu, e->id);
        goto out;
    }
    char *real = NULL;
    if (!(o && o->source) && !in_workspace(w, student_cu, &real)) {
        grade_set_verdict(r, V_COMPILE_ERROR,
                    "%s is, through a link, %s, outside your workspace (%s): only your own files are graded, and the "
                    "compiler reads nothing else",
                    e->file, real ? real : "a file that cannot be found", w->root);
        free(real);
        goto out;
    }
    free(real);

    phase(o, "compiling");
    double t0 = now_seconds();
    g.step = t0;
    bool compiled = o && o->source ? compile_course_file(&t, e, student_cu, student_so, r)
                                   : compile_student(&t, e, student_cu, student_so, o, r, judge_beside_nvcc, &g);
    r->compile_s = now_seconds() - t0;
    step = trace_step(&r->trace,
                      o && o->source      ? "the course's file (build cache)"
                      : r->compile_reused ? "your library as built before (file unchanged)"
                      : g.early           ? "compile your file (nvcc), the judge started beside it"
                                          : "compile your file (nvcc)",
                      step);
    read_kernels(r, student_so);
    if (interrupted(r) || !compiled) goto out;

    bool callable = check_library(e, student_so, r);
    step = trace_step(&r->trace, "read your library (kernels, exports, libraries used)", step);
    if (!callable) goto out;

    if (!g.early) {
        if (!g.launched) gpu_probe(&g.gpu);
        step = trace_step(&r->trace, g.launched ? "no probe: a launcher's job has its GPU" : "probe the GPU (driver)", step);
    }
    if (!g.launched && g.gpu.count == 0) {
        grade_set_verdict(r, V_SKIPPED, "no GPU: %s", g.gpu.why);
        check_static(&t, e, student_so, r);
        step = trace_step(&r->trace, "check the compiled code (cuobjdump, unless read before)", step);
        goto out;
    }

    if (!g.early) {
        phase(o, "building the harness");
        char *log = NULL;
        if (grade_build_course_parts(&t, c, w, e, &g.parts, &log) < 0) {
            if (!interrupted(r)) grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
            free(r->compile_log);
            r->compile_log = log;
            r->compile_log_dropped = 0;
            goto out;
        }
        step = trace_step(&r->trace, "the judge, runner and reference (build cache)", step);
        if (interrupted(r)) goto out;

        /* the GPU part alone under a GPU's lock: one timed grading per GPU at a
         * time, on whichever of this machine's GPUs is free (a launcher's GPU is
         * allocated to this job alone) */
        g.step = step;
        if (!take_gpu(&g, false)) goto out;
    }
    phase(o, "running");
    if (g.early) { /* the library is built and read: the judge's runner loads its copy */
        bool filled = library_copy_fill(&g);
        proc_go(g.judge.run, filled);
        if (!filled) goto out;
    } else if (!start_judge(&g, student_so, false)) goto out;
    judge_decide(&g.judge, e, r);
    g.decided = true;
    step = now_seconds();
    if (r->verdict == V_SKIPPED) { /* the launcher's job had no GPU */
        check_static(&t, e, student_so, r);
        goto out;
    }
    /* the judge tears its contexts down meanwhile: these read only files */
    /* code loaded at run time first: the rest of the checks read only the compiled code */
    check_loaded(&t, e, student_so, &g.parts, w, r);
    step = trace_step(&r->trace, e->nevidence > 0 ? "compare the code loaded at run time (cuobjdump)"
                                                  : "no code loaded at run time to compare",
                      step);
    /* the machine code first: a missing instruction says more than the counters of its absence */
    check_sass(&t, e, student_so, r);
    step = trace_step(&r->trace, sass_checked(e, r) ? "check the machine code (cuobjdump, unless read before)" : "no machine code to check", step);
    grade_check_evidence(r, e);
    grade_check_compiler_repairs(r);
    trace_step(&r->trace, "evidence, compiler repairs", step);
    interrupted(r);
out:
    if (g.judge.run && !g.decided) /* never got its go (a compile error, Ctrl-C): killed at once */
        judge_settle(&g.judge, true);
    else if (g.judge.run && o && o->settle_later) { /* it ends while the verdict is shown */
        pending = g.judge;
        memset(&g.judge, 0, sizeof g.judge);
    } else {
        double settling = now_seconds();
        bool running = g.judge.run != NULL;
        judge_settle(&g.judge, false); /* also the lock of a grading that never started its judge */
        if (running) trace_step(&r->trace, "the judge's exit after the verdict (contexts torn down)", settling);
    }
    r->wall_s = now_seconds() - start;
    launcher_free(&g.launch);
    free(student_cu);
    free(student_so);
    course_parts_free(&g.parts);
    toolchain_free(&t);
}

char *grade_gpu_env(const GradeResult *r) {
    GpuInfo gpu;
    gpu_probe(&gpu); /* kept for the process: no second cuInit */
    return gpu_visible_env(&gpu, r->gpu_id);
}

bool wrong_map_repeats_in_tiles(const WrongMap *m) {
    int all = 0, none = 0;
    for (int i = 0; i < m->nfold; i++)
        for (const char *c = m->fold[i]; *c; c++) all += *c == '#', none += *c == '.';
    return m->nfold == WRONG_FOLD && all > 0 && none > 0;
}

/* Pictures smaller than these say little: a 2D one needs 32 x 32 for a
 * tile's fold, a 1D one 256 elements for its runs. */
enum { PICTURE_MIN_SIDE = 2 * WRONG_FOLD, PICTURE_MIN_LENGTH = 256 };

bool wrong_map_says_little(const WrongMap *m) {
    return m->rows > 1 ? m->nfold == 0 : m->cols < PICTURE_MIN_LENGTH;
}

/* The check sizes after the first that failed in r that are large enough
 * for a picture that says something. */
static int picture_sizes(const Exercise *e, const GradeResult *r, SizeSpec *out) {
    const char *failed = grade_first_failed_size(r);
    int n = 0, i = 0;
    char text[64];
    for (; i < e->ncheck_sizes; i++) {
        size_text(&e->check_sizes[i], text, sizeof text);
        if (!strcmp(text, failed)) break;
    }
    for (i++; i < e->ncheck_sizes; i++) {
        const SizeSpec *s = &e->check_sizes[i];
        bool large = s->count == 1 ? s->d[0] >= PICTURE_MIN_LENGTH
                                   : s->d[0] >= PICTURE_MIN_SIDE && s->d[1] >= PICTURE_MIN_SIDE;
        if (large) out[n++] = *s;
    }
    return n;
}

bool grade_picture(const Exercise *e, const CourseParts *parts, const char *student, const GradeResult *r,
                   int timeout_s, WrongMap *out, bool *interrupted) {
    memset(out, 0, sizeof *out);
    *interrupted = false;
    if (!r->wrong_map.present || !wrong_map_says_little(&r->wrong_map)) return false;
    SizeSpec *sizes = xcalloc((size_t)e->ncheck_sizes + 1, sizeof *sizes);
    int n = picture_sizes(e, r, sizes);
    if (n > 0) {
        GradeResult again = {0};
        again.seed = r->seed;
        GradeOptions o = {.timeout_s = timeout_s};
        char *gpu_env = grade_gpu_env(r);
        judge_run(e, parts, student, &o, (JudgePlan){sizes, n, false, NULL, gpu_env}, &again);
        free(gpu_env);
        if (again.wrong_map.present) *out = again.wrong_map;
        *interrupted = again.verdict == V_INTERRUPTED;
        grade_result_free(&again);
    }
    free(sizes);
    return out->present;
}

/* ------------------------------------------------------------ progress */

typedef struct {
    const Exercise *e;
    const GradeResult *r;
} RecordCtx;

ExStatus verdict_status(Verdict v) {
    switch (v) {
    case V_PASS: return ST_PASSED;
    case V_SLOW:
    case V_REQUIREMENT: return ST_CORRECT;
    case V_WRONG:
    case V_RUNTIME_ERROR:
    case V_TIMEOUT:
    case V_SKIPPED: return ST_COMPILES;
    default: return ST_ATTEMPTED;
    }
}

/* What an attempt earns. A compile stopped at its timeout is graded
 * timeout, like a kernel that hangs, but that code never compiled (the
 * compile log is kept only when nvcc finished). A requirement not met in
 * code that never ran (a forbidden library, or no GPU and its machine code
 * failed a check) says nothing of its answer: compiles, not correct. */
static ExStatus result_status(const GradeResult *r) {
    if (r->verdict == V_TIMEOUT && !r->compile_log) return ST_ATTEMPTED;
    if (r->verdict == V_REQUIREMENT && r->nchecks == 0) return ST_COMPILES;
    return verdict_status(r->verdict);
}

static void record(Progress *p, void *ctx) {
    RecordCtx *rc = ctx;
    ExProgress *x = progress_get(p, rc->e->id, true);
    char now[40];
    now_iso8601(now, sizeof now);
    progress_add_attempt(x);
    if (!x->first_attempt[0]) snprintf(x->first_attempt, sizeof x->first_attempt, "%s", now);
    snprintf(x->last_attempt, sizeof x->last_attempt, "%s", now);
    snprintf(x->last_verdict, sizeof x->last_verdict, "%s", verdict_key(rc->r->verdict));
    ExStatus s = result_status(rc->r);
    if (s > x->status) x->status = s;
    if (rc->r->verdict == V_PASS && !x->passed_at[0]) snprintf(x->passed_at, sizeof x->passed_at, "%s", now);
    if (rc->r->timed && rc->r->verdict != V_WRONG) {
        if (rc->r->vs_reference > x->best_vs_reference) x->best_vs_reference = rc->r->vs_reference;
        if (rc->r->vs_baseline > x->best_vs_baseline) x->best_vs_baseline = rc->r->vs_baseline;
        /* the first timing size, the same for every rung of a ladder */
        const TimedSize *first = rc->r->nsizes > 0 ? &rc->r->sizes[0] : NULL;
        if (first && first->vs_library > x->best_vs_library) x->best_vs_library = first->vs_library;
        if (first && first->tflops_student > x->best_tflops) x->best_tflops = first->tflops_student;
    }
}

int grade_record(const Workspace *w, const Exercise *e, const GradeResult *r, char **notice) {
    /* not the student's attempt: stopped, or never judged (skipped: nothing ran, and the checks that need
     * no GPU passed; one that failed is requirement not met, an attempt) */
    if (r->verdict == V_INTERRUPTED || r->verdict == V_SETUP_ERROR || r->verdict == V_GPU_BUSY ||
        r->verdict == V_SKIPPED)
        return 0;
    RecordCtx ctx = {e, r};
    return progress_update(w->progress, record, &ctx, notice);
}
