#define _GNU_SOURCE
#include "diagnose.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/proc.h"
#include "gpulock.h"
#include "launcher.h"
#include "metrics.h"

/* The bounds of a diagnosis: each program it runs, and all of them. */
enum { TOOL_TIMEOUT_S = 20, COUNTERS_TIMEOUT_S = 30, PICTURE_TIMEOUT_S = 20, DIAGNOSIS_BUDGET_S = 40,
       LOG_LIMIT = 1 << 20, OUTPUT_LIMIT = 16 * 1024 };

/* ------------------------------------------------------------ sanitizer logs */

/* The built-in word on each class of finding, for exercises whose
 * `diagnose:` entries do not name it. */
static const struct {
    const char *finding, *text;
} finding_words[] = {
    {"out_of_bounds", "a thread read or wrote outside the memory it was given: check the bounds test before each "
                      "load and store (the tail of every dimension) and the index it guards"},
    {"misaligned", "an access at an address that is not a multiple of its size: a 16-byte load (float4) needs a "
                   "16-byte-aligned address, so the row length and offset must keep it aligned"},
    {"race", "two threads touched the same shared memory with no barrier between: one wrote while another read "
             "or wrote. A __syncthreads() (or the pipeline's wait) belongs between the write and the read"},
    {"barrier", "a barrier that not every thread it counts reached (a __syncthreads() inside a branch that some "
                "threads skip, or a warp-synchronous call with a mask that leaves lanes out)"},
    {"uninitialized", "the code read device memory that nothing wrote before: scratch memory and outputs start as "
                      "garbage, so reset what you count on (flags, counters) in the same call"},
    {"launch_error", "a CUDA call failed: the launch's configuration (threads per block, shared memory asked "
                     "for) or an earlier fault"},
    {"tile_pattern", "the same positions are wrong in every 16 x 16 tile of the output: one mistake that every "
                     "tile repeats, most often which row and column a thread's (or a fragment register's) "
                     "element belongs to"},
    {"tail", "only the end of the output is wrong (the last rows or columns): the part past the last full tile "
             "or block, which a bound or a guard misses"},
};

/* ------------------------------------------------------------ the picture */

/* The first and last index of a "wrongruns" list's only run ("8-30" or "30"). */
static bool single_run_end(const WrongMap *m, long long *from, long long *to) {
    if (m->runs_total != 1) return false;
    int n = sscanf(m->runs, "%lld-%lld", from, to);
    if (n == 1) *to = *from;
    return n >= 1;
}

const char *diagnose_picture_finding(const WrongMap *m) {
    if (!m->present || m->nrows == 0) return NULL;
    if (wrong_map_repeats_in_tiles(m)) return "tile_pattern";
    if (m->rows <= 1) { /* 1D: one run of wrong indices, ending at the last, in the second half */
        long long from, to;
        return single_run_end(m, &from, &to) && 2 * from > m->cols && to == m->cols - 1 ? "tail" : NULL;
    }
    /* 2D: wrong cells only in the last grid row or column, and some right */
    bool any_right = false, all_tail = true;
    for (int r = 0; r < m->nrows; r++)
        for (int c = 0; c < m->grid_cols; c++) {
            bool wrong = m->grid[r][c] != '.';
            any_right |= !wrong;
            if (wrong && r != m->grid_rows - 1 && c != m->grid_cols - 1) all_tail = false;
        }
    return any_right && all_tail && m->grid_rows > 1 && m->grid_cols > 1 ? "tail" : NULL;
}

static const char *strip_prefix(const char *line) {
    if (!strncmp(line, "=========", 9)) {
        line += 9;
        if (*line == ' ') line++;
    }
    return line;
}

/* The class of a report from its headline and details. */
static const char *classify(const char *tool, const char *headline, const char *details) {
    if (strstr(headline, "Race reported")) return "race";
    if (strstr(headline, "Uninitialized")) return "uninitialized";
    if (strstr(headline, "arrier") || strstr(headline, "ivergent") || !strcmp(tool, "synccheck")) return "barrier";
    if (strstr(headline, "Program hit") || strstr(headline, "API error")) return "launch_error";
    if (strstr(details, "misaligned") || strstr(headline, "isaligned")) return "misaligned";
    if (!strcmp(tool, "racecheck")) return "race";
    if (!strcmp(tool, "initcheck")) return "uninitialized";
    return "out_of_bounds";
}

/* "at FUNC+0x1b0 in FILE:LINE" (or a frame: "Device Frame: FUNC+0x.. in
 * FILE:LINE") somewhere in text: the function's short name, file, line. */
