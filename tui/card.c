#define _GNU_SOURCE
#include "card.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../grader/report.h"

const char *card_verdict_banner(Verdict v) {
    static const char *const banners[V_COUNT] = {
        [V_PASS] = "PASS", [V_WRONG] = "WRONG ANSWER", [V_SLOW] = "TOO SLOW",
        [V_COMPILE_ERROR] = "COMPILE ERROR", [V_RUNTIME_ERROR] = "RUNTIME ERROR", [V_TIMEOUT] = "TIMEOUT",
        [V_REQUIREMENT] = "REQUIREMENT NOT MET", [V_SKIPPED] = "SKIPPED: no GPU",
        [V_GPU_BUSY] = "GPU BUSY: timing not trustworthy",
        [V_INTERRUPTED] = "INTERRUPTED", [V_SETUP_ERROR] = "SETUP ERROR",
    };
    return v < V_COUNT ? banners[v] : "?";
}

const char *card_verdict_phrase(Verdict v) {
    static const char *const phrases[V_COUNT] = {
        [V_PASS] = "passed", [V_WRONG] = "wrong answer", [V_SLOW] = "correct, too slow",
        [V_COMPILE_ERROR] = "did not compile", [V_RUNTIME_ERROR] = "runtime error", [V_TIMEOUT] = "timed out",
        [V_REQUIREMENT] = "a requirement not met", [V_SKIPPED] = "compiled, not run (no GPU)",
        [V_GPU_BUSY] = "GPU busy (not counted)",
        [V_INTERRUPTED] = "cancelled", [V_SETUP_ERROR] = "setup error (not counted)",
    };
    return v < V_COUNT ? phrases[v] : "?";
}

Style card_verdict_style(Verdict v) {
    switch (v) {
    case V_PASS: return S_PASS;
    case V_SLOW:
    case V_REQUIREMENT: return S_WARN;
    case V_SKIPPED:
    case V_GPU_BUSY: return S_SKIP;
    case V_INTERRUPTED: return S_DIM;
    default: return S_FAIL;
    }
}

static void repeat(Doc *d, Style s, const char *g, int n) {
    for (int i = 0; i < n; i++) doc_add(d, s, g);
}

enum { LABEL_WIDTH = 9 };
static void label(Doc *d, const char *name) { doc_printf(d, S_LABEL, "%-*s", LABEL_WIDTH, name); }

/* ------------------------------------------------------------ bars */

static int bar_pos(double v, double scale, int w) {
    int p = (int)(v / scale * w + 0.5);
    return p < 0 ? 0 : p > w ? w : p;
}

/* A compute-bound kind: you, the reference and the library in TFLOP/s. */
static void card_bars_flops(Doc *d, const GradeResult *r, int w) {
    double scale = fmax(r->tflops_student, fmax(r->tflops_reference, r->tflops_library)) * 1.02;
    if (scale <= 0) return;
    double floor_ref = r->floor_reference * r->tflops_reference;
    double floor_lib = r->floor_library > 0 && r->library.samples ? r->floor_library * r->tflops_library : 0;
    int fr = floor_ref > 0 ? bar_pos(floor_ref, scale, w) : -1;
    int fl = floor_lib > 0 ? bar_pos(floor_lib, scale, w) : -1;
    if (fr >= w) fr = w - 1;
    if (fl >= w) fl = w - 1;
    const struct {
        const char *name;
        double tflops;
        Style s;
    } rows[] = {
        {"you", r->tflops_student, S_BAR_YOU},
        {"reference", r->tflops_reference, S_BAR_REF},
        {"library", r->tflops_library, S_BAR_BASE},
    };
    int nrows = r->library.samples ? 3 : 2;
    for (int i = 0; i < nrows; i++) {
        doc_printf(d, i == 0 ? S_LABEL : S_NORMAL, "  %-10s ", rows[i].name);
        int len = bar_pos(rows[i].tflops, scale, w);
        for (int k = 0; k < w; k++) {
            if (i == 0 && (k == fr || k == fl)) doc_add(d, S_FLOOR, glyph->floor);
            else if (k < len) doc_add(d, rows[i].s, glyph->block);
            else doc_add(d, S_DIM, glyph->shade);
        }
        doc_printf(d, i == 0 ? S_LABEL : S_NORMAL, " %5.0f TFLOP/s", rows[i].tflops);
        if (i == 0) doc_printf(d, S_NORMAL, "  %.2fx ref", r->vs_reference);
        doc_newline(d);
    }
    doc_add(d, S_NORMAL, "             ");
    for (int k = 0; k < w; k++) doc_add(d, k == fr || k == fl ? S_FLOOR : S_NORMAL, k == fr || k == fl ? glyph->up : " ");
    doc_add(d, S_FLOOR, " floors");
    doc_newline(d);
    doc_printf(d, S_DIM, "  floors: %.2fx ref = %.0f", r->floor_reference, floor_ref);
    if (floor_lib > 0) doc_printf(d, S_DIM, ", %.2fx %s = %.0f", r->floor_library, r->library_name, floor_lib);
    doc_printf(d, S_DIM, " TFLOP/s");
    doc_newline(d);
    doc_printf(d, S_DIM, "  you/reference %.2f", r->vs_reference);
    if (r->library.samples) doc_printf(d, S_DIM, ", you/library %.2f", r->vs_library);
    doc_printf(d, S_DIM, " (median of %d samples each, same run)", r->student.samples);
    doc_newline(d);
}

