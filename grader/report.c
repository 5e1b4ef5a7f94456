#include "report.h"

#include <string.h>

enum { SHOWN_OUTPUT_LINES = 40 };

/* Prints at most `lines` lines of text, indented, and says how much was left out. */
static void print_indented(FILE *out, const char *text, int lines, size_t dropped) {
    int shown = 0;
    const char *s = text;
    while (*s && shown < lines) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        fprintf(out, "    | %.*s\n", (int)len, s);
        shown++;
        s += len + (nl ? 1 : 0);
    }
    size_t rest = strlen(s) + dropped;
    if (rest) fprintf(out, "    | ... %zu more bytes not shown\n", rest);
}

void report_text(FILE *out, const Exercise *e, const GradeResult *r) {
    fprintf(out, "%s %s: %s\n", e->id, e->name, e->title);
    if (r->compile_log && r->verdict == V_COMPILE_ERROR) {
        fprintf(out, "  compile    failed:\n");
        print_indented(out, r->compile_log, 60, 0);
    } else if (r->compile_log) {
        fprintf(out, "  compile    ok (%.1f s)\n", r->compile_s);
        if (r->compile_log[0]) print_indented(out, r->compile_log, 20, 0);
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
    for (int i = 0; i < r->mismatches.count; i++) fprintf(out, "    %s\n", r->mismatches.items[i]);
    if (r->timed) {
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
    if (r->program_output && (r->program_output[0] || r->output_dropped)) {
        fprintf(out, "  your program printed:\n");
        print_indented(out, r->program_output, SHOWN_OUTPUT_LINES, r->output_dropped);
    }
    for (int i = 0; i < r->notes.count; i++) fprintf(out, "  note       %s\n", r->notes.items[i]);
    if (r->verdict == V_PASS || r->verdict == V_SKIPPED)
        fprintf(out, "%s %s: %s\n", r->verdict == V_PASS ? "PASS" : "SKIPPED", e->id, r->reason);
    else
        fprintf(out, "FAIL %s: %s: %s\n", e->id, verdict_title(r->verdict), r->reason);
}

void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void json_number(FILE *out, double v) {
    if (v != v || v > 1e300 || v < -1e300) fputs("null", out);
    else fprintf(out, "%.6g", v);
}

static void json_timing(FILE *out, const char *name, const Timing *t, double gbps) {
    fprintf(out, "\"%s\": {\"median_ms\": ", name);
    json_number(out, t->median_ms);
    fputs(", \"min_ms\": ", out);
    json_number(out, t->min_ms);
    fputs(", \"max_ms\": ", out);
    json_number(out, t->max_ms);
    fprintf(out, ", \"samples\": %d, \"gbps\": ", t->samples);
    json_number(out, gbps);
    fputc('}', out);
}

static void json_one(FILE *out, const Exercise *e, const GradeResult *r) {
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
    fprintf(out, ",\n     \"seed\": %llu, \"device\": ", r->seed);
    if (r->device[0]) json_string(out, r->device);
    else fputs("null", out);
    fputs(", \"checks\": [", out);
    for (int i = 0; i < r->nchecks; i++) {
        fprintf(out, "%s{\"size\": ", i ? ", " : "");
        json_string(out, r->checks[i].size);
        fprintf(out, ", \"ok\": %s, \"mismatches\": %lld, \"timed_sample\": %s}", r->checks[i].ok ? "true" : "false",
                r->checks[i].mismatches, r->checks[i].timed_sample ? "true" : "false");
    }
    fputs("], \"first_mismatches\": [", out);
    for (int i = 0; i < r->mismatches.count; i++) {
        if (i) fputs(", ", out);
        json_string(out, r->mismatches.items[i]);
    }
    fputs("],\n     \"timing\": ", out);
    if (r->timed) {
        fputs("{\"bytes\": ", out);
        json_number(out, r->bytes);
        fputs(", ", out);
        json_timing(out, "student", &r->student, r->gbps_student);
        fputs(", ", out);
        json_timing(out, "reference", &r->reference, r->gbps_reference);
        fputs(", ", out);
        json_timing(out, "baseline", &r->baseline, r->gbps_baseline);
        if (r->library.samples) {
            fputs(", ", out);
            json_timing(out, "library", &r->library, r->gbps_library);
            fputs(", \"library_name\": ", out);
            json_string(out, r->library_name);
            fputs(", \"vs_library\": ", out);
            json_number(out, r->vs_library);
        }
        fputs(", \"vs_reference\": ", out);
        json_number(out, r->vs_reference);
        fputs(", \"vs_baseline\": ", out);
        json_number(out, r->vs_baseline);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputs(", \"floors\": {\"reference\": ", out);
    json_number(out, r->floor_reference);
    fputs(", \"baseline\": ", out);
    json_number(out, r->floor_baseline);
    fputs(", \"library\": ", out);
    json_number(out, r->floor_library);
    fputs("},\n     \"compile_log\": ", out);
    json_string(out, r->compile_log);
    fputs(", \"program_output\": ", out);
    json_string(out, r->program_output);
    fprintf(out, ", \"program_output_dropped_bytes\": %zu, \"notes\": [", r->output_dropped);
    for (int i = 0; i < r->notes.count; i++) {
        if (i) fputs(", ", out);
        json_string(out, r->notes.items[i]);
    }
    fputs("], \"sandbox\": ", out);
    json_string(out, r->sandbox); /* how the student's code was confined, for a CI's logs */
    fputs(", \"wall_seconds\": ", out);
    json_number(out, r->wall_s);
    fputs("}", out);
}

void report_json(FILE *out, const Exercise *const *es, const GradeResult *rs, int count) {
    int passed = 0, skipped = 0;
    for (int i = 0; i < count; i++) {
        passed += rs[i].verdict == V_PASS;
        skipped += rs[i].verdict == V_SKIPPED;
    }
    fprintf(out, "{\"gpucourse\": 1, \"passed\": %d, \"failed\": %d, \"skipped\": %d, \"results\": [\n", passed,
            count - passed - skipped, skipped);
    for (int i = 0; i < count; i++) {
        json_one(out, es[i], &rs[i]);
        fputs(i + 1 < count ? ",\n" : "\n", out);
    }
    fputs("]}\n", out);
}

static void xml_text(FILE *out, const char *s) {
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t') fputc('?', out); /* not allowed in XML 1.0 */
            else fputc(*p, out);
        }
    }
}

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
        fprintf(out, "  <testcase classname=\"gpucourse\" name=\"%s %s\" time=\"%.3f\">", es[i]->id, es[i]->name,
                r->wall_s);
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
            if (r->verdict == V_COMPILE_ERROR) xml_text(out, r->compile_log);
            fputs("</failure>", out);
        }
        fputs("</testcase>\n", out);
    }
    fputs("</testsuite>\n", out);
}
