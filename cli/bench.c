/* gpucourse bench: every reference against the same-run ceilings. */
#define _GNU_SOURCE
#include "cli.h"

/* The reference solution of every exercise (or of one chapter) graded as a
 * student's file: its throughput against the same-run ceilings. */
int cmd_bench(Session *s, const Options *o) {
    int chapter = o->chapter ? chapter_index(s->course, o->chapter) : -1;
    if (o->chapter && chapter < 0) return EXIT_USAGE;
    GpuInfo gpu;
    gpu_probe(&gpu);
    if (gpu.count == 0) {
        printf("bench needs a GPU: %s\n", gpu.why);
        return EXIT_SKIPPED;
    }
    char date[40];
    now_iso8601(date, sizeof date);
    printf("gpucourse bench: each reference solution graded as a student's file, %s, %s (%d SMs)\n\n", date,
           gpu.name, gpu.sm_count);
    bool memory_table = false; /* printed as rows come, with its header at the first row */
    int failures = 0;
    StrBuf gemms = {0}; /* compute-bound kinds: a table of their own, in TFLOP/s */
    for (int i = 0; i < s->course->nexercises; i++) {
        Exercise *e = &s->course->exercises[i];
        if (o->chapter && e->chapter != chapter) continue;
        char *sol = course_solution_path(s->course, e);
        GradeOptions go = {.source = sol, .label = "check-reference", .seed = o->seed};
        GradeResult r;
        grade_exercise(s->course, &s->ws, e, &go, &r);
        char size[64];
        size_text(&e->timing_sizes[0], size, sizeof size);
        if (!memory_table && (!r.timed || r.flops <= 0)) {
            printf("| exercise | kind | size | reference GB/s | copy GB/s | ref / copy | library | library GB/s | ref / "
                   "library | ref / ceiling |\n|---|---|---|---|---|---|---|---|---|---|\n");
            memory_table = true;
        }
        if (!r.timed) {
            printf("| %s %s | %s | %s | %s: %s | | | | | | |\n", e->id, e->name, e->kind, size, verdict_title(r.verdict),
                   r.reason);
            failures++;
        }
        for (int k = 0; r.timed && k < r.nsizes; k++) { /* a row per timed size */
            const TimedSize *t = &r.sizes[k];
            const char *at = t->size[0] ? t->size : size;
            char ceiling[64] = "-"; /* the reference's share of the bound that applies (grader/ceiling.h) */
            if (t->ceiling.bound != BOUND_NONE)
                snprintf(ceiling, sizeof ceiling, "%.2f %s%s", t->ceiling.fraction, ceiling_bound_name(t->ceiling.bound),
                         t->ceiling.bound == BOUND_COMPUTE && !t->ceiling.clock_measured ? "*" : "");
            if (t->flops > 0)
                sb_printf(&gemms, "| %s %s | %s | %s | %.1f | %s | %.1f | %.2f | %.0f | %.0f | %s |\n", e->id, e->name,
                          e->kind, at, t->tflops_reference, t->library.samples ? r.library_name : "-", t->tflops_library,
                          t->library.samples ? t->tflops_reference / t->tflops_library : 0, r.peak_tflops,
                          t->ceiling.peak_tflops, ceiling);
            else if (t->library.samples)
                printf("| %s %s | %s | %s | %.0f | %.0f | %.2f | %s | %.0f | %.2f | %s |\n", e->id, e->name, e->kind, at,
                       t->gbps_reference, t->gbps_baseline, t->gbps_reference / t->gbps_baseline, r.library_name,
                       t->gbps_library, t->gbps_reference / t->gbps_library, ceiling);
            else
                printf("| %s %s | %s | %s | %.0f | %.0f | %.2f | - | - | - | %s |\n", e->id, e->name, e->kind, at,
                       t->gbps_reference, t->gbps_baseline, t->gbps_reference / t->gbps_baseline, ceiling);
        }
        fflush(stdout);
        grade_result_free(&r);
        free(sol);
    }
    if (memory_table)
        printf("\nGB/s counts the bytes a correct solution must move (inputs read once, outputs written once) over\n"
               "the median of 21 samples; copy is cudaMemcpyAsync device-to-device of the same bytes, same run.\n"
               "ref / ceiling is the reference's share of the ceiling that bounds the size: memory (the copy) or\n"
               "compute (the dense FP32 or tensor peak at the clock it ran), by its flops per byte against the ridge.\n");
    if (gemms.len) {
        printf("%s| exercise | kind | size | reference TFLOP/s | library | library TFLOP/s | ref / library | peak TFLOP/s "
               "| peak as run | ref / ceiling |\n",
               memory_table ? "\n" : "");
        printf("|---|---|---|---|---|---|---|---|---|---|\n%s", gemms.buf);
        printf("\nTFLOP/s counts 2 M N K operations over the median of 21 samples, the library timed in the same run;\n"
               "peak is this GPU's dense rate for the arithmetic at its highest clock, peak as run the same at the\n"
               "SM clock read after the reference's timed calls (the median), which ref / ceiling divides by:\n"
               "compute, or memory where the size's flops per byte fall short of the ridge (* the clock was not\n"
               "read: the highest).\n");
    }
    sb_free(&gemms);
    return failures ? EXIT_SETUP : 0;
}
