#include "report.h"
#include "profile.h"

#include <stdlib.h>
#include <string.h>

enum { SHOWN_OUTPUT_LINES = 40 };

/* A capped text ends where the cap fell, maybe inside a character: it is
 * shown up to its last whole character, and the bytes of the cut one count
 * as dropped. */
static size_t capped_len(const char *s, size_t *dropped) {
    size_t len = s ? strlen(s) : 0;
    if (!*dropped) return len;
    size_t cut = utf8_cut(s, len);
    *dropped += len - cut;
    return cut;
}

/* Text that came from nvcc or the student's code: its escapes shown, not
 * obeyed by the terminal. */
static void print_visible(FILE *out, const char *s, size_t len) {
    StrBuf sb = {0};
    sb_add_visible(&sb, s, len);
    if (sb.len) fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
}

/* Prints at most `lines` lines of text, indented, and says how much was left out. */
static void print_indented(FILE *out, const char *text, int lines, size_t dropped) {
    int shown = 0;
    const char *s = text, *end = text + capped_len(text, &dropped);
    while (s < end && shown < lines) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
        fputs("    | ", out);
        print_visible(out, s, len);
        fputc('\n', out);
        shown++;
        s += len + (nl ? 1 : 0);
    }
    size_t rest = (size_t)(end - s) + dropped;
    if (rest) fprintf(out, "    | ... %zu more bytes not shown\n", rest);
}

void report_wrong_map(FILE *out, const WrongMap *m) {
    if (!m->present || m->nrows == 0) return;
    if (m->rows > 1)
        fprintf(out, "  where      %s is %lld x %lld, %lld wrong at %s; each cell %s%lld x %lld elements "
                     "('.' right, '+' partly wrong, '#' all wrong):\n",
                m->name, m->rows, m->cols, m->wrong, m->size, m->rows % m->grid_rows || m->cols % m->grid_cols ? "about " : "",
                (m->rows + m->grid_rows - 1) / m->grid_rows, (m->cols + m->grid_cols - 1) / m->grid_cols);
    else
        fprintf(out, "  where      %s has %lld elements, %lld wrong at %s; each cell %s%lld elements:\n", m->name,
                m->cols, m->wrong, m->size, m->cols % m->grid_cols ? "about " : "", (m->cols + m->grid_cols - 1) / m->grid_cols);
    for (int i = 0; i < m->nrows; i++) fprintf(out, "             |%s|\n", m->grid[i]);
    if (wrong_map_repeats_in_tiles(m)) {
        fprintf(out, "             the same positions are wrong in every 16 x 16 tile ('#': in all tiles):\n");
        for (int i = 0; i < m->nfold; i++) fprintf(out, "             |%s|\n", m->fold[i]);
    }
    if (m->runs_total)
        fprintf(out, "             wrong runs of indices: %s%s\n", m->runs,
                m->runs_total > 8 ? " ..." : "");
}

/* "58% of 1006 TFLOP/s (BF16, 1860 MHz)": a timed size's share of the
 * ceiling that bounds it, or "" when none could be placed. */
void report_ceiling_text(const TimedSize *t, char *buf, size_t size) {
    const Ceiling *c = &t->ceiling;
    if (c->bound == BOUND_MEMORY)
        snprintf(buf, size, "%3.0f%% of %.0f GB/s (the copy)", 100 * c->fraction, c->copy_gbps);
    else if (c->bound == BOUND_COMPUTE)
        snprintf(buf, size, "%3.0f%% of %.0f TFLOP/s (%s, %d MHz%s)", 100 * c->fraction, c->peak_tflops, c->math,
                 c->clock_mhz, c->clock_measured ? "" : "*");
    else if (size)
        buf[0] = '\0';
}

/* Each timed size against the roofline: the bound that applies (by the
 * work's flops per byte against the ridge) and the share of it reached. */
static void report_ceilings(FILE *out, const GradeResult *r) {
    bool any = false, guessed = false;
    for (int i = 0; r->timed && i < r->nsizes; i++) {
        any |= r->sizes[i].ceiling.bound != BOUND_NONE;
        guessed |= r->sizes[i].ceiling.bound == BOUND_COMPUTE && !r->sizes[i].ceiling.clock_measured;
    }
    if (!any) return;
    fputs("  ceilings   each size's bound, by its flops per byte against the ridge: the\n"
          "             copy of this run, or the dense peak at the clock it ran\n", out);
    for (int i = 0; i < r->nsizes; i++) {
        const TimedSize *t = &r->sizes[i];
        char text[96];
        report_ceiling_text(t, text, sizeof text);
        if (!text[0]) continue;
        fprintf(out, "             %-16s %-7s %s\n", t->size[0] ? t->size : "timed", ceiling_bound_name(t->ceiling.bound),
                text);
    }
    if (guessed) /* the peak at the highest clock is the most it can be */
        fputs("             * the highest clock: the clock it ran at was not read\n", out);
}