void card_bars(Doc *d, const GradeResult *r, int width) {
    int w = width - 38;
    if (w > 48) w = 48;
    if (w < 10) w = 10;
    if (r->flops > 0) {
        card_bars_flops(d, r, w);
        return;
    }
    double scale = fmax(r->gbps_student, fmax(r->gbps_reference, r->gbps_baseline));
    if (scale <= 0) return;
    scale *= 1.02;
    /* the floors in GB/s: the reference's throughput, or the copy's, times the floor */
    double floor_ref = r->floor_reference * r->gbps_reference;
    double floor_base = r->floor_baseline > 0 ? r->floor_baseline * r->gbps_baseline : 0;
    int fr = floor_ref > 0 ? bar_pos(floor_ref, scale, w) : -1;
    int fb = floor_base > 0 ? bar_pos(floor_base, scale, w) : -1;
    if (fr >= w) fr = w - 1;
    if (fb >= w) fb = w - 1;
    const struct {
        const char *name;
        double gbps;
        Style s;
    } rows[] = {
        {"you", r->gbps_student, S_BAR_YOU},
        {"reference", r->gbps_reference, S_BAR_REF},
        {"copy", r->gbps_baseline, S_BAR_BASE},
    };
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        doc_printf(d, i == 0 ? S_LABEL : S_NORMAL, "  %-10s ", rows[i].name);
        int len = bar_pos(rows[i].gbps, scale, w);
        for (int k = 0; k < w; k++) {
            if (i == 0 && (k == fr || k == fb)) doc_add(d, S_FLOOR, glyph->floor);
            else if (k < len) doc_add(d, rows[i].s, glyph->block);
            else doc_add(d, S_DIM, glyph->shade);
        }
        doc_printf(d, i == 0 ? S_LABEL : S_NORMAL, " %5.0f GB/s", rows[i].gbps);
        if (i == 0) doc_printf(d, S_NORMAL, "  %.2fx ref", r->vs_reference);
        if (i == 2) doc_printf(d, S_DIM, "  (same run)");
        doc_newline(d);
    }
    /* the floors, pointed at from under the bars */
    doc_add(d, S_NORMAL, "             ");
    for (int k = 0; k < w; k++) doc_add(d, k == fr || k == fb ? S_FLOOR : S_NORMAL, k == fr || k == fb ? glyph->up : " ");
    doc_add(d, S_FLOOR, " floors");
    doc_newline(d);
    doc_printf(d, S_DIM, "  floors: %.2fx the reference = %.0f GB/s", r->floor_reference, floor_ref);
    if (floor_base > 0) doc_printf(d, S_DIM, ", %.2fx the copy = %.0f GB/s", r->floor_baseline, floor_base);
    doc_newline(d);
    doc_printf(d, S_DIM, "  you/reference %.2f, you/copy %.2f (median of %d samples each)", r->vs_reference,
               r->vs_baseline, r->student.samples);
    doc_newline(d);
}

/* ------------------------------------------------------------ roofline */