static bool location(const char *text, char *func, size_t fsize, char *file, size_t filesize, int *line) {
    const char *plus = strstr(text, "+0x");
    const char *in = plus ? strstr(plus, " in ") : NULL;
    if (!in) return false;
    const char *start = text;
    const char *at = NULL;
    for (const char *s = text; s < plus; s++)
        if (!strncmp(s, "at ", 3) && (s == text || s[-1] == ' ')) at = s + 3;
    const char *frame = strstr(text, "Frame: ");
    if (frame && frame < plus) at = frame + 7;
    if (!at) return false;
    start = at;
    /* the name: up to the argument list, without a return type */
    int depth = 0;
    const char *end = start;
    for (; end < plus; end++) {
        if (*end == '<') depth++;
        else if (*end == '>') depth--;
        else if (*end == '(' && depth <= 0) break;
    }
    const char *name = start;
    depth = 0;
    for (const char *s = start; s < end; s++) {
        if (*s == '<') depth++;
        else if (*s == '>') depth--;
        else if (*s == ' ' && depth == 0) name = s + 1;
    }
    snprintf(func, fsize, "%.*s", (int)(end - name), name);
    const char *path = in + 4;
    const char *colon = strrchr(path, ':');
    if (!colon || !isdigit((unsigned char)colon[1])) return false;
    const char *base = path;
    for (const char *s = path; s < colon; s++)
        if (*s == '/') base = s + 1;
    snprintf(file, filesize, "%.*s", (int)(colon - base), base);
    *line = atoi(colon + 1);
    return true;
}

/* Copies text up to its first " [" (racecheck's hazard count) or end. */
static int hazards(const char *text) {
    const char *b = strstr(text, " [");
    return b ? atoi(b + 2) : 0;
}

int diagnose_parse_sanitizer(const char *tool, const char *log, const char *student_file, Finding *out, int max) {
    int n = 0;
    const char *line = log;
    while (line && *line) {
        /* one report: a headline at the left, then its indented lines */
        char headline[600], details[2400] = "";
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        snprintf(headline, sizeof headline, "%.*s", (int)(len < sizeof headline ? len : sizeof headline - 1), line);
        const char *h = strip_prefix(headline);
        line = end ? end + 1 : NULL;
        bool report = strncmp(headline, "=========", 9) == 0 && *h && *h != ' ' &&
                      strncmp(h, "COMPUTE-SANITIZER", 17) && !strstr(h, "SUMMARY") && strncmp(h, "Target application", 18) &&
                      strncmp(h, "This tool", 9) && strncmp(h, "Saved host backtrace", 20);
        if (!report) continue;
        /* its details, joined by "\n" */
        size_t dlen = 0;
        while (line && *line && !strncmp(line, "=========", 9)) {
            const char *e2 = strchr(line, '\n');
            size_t l2 = e2 ? (size_t)(e2 - line) : strlen(line);
            char one[600];
            snprintf(one, sizeof one, "%.*s", (int)(l2 < sizeof one ? l2 : sizeof one - 1), line);
            const char *d = strip_prefix(one);
            if (!*d || *d != ' ') break; /* a blank line or the next headline ends it */
            if (dlen < sizeof details - 1) dlen += (size_t)snprintf(details + dlen, sizeof details - dlen, "%s\n", d);
            if (dlen > sizeof details - 1) dlen = sizeof details - 1;
            line = e2 ? e2 + 1 : NULL;
        }
        Finding f = {0};
        f.finding = classify(tool, h, details);
        f.repeats = 1;
        /* where: the first place in the student's file, else the first place */
        char func[96], file[128];
        int ln;
        bool placed = false;
        char texts[2][2400];
        snprintf(texts[0], sizeof texts[0], "%s", h);
        snprintf(texts[1], sizeof texts[1], "%s", details);
        for (int pass = 0; pass < 2 && !placed; pass++)
            for (int t = 0; t < 2 && !placed; t++)
                for (char *s = texts[t]; s && *s && !placed;) {
                    char *nl = strchr(s, '\n');
                    if (nl) *nl = '\0';
                    if (location(s, func, sizeof func, file, sizeof file, &ln) &&
                        (pass == 1 || (student_file && !strcmp(file, student_file)))) {
                        snprintf(f.function, sizeof f.function, "%s", func);
                        snprintf(f.file, sizeof f.file, "%s", file);
                        f.line = ln;
                        placed = true;
                    }
                    if (nl) *nl = '\n';
                    s = nl ? nl + 1 : NULL;
                }
        if (!strcmp(f.finding, "race")) {
            /* "Race reported between Write access at F+0x.. in X.cu:35", then
             * "and Read access at F+0x.. in X.cu:37 [7040 hazards]" lines */
            char first[16] = "", other[16] = "", lines_text[120] = "";
            int total = 0, nlines = 0, seen[8];
            const char *between = strstr(h, "between ");
            if (between) sscanf(between + 8, "%15s", first);
            for (const char *s = details; s && *s;) {
                const char *e2 = strchr(s, '\n');
                char one[600], fn[96], fl[128];
                int l2;
                snprintf(one, sizeof one, "%.*s", (int)(e2 ? e2 - s : (long)strlen(s)), s);
                if (sscanf(one, " and %15s access", other) == 1 && location(one, fn, sizeof fn, fl, sizeof fl, &l2)) {
                    total += hazards(one);
                    bool dup = false;
                    for (int k = 0; k < nlines; k++) dup |= seen[k] == l2;
                    if (!dup && nlines < 8) {
                        seen[nlines++] = l2;
                        size_t used = strlen(lines_text);
                        snprintf(lines_text + used, sizeof lines_text - used, "%s%d", nlines > 1 ? ", " : "", l2);
                    }
                }
                s = e2 ? e2 + 1 : NULL;
            }
            for (char *s = first; *s; s++) *s = (char)tolower((unsigned char)*s);
            for (char *s = other; *s; s++) *s = (char)tolower((unsigned char)*s);
            if (nlines)
                snprintf(f.what, sizeof f.what, "shared-memory race: a %s at line %d and a %s at line%s %s (%d hazard%s)",
                         first, f.line, other, nlines > 1 ? "s" : "", lines_text, total, total == 1 ? "" : "s");
            else snprintf(f.what, sizeof f.what, "%.239s", h);
        } else {
            snprintf(f.what, sizeof f.what, "%.239s", h);
            char thread[160] = "", where[200] = "";
            const char *by = strstr(details, "by thread ");
            if (by) sscanf(by + 3, "%159[^\n]", thread);
            const char *after = strstr(details, "bytes after the nearest allocation");
            const char *before = strstr(details, "bytes before the nearest allocation");
            const char *rel = after ? after : before;
            if (rel) {
                const char *s = rel;
                while (s > details && s[-1] != '\n' && s[-1] != 's') s--; /* "and is N bytes ..." */
                char amount[40] = "";
                sscanf(s, " %39s", amount);
                const char *size = strstr(rel, "of size ");
                snprintf(where, sizeof where, "%s bytes %s an allocation of %ld bytes", amount, after ? "past the end of" : "before",
                         size ? atol(size + 8) : 0L);
            }
            snprintf(f.detail, sizeof f.detail, "%s%s%s", thread, thread[0] && where[0] ? "; " : "", where);
        }
        bool dup = false;
        for (int k = 0; k < n && !dup; k++)
            if (out[k].finding == f.finding && out[k].line == f.line && !strcmp(out[k].what, f.what)) {
                out[k].repeats++;
                dup = true;
            }
        if (!dup && n < max) out[n++] = f;
    }
    /* an API call that failed after a fault is the fault's echo: said only when nothing else was */
    int kept = 0;
    for (int k = 0; k < n; k++)
        if (strcmp(out[k].finding, "launch_error") || kept == 0) out[kept++] = out[k];
    if (kept > 1 && !strcmp(out[0].finding, "launch_error")) {
        memmove(out, out + 1, sizeof *out * (size_t)(kept - 1));
        kept--;
    }
    return kept;
}