void report_text(FILE *out, const Exercise *e, const GradeResult *r) {
    fprintf_visible(out, "%s %s: %s\n", e->id, e->name, e->title);
    if (r->compile_log && r->compile_log[0] && r->verdict == V_COMPILE_ERROR) { /* else it compiled: the reason says why it cannot run */
        fprintf(out, "  compile    failed:\n");
        print_indented(out, r->compile_log, 60, r->compile_log_dropped);
    } else if (r->compile_log) {
        if (r->compile_reused) fprintf(out, "  compile    ok (unchanged since its last build)\n");
        else fprintf(out, "  compile    ok (%.1f s)\n", r->compile_s);
        if (r->compile_log[0] || r->compile_log_dropped)
            print_indented(out, r->compile_log, 20, r->compile_log_dropped);
    }
    for (int i = 0; i < r->nkernels; i++) { /* ptxas's figures, cheap and always there */
        char text[256];
        kernel_text(&r->kernels[i], text, sizeof text);
        fprintf(out, "  %-10s %s\n", i ? "" : "kernels", text);
    }
    if (r->device[0]) fprintf(out, "  device     %s, %d SMs\n", r->device, r->sm_count);
    if (r->nchecks) {
        fprintf(out, "  seed       %llu (replay: gpucourse grade %s --seed %llu)\n", r->seed, e->id, r->seed);
        fprintf(out, "  checks    ");
        for (int i = 0; i < r->nchecks; i++) {
            const CheckResult *c = &r->checks[i];
            if (c->timed_sample && c->ok) continue;
            fprintf(out, " %s %s", c->size, c->ok ? "ok" : "WRONG");
        }
        fputc('\n', out);
    }
    for (int i = 0; i < r->mismatches.count; i++) {
        fputs("    ", out);
        print_visible(out, r->mismatches.items[i], strlen(r->mismatches.items[i]));
        fputc('\n', out);
    }
    report_wrong_map(out, &r->wrong_map);
    if (r->has_norm) {
        fprintf(out, "  error      %.2e relative (Frobenius), bound %.0e", r->norm_error, r->norm_bound);
        /* each element against what rounding allows it (the judge's element bound) */
        if (r->elements_worst > 0) fprintf(out, "; worst element %.2g of its bound", r->elements_worst);
        fputc('\n', out);
    }
    if (r->timed && r->flops > 0) {
        fprintf(out, "  time       you       %9.3f ms  %7.1f TFLOP/s   (median of %d, same run)\n",
                r->student.median_ms, r->tflops_student, r->student.samples);
        fprintf(out, "             reference %9.3f ms  %7.1f TFLOP/s\n", r->reference.median_ms, r->tflops_reference);
        if (r->library.samples)
            fprintf(out, "             library   %9.3f ms  %7.1f TFLOP/s   (%s)\n", r->library.median_ms,
                    r->tflops_library, r->library_name);
        if (r->baseline.samples) /* the memory ceiling of the ceilings below */
            fprintf(out, "             copy      %9.3f ms  %7.0f GB/s      (same run)\n", r->baseline.median_ms,
                    r->gbps_baseline);
        if (r->peak_tflops > 0) fprintf(out, "             peak                 %7.1f TFLOP/s   (dense, highest clock)\n", r->peak_tflops);
        fprintf(out, "  ratios     you/reference %.2f (floor %.2f)", r->vs_reference, r->floor_reference);
        if (r->library.samples) {
            fprintf(out, "   you/library %.2f", r->vs_library);
            if (r->floor_library > 0) fprintf(out, " (floor %.2f)", r->floor_library);
        }
        fputc('\n', out);
    } else if (r->timed) {
        fprintf(out, "  time       you       %9.3f ms  %7.0f GB/s\n", r->student.median_ms, r->gbps_student);
        fprintf(out, "             reference %9.3f ms  %7.0f GB/s\n", r->reference.median_ms, r->gbps_reference);
        fprintf(out, "             copy      %9.3f ms  %7.0f GB/s   (median of %d, same run)\n",
                r->baseline.median_ms, r->gbps_baseline, r->student.samples);
        if (r->library.samples)
            fprintf(out, "             library   %9.3f ms  %7.0f GB/s   (%s)\n", r->library.median_ms, r->gbps_library,
                    r->library_name);
        fprintf(out, "  ratios     you/reference %.2f (floor %.2f)", r->vs_reference, r->floor_reference);
        if (r->floor_baseline > 0) fprintf(out, "   you/copy %.2f (floor %.2f)", r->vs_baseline, r->floor_baseline);
        if (r->library.samples) {
            fprintf(out, "   you/library %.2f", r->vs_library);
            if (r->floor_library > 0) fprintf(out, " (floor %.2f)", r->floor_library);
        }
        fputc('\n', out);
    }
    for (int i = 0; r->timed && r->nsizes > 1 && i < r->nsizes; i++) { /* the figures above are one size's */
        const TimedSize *t = &r->sizes[i];
        fprintf(out, "  %-10s %-16s you/reference %.2f", i ? "" : "sizes", t->size, t->vs_reference);
        if (t->flops <= 0 && t->baseline.samples) fprintf(out, "   you/copy %.2f", t->vs_baseline);
        if (t->library.samples) fprintf(out, "   you/library %.2f", t->vs_library);
        if (t->flops > 0) fprintf(out, "   (%.1f TFLOP/s)", t->tflops_student);
        fputs(i == r->decisive ? "   <- above: the least margin\n" : "\n", out);
    }
    report_ceilings(out, r);
    for (int i = 0; i < r->nevidence; i++) /* what the GPU's counters showed, at the size they name */
        fprintf(out, "  %-10s %s%s\n", i ? "" : "evidence", r->evidence[i].text, r->evidence[i].ok ? "" : "  <- not met");
    if (r->program_output && (r->program_output[0] || r->output_dropped)) {
        fprintf(out, "  your program printed:\n");
        print_indented(out, r->program_output, SHOWN_OUTPUT_LINES, r->output_dropped);
    }
    if (r->unlocked[0]) { /* its times may include another grading's */
        fputs("  UNLOCKED   timed without the GPU's lock, so another grading may have run beside it: ", out);
        print_visible(out, r->unlocked, strlen(r->unlocked));
        fputc('\n', out);
    }
    for (int i = 0; i < r->notes.count; i++) {
        fputs("  note       ", out);
        print_visible(out, r->notes.items[i], strlen(r->notes.items[i]));
        fputc('\n', out);
    }
    /* the reason may quote the student's code (a library it loaded, an error it caused) */
    if (r->verdict == V_PASS || r->verdict == V_SKIPPED)
        fprintf(out, "%s %s: ", r->verdict == V_PASS ? "PASS" : "SKIPPED", e->id);
    else if (r->verdict == V_GPU_BUSY)
        fprintf(out, "NOT GRADED %s: %s: ", e->id, verdict_title(r->verdict));
    else
        fprintf(out, "FAIL %s: %s: ", e->id, verdict_title(r->verdict));
    print_visible(out, r->reason, strlen(r->reason));
    fputc('\n', out);
}