static void si(char *buf, size_t size, double v, const char *unit) {
    static const char *const prefixes[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    while (v >= 1000 && p < 5) v /= 1000, p++;
    snprintf(buf, size, v >= 100 ? "%.0f %s%s" : v >= 10 ? "%.1f %s%s" : "%.2f %s%s", v, prefixes[p], unit);
}

enum { ROOF_H = 8, ROOF_DECADES_X = 5, ROOF_DECADES_Y = 4 };
static const double roof_xmin = 0.01; /* flop/byte at the left edge */

/* A compute-bound kind: its point against the arithmetic peak at the clock
 * it ran (the grader's ceiling of the deciding size, grader/ceiling.h). */
static void card_roofline_flops(Doc *d, const GradeResult *r, int width) {
    const Ceiling *c = &r->sizes[r->decisive].ceiling;
    if (c->peak_tflops <= 0 || r->bytes <= 0) return;
    double share = r->tflops_student / c->peak_tflops;
    int w = width - 30;
    if (w > 48) w = 48;
    if (w < 10) w = 10;
    doc_add(d, S_H3, "Roofline");
    doc_newline(d);
    doc_printf(d, S_NORMAL, "  peak %5.0f TFLOP/s ", c->peak_tflops);
    repeat(d, S_ROOF, glyph->block, w);
    doc_newline(d);
    doc_printf(d, S_LABEL, "  you  %5.0f TFLOP/s ", r->tflops_student);
    int len = bar_pos(share, 1, w);
    repeat(d, S_BAR_YOU, glyph->block, len);
    repeat(d, S_DIM, glyph->shade, w - len);
    doc_printf(d, S_NORMAL, " %.0f%%", 100 * share);
    doc_newline(d);
    char ridge[64] = "";
    if (c->ridge > 0) snprintf(ridge, sizeof ridge, " (the ridge: %.0f)", c->ridge);
    char *text = xprintf("%s: %.0f floating-point operations per byte that must move%s, so the ceiling is the "
                         "arithmetic peak (this GPU's dense %s rate x %d SMs x %d MHz, %s), not the memory",
                         c->bound == BOUND_COMPUTE ? "compute-bound" : "bound", c->intensity, ridge, c->math,
                         r->sm_count, c->clock_mhz,
                         c->clock_measured ? "the clock it ran at" : "its highest clock: the one it ran at was not read");
    doc_add(d, S_NORMAL, "  ");
    doc_wrap(d, S_NORMAL, text, 2, width);
    free(text);
}

/* The exercise's timed size whose figures the result shows (the deciding one). */
static const SizeSpec *timed_size(const Exercise *e, const GradeResult *r) {
    static const SizeSpec none;
    if (e->ntiming_sizes == 0) return &none;
    return &e->timing_sizes[r->decisive < e->ntiming_sizes ? r->decisive : 0];
}

/* Every timed size in a line each, when there are several; the bars below
 * show the one that decided. */
static void card_sizes(Doc *d, const GradeResult *r) {
    doc_add(d, S_H3, "Each size");
    doc_newline(d);
    for (int i = 0; i < r->nsizes; i++) {
        const TimedSize *t = &r->sizes[i];
        if (t->flops > 0)
            doc_printf(d, i == r->decisive ? S_NORMAL : S_DIM, "  %-16s you %5.0f TFLOP/s  you/ref %.2f", t->size,
                       t->tflops_student, t->vs_reference);
        else
            doc_printf(d, i == r->decisive ? S_NORMAL : S_DIM, "  %-16s you %5.0f GB/s  you/ref %.2f", t->size,
                       t->gbps_student, t->vs_reference);
        if (t->library.samples) doc_printf(d, i == r->decisive ? S_NORMAL : S_DIM, "  you/lib %.2f", t->vs_library);
        if (i == r->decisive) doc_add(d, S_DIM, "  (below)");
        doc_newline(d);
    }
    doc_newline(d);
}

/* Each timed size against the ceiling that bounds it (the grader's,
 * grader/ceiling.h): a bar of the share reached, a line a size. */
void card_ceilings(Doc *d, const GradeResult *r, int width) {
    bool any = false, guessed = false;
    for (int i = 0; r->timed && i < r->nsizes; i++) any |= r->sizes[i].ceiling.bound != BOUND_NONE;
    if (!any) return;
    int w = width - 60; /* "  " size 16, bound 8, the bar, " 58% of 1070 TFLOP/s, 1980 MHz" */
    if (w > 24) w = 24;
    if (w < 8) w = 8;
    doc_add(d, S_H3, "Ceilings");
    doc_add(d, S_DIM, " (each size: the bound that applies, your share of it)");
    doc_newline(d);
    for (int i = 0; i < r->nsizes; i++) {
        const TimedSize *t = &r->sizes[i];
        const Ceiling *c = &t->ceiling;
        if (c->bound == BOUND_NONE) continue;
        Style s = i == r->decisive ? S_NORMAL : S_DIM;
        doc_printf(d, s, "  %-16s %-8s", t->size[0] ? t->size : "timed", ceiling_bound_name(c->bound));
        int len = bar_pos(c->fraction, 1, w);
        repeat(d, S_BAR_YOU, glyph->block, len);
        repeat(d, S_DIM, glyph->shade, w - len);
        if (c->bound == BOUND_MEMORY) doc_printf(d, s, " %3.0f%% of %.0f GB/s", 100 * c->fraction, c->copy_gbps);
        else doc_printf(d, s, " %3.0f%% of %.0f TFLOP/s, %d MHz", 100 * c->fraction, c->peak_tflops, c->clock_mhz);
        doc_newline(d);
        guessed |= !c->clock_measured;
    }
    const Ceiling *c = &r->sizes[r->decisive].ceiling;
    char *text = xprintf("memory: the copy in the same run; compute: the dense %s peak at %s",
                         c->math[0] ? c->math : "FP32",
                         guessed ? "the highest clock (the one it ran at was not read)"
                                 : "the clock it ran at (read after your timed calls)");
    doc_add(d, S_DIM, "  ");
    doc_wrap(d, S_DIM, text, 2, width);
    free(text);
}

void card_roofline(Doc *d, const Exercise *e, const GradeResult *r, int width) {
    if (r->timed && r->flops > 0) {
        card_roofline_flops(d, r, width);
        return;
    }
    if (!r->timed) return;
    /* Ceilings, the grader's (grader/ceiling.h): memory, the copy measured
     * in the same run (what this GPU really moves); compute, the dense peak
     * of the kind's arithmetic at the clock it ran. */
    const Ceiling *c = &r->sizes[r->decisive].ceiling;
    if (c->copy_gbps <= 0 || c->peak_tflops <= 0) return;
    double bw = c->copy_gbps * 1e9;
    double peak = c->peak_tflops * 1e12;
    double per_element;
    const char *math;
    bool known = ceiling_kind(e->kind, &per_element, &math);
    double fpb = c->intensity;
    int w = width - 12;
    if (w > 60) w = 60;
    if (w < 30) w = 30;
    double cpd = (double)w / ROOF_DECADES_X, rpd = (double)ROOF_H / ROOF_DECADES_Y;
    double ymax = peak * 2, lymax = log10(ymax);
    const char *cell[ROOF_H][64];
    Style st[ROOF_H][64];
    for (int y = 0; y < ROOF_H; y++)
        for (int x = 0; x < w; x++) cell[y][x] = " ", st[y][x] = S_NORMAL;
    int prev_row = ROOF_H;
    for (int x = w - 1; x >= 0; x--) { /* right to left: a rise is where the next column is higher */
        double ai = roof_xmin * pow(10, (x + 0.5) / cpd);
        double roof = fmin(peak, bw * ai);
        int row = (int)floor((lymax - log10(roof)) * rpd);
        if (row >= 0 && row < ROOF_H) {
            cell[row][x] = x < w - 1 && prev_row < row ? "/" : "_";
            st[row][x] = S_ROOF;
        }
        prev_row = row;
    }
    int px = -1, py = -1;
    double perf = r->gbps_student * 1e9 * fpb;
    if (fpb > 0 && perf > 0) {
        px = (int)floor(log10(fpb / roof_xmin) * cpd);
        py = (int)floor((lymax - log10(perf)) * rpd);
        if (px >= 0 && px < w && py >= 0 && py < ROOF_H) {
            cell[py][px] = glyph->point;
            st[py][px] = S_POINT;
        }
    }
    char top[16], bottom[16], peak_text[32], bw_text[32], perf_text[32];
    si(top, sizeof top, ymax, "");
    si(bottom, sizeof bottom, ymax / pow(10, ROOF_DECADES_Y), "");
    si(peak_text, sizeof peak_text, peak, "FLOP/s");
    si(bw_text, sizeof bw_text, bw, "B/s");
    si(perf_text, sizeof perf_text, perf, "FLOP/s");
    doc_add(d, S_H3, "Roofline");
    doc_printf(d, S_DIM, " (%s FLOP/s against flop per byte, both axes logarithmic)", c->math);
    doc_newline(d);
    for (int y = 0; y < ROOF_H; y++) {
        doc_printf(d, S_DIM, "%7s ", y == 0 ? top : y == ROOF_H - 1 ? bottom : "");
        doc_add(d, S_DIM, glyph->vline);
        for (int x = 0; x < w; x++) doc_add(d, st[y][x], cell[y][x]);
        doc_newline(d);
    }
    doc_add(d, S_DIM, "        ");
    doc_add(d, S_DIM, glyph->corner);
    repeat(d, S_DIM, glyph->hline, w);
    doc_newline(d);
    char axis[128];
    memset(axis, ' ', sizeof axis);
    static const char *const ticks[] = {"0.01", "0.1", "1", "10", "100", "1000"};
    for (int k = 0; k <= ROOF_DECADES_X; k++) {
        int at = 9 + (int)(k * cpd) - (k == ROOF_DECADES_X ? (int)strlen(ticks[k]) - 1 : 0);
        if (at + strlen(ticks[k]) < sizeof axis) memcpy(axis + at, ticks[k], strlen(ticks[k]));
    }
    int axis_len = 9 + w + 1;
    if (axis_len > (int)sizeof axis - 1) axis_len = sizeof axis - 1;
    axis[axis_len] = '\0';
    doc_add(d, S_DIM, axis);
    doc_add(d, S_DIM, " flop/B");
    doc_newline(d);
    char *text = xprintf("ceilings: memory %s (the copy in the same run); compute %s (the dense %s peak of %d "
                         "SMs at %d MHz, %s)",
                         bw_text, peak_text, c->math, r->sm_count, c->clock_mhz,
                         c->clock_measured ? "the clock it ran at" : "the highest clock: the one it ran at was not read");
    doc_add(d, S_NORMAL, "  ");
    doc_wrap(d, S_NORMAL, text, 12, width);
    free(text);
    if (!known)
        text = xprintf("you: %.0f%% of the memory roof; the flops of kind %s are not known here, so the chart "
                       "shows the ceilings only",
                       100 * r->vs_baseline, e->kind);
    else if (fpb > 0)
        text = xprintf("you: %.3g flop/B, %s, %.0f%% of the memory roof there; the compute roof is %.0fx higher: "
                       "memory-bound, so bytes are what to save",
                       fpb, perf_text, 100 * r->vs_baseline, peak / (bw * fpb));
    else
        text = xprintf("you: no floating-point work in this kernel, only data movement: the memory roof is the "
                       "ceiling, and you reach %.0f%% of it",
                       100 * r->vs_baseline);
    doc_add(d, S_NORMAL, "  ");
    if (fpb > 0) doc_add(d, S_POINT, glyph->point);
    doc_add(d, S_NORMAL, fpb > 0 ? " " : "");
    doc_wrap(d, S_NORMAL, text, 4, width);
    free(text);
}

/* ------------------------------------------------------------ the card */

/* Text that came from nvcc or the student's code (a reason may quote it
 * too): its escapes shown, not obeyed by the terminal. */
static char *visible(const char *s, size_t len) {
    StrBuf sb = {0};
    sb_add_visible(&sb, s, len);
    return sb_take(&sb);
}

static void add_visible(Doc *d, Style s, const char *text) {
    char *v = visible(text, strlen(text));
    doc_add(d, s, v);
    free(v);
}

/* At most max_lines lines of a log, indented, each wrapped at width (marked
 * as continued) so that a long error is read to its end; dropped: bytes
 * beyond its cap, which may have fallen inside a character (that one is not
 * shown). */
static void indented_text(Doc *d, const char *text, size_t dropped, int max_lines, Style s, bool mark_errors,
                          int width) {
    DocLine indent = {0}, cont = {0};
    line_addn(&indent, S_DIM, "  ", 2);
    line_addn(&cont, S_DIM, glyph->wrap, strlen(glyph->wrap));
    line_addn(&cont, S_DIM, " ", 1);
    int shown = 0;
    size_t len = strlen(text);
    if (dropped) {
        size_t cut = utf8_cut(text, len);
        dropped += len - cut;
        len = cut;
    }
    const char *p = text, *end = text + len;
    while (p < end && shown < max_lines) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *text_line = visible(p, n);
        Style ls = mark_errors && (strstr(text_line, "error") || strstr(text_line, "Error")) ? S_ERROR : s;
        DocLine line = {0};
        line_addn(&line, ls, text_line, strlen(text_line));
        doc_wrap_verbatim(d, &line, &indent, &cont, width);
        line_free(&line);
        free(text_line);
        shown++;
        p += n + (nl ? 1 : 0);
    }
    if (p < end) {
        doc_printf(d, S_DIM, "  ... %zu more bytes", (size_t)(end - p));
        doc_newline(d);
    }
    if (dropped) {
        doc_printf(d, S_DIM, "  ... and %zu bytes more (capped)", dropped);
        doc_newline(d);
    }
    line_free(&indent);
    line_free(&cont);
}