/* ------------------------------------------------------------ sizes */

bool diagnose_sanitizer_size(const Exercise *e, const GradeResult *r, char *size, size_t len) {
    if (e->ncheck_sizes == 0) return false;
    for (int i = 0; i < r->nchecks; i++)
        if (r->checks[i].second_run && !r->checks[i].ok) { /* right values, other bits the second time */
            snprintf(size, len, "%s", r->checks[i].size);
            return true;
        }
    int ran = 0; /* the check sizes the run reported, in order */
    for (int i = 0; i < r->nchecks && ran < e->ncheck_sizes; i++) {
        if (r->checks[i].timed_sample) continue;
        char want[64];
        size_text(&e->check_sizes[ran], want, sizeof want);
        if (strcmp(r->checks[i].size, want)) break;
        if (!r->checks[i].ok) {
            snprintf(size, len, "%s", want);
            return true;
        }
        ran++;
    }
    int at = ran < e->ncheck_sizes && r->verdict != V_WRONG ? ran : 0; /* the size it stopped in */
    size_text(&e->check_sizes[at], size, len);
    return true;
}

/* ------------------------------------------------------------ measures */

/* ptxas's figures, over the build's kernels: the most, or the sum. */
static double most_registers(const KernelInfo *k, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) v = fmax(v, k[i].registers);
    return v;
}
static double most_shared(const KernelInfo *k, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) v = fmax(v, (double)k[i].shared);
    return v;
}
static double spilled(const KernelInfo *k, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) v += (double)(k[i].spill_stores + k[i].spill_loads);
    return v;
}
static double serialized(const KernelInfo *k, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) v += k[i].serialized[0] != '\0';
    return v;
}