/* Valid UTF-8 whatever s holds: U+FFFD for bytes that are not, control
 * characters (C0, DEL, C1) escaped. */
static void json_stringn(FILE *out, const char *s, size_t len) {
    fputc('"', out);
    for (size_t i = 0, n; i < len; i += n) {
        long cp = utf8_decode(s + i, len - i, &n);
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (cp < 0) fputs("\xef\xbf\xbd", out);
            else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) fprintf(out, "\\u%04lx", cp);
            else fwrite(s + i, 1, n, out);
        }
    }
    fputc('"', out);
}

void json_string(FILE *out, const char *s) { json_stringn(out, s ? s : "", s ? strlen(s) : 0); }

void json_number(FILE *out, double v) {
    if (v != v || v > 1e300 || v < -1e300) fputs("null", out);
    else fprintf(out, "%.6g", v);
}

static void json_timing(FILE *out, const char *name, const Timing *t, double gbps, double tflops) {
    fprintf(out, "\"%s\": {\"median_ms\": ", name);
    json_number(out, t->median_ms);
    fputs(", \"min_ms\": ", out);
    json_number(out, t->min_ms);
    fputs(", \"max_ms\": ", out);
    json_number(out, t->max_ms);
    fprintf(out, ", \"samples\": %d, \"gbps\": ", t->samples);
    json_number(out, gbps);
    if (tflops > 0) {
        fputs(", \"tflops\": ", out);
        json_number(out, tflops);
    }
    fputc('}', out);
}

/* One timed size's times and ratios, as members of an object already open. */
static void json_size_figures(FILE *out, const TimedSize *t) {
    fputs(", ", out);
    json_timing(out, "student", &t->student, t->gbps_student, t->tflops_student);
    fputs(", ", out);
    json_timing(out, "reference", &t->reference, t->gbps_reference, t->tflops_reference);
    if (t->baseline.samples) {
        fputs(", ", out);
        json_timing(out, "baseline", &t->baseline, t->gbps_baseline, 0);
    }
    if (t->library.samples) {
        fputs(", ", out);
        json_timing(out, "library", &t->library, t->gbps_library, t->tflops_library);
    }
    fputs(", \"vs_reference\": ", out);
    json_number(out, t->vs_reference);
    if (t->baseline.samples) {
        fputs(", \"vs_baseline\": ", out);
        json_number(out, t->vs_baseline);
    }
    if (t->library.samples) {
        fputs(", \"vs_library\": ", out);
        json_number(out, t->vs_library);
    }
    /* against the ceilings: null when neither could be placed */
    const Ceiling *c = &t->ceiling;
    fputs(", \"ceiling\": ", out);
    if (c->bound == BOUND_NONE) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"bound\": \"%s\", \"fraction\": ", ceiling_bound_name(c->bound));
    json_number(out, c->fraction);
    fputs(", \"flops\": ", out);
    json_number(out, c->flops);
    fputs(", \"flops_per_byte\": ", out);
    json_number(out, c->intensity);
    fputs(", \"copy_gbps\": ", out);
    json_number(out, c->copy_gbps);
    fputs(", \"peak_tflops\": ", out);
    json_number(out, c->peak_tflops);
    fputs(", \"math\": ", out);
    json_string(out, c->math);
    fputs(", \"ridge_flops_per_byte\": ", out);
    json_number(out, c->ridge);
    fprintf(out, ", \"clock_mhz\": %d, \"clock_measured\": %s}", c->clock_mhz, c->clock_measured ? "true" : "false");
}

