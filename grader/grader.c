#define _GNU_SOURCE
#include "grader.h"
#include "libcache.h"
#include "gpulock.h"
#include "sass.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/proc.h"
#include "launcher.h"
#include "libscan.h"
#include "toolchain.h"
#include "verdict.h"

enum { OUTPUT_LIMIT = 64 * 1024 };

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

/* What the compiled library shows, read from the ELF file itself: a solve
 * the judge can call (a compile error without one, GPU or not), and none of
 * the libraries the exercise forbids (forbidden_libraries: by default all
 * that libscan knows) or its forbidden_symbols: hidden visibility does not
 * hide the names nvcc registers kernels by. Returns false when grading stops
 * here (no solve, a forbidden library, a file that cannot be scanned). */
static bool check_library(const Exercise *e, const char *lib, GradeResult *r) {
    /* thrust before cub: Thrust's device algorithms run CUB's kernels, and
     * the student wrote thrust */
    static const struct {
        const char *name, *why;
    } order[] = {
        {"cublas", "cuBLAS is a baseline to measure against, not an answer"},
        {"cudnn", "cuDNN is a baseline to measure against, not an answer"},
        {"thrust", "Thrust's device algorithms (CUB's, underneath) are a baseline to measure against, not an answer"},
        {"cutlass", "CUTLASS's device-level kernels are a baseline to measure against, not an answer"},
        {"cub", "CUB's device-wide algorithms are the baseline to measure against, not an answer"},
    };
    LibScan scan;
    int scanned = libscan_file(lib, &scan);
    if (scanned == LIBSCAN_TOO_LARGE) {
        grade_set_verdict(r, V_COMPILE_ERROR,
                    "your code compiled into a library too large to check: %s; a big initialized array in %s? "
                    "Allocate large buffers in solve (cudaMalloc) instead",
                    last_error(), e->file);
        unlink(lib); /* hundreds of MB that nothing can use */
        return false;
    }
    if (scanned < 0) {
        grade_set_verdict(r, V_SETUP_ERROR, "cannot check which libraries your code uses: %s", last_error());
        return false;
    }
    /* the judge calls solve by its C name: without one, nothing of the file can run (said here, GPU or not) */
    bool callable = false;
    const char *mangled = NULL;
    for (size_t i = 0; i < scan.exported.count; i++) {
        callable |= !strcmp(scan.exported.items[i], "solve");
        if (!strncmp(scan.exported.items[i], "_Z5solve", 8)) mangled = scan.exported.items[i];
    }
    if (!callable) {
        if (mangled)
            grade_set_verdict(r, V_COMPILE_ERROR,
                        "your code compiled, but its solve is a C++ function (its name in the library is %.80s): the "
                        "harness calls solve by its C name, so declare it extern \"C\" as the stub does",
                        mangled);
        else
            grade_set_verdict(r, V_COMPILE_ERROR,
                        "your code compiled, but it defines no extern \"C\" solve that the harness can call (the "
                        "stub's signature, not static, not hidden)");
        libscan_free(&scan);
        return false;
    }
    char evidence[640];
    for (size_t i = 0; i < ARRAY_SIZE(order) && r->verdict != V_REQUIREMENT; i++) {
        bool forbidden = false;
        for (int k = 0; k < e->forbidden_libraries.count; k++)
            forbidden |= !strcmp(e->forbidden_libraries.items[k], order[i].name);
        if (forbidden && libscan_uses(&scan, order[i].name, evidence, sizeof evidence))
            grade_set_verdict(r, V_REQUIREMENT,
                        "your code uses %s (%s), and this exercise forbids it: it is about writing the kernel "
                        "yourself; %s",
                        libscan_title(order[i].name), evidence, order[i].why);
    }
    for (int i = 0; i < e->forbidden_symbols.count && r->verdict != V_REQUIREMENT; i++)
        if (libscan_mentions(&scan, e->forbidden_symbols.items[i], evidence, sizeof evidence))
            grade_set_verdict(r, V_REQUIREMENT, "your code uses %s, and this exercise forbids '%s'", evidence,
                        e->forbidden_symbols.items[i]);
    libscan_free(&scan);
    if (e->forbidden_libraries.count || e->forbidden_symbols.count)
        r->statics[STATIC_LIBRARIES] = r->verdict == V_REQUIREMENT ? STATIC_FAILED : STATIC_PASSED;
    return r->verdict != V_REQUIREMENT;
}