/* How a measure's value is shown: a percentage, a whole count, or a ratio. */
enum { SHOW_RATIO, SHOW_PERCENT, SHOW_COUNT };

/* Each measure from its counters (the first over the second, or the one), or
 * from ptxas's figures. */
static const struct {
    const char *measure, *title;
    const char *counters[3];
    double (*of_kernels)(const KernelInfo *k, int n);
    int show;
} measures[] = {
    {"sectors_per_request", "sectors per global load request", {LOAD_SECTORS, LOAD_REQUESTS}, NULL, SHOW_RATIO},
    {"store_sectors_per_request", "sectors per global store request", {STORE_SECTORS, STORE_REQUESTS}, NULL,
     SHOW_RATIO},
    {"bank_conflicts", "bank conflicts per shared-memory wavefront", {BANK_CONFLICTS, SHARED_WAVEFRONTS}, NULL,
     SHOW_RATIO},
    {"occupancy", "warps active, of the most an SM holds", {WARPS_ACTIVE_PCT}, NULL, SHOW_PERCENT},
    {"dram_bytes", "device-memory bytes per byte that must move", {DRAM_READ_BYTES, DRAM_WRITE_BYTES}, NULL,
     SHOW_RATIO},
    {"local_bytes", "local-memory bytes (spills) per byte that must move", {LOCAL_LOAD_SECTORS, LOCAL_STORE_SECTORS},
     NULL, SHOW_RATIO},
    {"issue_active", "cycles an instruction issued", {ISSUE_ACTIVE_PCT}, NULL, SHOW_PERCENT},
    {"tensor_active", "tensor-pipe busy cycles per SM cycle", {TENSOR_CYCLES, SM_CYCLES}, NULL, SHOW_RATIO},
    {"tma_load_share", "share of loaded bytes that came through TMA", {TMA_LOAD_BYTES, LOAD_SECTORS}, NULL,
     SHOW_RATIO},
    {"registers", "registers per thread (the most of any kernel)", {NULL}, most_registers, SHOW_COUNT},
    {"spill_bytes", "bytes spilled per thread (stores and loads)", {NULL}, spilled, SHOW_COUNT},
    {"shared_bytes", "static shared memory per block (bytes)", {NULL}, most_shared, SHOW_COUNT},
    {"wgmma_serialized", "kernels whose wgmma ptxas serialized (C7514)", {NULL}, serialized, SHOW_COUNT},
};

static int measure_index(const char *m) {
    for (size_t i = 0; i < sizeof measures / sizeof measures[0]; i++)
        if (!strcmp(measures[i].measure, m)) return (int)i;
    return -1;
}

const char *diagnose_measure_title(const char *measure) {
    int i = measure_index(measure);
    return i < 0 ? measure : measures[i].title;
}

void diagnose_measure_value(const char *measure, double v, char *buf, size_t size) {
    int m = measure_index(measure);
    int show = m < 0 ? SHOW_RATIO : measures[m].show;
    if (show == SHOW_PERCENT) snprintf(buf, size, "%.0f%%", v);
    else if (show == SHOW_COUNT) snprintf(buf, size, "%.0f", v);
    else if (v != 0 && fabs(v) < 0.01) snprintf(buf, size, "%.1e", v);
    else snprintf(buf, size, "%.2f", v);
}

char *diagnose_metrics(const Exercise *e) {
    StrList all = {0};
    for (int i = 0; i < e->ndiagnose; i++) {
        int m = e->diagnose[i].measure ? measure_index(e->diagnose[i].measure) : -1;
        for (int k = 0; m >= 0 && k < 3 && measures[m].counters[k]; k++) {
            bool seen = false;
            for (int j = 0; j < all.count; j++) seen |= !strcmp(all.items[j], measures[m].counters[k]);
            if (!seen && all.count < MAX_RESULT_COUNTERS) strlist_add(&all, measures[m].counters[k]);
        }
    }
    StrBuf sb = {0};
    for (int j = 0; j < all.count; j++) sb_printf(&sb, "%s%s", j ? "," : "", all.items[j]);
    strlist_free(&all);
    return sb.buf;
}

static bool counter(const Counters *c, const char *name, double *v) {
    return c->status == COUNTERS_COLLECTED && evidence_value(c, name, v);
}