void json_wrong_map(FILE *out, const WrongMap *m) {
    if (!m->present) {
        fputs("null", out);
        return;
    }
    fputs("{\"size\": ", out);
    json_string(out, m->size);
    fputs(", \"array\": ", out);
    json_string(out, m->name);
    fprintf(out, ", \"rows\": %lld, \"cols\": %lld, \"wrong\": %lld, \"grid\": [", m->rows, m->cols, m->wrong);
    for (int i = 0; i < m->nrows; i++) {
        if (i) fputs(", ", out);
        json_string(out, m->grid[i]);
    }
    fputs("], \"tile_fold\": [", out);
    for (int i = 0; i < m->nfold; i++) {
        if (i) fputs(", ", out);
        json_string(out, m->fold[i]);
    }
    fprintf(out, "], \"runs_total\": %lld, \"runs\": ", m->runs_total);
    json_string(out, m->runs);
    fputc('}', out);
}

static const char *const diagnosis_kinds[] = {"none", "sanitizer", "counters"};

static void json_kernels(FILE *out, const KernelInfo *ks, int n) {
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        const KernelInfo *k = &ks[i];
        fprintf(out, "%s{\"name\": ", i ? ", " : "");
        json_string(out, k->name);
        fprintf(out, ", \"registers\": %d, \"shared_bytes\": %ld, \"stack_bytes\": %ld, \"spill_store_bytes\": %ld, "
                     "\"spill_load_bytes\": %ld, \"wgmma_serialized\": ",
                k->registers, k->shared, k->stack, k->spill_stores, k->spill_loads);
        if (k->serialized[0]) json_string(out, k->serialized);
        else fputs("null", out);
        fputc('}', out);
    }
    fputc(']', out);
}

void json_diagnosis(FILE *out, const Diagnosis *d) {
    if (!d) {
        fputs("null", out);
        return;
    }
    fputs("{\"kind\": ", out);
    json_string(out, diagnosis_kinds[d->kind]);
    fputs(", \"size\": ", out);
    json_string(out, d->size);
    fputs(", \"not_done\": ", out);
    json_string(out, d->why_not);
    fputs(", \"tools\": [", out);
    for (int t = 0; t < d->ntools; t++) {
        const ToolRun *tr = &d->tools[t];
        fprintf(out, "%s{\"tool\": ", t ? ", " : "");
        json_string(out, tr->tool);
        fprintf(out, ", \"finished\": %s, \"seconds\": ", tr->finished ? "true" : "false");
        json_number(out, tr->seconds);
        fputs(", \"note\": ", out);
        json_string(out, tr->note);
        fputs(", \"findings\": [", out);
        for (int f = 0; f < tr->nfindings; f++) {
            const Finding *fd = &tr->findings[f];
            fprintf(out, "%s{\"class\": ", f ? ", " : "");
            json_string(out, fd->finding);
            fputs(", \"what\": ", out);
            json_string(out, fd->what);
            fputs(", \"function\": ", out);
            json_string(out, fd->function);
            fputs(", \"file\": ", out);
            json_string(out, fd->file);
            fprintf(out, ", \"line\": %d, \"detail\": ", fd->line);
            json_string(out, fd->detail);
            fprintf(out, ", \"repeats\": %d}", fd->repeats);
        }
        fputs("]}", out);
    }
    fputs("], \"measures\": [", out);
    for (int i = 0; i < d->nrows; i++) {
        const MeasureRow *m = &d->rows[i];
        fprintf(out, "%s{\"measure\": ", i ? ", " : "");
        json_string(out, m->measure);
        fputs(", \"student\": ", out);
        if (m->has_student) json_number(out, m->student);
        else fputs("null", out);
        fputs(", \"reference\": ", out);
        if (m->has_reference) json_number(out, m->reference);
        else fputs("null", out);
        fputc('}', out);
    }
    fputs("], \"counters_note\": ", out);
    json_string(out, d->counters_note);
    fputs(", \"reference_kernels\": ", out);
    json_kernels(out, d->reference_kernels, d->nreference_kernels);
    fputs(", \"profile\": ", out);
    json_profile(out, d->profile);
    fputs(", \"hints\": [", out);
    for (int i = 0; i < d->nhints; i++) {
        fprintf(out, "%s{\"text\": ", i ? ", " : "");
        json_string(out, d->hints[i].text);
        fputs(", \"section\": ", out);
        json_string(out, d->hints[i].section);
        fprintf(out, ", \"chapter\": %d}", d->hints[i].chapter + 1);
    }
    fputs("], \"picture\": ", out);
    json_wrong_map(out, &d->picture);
    fputs(", \"pattern\": ", out);
    if (d->pattern) json_string(out, d->pattern);
    else fputs("null", out);
    fputs(", \"wall_seconds\": ", out);
    json_number(out, d->wall_s);
    fputc('}', out);
}