/* ------------------------------------------------------------ code loaded at run time */

/* Whether the modules the student's process loaded are checked: the judge
 * asked for counters (the exercise has evidence), and the answer is
 * correct. */
static bool loaded_checked(const Exercise *e, const GradeResult *r) {
    return e->nevidence > 0 && (r->verdict == V_PASS || r->verdict == V_SLOW);
}

void grade_check_loaded(GradeResult *r, const Exercise *e, const StrList *cubins) {
    if (!loaded_checked(e, r)) return;
    const LoadedModules *m = &r->loaded;
    if (m->status == LOADED_NONE) {
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: the judge reported no record of the machine code your process loaded "
                    "at run time, and this exercise is passed only with it (is the harness in the build cache older "
                    "than gpucourse?)");
        return;
    }
    if (m->status == LOADED_FAILED) {
        grade_set_verdict(r, V_REQUIREMENT,
                    "correct, but the machine code your process loaded at run time could not be recorded (%s): this "
                    "exercise is passed only with that record",
                    m->why);
        return;
    }
    if (!loaded_complete(m)) {
        grade_set_verdict(r, V_REQUIREMENT,
                    "your code loaded more machine code at run time than the harness keeps (%lld modules): only the "
                    "kernels nvcc compiled from your file are graded",
                    m->loaded);
        return;
    }
    int foreign = cubins ? loaded_foreign(m, cubins) : m->n > 0 ? -2 : -1;
    if (foreign == -2) {
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: the machine code your process loaded at run time could not be compared "
                    "with your compiled code: %s",
                    cubins ? last_error() : "nothing to compare it with");
        return;
    }
    if (foreign >= 0)
        grade_set_verdict(r, V_REQUIREMENT,
                    "your code loaded machine code at run time (cuModuleLoadData or similar): only the kernels nvcc "
                    "compiled from your file are graded (module %d of %lld, %lld bytes, is none of them: %s)",
                    foreign + 1, m->loaded, m->bytes[foreign], m->path[foreign]);
}

/* Adds the cubins of `file` (a directory of its own under dir) to out. A
 * file without device code adds none; -1 with error set. */
static int extract_into(const char *cuobjdump, const char *file, const char *dir, int k, StrList *out) {
    char *sub = xprintf("%s/%d", dir, k);
    int rc = make_dirs(sub);
    if (rc == 0) rc = loaded_extract(cuobjdump, file, sub, out) < 0 ? -1 : 0;
    free(sub);
    return rc;
}

static void remove_extracted(const char *dir, const StrList *cubins, int nsub) {
    for (int i = 0; i < cubins->count; i++) unlink(cubins->items[i]);
    for (int k = 0; k < nsub; k++) {
        char *sub = xprintf("%s/%d", dir, k);
        rmdir(sub);
        free(sub);
    }
    rmdir(dir);
}

/* The rule on the modules loaded at run time, with the cubins it compares
 * them with: the student's library's and the runner's, and only when one
 * of those does not match, the libraries the runner may load from the
 * toolkit (CUPTI, the CUDA runtime), which hold more and are unpacked only
 * then. The cubins are unpacked into a directory of this grading's in the
 * build directory and removed after. */