bool diagnose_measure(const char *measure, const Counters *c, const KernelInfo *k, int nk, double *value) {
    int m = measure_index(measure);
    if (m < 0) return false;
    if (measures[m].of_kernels) { /* ptxas's figures */
        if (nk == 0) return false;
        *value = measures[m].of_kernels(k, nk);
        return true;
    }
    double a = 0, b = 0;
    if (!counter(c, measures[m].counters[0], &a)) return false;
    if (measures[m].counters[1] && !counter(c, measures[m].counters[1], &b)) return false;
    /* a diagnosis counts one call: the first */
    const CountedSize *w = &c->sizes[c->ncalls > 0 ? c->calls[0].size : 0];
    double work = fmax(w->in_bytes + w->out_bytes, 1);
    if (!strcmp(measure, "dram_bytes")) *value = (a + b) / work;
    else if (!strcmp(measure, "local_bytes")) *value = 32 * (a + b) / work;
    else if (!strcmp(measure, "tensor_active")) *value = b > 0 ? a / b : 0; /* can pass 1: the pipe counts per sub-partition */
    else if (!strcmp(measure, "tma_load_share")) *value = a / fmax(fmax(w->in_bytes, a + 32 * b), 1);
    else if (measures[m].counters[1]) *value = b > 0 ? a / b : 0;
    else *value = a;
    return true;
}

/* ------------------------------------------------------------ hints */

static bool fires(const DiagnoseRule *rule, const MeasureRow *row) {
    if (!row->has_student) return false;
    double s = row->student, r = row->reference;
    switch (rule->compare) {
    case DIAG_ABOVE_REFERENCE: return row->has_reference && s > rule->value * r && s > r;
    case DIAG_BELOW_REFERENCE: return row->has_reference && s < rule->value * r && s < r;
    case DIAG_ABOVE: return s > rule->value;
    case DIAG_BELOW: return s < rule->value;
    }
    return false;
}

static void add_hint(Diagnosis *d, const char *text, const DiagnoseRule *rule) {
    if (d->nhints >= MAX_HINTS) return;
    Hint *h = &d->hints[d->nhints++];
    snprintf(h->text, sizeof h->text, "%s", text);
    snprintf(h->section, sizeof h->section, "%s", rule ? rule->section : "");
    h->chapter = rule ? rule->chapter : -1;
}

/* The first of e's entries that names finding, or NULL. */
static const DiagnoseRule *finding_rule(const Exercise *e, const char *finding) {
    for (int i = 0; i < e->ndiagnose; i++)
        if (e->diagnose[i].finding && !strcmp(e->diagnose[i].finding, finding)) return &e->diagnose[i];
    return NULL;
}

/* The entry's message, else the built-in word on the finding. */
static const char *finding_message(const DiagnoseRule *rule, const char *finding) {
    if (rule) return rule->message;
    for (size_t i = 0; i < sizeof finding_words / sizeof finding_words[0]; i++)
        if (!strcmp(finding_words[i].finding, finding)) return finding_words[i].text;
    return "";
}

void diagnose_hints(const Exercise *e, Diagnosis *d) {
    d->nhints = 0;
    /* findings: the first of each class, by the entry that names it */
    for (int t = 0; t < d->ntools; t++)
        for (int f = 0; f < d->tools[t].nfindings; f++) {
            const Finding *fd = &d->tools[t].findings[f];
            bool said = false;
            for (int h = 0; h < f && !said; h++) said = d->tools[t].findings[h].finding == fd->finding;
            if (said) continue;
            const DiagnoseRule *rule = finding_rule(e, fd->finding);
            char text[600];
            if (fd->line)
                snprintf(text, sizeof text, "%s: %s (line %d of %s)", d->tools[t].tool, finding_message(rule, fd->finding),
                         fd->line, fd->file);
            else snprintf(text, sizeof text, "%s: %s", d->tools[t].tool, finding_message(rule, fd->finding));
            add_hint(d, text, rule);
        }
    /* the picture: what the places of the wrong elements say */
    if (d->pattern) {
        const DiagnoseRule *rule = finding_rule(e, d->pattern);
        char text[600];
        snprintf(text, sizeof text, "picture: %s", finding_message(rule, d->pattern));
        add_hint(d, text, rule);
    }
    /* measures: every entry that fires, in order */
    for (int i = 0; i < e->ndiagnose; i++) {
        const DiagnoseRule *rule = &e->diagnose[i];
        if (!rule->measure) continue;
        for (int k = 0; k < d->nrows; k++) {
            const MeasureRow *row = &d->rows[k];
            if (strcmp(row->measure, rule->measure) || !fires(rule, row)) continue;
            char s[32], r[32], text[600];
            diagnose_measure_value(row->measure, row->student, s, sizeof s);
            diagnose_measure_value(row->measure, row->reference, r, sizeof r);
            if (row->has_reference)
                snprintf(text, sizeof text, "%s (%s: yours %s, the reference's %s)", rule->message,
                         diagnose_measure_title(row->measure), s, r);
            else snprintf(text, sizeof text, "%s (%s: yours %s)", rule->message, diagnose_measure_title(row->measure), s);
            add_hint(d, text, rule);
        }
    }
}

/* ------------------------------------------------------------ running */

static void progress(const DiagnoseOptions *o, const char *what) {
    if (o && o->on_phase) o->on_phase(what, o->ctx);
}