/* Where a hint's section is: "'Coalescing' in chapter 2's lesson (Memory)". */
static void section_text(const Course *c, const Hint *h, char *buf, size_t size) {
    if (!h->section[0]) {
        buf[0] = '\0';
        return;
    }
    if (c && h->chapter >= 0 && h->chapter < c->nchapters)
        snprintf(buf, size, "see '%s' in the lesson of chapter %d (%s)", h->section, h->chapter + 1,
                 c->chapters[h->chapter].title ? c->chapters[h->chapter].title : "");
    else snprintf(buf, size, "see '%s' in the lesson", h->section);
}

void report_diagnosis_text(FILE *out, const Course *c, const Exercise *e, const GradeResult *r, const Diagnosis *d) {
    fprintf(out, "why %s: ", e->id);
    if (d->kind == DIAG_NOTHING) {
        fputs("no diagnosis: ", out);
        print_visible(out, d->why_not, strlen(d->why_not));
        fputc('\n', out);
        return;
    }
    if (d->kind == DIAG_SANITIZER)
        fprintf(out, "%s, so your code ran under compute-sanitizer at size %s (%.1f s)\n", verdict_title(r->verdict),
                d->size, d->wall_s);
    else
        fprintf(out, "%s; your call and the reference's at %s, side by side (%.1f s)\n",
                r->verdict == V_PASS ? "passed" : verdict_title(r->verdict), d->size, d->wall_s);
    if (d->why_not[0]) {
        fputs("  not done   ", out);
        print_visible(out, d->why_not, strlen(d->why_not));
        fputc('\n', out);
    }
    for (int t = 0; t < d->ntools; t++) {
        const ToolRun *tr = &d->tools[t];
        fprintf(out, "  %-10s ", tr->tool);
        if (tr->nfindings == 0 && tr->finished && !tr->note[0]) fprintf(out, "nothing found (%.1f s)\n", tr->seconds);
        else if (tr->nfindings) fprintf(out, "%d kind%s of report (%.1f s):\n", tr->nfindings, tr->nfindings > 1 ? "s" : "",
                                        tr->seconds);
        else fputc('\n', out);
        for (int f = 0; f < tr->nfindings; f++) {
            const Finding *fd = &tr->findings[f];
            fputs("             ", out);
            print_visible(out, fd->what, strlen(fd->what));
            if (fd->repeats > 1) fprintf(out, " (%d times)", fd->repeats);
            fputc('\n', out);
            if (fd->line) {
                fprintf(out, "               at %s:%d", fd->file, fd->line);
                if (fd->function[0]) fprintf(out, " in %s", fd->function);
                fputc('\n', out);
            }
            if (fd->detail[0]) {
                fputs("               ", out);
                print_visible(out, fd->detail, strlen(fd->detail));
                fputc('\n', out);
            }
        }
        if (tr->note[0]) {
            fputs("             ", out);
            print_visible(out, tr->note, strlen(tr->note));
            fputc('\n', out);
        }
    }
    if (d->picture.present) {
        fprintf(out, "  picture    at %s (the grade's, at %s, is too small to say much):\n",
                d->picture.size, r->wrong_map.size);
        report_wrong_map(out, &d->picture);
    }
    bool found = false;
    for (int t = 0; t < d->ntools; t++) found |= d->tools[t].nfindings > 0;
    if (d->kind == DIAG_SANITIZER && d->ntools && !found && r->verdict == V_WRONG)
        fputs("  found      no memory error, race or barrier misuse: the arithmetic or the indexing is wrong; the "
              "picture above shows where\n", out);
    if (d->nrows) { /* in 80 columns: a title wider than its column goes on at words on the lines below */
        enum { VALUE = 9, TITLE_MAX = 80 - 13 - 2 * (VALUE + 1) };
        int title_w = 0;
        for (int i = 0; i < d->nrows; i++) {
            int n = (int)strlen(diagnose_measure_title(d->rows[i].measure));
            if (n > title_w) title_w = n;
        }
        if (title_w > TITLE_MAX) title_w = TITLE_MAX;
        fprintf(out, "  counters   %-*s %*s %*s\n", title_w, "", VALUE, "yours", VALUE, "reference");
        for (int i = 0; i < d->nrows; i++) {
            const MeasureRow *m = &d->rows[i];
            char s[32] = "-", rf[32] = "-";
            if (m->has_student) diagnose_measure_value(m->measure, m->student, s, sizeof s);
            if (m->has_reference) diagnose_measure_value(m->measure, m->reference, rf, sizeof rf);
            const char *title = diagnose_measure_title(m->measure);
            while ((int)strlen(title) > title_w) { /* the part that fits, cut at its last space */
                int cut = title_w;
                while (cut > 0 && title[cut] != ' ') cut--;
                if (cut == 0) cut = title_w; /* one word wider than the column */
                fprintf(out, "             %.*s\n", cut, title);
                title += cut + (title[cut] == ' ');
            }
            fprintf(out, "             %-*s %*s %*s\n", title_w, title, VALUE, s, VALUE, rf);
        }
    }
    if (d->counters_note[0]) {
        fputs("  note       ", out);
        print_visible(out, d->counters_note, strlen(d->counters_note));
        fputc('\n', out);
    }
    for (int i = 0; i < d->nreference_kernels; i++) {
        char text[256];
        kernel_text(&d->reference_kernels[i], text, sizeof text);
        fprintf(out, "  %-10s %s\n", i ? "" : "reference", text);
    }
    for (int i = 0; i < d->nhints; i++) {
        char where[300];
        section_text(c, &d->hints[i], where, sizeof where);
        fprintf(out, "  %-10s ", i ? "" : "hint");
        print_visible(out, d->hints[i].text, strlen(d->hints[i].text));
        if (where[0]) fprintf_visible(out, ": %s", where);
        fputc('\n', out);
    }
    if (d->kind == DIAG_COUNTERS && d->nrows && !d->nhints && r->verdict != V_PASS)
        fputs("  hint       no counter the exercise names differs much from the reference's: compare the table, "
              "and the kernels' registers and shared memory\n", out);
}