/* ------------------------------------------------------------ the ladder */

/* Each rung's best TFLOP/s at its first timing size (the same size for every
 * rung), as a bar against the library of this run, with this exercise last:
 * the student's own climb through the chapter. */
void card_ladder(Doc *d, const Course *c, const Progress *p, const Exercise *e, const GradeResult *r, int width) {
    if (!c || e->ladder.count == 0) return;
    const TimedSize *now = r->timed && r->nsizes > 0 && r->verdict != V_WRONG ? &r->sizes[0] : NULL;
    int n = e->ladder.count + 1;
    const Exercise **ex = xcalloc((size_t)n, sizeof *ex);
    double *tflops = xcalloc((size_t)n, sizeof *tflops), *vs_lib = xcalloc((size_t)n, sizeof *vs_lib);
    double scale = now ? now->tflops_library : 0;
    int namew = 0;
    for (int i = 0; i < n; i++) {
        ex[i] = i < e->ladder.count ? course_find(c, e->ladder.items[i]) : e;
        if (!ex[i]) continue;
        const ExProgress *x = p ? progress_find(p, ex[i]->id) : NULL;
        if (x) tflops[i] = x->best_tflops, vs_lib[i] = x->best_vs_library;
        if (i == n - 1 && now && now->tflops_student > tflops[i])
            tflops[i] = now->tflops_student, vs_lib[i] = now->vs_library;
        scale = fmax(scale, tflops[i]);
        int len = (int)(strlen(ex[i]->id) + 1 + strlen(ex[i]->name));
        if (len > namew) namew = len;
    }
    int w = width - namew - 26;
    if (w > 40) w = 40;
    if (w < 8) w = 8;
    static const SizeSpec none;
    char size[64];
    size_text(e->ntiming_sizes ? &e->timing_sizes[0] : &none, size, sizeof size);
    doc_newline(d);
    doc_add(d, S_H3, "Your ladder");
    doc_newline(d);
    char *what = xprintf("Each rung's best TFLOP/s at %s, and its fraction of %s.", size,
                         r->library_name[0] ? r->library_name : "the library");
    doc_wrap(d, S_DIM, what, 0, width);
    free(what);
    for (int i = 0; i < n; i++) {
        if (!ex[i]) continue;
        char name[96];
        snprintf(name, sizeof name, "%s %s", ex[i]->id, ex[i]->name);
        doc_printf(d, i == n - 1 ? S_LABEL : S_NORMAL, "  %-*s ", namew, name);
        if (tflops[i] <= 0) {
            doc_add(d, S_DIM, "not timed yet");
            doc_newline(d);
            continue;
        }
        int len = scale > 0 ? bar_pos(tflops[i], scale * 1.02, w) : 0;
        if (len == 0) len = 1; /* a rung is never invisible */
        repeat(d, i == n - 1 ? S_BAR_YOU : S_BAR_REF, glyph->block, len);
        repeat(d, S_DIM, glyph->shade, w - len);
        doc_printf(d, S_NORMAL, " %5.1f TFLOP/s", tflops[i]);
        if (vs_lib[i] > 0) doc_printf(d, S_NORMAL, " %4.2fx", vs_lib[i]);
        doc_newline(d);
    }
    if (now && now->tflops_library > 0) {
        doc_printf(d, S_NORMAL, "  %-*s ", namew, "library");
        int len = bar_pos(now->tflops_library, scale * 1.02, w);
        repeat(d, S_BAR_BASE, glyph->block, len);
        repeat(d, S_DIM, glyph->shade, w - len);
        doc_printf(d, S_NORMAL, " %5.1f TFLOP/s (this run)", now->tflops_library);
        doc_newline(d);
    }
    free(ex);
    free(tflops);
    free(vs_lib);
}