static void check_loaded(const Toolchain *t, const Exercise *e, const char *student_so, const CourseParts *parts,
                         const Workspace *w, GradeResult *r) {
    if (!loaded_checked(e, r)) return;
    if (r->loaded.status != LOADED_RECORDED || !loaded_complete(&r->loaded) || r->loaded.n == 0) {
        grade_check_loaded(r, e, &(StrList){0});
        return;
    }
    char *cuobjdump = toolchain_tool(t, "cuobjdump");
    char *dir = xprintf("%s/modules-XXXXXX", w->build);
    StrList cubins = {0};
    int nsub = 0, rc = 0;
    if (!cuobjdump) rc = error("cuobjdump, which unpacks your compiled code to compare, was not found; it ships with "
                               "the CUDA Toolkit (package cuda-cuobjdump-X-Y)");
    else if (!mkdtemp(dir)) rc = error("cannot make a directory in %s: %s", w->build, strerror(errno));
    else {
        rc = extract_into(cuobjdump, student_so, dir, nsub++, &cubins);
        if (rc == 0) rc = extract_into(cuobjdump, parts->runner, dir, nsub++, &cubins);
        if (rc == 0 && loaded_foreign(&r->loaded, &cubins) >= 0) {
            char *cupti = toolchain_cupti(t);
            char *cudart = t->cuda_home ? xprintf("%s/lib64/libcudart.so", t->cuda_home) : NULL;
            const char *runtime[] = {cupti, cudart};
            for (size_t i = 0; i < ARRAY_SIZE(runtime); i++) /* a library that cannot be unpacked adds none */
                if (runtime[i] && file_exists(runtime[i])) extract_into(cuobjdump, runtime[i], dir, nsub++, &cubins);
            free(cupti);
            free(cudart);
        }
    }
    if (rc < 0)
        grade_set_verdict(r, V_SETUP_ERROR,
                    "correct, but not graded: the machine code your process loaded at run time could not be compared "
                    "with your compiled code: %s",
                    last_error());
    else grade_check_loaded(r, e, &cubins);
    if (nsub) remove_extracted(dir, &cubins, nsub);
    else if (cuobjdump) rmdir(dir);
    strlist_free(&cubins);
    free(cuobjdump);
    free(dir);
}

/* What an instruction pattern is (the whole pattern, else its opcode), so
 * that a message about it says what the code lacks or must not have. */
static const char *opcode_meaning(const char *pattern) {
    static const struct {
        const char *opcode, *what;
    } known[] = {
        {"HMMA", "a tensor-core matrix multiply-accumulate (mma.sync); without it the products run on the CUDA cores "
                 "at a fraction of the speed"},
        {"LDSM", "ldmatrix, the warp-wide load of fragments from shared memory; without it each lane gathers its own "
                 "elements"},
        {"LDGSTS", "cp.async, the copy from global to shared memory that does not wait in registers; without it loads "
                   "and math cannot overlap"},
        {"HGMMA", "a warpgroup MMA (wgmma.mma_async) from shared memory; mma.sync or FFMA code reaches a fraction of "
                  "Hopper's tensor-core rate"},
        {"QGMMA", "an FP8 warpgroup MMA (wgmma.mma_async with e4m3 or e5m2 inputs); HGMMA is the 16-bit one"},
        {"UCGABAR_WAIT", "the wait of a cluster barrier (barrier.cluster.wait): without it a block can load into, or "
                         "arrive on, its partner's shared memory before the partner's barriers exist"},
        {"UTMALDG", "a TMA load (cp.async.bulk.tensor) through a tensor map"},
        {"UTMASTG", "a TMA store (cp.async.bulk.tensor from shared to global)"},
        {"SYNCS", "an mbarrier operation, which TMA copies complete on"},
        {"USETMAXREG", "setmaxnreg, which moves registers from the producer warpgroup to the consumers"},
        {"DMMA", "an FP64 tensor-core multiply-accumulate"},
        {"IMMA", "an integer tensor-core multiply-accumulate"},
        {"STS", "a store to shared memory"},
        {"LDS", "a load from shared memory"},
        {"SHFL", "a warp shuffle"},
        /* whole patterns, where the modifiers are the point */
        {"LDG.E.128", "a 16-byte (float4) load from global memory: four floats per instruction"},
        {"STG.E.128", "a 16-byte (float4) store to global memory: four floats per instruction"},
        {"LDS.128", "a 16-byte load from shared memory"},
        {"STS.128", "a 16-byte store to shared memory"},
    };
    for (size_t k = 0; k < ARRAY_SIZE(known); k++) /* the whole pattern first */
        if (!strcmp(known[k].opcode, pattern)) return known[k].what;
    size_t n = strcspn(pattern, ".");
    for (size_t k = 0; k < ARRAY_SIZE(known); k++)
        if (strlen(known[k].opcode) == n && !strncmp(known[k].opcode, pattern, n) && !strchr(known[k].opcode, '.'))
            return known[k].what;
    return NULL;
}