/* Where the diagnosis's runs go on a machine with several GPUs: the GPU
 * the grading ran on, whose lock diagnose_exercise holds while they run
 * ("CUDA_VISIBLE_DEVICES=GPU-...", grade_gpu_env); NULL with one GPU. */
static char *on_gpu;

/* Runs argv (the runner, or a sanitizer around it) with the result pipe;
 * fills res. Returns -1 when it could not start. */
static int run(const char *const *argv, double timeout_s, ProcResult *res) {
    const char *env[] = {on_gpu, NULL};
    ProcSpec spec = {.argv = argv, .env = env, .timeout_s = timeout_s, .capture_limit = OUTPUT_LIMIT,
                     .result_fd = RESULT_FD};
    return proc_run(&spec, res);
}

static bool uses_shared(const GradeResult *r, const char *source) {
    for (int i = 0; i < r->nkernels; i++)
        if (r->kernels[i].shared > 0) return true;
    return source && strstr(source, "__shared__"); /* dynamic shared memory is not in ptxas's figures */
}

static void run_sanitizers(const Toolchain *t, const Exercise *e, const GradeResult *r, const char *runner,
                           const char *lib, const char *source_path, const DiagnoseOptions *o, Diagnosis *d,
                           double start) {
    char *sanitizer = toolchain_tool(t, "compute-sanitizer");
    if (!sanitizer) {
        snprintf(d->why_not, sizeof d->why_not,
                 "compute-sanitizer is not installed beside nvcc (it comes with the CUDA Toolkit): "
                 "'gpucourse doctor' says what is missing");
        return;
    }
    char *source = read_file(source_path, NULL);
    bool shared = uses_shared(r, source);
    free(source);
    const char *tools[] = {"memcheck", shared ? "racecheck" : NULL, shared ? "synccheck" : NULL, "initcheck"};
    const char *tmp = getenv("TMPDIR");
    char *dir_pattern = xprintf("%s/gpucourse-why-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *dir = mkdtemp(dir_pattern);
    if (!dir) {
        snprintf(d->why_not, sizeof d->why_not, "cannot make a directory for the sanitizer's log under %s",
                 tmp && *tmp ? tmp : "/tmp");
        free(dir_pattern);
        free(sanitizer);
        return;
    }
    char *log_path = path_join(dir, "sanitizer.log");
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", r->seed ? r->seed : 1);
    const char *base = strrchr(e->file, '/') ? strrchr(e->file, '/') + 1 : e->file;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0] && d->ntools < MAX_TOOLS; i++) {
        if (!tools[i]) continue;
        double left = DIAGNOSIS_BUDGET_S - (now_seconds() - start);
        if (left < 3) {
            snprintf(d->counters_note, sizeof d->counters_note, "the other sanitizers were not run: the diagnosis "
                     "takes at most %d s", DIAGNOSIS_BUDGET_S);
            break;
        }
        char what[96];
        snprintf(what, sizeof what, "%s at %s", tools[i], d->size);
        progress(o, what);
        unlink(log_path);
        const char *argv[] = {sanitizer, "--tool", tools[i], "--log-file", log_path, "--print-limit", "20",
                              "--error-exitcode", "0", "--show-backtrace", "device", runner, "--student", lib,
                              "--diagnose", d->size, "--seed", seed, NULL};
        ToolRun *tr = &d->tools[d->ntools++];
        memset(tr, 0, sizeof *tr);
        snprintf(tr->tool, sizeof tr->tool, "%s", tools[i]);
        ProcResult res;
        double t0 = now_seconds();
        if (run(argv, fmin(TOOL_TIMEOUT_S, left), &res) < 0) {
            snprintf(tr->note, sizeof tr->note, "could not start: %s", last_error());
            break;
        }
        tr->seconds = now_seconds() - t0;
        tr->finished = res.exited && !res.timed_out && !res.interrupted;
        size_t log_len = 0;
        char *log = read_file(log_path, &log_len);
        if (log && log_len > LOG_LIMIT) log[LOG_LIMIT] = '\0';
        if (log) tr->nfindings = diagnose_parse_sanitizer(tools[i], log, base, tr->findings, MAX_FINDINGS);
        if (res.interrupted) snprintf(tr->note, sizeof tr->note, "interrupted");
        else if (res.timed_out)
            snprintf(tr->note, sizeof tr->note, "the call did not finish in %.0f s under %s at size %s either: a loop "
                     "that never ends, or a wait (a barrier, an mbarrier phase) that nothing completes",
                     fmin(TOOL_TIMEOUT_S, left), tools[i], d->size);
        else if (strstr(res.results ? res.results : "", "error: ")) {
            const char *err = strstr(res.results, "error: ");
            snprintf(tr->note, sizeof tr->note, "%.*s", (int)strcspn(err, "\n"), err);
        } else if (!log)
            snprintf(tr->note, sizeof tr->note, "it wrote no log (exit %d): %.200s", res.exit_code,
                     res.output ? res.output : "");
        bool stop = tr->nfindings > 0 || res.interrupted || res.timed_out;
        free(log);
        proc_result_free(&res);
        if (stop) break;
    }
    unlink(log_path);
    rmdir(dir);
    free(log_path);
    free(dir_pattern);
    free(sanitizer);
}