/* Lines of the text report (the picture of where the output is wrong, or
 * a diagnosis) on the card, their spaces kept (their columns line up); a
 * line wider than width goes on below after the continuation mark, as the
 * compile log does, so that its end (the lesson's section a hint names) is
 * read. */
void card_report_lines(Doc *d, Style s, const GradeResult *r, const Course *c, const Exercise *e, const Diagnosis *g,
                       int width) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    if (g) report_diagnosis_text(f, c, e, r, g);
    else report_wrong_map(f, &r->wrong_map);
    fclose(f);
    doc_newline(d);
    DocLine none = {0}, cont = {0};
    line_addn(&cont, S_DIM, glyph->wrap, strlen(glyph->wrap));
    line_addn(&cont, S_DIM, " ", 1);
    for (char *line = buf; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        char *v = visible(line, strlen(line));
        DocLine l = {0};
        line_addn(&l, s, v, strlen(v));
        doc_wrap_verbatim(d, &l, &none, &cont, width);
        line_free(&l);
        free(v);
        line = end ? end + 1 : NULL;
    }
    line_free(&cont);
    free(buf);
}

void card_build(Doc *d, const Course *c, const Progress *p, const Exercise *e, const GradeResult *r, int width) {
    char *title = xprintf("%s %s: %s", e->id, e->name, e->title);
    doc_wrap(d, S_H2, title, 0, width);
    free(title);
    doc_newline(d);
    Style vs = card_verdict_style(r->verdict);
    doc_printf(d, vs, " %s ", card_verdict_banner(r->verdict));
    doc_newline(d);
    char *reason = visible(r->reason, strlen(r->reason));
    doc_wrap(d, S_NORMAL, reason, 0, width);
    free(reason);
    if (r->verdict == V_SKIPPED) {
        doc_newline(d);
        doc_wrap(d, S_NORMAL,
                 "Your code compiles. Grading runs it on an NVIDIA GPU (Hopper, sm_90a), and this machine has "
                 "none, so nothing was run or timed (only what its compiled code shows was checked, above): this "
                 "is not a failure. 'gpucourse doctor' says what is missing.",
                 0, width);
    }
    if (r->verdict == V_INTERRUPTED) {
        doc_newline(d);
        doc_add(d, S_DIM, "Nothing was recorded; g grades again.");
        doc_newline(d);
    }
    doc_newline(d);
    if (r->device[0]) {
        label(d, "Device");
        doc_printf(d, S_NORMAL, "%s, %d SMs, %d MHz", r->device, r->sm_count, r->clock_mhz);
        doc_newline(d);
    }
    if (r->nchecks) {
        label(d, "Checks");
        /* "size ok" pairs, wrapped under the first one: a pair is never split */
        int col = LABEL_WIDTH;
        for (int i = 0, shown = 0; i < r->nchecks; i++) {
            const CheckResult *chk = &r->checks[i];
            if (chk->timed_sample && chk->ok) continue;
            const char *mark = chk->ok ? "ok" : "WRONG";
            int w = (int)strlen(chk->size) + 1 + (int)strlen(mark);
            if (shown++ && col + 1 + w > width) {
                doc_newline(d);
                doc_printf(d, S_NORMAL, "%*s", LABEL_WIDTH, "");
                col = LABEL_WIDTH;
            } else if (shown > 1) {
                doc_add(d, S_NORMAL, " ");
                col++;
            }
            doc_add(d, S_NORMAL, chk->size);
            doc_add(d, S_NORMAL, " ");
            doc_add(d, chk->ok ? S_PASS : S_FAIL, mark);
            col += w;
        }
        doc_newline(d);
        label(d, "Seed");
        doc_printf(d, S_NORMAL, "%llu (replay: gpucourse grade %s --seed %llu)", r->seed, e->id, r->seed);
        doc_newline(d);
    }
    if (r->mismatches.count) {
        doc_newline(d);
        doc_add(d, S_H3, "First mismatches");
        doc_newline(d);
        for (int i = 0; i < r->mismatches.count; i++) {
            doc_add(d, S_ERROR, "  ");
            add_visible(d, S_ERROR, r->mismatches.items[i]);
            doc_newline(d);
        }
    }
    if (r->wrong_map.present) card_report_lines(d, S_ERROR, r, NULL, NULL, NULL, width);
    if (r->has_norm) {
        label(d, "Error");
        doc_printf(d, r->norm_error <= r->norm_bound ? S_NORMAL : S_ERROR, "%.2e relative (Frobenius norm), bound %.0e",
                   r->norm_error, r->norm_bound);
        doc_newline(d);
    }
    if (r->timed) {
        char size[64];
        size_text(timed_size(e, r), size, sizeof size);
        doc_newline(d);
        if (r->nsizes > 1) card_sizes(d, r);
        doc_add(d, S_H3, "Throughput");
        if (r->flops > 0)
            doc_printf(d, S_DIM, " at size %s, %.1f GFLOP per run", size, r->flops / 1e9);
        else
            doc_printf(d, S_DIM, " at size %s, %.1f GB moved per run", size, r->bytes / 1e9);
        doc_newline(d);
        card_bars(d, r, width);
        doc_newline(d);
        card_ceilings(d, r, width);
        doc_newline(d);
        card_roofline(d, e, r, width);
    }
    card_ladder(d, c, p, e, r, width);
    if (r->nkernels) { /* ptxas's figures of each kernel */
        doc_newline(d);
        doc_add(d, S_H3, "Kernels");
        doc_newline(d);
        for (int i = 0; i < r->nkernels; i++) {
            char text[256];
            kernel_text(&r->kernels[i], text, sizeof text);
            doc_add(d, r->kernels[i].spill_stores || r->kernels[i].spill_loads ? S_ERROR : S_NORMAL, "  ");
            add_visible(d, r->kernels[i].spill_stores || r->kernels[i].spill_loads ? S_ERROR : S_NORMAL, text);
            doc_newline(d);
        }
    }
    if (r->compile_log && r->compile_log[0] && r->verdict == V_COMPILE_ERROR) {
        doc_newline(d);
        doc_add(d, S_H3, "nvcc says");
        doc_newline(d);
        indented_text(d, r->compile_log, r->compile_log_dropped, 200, S_LOG, true, width);
    } else if (r->compile_log && (r->compile_log[0] || r->compile_log_dropped)) {
        doc_newline(d);
        doc_printf(d, S_H3, "Compiler warnings");
        doc_newline(d);
        indented_text(d, r->compile_log, r->compile_log_dropped, 40, S_LOG, true, width);
    }
    if (r->program_output && (r->program_output[0] || r->output_dropped)) {
        doc_newline(d);
        doc_add(d, S_H3, "Your program printed");
        doc_newline(d);
        indented_text(d, r->program_output, r->output_dropped, 40, S_LOG, false, width);
    }
    if (r->unlocked[0]) { /* its times may include another grading's */
        label(d, "Unlocked");
        char *text = xprintf("timed without the GPU's lock, so another grading may have run beside it: %s", r->unlocked);
        char *shown = visible(text, strlen(text));
        doc_wrap(d, S_WARN, shown, LABEL_WIDTH, width);
        free(shown);
        free(text);
    }
    for (int i = 0; i < r->notes.count; i++) {
        label(d, "Note");
        char *note = visible(r->notes.items[i], strlen(r->notes.items[i]));
        doc_wrap(d, S_DIM, note, LABEL_WIDTH, width);
        free(note);
    }
    if (r->compile_log || r->wall_s > 0) {
        if (d->count && d->lines[d->count - 1].len) doc_newline(d);
        doc_printf(d, S_DIM, "graded in %.1f s (compile %.1f s)", r->wall_s, r->compile_s);
        doc_newline(d);
    }
}