/* "A, then B" or "A, B, then C" of a list of patterns; "or" for the inside's. */
static char *pattern_list(const StrList *l, const char *last) {
    StrBuf b = {0};
    sb_printf(&b, "%s", l->count ? "" : "nothing");
    for (int i = 0; i < l->count; i++)
        sb_printf(&b, "%s%s", i == 0 ? "" : i + 1 < l->count ? ", " : last, l->items[i]);
    return b.buf;
}

/* How a finding in the compiled code begins: after a run, the answer was
 * right; with nothing run (no GPU) that is not known, and not claimed. */
static const char *correct_but(const GradeResult *r) { return r->verdict == V_SKIPPED ? "" : "correct, but "; }

/* required_sass_around: its sides in place in every kernel (grader/sass.h). */
static void check_sass_around(const Exercise *e, const char *sass, GradeResult *r) {
    if (!e->around_inside.count) return;
    char function[256], first[128];
    SassAround v = sass_around(sass, e->around_inside.items, e->around_inside.count, e->around_side.items,
                               e->around_side.count, function, sizeof function, first, sizeof first);
    if (v == SASS_AROUND_OK) return;
    char *sides = pattern_list(&e->around_side, ", then "), *inside = pattern_list(&e->around_inside, " or ");
    grade_set_verdict(r, V_REQUIREMENT,
                "%sin your machine code (kernel %s) %s do not come %s %s (here %s)%s: this "
                "exercise requires %s",
                correct_but(r), function, sides, v == SASS_AROUND_BEFORE ? "before the first" : "after the last", inside, first,
                v == SASS_AROUND_AFTER ? " with no EXIT between" : "",
                e->around_why ? e->around_why : "them on both sides");
    free(sides);
    free(inside);
}

/* Whether the machine code is looked at: it has patterns, and the answer
 * is correct, or nothing ran (no GPU) and the code alone decides. */
static bool sass_checked(const Exercise *e, const GradeResult *r) {
    return (e->required_sass.count > 0 || e->forbidden_sass.count > 0 || e->around_inside.count > 0) &&
           (r->verdict == V_PASS || r->verdict == V_SLOW || r->verdict == V_SKIPPED);
}

void grade_check_sass(const Exercise *e, int sass_rc, const char *sass, GradeResult *r) {
    if (!sass_checked(e, r)) return;
    StaticOutcome *outcome = &r->statics[STATIC_MACHINE_CODE];
    if (sass_rc != SASS_TOO_LARGE && !sass && r->verdict == V_SKIPPED) { /* not run: said, never passed */
        *outcome = STATIC_NOT_RUN;
        snprintf(r->static_not_run, sizeof r->static_not_run,
                 "%s; cuobjdump ships with the CUDA Toolkit (package cuda-cuobjdump-X-Y)", last_error());
        return;
    }
    if (sass_rc == SASS_TOO_LARGE || !sass) {
        *outcome = sass_rc == SASS_TOO_LARGE ? STATIC_FAILED : STATIC_NOT_RUN;
        grade_set_verdict(r, sass_rc == SASS_TOO_LARGE ? V_REQUIREMENT : V_SETUP_ERROR,
                    "%snot a pass: the instructions this exercise requires could not be checked in your "
                    "machine code (%s)%s",
                    correct_but(r), last_error(),
                    sass_rc == SASS_TOO_LARGE ? ""
                                              : "; cuobjdump ships with the CUDA Toolkit (package cuda-cuobjdump-X-Y), "
                                                "and gpucourse doctor says what is missing");
        return;
    }
    char found[128];
    for (int i = 0; i < e->required_sass.count; i++) {
        const char *want = e->required_sass.items[i], *what = opcode_meaning(want);
        if (sass_find(sass, want, found, sizeof found)) continue;
        *outcome = STATIC_FAILED;
        grade_set_verdict(r, V_REQUIREMENT, "%syour machine code has no %s instruction%s%s, which this exercise is "
                    "about", correct_but(r), want, what ? ": " : "", what ? what : "");
        return;
    }
    for (int i = 0; i < e->forbidden_sass.count; i++) {
        const char *banned = e->forbidden_sass.items[i], *what = opcode_meaning(banned);
        if (!sass_find(sass, banned, found, sizeof found)) continue;
        *outcome = STATIC_FAILED;
        grade_set_verdict(r, V_REQUIREMENT,
                    "%syour machine code has %s%s%s%s, which this exercise forbids (%s): it is about doing "
                    "the work another way, see its task",
                    correct_but(r), found, what ? " (" : "", what ? what : "", what ? ")" : "", banned);
        return;
    }
    Verdict before = r->verdict;
    check_sass_around(e, sass, r);
    *outcome = r->verdict == before ? STATIC_PASSED : STATIC_FAILED;
}