/* The counters of one library's call at d->size through the runner's
 * diagnose mode, into c. Returns false with why set. */
static bool counters_of_call(const char *runner, const char *lib, const char *metrics, const char *seed,
                             const char *size, Counters *c, char *why, size_t why_len) {
    memset(c, 0, sizeof *c);
    const char *argv[] = {runner, "--student", lib, "--diagnose", size, "--seed", seed, "--counters", metrics, NULL};
    ProcResult res;
    if (run(argv, COUNTERS_TIMEOUT_S, &res) < 0) {
        snprintf(why, why_len, "%s", last_error());
        return false;
    }
    for (char *line = res.results; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        char *colon = strchr(line, ':');
        if (colon && colon[1] == ' ') {
            *colon = '\0';
            evidence_parse_line(c, line, colon + 2);
            if (!strcmp(line, "error")) snprintf(why, why_len, "%s", colon + 2);
        }
        line = end ? end + 1 : NULL;
    }
    if (res.timed_out) snprintf(why, why_len, "the call did not finish in %d s", COUNTERS_TIMEOUT_S);
    else if (res.interrupted) snprintf(why, why_len, "interrupted");
    else if (c->status == COUNTERS_UNAVAILABLE || c->status == COUNTERS_FAILED) snprintf(why, why_len, "%.290s", c->why);
    else if (c->status != COUNTERS_COLLECTED && !why[0]) snprintf(why, why_len, "no counters came back");
    proc_result_free(&res);
    return c->status == COUNTERS_COLLECTED;
}

static void run_counters(const Exercise *e, const GradeResult *r, const char *runner, const char *lib,
                         const char *reference, const char *reference_log, const DiagnoseOptions *o, Diagnosis *d) {
    char *metrics = diagnose_metrics(e);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", r->seed ? r->seed : 1);
    Counters mine = {0}, theirs = {0};
    char why_mine[300] = "", why_theirs[300] = "";
    if (metrics && *metrics) {
        progress(o, "the counters of your code");
        counters_of_call(runner, lib, metrics, seed, d->size, &mine, why_mine, sizeof why_mine);
        progress(o, "the counters of the reference");
        counters_of_call(runner, reference, metrics, seed, d->size, &theirs, why_theirs, sizeof why_theirs);
        if (why_mine[0] || why_theirs[0])
            snprintf(d->counters_note, sizeof d->counters_note, "%s%.160s%s%s%.160s", why_mine[0] ? "your call's counters: " : "",
                     why_mine, why_mine[0] && why_theirs[0] ? "; " : "", why_theirs[0] ? "the reference's: " : "",
                     why_theirs);
    }
    char *log = read_file(reference_log, NULL);
    d->nreference_kernels = log ? kernels_parse(log, d->reference_kernels, MAX_KERNELS) : 0;
    free(log);
    for (int i = 0; i < e->ndiagnose && d->nrows < MAX_MEASURE_ROWS; i++) {
        const char *m = e->diagnose[i].measure;
        bool listed = false;
        for (int k = 0; m && k < d->nrows; k++) listed |= !strcmp(d->rows[k].measure, m);
        if (!m || listed) continue;
        MeasureRow *row = &d->rows[d->nrows++];
        row->measure = m;
        row->has_student = diagnose_measure(m, &mine, r->kernels, r->nkernels, &row->student);
        row->has_reference =
            diagnose_measure(m, &theirs, d->reference_kernels, d->nreference_kernels, &row->reference);
    }
    free(metrics);
}

