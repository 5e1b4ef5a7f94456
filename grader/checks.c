/* The checks of the student's compiled code (checks.h). */
#define _GNU_SOURCE
#include "checks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcache.h"
#include "libscan.h"
#include "sass.h"
#include "verdict.h"

bool check_library(const Exercise *e, const char *lib, GradeResult *r) {
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

/* How long cuobjdump may take to unpack one file. */
enum { EXTRACT_TIMEOUT_S = 120 };

/* Extracts every cubin of `file` (cuobjdump -xelf all, in the compiler's
 * box: toolchain_cuobjdump) into the empty directory dir and adds their
 * paths to out. 0; 1 when the file holds no device code; -1 with error
 * set. */
static int extract(const Toolchain *t, const char *file, const char *dir, StrList *out) {
    const char *args[] = {"-xelf", "all", NULL};
    ProcResult res;
    if (toolchain_cuobjdump(t, args, file, dir, EXTRACT_TIMEOUT_S, 4096, &res) < 0) return -1;
    int rc = 0;
    int first_line = (int)strcspn(res.output, "\n");
    if (res.interrupted) rc = error("cuobjdump was interrupted");
    else if (res.timed_out) rc = error("cuobjdump did not finish in %d s", EXTRACT_TIMEOUT_S);
    else if (!res.exited) rc = error("cuobjdump was killed by signal %d (%s)", res.signal, strsignal(res.signal));
    else if (res.exit_code != 0 && strstr(res.output, "does not contain device code")) rc = 1;
    else if (res.exit_code != 0)
        rc = error("cuobjdump -xelf could not unpack %s (exit code %d)%s%.*s", file, res.exit_code,
                   first_line ? ": " : "", first_line < 200 ? first_line : 200, res.output);
    proc_result_free(&res);
    if (rc != 0) return rc;
    DIR *d = opendir(dir);
    if (!d) return error("cannot read %s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".cubin")) {
            char *path = path_join(dir, e->d_name);
            strlist_add(out, path);
            free(path);
        }
    }
    closedir(d);
    return 0;
}

/* Adds the cubins of `file` (a directory of its own under dir) to out. A
 * file without device code adds none; -1 with error set. */
static int extract_into(const Toolchain *t, const char *file, const char *dir, int k, StrList *out) {
    char *sub = xprintf("%s/%d", dir, k);
    int rc = make_dirs(sub);
    if (rc == 0) rc = extract(t, file, sub, out) < 0 ? -1 : 0;
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

void check_loaded(const Toolchain *t, const Exercise *e, const char *student_so, const CourseParts *parts,
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
        rc = extract_into(t, student_so, dir, nsub++, &cubins);
        if (rc == 0) rc = extract_into(t, parts->runner, dir, nsub++, &cubins);
        if (rc == 0 && loaded_foreign(&r->loaded, &cubins) >= 0) {
            char *cupti = toolchain_cupti(t);
            char *cudart = t->cuda_home ? xprintf("%s/lib64/libcudart.so", t->cuda_home) : NULL;
            const char *runtime[] = {cupti, cudart};
            for (size_t i = 0; i < ARRAY_SIZE(runtime); i++) /* a library that cannot be unpacked adds none */
                if (runtime[i] && file_exists(runtime[i])) extract_into(t, runtime[i], dir, nsub++, &cubins);
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
        {"ATOMS", "an atomic on shared memory"},
        {"ATOM", "an atomic on memory"},
        {"ATOMG", "an atomic on global memory"},
        {"RED", "a reduction into memory (an atomic whose result is not read)"},
        {"REDG", "a reduction into global memory (an atomic whose result is not read)"},
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

bool sass_checked(const Exercise *e, const GradeResult *r) {
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

void check_sass(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r) {
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

void check_static(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r) {
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