/* The instruction checks on the student's compiled library. */
static void check_sass(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r) {
    if (!sass_checked(e, r)) return; /* cuobjdump only when it decides something */
    char *sass = libcache_sass(lib); /* the same library as when it was read before */
    int rc = 0;
    if (!sass) {
        rc = toolchain_sass(t, lib, &sass);
        if (rc == 0) libcache_store_sass(lib, sass);
    }
    if (rc < 0 && proc_take_interrupted()) {
        grade_set_verdict(r, V_INTERRUPTED, "grading was interrupted; nothing was recorded");
        return;
    }
    grade_check_sass(e, rc, sass, r);
    free(sass);
}

/* What the machine code was found to have, for a reason: "has HMMA, has no
 * FFMA". */
static void describe_sass(const Exercise *e, StrBuf *b) {
    const char *sep = "";
    if (e->required_sass.count) {
        char *l = pattern_list(&e->required_sass, " and ");
        sb_printf(b, "has %s", l);
        free(l);
        sep = ", ";
    }
    if (e->around_inside.count) {
        char *sides = pattern_list(&e->around_side, ", then "), *inside = pattern_list(&e->around_inside, " or ");
        sb_printf(b, "%s%s before the first and after the last %s", sep, sides, inside);
        free(sides);
        free(inside);
        sep = ", ";
    }
    if (e->forbidden_sass.count) {
        char *l = pattern_list(&e->forbidden_sass, " or ");
        sb_printf(b, "%shas no %s", sep, l);
        free(l);
    }
}

/* No GPU (on this machine, or in a launcher's job): r is skipped with the
 * reason why. Nothing runs, but the checks of the compiled code alone do
 * (the libraries were read before): one that fails is a verdict,
 * requirement not met, and counts; all passed is still no grade (skipped),
 * and the reason says what was checked and what could not be. */
static void check_static(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r) {
    char no_gpu[sizeof r->reason];
    snprintf(no_gpu, sizeof no_gpu, "%s", r->reason);
    check_sass(t, e, lib, r);
    grade_check_compiler_repairs(r);
    StrBuf b = {0};
    if (r->verdict == V_REQUIREMENT)
        sb_printf(&b, "%s; found in your compiled code alone: nothing ran (%s), so whether its answer is right is "
                      "not known yet", r->reason, no_gpu);
    if (r->verdict == V_SKIPPED) {
        StrList found = {0};
        if (r->statics[STATIC_LIBRARIES] == STATIC_PASSED) strlist_add(&found, "uses no library the exercise forbids");
        if (r->statics[STATIC_MACHINE_CODE] == STATIC_PASSED) {
            StrBuf m = {0};
            sb_printf(&m, "its machine code ");
            describe_sass(e, &m);
            strlist_add(&found, m.buf);
            free(m.buf);
        }
        /* the repairs are wgmma's: said where the exercise is about wgmma */
        bool wgmma = false;
        for (int i = 0; i < e->required_sass.count; i++) wgmma |= strstr(e->required_sass.items[i], "GMMA") != NULL;
        if (wgmma && r->statics[STATIC_COMPILER_REPAIRS] == STATIC_PASSED)
            strlist_add(&found, "ptxas repaired no wgmma ordering");
        char *list = pattern_list(&found, " and ");
        sb_printf(&b, "%s; your code compiled%s%s", no_gpu, found.count ? ", " : "", found.count ? list : "");
        if (r->statics[STATIC_MACHINE_CODE] == STATIC_NOT_RUN)
            sb_printf(&b, "; its machine code was not checked: %s", r->static_not_run);
        sb_printf(&b, "; nothing ran, so it is not graded yet");
        free(list);
        strlist_free(&found);
    }
    if (b.buf) snprintf(r->reason, sizeof r->reason, "%s", b.buf);
    free(b.buf);
}