static void json_one(FILE *out, const Exercise *e, const GradeResult *r, const Diagnosis *d) {
    fputs("    {\"id\": ", out);
    json_string(out, e->id);
    fputs(", \"name\": ", out);
    json_string(out, e->name);
    fputs(", \"verdict\": ", out);
    json_string(out, verdict_key(r->verdict));
    fprintf(out, ", \"passed\": %s, \"skipped\": %s, \"exit_code\": %d, \"reason\": ",
            r->verdict == V_PASS ? "true" : "false", r->verdict == V_SKIPPED ? "true" : "false",
            verdict_exit_code(r->verdict));
    json_string(out, r->reason);
    /* the checks of the compiled code alone that ran, and how they ended (without a GPU, all that decided) */
    fputs(", \"static_checks\": {", out);
    for (int i = 0, n = 0; i < STATIC_COUNT; i++)
        if (r->statics[i] != STATIC_UNCHECKED)
            fprintf(out, "%s\"%s\": \"%s\"", n++ ? ", " : "", static_check_key(i), static_outcome_key(r->statics[i]));
    fputs("}", out);
    if (r->static_not_run[0]) {
        fputs(", \"static_not_run\": ", out);
        json_string(out, r->static_not_run);
    }
    fprintf(out, ",\n     \"seed\": %llu, \"device\": ", r->seed);
    if (r->device[0]) json_string(out, r->device);
    else fputs("null", out);
    fputs(", \"gpu\": ", out); /* the UUID of the GPU it ran on: one of several, whose lock it held */
    if (r->gpu_id[0]) json_string(out, r->gpu_id);
    else fputs("null", out);
    /* timed without that GPU's lock: why (another grading may have run beside it) */
    fprintf(out, ", \"unlocked\": %s, \"unlocked_reason\": ", r->unlocked[0] ? "true" : "false");
    if (r->unlocked[0]) json_string(out, r->unlocked);
    else fputs("null", out);
    fputs(", \"checks\": [", out);
    for (int i = 0; i < r->nchecks; i++) {
        fprintf(out, "%s{\"size\": ", i ? ", " : "");
        json_string(out, r->checks[i].size);
        fprintf(out, ", \"ok\": %s, \"mismatches\": %lld, \"timed_sample\": %s", r->checks[i].ok ? "true" : "false",
                r->checks[i].mismatches, r->checks[i].timed_sample ? "true" : "false");
        if (r->checks[i].second_run) fputs(", \"second_run\": true", out); /* tolerance: deterministic */
        fputs("}", out);
    }
    fputs("], \"first_mismatches\": [", out);
    for (int i = 0; i < r->mismatches.count; i++) {
        if (i) fputs(", ", out);
        json_string(out, r->mismatches.items[i]);
    }
    fputs("]", out);
    if (r->has_norm) {
        fputs(", \"relative_error\": ", out);
        json_number(out, r->norm_error);
        fputs(", \"relative_error_bound\": ", out);
        json_number(out, r->norm_bound);
        fputs(", \"worst_element_over_bound\": ", out);
        json_number(out, r->elements_worst);
    }
    fputs(",\n     \"timing\": ", out);
    if (r->timed) { /* the size that decided, with the kind's totals */
        fputs("{\"size\": ", out);
        json_string(out, r->sizes[r->decisive].size);
        fputs(", \"bytes\": ", out);
        json_number(out, r->bytes);
        if (r->flops > 0) {
            fputs(", \"flops\": ", out);
            json_number(out, r->flops);
            fputs(", \"peak_tflops\": ", out);
            json_number(out, r->peak_tflops);
        }
        json_size_figures(out, &r->sizes[r->decisive]);
        if (r->library.samples) {
            fputs(", \"library_name\": ", out);
            json_string(out, r->library_name);
        }
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputs(", \"timed_sizes\": [", out);
    for (int i = 0; r->timed && i < r->nsizes; i++) {
        fprintf(out, "%s{\"size\": ", i ? ", " : "");
        json_string(out, r->sizes[i].size);
        json_size_figures(out, &r->sizes[i]);
        fputc('}', out);
    }
    fputc(']', out);
    char *rule = exercise_pass_rule(e);
    fputs(", \"pass_rule\": ", out);
    json_string(out, rule);
    free(rule);
    fputs(", \"floors\": {\"reference\": ", out);
    json_number(out, r->floor_reference);
    fputs(", \"baseline\": ", out);
    json_number(out, r->floor_baseline);
    fputs(", \"library\": ", out);
    json_number(out, r->floor_library);
    size_t log_dropped = r->compile_log_dropped, output_dropped = r->output_dropped;
    size_t log_len = capped_len(r->compile_log, &log_dropped);
    size_t output_len = capped_len(r->program_output, &output_dropped);
    fputs("},\n     \"compile_log\": ", out);
    json_stringn(out, r->compile_log ? r->compile_log : "", log_len);
    fprintf(out, ", \"compile_log_dropped_bytes\": %zu, \"program_output\": ", log_dropped);
    json_stringn(out, r->program_output ? r->program_output : "", output_len);
    fprintf(out, ", \"program_output_dropped_bytes\": %zu, \"notes\": [", output_dropped);
    for (int i = 0; i < r->notes.count; i++) {
        if (i) fputs(", ", out);
        json_string(out, r->notes.items[i]);
    }
    fputs("], \"evidence\": [", out);
    for (int i = 0; i < r->nevidence; i++) {
        fprintf(out, "%s{\"key\": ", i ? ", " : "");
        json_string(out, r->evidence[i].key);
        fputs(", \"measured\": ", out);
        json_number(out, r->evidence[i].measured);
        fputs(", \"bound\": ", out);
        json_number(out, r->evidence[i].bound);
        fprintf(out, ", \"met\": %s, \"text\": ", r->evidence[i].ok ? "true" : "false");
        json_string(out, r->evidence[i].text);
        fputs("}", out);
    }
    fputs("], \"kernels\": ", out);
    json_kernels(out, r->kernels, r->nkernels);
    fputs(", \"wrong_map\": ", out);
    json_wrong_map(out, &r->wrong_map);
    fputs(", \"sandbox\": ", out);
    json_string(out, r->sandbox); /* how the student's code was confined, for a CI's logs */
    fprintf(out, ", \"compiler_confined\": %s", r->compiler_confined ? "true" : "false");
    fputs(", \"wall_seconds\": ", out);
    json_number(out, r->wall_s);
    fputs(",\n     \"trace\": ", out);
    trace_json(out, &r->trace);
    fputs(",\n     \"diagnosis\": ", out);
    json_diagnosis(out, d);
    fputs("}", out);
}

void report_json(FILE *out, const Exercise *const *es, const GradeResult *rs, int count) {
    report_json_diagnosed(out, es, rs, NULL, count);
}

void report_json_diagnosed(FILE *out, const Exercise *const *es, const GradeResult *rs, const Diagnosis *ds,
                           int count) {
    int passed = 0, skipped = 0;
    for (int i = 0; i < count; i++) {
        passed += rs[i].verdict == V_PASS;
        skipped += rs[i].verdict == V_SKIPPED;
    }
    fprintf(out, "{\"gpucourse\": 1, \"passed\": %d, \"failed\": %d, \"skipped\": %d, \"results\": [\n", passed,
            count - passed - skipped, skipped);
    for (int i = 0; i < count; i++) {
        json_one(out, es[i], &rs[i], ds ? &ds[i] : NULL);
        fputs(i + 1 < count ? ",\n" : "\n", out);
    }
    fputs("], \"error\": null}\n", out);
}

static const char *failure_kind(int exit_code) { return exit_code == EXIT_USAGE ? "usage" : "setup"; }

void json_error(FILE *out, int exit_code, const char *message, const StrList *details) {
    fprintf(out, "{\"exit_code\": %d, \"kind\": \"%s\", \"message\": ", exit_code, failure_kind(exit_code));
    json_string(out, message);
    fputs(", \"details\": [", out);
    for (int i = 0; details && i < details->count; i++) {
        if (i) fputs(", ", out);
        json_string(out, details->items[i]);
    }
    fputs("]}", out);
}

void report_json_error(FILE *out, int exit_code, const char *message, const StrList *details) {
    fputs("{\"gpucourse\": 1, \"passed\": 0, \"failed\": 0, \"skipped\": 0, \"results\": [], \"error\": ", out);
    json_error(out, exit_code, message, details);
    fputs("}\n", out);
}

/* XML 1.0 carries no C0 control but \n and \t, even as a reference, and
 * only UTF-8 here: the same visible form as on a terminal, then escaped. */
static void xml_textn(FILE *out, const char *s, size_t len) {
    StrBuf sb = {0};
    sb_add_visible(&sb, s, len);
    for (size_t i = 0; i < sb.len; i++) {
        switch (sb.buf[i]) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(sb.buf[i], out);
        }
    }
    sb_free(&sb);
}

