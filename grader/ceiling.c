#define _GNU_SOURCE
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/peaks.h"
#include "grader.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Every kind of harness/kinds/ (tests/test_grader.c checks that none is
 * missing): the floating-point operations of one element of its timed size,
 * read off the kind's file (an add or a multiply is 1, a multiply-add 2; 0:
 * data movement or integer work), and the arithmetic that work runs on.
 * The tile kinds count their products (the kind's product_flops) and run
 * them on the tensor cores; a GEMM's work is 2 M N K, which the judge
 * reports itself (flops:), so its entry gives only the arithmetic. */
static const struct {
    const char *kind;
    double flops_per_element;
    const char *math;
} kinds[] = {
    {"vector_add", 1, "FP32"},  {"saxpy", 2, "FP32"},    {"affine", 2, "FP32"},      {"col_scale", 1, "FP32"},
    {"fused_axpy_relu", 3, "FP32"}, {"row_sum", 1, "FP32"}, {"sum", 1, "FP32"},      {"tile_scan", 1, "FP32"},
    {"flip_lr", 0, "FP32"},     {"transpose", 0, "FP32"}, {"warp_count", 0, "FP32"}, {"segment_sum", 0, "FP32"},
    {"scan", 0, "FP32"},        {"warp_scan", 0, "FP32"}, {"swizzle128", 0, "FP32"}, {"swizzle_map", 0, "FP32"},
    {"tile_pack", 0, "FP32"},
    {"mma_tiles", 2.0 * 16 * 8 * 16, "BF16"},   /* one m16n8k16 product per tile */
    {"wgmma_tiles", 2.0 * 64 * 64 * 64, "BF16"}, /* one 64 x 64 x 64 product per tile */
    {"gemm_bf16", 0, "BF16"},   {"gemm_bf16_kmajor", 0, "BF16"}, {"sgemm", 0, "FP32"},
    {"sgemm_tf32", 0, "TF32"},  {"gemm_fp8_blockscaled", 0, "FP8"},
};

const char *ceiling_bound_name(Bound b) {
    return b == BOUND_MEMORY ? "memory" : b == BOUND_COMPUTE ? "compute" : NULL;
}

bool ceiling_kind(const char *kind, double *flops_per_element, const char **math) {
    for (size_t i = 0; kind && i < ARRAY_SIZE(kinds); i++)
        if (!strcmp(kinds[i].kind, kind)) {
            *flops_per_element = kinds[i].flops_per_element;
            *math = kinds[i].math;
            return true;
        }
    return false;
}

/* harness/peaks.h's table, by the name the kinds above give the math. */
double ceiling_per_sm_per_clock(int cc, const char *math) {
    static const struct {
        const char *name;
        enum MathPeak peak;
    } names[] = {{"FP32", PEAK_FP32}, {"TF32", PEAK_TF32_TENSOR}, {"BF16", PEAK_BF16_TENSOR}, {"FP8", PEAK_FP8_TENSOR}};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (!strcmp(math, names[i].name)) return peak_ops_per_sm_clock(cc, names[i].peak);
    return 0;
}

/* The number of elements of a size named "4096x4096x4096" (or, for outputs
 * that did not name it, of the exercise's spec). */
static double elements(const char *name, const SizeSpec *spec) {
    double n = 1;
    if (name[0]) {
        for (const char *p = name; *p;) {
            char *end;
            double v = strtod(p, &end);
            if (end == p || v <= 0) return 0;
            n *= v;
            p = *end == 'x' ? end + 1 : end;
            if (*end && *end != 'x') return 0;
        }
        return n;
    }
    if (!spec || spec->count == 0) return 0;
    for (int i = 0; i < spec->count; i++) n *= (double)spec->d[i];
    return n;
}

void grade_place_ceiling(const GradeResult *r, const char *kind, const SizeSpec *size, TimedSize *t) {
    Ceiling *c = &t->ceiling;
    memset(c, 0, sizeof *c);
    double per_element = 0;
    const char *math = NULL;
    bool known = ceiling_kind(kind, &per_element, &math);
    /* the work: the judge's count for a GEMM, else the table's per element */
    c->flops = t->flops > 0 ? t->flops : known ? per_element * elements(t->size, size) : 0;
    c->intensity = t->bytes > 0 ? c->flops / t->bytes : 0;
    if (t->baseline.samples && t->gbps_baseline > 0) c->copy_gbps = t->gbps_baseline;
    /* the clock it ran at, where NVML read it; else the highest */
    c->clock_measured = t->clock_mhz > 0;
    c->clock_mhz = c->clock_measured ? t->clock_mhz : r->clock_mhz;
    if (math) snprintf(c->math, sizeof c->math, "%s", math);
    double rate = math ? ceiling_per_sm_per_clock(r->cc, math) : 0;
    c->peak_tflops = rate * r->sm_count * c->clock_mhz * 1e6 / 1e12;
    if (c->copy_gbps > 0 && c->peak_tflops > 0) c->ridge = c->peak_tflops * 1e3 / c->copy_gbps;
    /* the bound: by intensity against the ridge; with one ceiling known,
     * that one (no work: memory; no copy timed: a GEMM's arithmetic) */
    if (c->flops > 0 && c->peak_tflops > 0 && (c->ridge == 0 ? c->copy_gbps == 0 : c->intensity >= c->ridge))
        c->bound = BOUND_COMPUTE;
    else if (c->copy_gbps > 0 && (c->flops == 0 || c->peak_tflops > 0)) /* no peak: where the ridge is, unknown */
        c->bound = BOUND_MEMORY;
    if (c->bound == BOUND_MEMORY) c->fraction = t->gbps_student / c->copy_gbps;
    else if (c->bound == BOUND_COMPUTE) c->fraction = c->flops / (t->student.median_ms * 1e9) / c->peak_tflops;
}