/* ptxas repairs two wgmma mistakes by itself and says so in one line each:
 * registers of a running wgmma read before wgmma.wait_group (it inserts
 * the wait: C7517) and accumulators touched without wgmma.fence (it inserts
 * the fence: C7519). The PTX ISA leaves both undefined, and a repaired
 * wait serializes a pipeline, so code that needed the repair has not met
 * what the chapter teaches, even where its answer came out right. */
static const struct {
    const char *code, *what;
} repairs[] = {
    {"(C7517)", "the compiler had to insert a wgmma wait (warpgroup.wait) because your code reads accumulator "
                "registers while a wgmma may still be writing them: call wgmma_wait<N>() (and fence_registers) "
                "before you read them"},
    {"(C7519)", "the compiler had to insert a wgmma.fence (warpgroup.arrive) because your code touches "
                "accumulator registers that a wgmma then uses without a wgmma_fence() between them"},
};

unsigned grade_scan_repairs(RepairScan *scan, const char *data, size_t len) {
    /* the codes may be split between two pieces: keep the last few bytes */
    enum { KEEP = 7 };
    char buf[2 * 4096 + KEEP + 1];
    while (len > 0) {
        size_t take = len < 2 * 4096 ? len : 2 * 4096;
        memcpy(buf, scan->tail, scan->tail_len);
        memcpy(buf + scan->tail_len, data, take);
        size_t n = scan->tail_len + take;
        buf[n] = '\0';
        for (size_t i = 0; i < ARRAY_SIZE(repairs); i++)
            if (memmem(buf, n, repairs[i].code, strlen(repairs[i].code))) scan->seen |= 1u << i;
        scan->tail_len = n < KEEP ? n : KEEP;
        memcpy(scan->tail, buf + n - scan->tail_len, scan->tail_len);
        data += take;
        len -= take;
    }
    return scan->seen;
}

