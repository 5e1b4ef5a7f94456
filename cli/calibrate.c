/* gpucourse check-course --calibrate: each reference graded N times, the
 * floors it suggests. */
#define _GNU_SOURCE
#include "cli.h"

static void json_calibration(FILE *out, const Exercise *e, const Calibration *cal, bool first) {
    fprintf(out, "%s\n    {\"id\": \"%s\", \"name\": \"%s\", \"runs\": %d, \"timed\": %d, \"failed\": ",
            first ? "" : ",", e->id, e->name, cal->runs, cal->timed);
    json_string(out, cal->failed == V_PASS ? "" : verdict_key(cal->failed));
    fputs(", \"why\": ", out);
    json_string(out, cal->why);
    fputs(", \"floors_why\": ", out);
    json_string(out, e->floors_why ? e->floors_why : "");
    fputs(", \"floors\": [", out);
    for (int k = 0; k < cal->nfloors; k++) {
        const FloorCalibration *f = &cal->floors[k];
        fprintf(out, "%s{\"key\": \"%s\", \"floor\": ", k ? ", " : "", f->key);
        json_number(out, f->floor);
        fputs(", \"median\": ", out);
        json_number(out, f->median);
        fputs(", \"min\": ", out);
        json_number(out, f->min);
        fputs(", \"max\": ", out);
        json_number(out, f->max);
        fputs(", \"suggested\": ", out);
        json_number(out, f->suggested);
        fprintf(out, ", \"flag\": \"%s\"}", floor_flag_text(f->flag));
    }
    fputs("]}", out);
}

/* Text: the measured ratios, the suggested floors as a line to paste into
 * the chapter's YAML, and the floors the measurements flag. */
static void print_calibration(const Course *c, const Exercise *e, const Calibration *cal) {
    printf("%s %s: %d of %d run%s of the reference timed\n", e->id, e->name, cal->timed, cal->runs,
           cal->runs == 1 ? "" : "s");
    if (cal->failed != V_PASS) printf("  a run was not timed: %s: %s\n", verdict_title(cal->failed), cal->why);
    if (!cal->nfloors) return;
    printf("  %-10s %7s  %-11s  %5s  %9s\n", "ratio", "median", "spread", "floor", "suggested");
    StrBuf line = {0};
    for (int k = 0; k < cal->nfloors; k++) {
        const FloorCalibration *f = &cal->floors[k];
        char floor_text[16] = "-";
        if (f->floor > 0) snprintf(floor_text, sizeof floor_text, "%.2f", f->floor);
        printf("  %-10s %7.2f  %.2f-%-6.2f  %5s  %9.2f  %s\n", f->key, f->median, f->min, f->max, floor_text,
               f->suggested, f->flag == FLOOR_OK ? "" : floor_flag_text(f->flag));
        if (f->floor > 0 || k == 0) sb_printf(&line, "%s%s: %.2f", line.len ? ", " : "", f->key, f->suggested);
    }
    printf("    floors: {%s}  # %s, course/%s/chapter.yaml\n", line.buf, e->id, c->chapters[e->chapter].dir);
    if (e->floors_why) fprintf_visible(stdout, "    floors_why: %s\n", e->floors_why);
    sb_free(&line);
}

/* check-course --calibrate: each chosen reference graded o->runs times. */
int cmd_calibrate(const Options *o, Course *c, const char *const *keys, int nkeys) {
    bool text = o->format == FORMAT_TEXT;
    const Exercise **list = xcalloc((size_t)c->nexercises + (size_t)nkeys + 1, sizeof *list);
    int count = 0;
    for (int i = 0; i < nkeys; i++) {
        Exercise *e = course_find(c, keys[i]);
        if (!e) {
            free(list);
            return fail_no_exercise();
        }
        list[count++] = e;
    }
    int chapter = o->chapter ? chapter_index(c, o->chapter) : -1;
    if (o->chapter && chapter < 0) {
        free(list);
        return EXIT_USAGE;
    }
    for (int i = 0; !nkeys && i < c->nexercises; i++)
        if (!o->chapter || c->exercises[i].chapter == chapter) list[count++] = &c->exercises[i];
    GpuInfo gpu;
    gpu_probe(&gpu);
    if (gpu.count == 0) { /* like grade: said, and the skip code */
        free(list);
        if (text) printf("check-course --calibrate needs a GPU: %s\n", gpu.why);
        else {
            fputs("{\n  \"ok\": false,\n  \"exit_code\": 77,\n  \"gpu\": {\"checked\": false, \"why_not\": ", stdout);
            json_string(stdout, gpu.why);
            fputs("},\n  \"calibration\": [],\n  \"error\": null\n}\n", stdout);
        }
        return EXIT_SKIPPED;
    }
    Workspace w;
    if (workspace_open(c, o->workspace_dir, &w) < 0) {
        free(list);
        return fail_setup();
    }
    int runs = o->runs ? o->runs : 5, flagged = 0;
    bool stopped = false;
    if (text)
        printf("check-course --calibrate: each reference graded %d time%s as a student's file on %s\n"
               "suggested = median x %.2f rounded down to 0.05; a floor is too tight when the median is under\n"
               "floor / %.1f, too loose when it is under %.1f x the median\n\n",
               runs, runs == 1 ? "" : "s", gpu.name, CALIBRATE_MARGIN, CALIBRATE_TIGHT, CALIBRATE_LOOSE);
    else
        fputs("{\n  \"calibration\": [", stdout);
    GradeResult *rs = xcalloc((size_t)runs, sizeof *rs);
    for (int i = 0; i < count; i++) {
        const Exercise *e = list[i];
        char *sol = course_solution_path(c, e);
        int done = 0;
        for (; done < runs; done++) {
            GradeOptions go = {.source = sol, .label = "check-reference", .on_phase = on_phase, .ctx = (void *)e};
            grade_exercise(c, &w, e, &go, &rs[done]);
            if (rs[done].verdict == V_INTERRUPTED || rs[done].verdict == V_SETUP_ERROR) {
                done++;
                break;
            }
        }
        Calibration cal;
        calibrate(e, rs, done, &cal);
        flagged += cal.failed != V_PASS;
        for (int k = 0; k < cal.nfloors; k++)
            flagged += cal.floors[k].flag == FLOOR_TOO_TIGHT || cal.floors[k].flag == FLOOR_TOO_LOOSE;
        if (text) {
            print_calibration(c, e, &cal);
            putchar('\n');
            fflush(stdout);
        } else {
            json_calibration(stdout, e, &cal, i == 0);
        }
        stopped = rs[done - 1].verdict == V_INTERRUPTED;
        for (int k = 0; k < done; k++) grade_result_free(&rs[k]);
        free(sol);
        if (stopped) {
            count = i + 1;
            break;
        }
    }
    int code = stopped ? EXIT_INTERRUPTED : flagged ? EXIT_SETUP : 0;
    if (text) printf("calibrate: %d exercise%s, %d flagged\n", count, count == 1 ? "" : "s", flagged);
    else printf("%s],\n  \"ok\": %s,\n  \"exit_code\": %d,\n  \"error\": null\n}\n", count ? "\n  " : "",
                code ? "false" : "true", code);
    free(rs);
    free(list);
    workspace_free(&w);
    return code;
}