static void xml_text(FILE *out, const char *s) { xml_textn(out, s ? s : "", s ? strlen(s) : 0); }

void report_junit(FILE *out, const Exercise *const *es, const GradeResult *rs, int count) {
    int failures = 0, skipped = 0;
    double total = 0;
    for (int i = 0; i < count; i++) {
        failures += rs[i].verdict != V_PASS && rs[i].verdict != V_SKIPPED;
        skipped += rs[i].verdict == V_SKIPPED;
        total += rs[i].wall_s;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuite name=\"gpucourse\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" time=\"%.3f\">\n", count,
            failures, skipped, total);
    for (int i = 0; i < count; i++) {
        const GradeResult *r = &rs[i];
        fputs("  <testcase classname=\"gpucourse\" name=\"", out);
        xml_text(out, es[i]->id);
        fputc(' ', out);
        xml_text(out, es[i]->name);
        fprintf(out, "\" time=\"%.3f\">", r->wall_s);
        if (r->verdict == V_SKIPPED) {
            fputs("<skipped message=\"", out);
            xml_text(out, r->reason);
            fputs("\"/>", out);
        } else if (r->verdict != V_PASS) {
            fprintf(out, "<failure type=\"%s\" message=\"", verdict_key(r->verdict));
            xml_text(out, r->reason);
            fputs("\">", out);
            for (int k = 0; k < r->mismatches.count; k++) {
                xml_text(out, r->mismatches.items[k]);
                fputc('\n', out);
            }
            if (r->verdict == V_COMPILE_ERROR && r->compile_log) {
                size_t dropped = r->compile_log_dropped;
                xml_textn(out, r->compile_log, capped_len(r->compile_log, &dropped));
            }
            fputs("</failure>", out);
        }
        if (r->timed) {  /* the throughput, for a CI's test report */
            char line[512];
            int n;
            if (r->flops > 0)
                n = snprintf(line, sizeof line, "%.1f TFLOP/s, reference %.1f (you/reference %.2f)",
                             r->tflops_student, r->tflops_reference, r->vs_reference);
            else
                n = snprintf(line, sizeof line, "%.0f GB/s, reference %.0f (you/reference %.2f), copy %.0f (you/copy %.2f)",
                             r->gbps_student, r->gbps_reference, r->vs_reference, r->gbps_baseline, r->vs_baseline);
            if (r->library.samples && n > 0 && (size_t)n < sizeof line)
                snprintf(line + n, sizeof line - (size_t)n, ", %s %.1f%s (you/library %.2f)", r->library_name,
                         r->flops > 0 ? r->tflops_library : r->gbps_library, r->flops > 0 ? " TFLOP/s" : " GB/s",
                         r->vs_library);
            fputs("<system-out>", out);
            xml_text(out, line);
            if (r->unlocked[0]) { /* its times may include another grading's */
                xml_text(out, "\nUNLOCKED: timed without the GPU's lock, so another grading may have run beside it: ");
                xml_text(out, r->unlocked);
            }
            fputs("</system-out>", out);
        }
        fputs("</testcase>\n", out);
    }
    fputs("</testsuite>\n", out);
}

void report_junit_error(FILE *out, const char *name, int exit_code, const char *message, const StrList *details) {
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuite name=\"gpucourse\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n",
          out);
    fputs("  <testcase classname=\"gpucourse\" name=\"", out);
    xml_text(out, name);
    fprintf(out, "\" time=\"0.000\"><error type=\"%s_error\" message=\"", failure_kind(exit_code));
    xml_text(out, message);
    fputs("\">", out);
    xml_text(out, message);
    for (int i = 0; details && i < details->count; i++) {
        fputc('\n', out);
        xml_text(out, details->items[i]);
    }
    fputs("</error></testcase>\n</testsuite>\n", out);
}