void grade_check_compiler_repairs(GradeResult *r) {
    if (r->verdict != V_PASS && r->verdict != V_SLOW && r->verdict != V_SKIPPED) return;
    for (size_t i = 0; i < ARRAY_SIZE(repairs); i++)
        if ((r->compiler_repairs & (1u << i)) || (r->compile_log && strstr(r->compile_log, repairs[i].code))) {
            r->statics[STATIC_COMPILER_REPAIRS] = STATIC_FAILED;
            grade_set_verdict(r, V_REQUIREMENT, "%s%s (ptxas %s, in the compiler output)", correct_but(r), repairs[i].what,
                        repairs[i].code);
            return;
        }
    r->statics[STATIC_COMPILER_REPAIRS] = STATIC_PASSED;
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
    static const char *const judge_files[] = {"main.cu",     "runner.cu",   "protocol.cu", "rules.c",
                                              "sandbox.c",   "counters.cu", "neighbours.c", "modules.cu",
                                              "pmwitness.cu"};
    static const char *const runner_files[] = {"runner.cu", "protocol.cu", "sandbox.c", "counters.cu", "modules.cu"};
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

/* What one judge run does: the check sizes it runs in order (it stops at
 * the first that fails), and whether it then times the exercise's timing
 * sizes with the counters its evidence reads. */
typedef struct {
    const SizeSpec *checks;
    int nchecks;
    bool timed;
    const Launcher *launch; /* the judge runs through it, or NULL: here */
    const char *gpu_env;    /* "CUDA_VISIBLE_DEVICES=GPU-..." (gpu_visible_env), or NULL */
} JudgePlan;

/* One judge run, from its start to its end. The judge may start before the
 * student's library is built (go: it waits on its go pipe, proc_go), and
 * the verdict is decided as soon as its results are whole (it says `end:`
 * and closes them, then tears its contexts down), while the GPU's lock is
 * held until the process is gone (judge_settle). */
typedef struct {
    ProcRun *run;         /* NULL: none under way */
    ProcResult res;
    StrList args;
    const char **argv;
    char nonce[40];
    char *nonce_env, *result_env, *result_file;
    const Launcher *launch;
    int timeout_s;
    double spawned;
    GpuLock lock;         /* held until the judge is gone */
} Judge;

/* The judge's results are whole: their last line is `end: CODE`, which only
 * the judge writes (no runner holds the pipe), just before it closes them. */
static bool judge_said_all(const char *results, size_t len) {
    if (len < 2 || results[len - 1] != '\n') return false;
    const char *last = results + len - 1;
    while (last > results && last[-1] != '\n') last--;
    return !strncmp(last, "end: ", 5);
}

/* Starts the judge; with go, it waits for proc_go before it starts the
 * student's runner. Returns false with the verdict set when it could not. */
static bool judge_start(Judge *j, const Exercise *e, const CourseParts *parts, const char *student,
                        const GradeOptions *o, JudgePlan plan, bool go, GradeResult *r) {
    StrList *args = &j->args;
    char text[64];
    const Launcher *launch = j->launch = plan.launch;
    if (launch) /* its words first: srun ... harness-KIND ... */
        for (int i = 0; i < launch->words.count; i++) strlist_add(args, launch->words.items[i]);
    strlist_add(args, parts->harness);
    strlist_add(args, "--student");
    strlist_add(args, student);
    strlist_add(args, "--runner");
    strlist_add(args, parts->runner);
    strlist_add(args, "--reference");
    strlist_add(args, parts->reference);
    snprintf(text, sizeof text, "%llu", r->seed);
    strlist_add(args, "--seed");
    strlist_add(args, text);
    snprintf(text, sizeof text, "%.9g", e->tol_rel);
    strlist_add(args, "--rel");
    strlist_add(args, text);
    snprintf(text, sizeof text, "%.9g", e->tol_abs);
    strlist_add(args, "--abs");
    strlist_add(args, text);
    if (e->deterministic) {
        strlist_add(args, "--deterministic");
        strlist_add(args, "1");
    }
    for (int i = 0; i < plan.nchecks; i++) {
        size_text(&plan.checks[i], text, sizeof text);
        strlist_add(args, "--check");
        strlist_add(args, text);
    }
    for (int i = 0; plan.timed && i < e->ntiming_sizes; i++) {
        size_text(&e->timing_sizes[i], text, sizeof text);
        strlist_add(args, "--timing");
        strlist_add(args, text);
    }
    char *metrics = plan.timed ? evidence_metrics(e) : NULL;
    if (metrics) {
        strlist_add(args, "--counters");
        strlist_add(args, metrics);
        free(metrics);
        char *witnessed = evidence_witness_metrics(e);
        if (witnessed) {
            strlist_add(args, "--witness");
            strlist_add(args, witnessed);
            free(witnessed);
        }
    }
    j->timeout_s = o && o->timeout_s ? o->timeout_s : e->timeout_s;
    snprintf(j->nonce, sizeof j->nonce, "%llx%llx", fresh_seed(), fresh_seed());
    j->nonce_env = xprintf("GPUCOURSE_NONCE=%s", j->nonce);
    if (launch) { /* no pipe reaches another node: a file, and the judge's own bound */
        j->result_file = xprintf("%s.%s.results", parts->harness, j->nonce); /* in the build directory */
        j->result_env = xprintf("GPUCOURSE_RESULT_FILE=%s", j->result_file);
        snprintf(text, sizeof text, "%d", j->timeout_s);
        strlist_add(args, "--timeout");
        strlist_add(args, text);
    }
    j->argv = strlist_argv(args);

    const char *env[4];
    int nenv = 0;
    env[nenv++] = j->nonce_env;
    if (plan.gpu_env) env[nenv++] = plan.gpu_env;
    if (j->result_env) env[nenv++] = j->result_env;
    env[nenv] = NULL;
    ProcSpec spec = {.argv = j->argv, .env = env, .timeout_s = launch ? j->timeout_s + launch->wait_s : j->timeout_s,
                     .capture_limit = OUTPUT_LIMIT, .result_fd = launch ? -1 : RESULT_FD,
                     .go_fd = go ? RESULT_FD + 1 : -1, .on_output = o ? o->on_output : NULL,
                     .ctx = o ? o->ctx : NULL};
    j->spawned = now_seconds();
    if (proc_start(&spec, &j->res, &j->run) < 0) {
        grade_set_verdict(r, V_SETUP_ERROR, "%s", last_error());
        return false;
    }
    return true;
}

/* Waits for the judge's results and decides; the judge may still be
 * tearing its contexts down (judge_settle waits for that). */
static void judge_decide(Judge *j, const Exercise *e, GradeResult *r) {
    bool over = proc_wait(j->run, &j->res, j->launch ? NULL : judge_said_all);
    if (over) j->run = NULL;
    ProcResult *res = &j->res;
    double ended = now_seconds();
    if (j->launch) {
        free(res->results);
        size_t len = 0;
        res->results = read_file(j->result_file, &len);
        if (res->results && len > OUTPUT_LIMIT) res->results[OUTPUT_LIMIT] = '\0';
        unlink(j->result_file);
    }
    RunStatus st = {res->exited,      res->exit_code, res->signal, res->timed_out, res->interrupted, j->timeout_s,
                    j->launch ? j->launch->text : NULL, j->launch ? j->launch->wait_s : 0};
    if (!over) { /* its results are whole: the exit code is the one it said it ends with */
        const char *end = strstr(res->results, "\nend: ");
        st.exit_code = end ? atoi(end + 6) : 0;
    }
    r->program_output = xstrdup(res->output);
    r->output_dropped = res->output_dropped;
    grade_decide(r, e, &st, res->results, j->nonce);
    trace_place_judge(&r->trace, j->spawned, ended);
    trace_step(&r->trace, "read the judge's results, decide", ended);
}

/* The judge's end (it ends its own way once its results are whole, or is
 * killed when kill), then the GPU's lock let go: the next grading finds
 * no process of this one on the GPU. */
static void judge_settle(Judge *j, bool kill) {
    if (j->run) {
        if (kill) proc_kill(j->run);
        proc_wait(j->run, &j->res, NULL);
        j->run = NULL;
    }
    gpu_unlock(&j->lock);
    proc_result_free(&j->res);
    free(j->nonce_env);
    free(j->result_env);
    free(j->result_file);
    free(j->argv);
    strlist_free(&j->args);
    memset(j, 0, sizeof *j);
    j->lock.fd = j->lock.dir_fd = -1;
}

/* One judge run from its start to its end (a picture's sizes: the GPU's
 * lock is the caller's). */
static void run_harness(const Exercise *e, const CourseParts *parts, const char *student, const GradeOptions *o,
                        JudgePlan plan, GradeResult *r) {
    Judge j = {0};
    if (judge_start(&j, e, parts, student, o, plan, false, r)) judge_decide(&j, e, r);
    judge_settle(&j, false);
}

/* The judge of the last grading, while it tears down after the verdict
 * (GradeOptions.settle_later): grade_settle ends it. */
static Judge pending;

void grade_settle(void) {
    if (pending.run || pending.lock.held) judge_settle(&pending, false);
}

/* Compiles the student's file into student_so, streaming nvcc's output;
 * sets the verdict when it does not compile. */
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
    GpuLockRequest want = {.gpus = gpus, .ngpus = g->gpu.count, .what = g->e->id, .timeout_s = g->gpu_wait_s,
                           .no_wait = no_wait, .on_wait = o ? o->on_phase : NULL, .ctx = o ? o->ctx : NULL};
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

static bool start_judge(Grading *g, bool go) {
    char *gpu_env = g->launched ? NULL : gpu_visible_env(&g->gpu, g->r->gpu_id);
    bool started = judge_start(&g->judge, g->e, &g->parts, g->student_so, g->o,
                               (JudgePlan){g->e->check_sizes, g->e->ncheck_sizes, true, g->launched ? &g->launch : NULL,
                                           gpu_env},
                               go, g->r);
    free(gpu_env);
    return started;
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
    bool started = take_gpu(g, true) && start_judge(g, true);
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

void grade_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeOptions *o,
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
    g.judge.lock.fd = g.judge.lock.dir_fd = -1;
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
    if (!file_exists(student_cu)) {
        grade_set_verdict(r, V_SETUP_ERROR, "your file '%s' is missing: 'gpucourse reset %s' brings back the stub",
                    student_cu, e->id);
        goto out;
    }

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
    if (g.early) proc_go(g.judge.run, true); /* the library is built and read: the judge starts its runner */
    else if (!start_judge(&g, false)) goto out;
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
        run_harness(e, parts, student, &o, (JudgePlan){sizes, n, false, NULL, gpu_env}, &again);
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