void diagnose_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeResult *r,
                       const DiagnoseOptions *o, Diagnosis *d) {
    memset(d, 0, sizeof *d);
    double start = now_seconds();
    Toolchain t = {0};
    CourseParts parts = {0};
    char *lib = xprintf("%s/%s-%s.so", w->build, o && o->label ? o->label : "student", e->id);
    char *source = workspace_exercise_path(w, e);
    GpuLock lock = {-1};
    switch (r->verdict) {
    case V_WRONG:
    case V_RUNTIME_ERROR:
    case V_TIMEOUT: d->kind = DIAG_SANITIZER; break;
    case V_SLOW:
    case V_REQUIREMENT:
    case V_PASS: d->kind = DIAG_COUNTERS; break;
    default:
        if (r->verdict == V_COMPILE_ERROR)
            snprintf(d->why_not, sizeof d->why_not, "your file did not compile: the compiler's messages above say where");
        else if (r->verdict == V_SKIPPED) /* the grade's reason is said once, by the grade */
            snprintf(d->why_not, sizeof d->why_not, "nothing ran: no GPU (the grade above says why)");
        else if (r->verdict == V_GPU_BUSY)
            snprintf(d->why_not, sizeof d->why_not, "%s", GPU_BUSY_NOT_JUDGED);
        else snprintf(d->why_not, sizeof d->why_not, "nothing of yours ran (%s)", verdict_title(r->verdict));
        goto out;
    }
    if (r->verdict == V_REQUIREMENT && r->nchecks == 0) { /* decided on the compiled code alone (no GPU, a library) */
        d->kind = DIAG_NOTHING;
        snprintf(d->why_not, sizeof d->why_not,
                 "nothing of yours ran: the verdict is your compiled code's alone, and its reason above says what "
                 "is missing");
        goto out;
    }
    if (r->verdict == V_TIMEOUT && !r->device[0]) { /* the compiler timed out: nothing ran */
        d->kind = DIAG_NOTHING;
        snprintf(d->why_not, sizeof d->why_not, "the compiler did not finish: nothing of yours ran");
        goto out;
    }
    if (!file_exists(lib)) {
        d->kind = DIAG_NOTHING;
        snprintf(d->why_not, sizeof d->why_not, "your compiled library %s is gone: grade again first", lib);
        goto out;
    }
    Launcher launch;
    if (launcher_from_env(&launch)) { /* the sanitizer and the counters run beside the GPU, not through srun */
        d->kind = DIAG_NOTHING;
        snprintf(d->why_not, sizeof d->why_not,
                 "a diagnosis runs here, and the GPU is behind the launcher (%.200s): on a GPU node, run "
                 "'gpucourse why %s' without GPUCOURSE_LAUNCHER",
                 launch.text, e->id);
        launcher_free(&launch);
        goto out;
    }
    char *log = NULL;
    if (toolchain_find(&t) < 0 || grade_build_course_parts(&t, c, w, e, &parts, &log) < 0) {
        snprintf(d->why_not, sizeof d->why_not, "%s", last_error());
        d->kind = DIAG_NOTHING;
        free(log);
        goto out;
    }
    /* its runs use the GPU: not beside another grading's timing, nor its own judge's end */
    grade_settle();
    const char *gpus[] = {r->gpu_id};
    GpuLockRequest want = {.gpus = gpus, .ngpus = 1, .what = e->id, .on_wait = o ? o->on_phase : NULL,
                           .ctx = o ? o->ctx : NULL};
    GpuLockResult locked = r->gpu_id[0] ? gpu_lock(&want, &lock) : GPU_LOCK_FAILED;
    on_gpu = grade_gpu_env(r);
    if (locked == GPU_LOCK_INTERRUPTED || locked == GPU_LOCK_TIMED_OUT) {
        d->kind = DIAG_NOTHING;
        snprintf(d->why_not, sizeof d->why_not, "%s", locked == GPU_LOCK_INTERRUPTED ? "interrupted" : last_error());
        goto out;
    }
    if (d->kind == DIAG_SANITIZER) {
        if (!diagnose_sanitizer_size(e, r, d->size, sizeof d->size)) {
            d->kind = DIAG_NOTHING;
            snprintf(d->why_not, sizeof d->why_not, "the exercise has no check sizes to run the sanitizers at");
            goto out;
        }
        if (r->verdict == V_WRONG && r->wrong_map.present && wrong_map_says_little(&r->wrong_map)) {
            progress(o, "where the output is wrong, at a larger size");
            bool stopped;
            grade_picture(e, &parts, lib, r, PICTURE_TIMEOUT_S, &d->picture, &stopped);
            if (stopped) {
                snprintf(d->why_not, sizeof d->why_not, "interrupted");
                goto out;
            }
        }
        d->pattern = diagnose_picture_finding(d->picture.present ? &d->picture : &r->wrong_map);
        run_sanitizers(&t, e, r, parts.runner, lib, source, o, d, start);
    } else {
        if (!r->timed || r->nsizes == 0) {
            d->kind = DIAG_NOTHING;
            snprintf(d->why_not, sizeof d->why_not, "the grading timed nothing to compare");
            goto out;
        }
        snprintf(d->size, sizeof d->size, "%s", r->sizes[r->decisive].size);
        char *reference_log = xprintf("%s.log", parts.reference);
        run_counters(e, r, parts.runner, lib, parts.reference, reference_log, o, d);
        free(reference_log);
    }
    diagnose_hints(e, d);
out:
    gpu_unlock(&lock);
    free(on_gpu);
    on_gpu = NULL;
    d->wall_s = now_seconds() - start;
    free(lib);
    free(source);
    course_parts_free(&parts);
    toolchain_free(&t);
}
