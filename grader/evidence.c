#include "evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* mma_type and gmma_type: this share of the products' FLOPs (a tensor
 * core's "ops" count two per multiply-add, as FLOPs do) must run as the
 * lesson's instruction with the lesson's input type. The references reach
 * 1.00; padding a tail tile adds, never subtracts. */
static const double TENSOR_SHARE = 0.95;
/* tensor_cores: none: tensor-pipe cycles per FLOP at most this. A GEMM on
 * the tensor cores keeps the pipe busy about 2e-3 cycles per FLOP at
 * 4096^3; the FP32 SIMT references read 0 to 5e-8 (H100). */
static const double TENSOR_IDLE = 1e-5;
/* gmma_type: e4m3. The H100's profiler counts no FLOPs for FP8 warpgroup
 * MMAs (QGMMA), so an FP8 GEMM is known by two things together: the tensor
 * pipe busy at least FP8_BUSY cycles per FLOP (ex45's reference reads
 * 5.0e-4 at 4096^3, the SIMT references 0 to 5e-8), and at most
 * FP8_OTHER_SHARE of the FLOPs counted on the 16-bit and TF32 paths
 * (operands widened to BF16 and multiplied there would show). */
static const double FP8_BUSY = 1e-4;
static const double FP8_OTHER_SHARE = 0.05;

/* The counter of an input type under a tensor path. */
static const char *ops_counter(const char *path, const char *word) {
    bool g = !strcmp(path, "hgmma");
    if (!strcmp(word, "bf16")) return g ? OPS("hgmma", "bf16_dst_fp32") : OPS("hmma", "bf16_dst_fp32");
    if (!strcmp(word, "f16")) return g ? OPS("hgmma", "fp16") : OPS("hmma", "fp16");
    return g ? OPS("hgmma", "tf32_dst_fp32") : OPS("hmma", "tf32_dst_fp32");
}

/* The counters a requirement reads (NULL-terminated, at most MAX_READ). */
enum { MAX_READ = 6 };
static void counters_of(const Requirement *r, const char *out[MAX_READ + 1]) {
    const char *k = r->key->key;
    memset(out, 0, (MAX_READ + 1) * sizeof *out);
    if (!strcmp(k, "tma_load_share")) out[0] = TMA_LOAD_BYTES, out[1] = LOAD_SECTORS;
    else if (!strcmp(k, "tma_store_share")) out[0] = TMA_STORE_BYTES, out[1] = STORE_SECTORS;
    else if (!strcmp(k, "tma_multicast_share"))
        out[0] = TMA_MULTICAST_BYTES, out[1] = TMA_MULTICAST_REQUESTS, out[2] = TMA_LOAD_BYTES;
    else if (!strcmp(k, "mma_type")) out[0] = ops_counter("hmma", r->word);
    else if (!strcmp(k, "gmma_type") && !strcmp(r->word, "e4m3")) {
        out[0] = TENSOR_CYCLES, out[1] = ops_counter("hgmma", "bf16"), out[2] = ops_counter("hgmma", "f16");
        out[3] = ops_counter("hgmma", "tf32"), out[4] = ops_counter("hmma", "bf16"), out[5] = ops_counter("hmma", "f16");
    } else if (!strcmp(k, "gmma_type")) out[0] = ops_counter("hgmma", r->word);
    else if (!strcmp(k, "ldsm_share")) out[0] = LDSM_INSTS, out[1] = SHARED_LOAD_INSTS;
    else if (!strcmp(k, "ldgsts_share")) out[0] = LDGSTS_INSTS, out[1] = GLOBAL_LOAD_INSTS;
    else if (!strcmp(k, "bank_conflicts_max")) out[0] = BANK_CONFLICTS, out[1] = SHARED_WAVEFRONTS;
    else if (!strcmp(k, "load_sectors_min")) out[0] = LOAD_SECTORS, out[1] = LOAD_REQUESTS;
    else if (!strcmp(k, "tensor_cores")) out[0] = TENSOR_CYCLES, out[1] = DMMA_CYCLES;
}

char *evidence_metrics(const Exercise *e) {
    if (e->nevidence == 0) return NULL;
    StrList all = {0};
    for (int i = 0; i < e->nevidence; i++) {
        const char *names[MAX_READ + 1];
        counters_of(&e->evidence[i], names);
        for (int k = 0; names[k]; k++) {
            bool seen = false;
            for (int j = 0; j < all.count; j++) seen |= !strcmp(all.items[j], names[k]);
            if (!seen) strlist_add(&all, names[k]);
        }
    }
    StrBuf sb = {0};
    for (int j = 0; j < all.count; j++) sb_printf(&sb, "%s%s", j ? "," : "", all.items[j]);
    strlist_free(&all);
    return sb.buf;
}

const char EVIDENCE_NO_FLOPS[] = "the FLOPs of the call";

bool evidence_parse_line(Counters *c, const char *key, const char *rest) {
    if (!strcmp(key, "counter")) {
        char name[96];
        double v;
        if (c->n < MAX_RESULT_COUNTERS && sscanf(rest, "%95s %lf", name, &v) == 2) {
            snprintf(c->names[c->n], sizeof c->names[0], "%s", name);
            c->values[c->n++] = v;
        }
        return true;
    }
    if (strcmp(key, "counters")) return false;
    if (!strncmp(rest, "unavailable: ", 13) || !strncmp(rest, "failed: ", 8)) {
        bool unavailable = rest[0] == 'u';
        /* an unavailable GPU outranks a failure seen before it */
        if (c->status != COUNTERS_UNAVAILABLE) {
            c->status = unavailable ? COUNTERS_UNAVAILABLE : COUNTERS_FAILED;
            snprintf(c->why, sizeof c->why, "%s", rest + (unavailable ? 13 : 8));
        }
        return true;
    }
    Counters got = *c;
    if (sscanf(rest, "%63s work %lf %lf %lf", got.size, &got.in_bytes, &got.out_bytes, &got.flops) == 4 &&
        c->status == COUNTERS_NONE) {
        *c = got;
        c->status = COUNTERS_COLLECTED;
    }
    return true;
}

bool evidence_value(const Counters *c, const char *name, double *v) {
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->names[i], name) && isfinite(c->values[i]) && c->values[i] >= 0) {
            *v = c->values[i];
            return true;
        }
    return false;
}

const char *evidence_lesson(const char *key) {
    static const struct {
        const char *key, *lesson;
    } lessons[] = {
        {"tma_load_share", "the exercise loads its tiles with TMA (cp.async.bulk.tensor through a tensor map), not "
                           "with loads of its threads"},
        {"tma_store_share", "the exercise writes its tiles with TMA stores (cp.async.bulk.tensor from shared memory), "
                            "not with stores of its threads"},
        {"tma_multicast_share", "one TMA load feeds the shared memory of several blocks of a cluster "
                                "(.multicast::cluster): each block loads its part once for all of them"},
        {"mma_type", "the products must run on the tensor cores as mma.sync with the lesson's input type"},
        {"gmma_type", "the products must run as warpgroup MMAs (wgmma.mma_async) with the lesson's input type"},
        {"ldsm_share", "the fragments come from shared memory through ldmatrix, not through loads of single lanes"},
        {"ldgsts_share", "the tiles go from global to shared memory with cp.async, which does not wait in registers"},
        {"bank_conflicts_max", "the lesson's layout reads shared memory without bank conflicts"},
        {"load_sectors_min", "the lesson's loads are 16 bytes wide (float4): fewer, wider requests"},
        {"tensor_cores", "this rung is about the CUDA cores: its FP32 arithmetic runs as FFMA, not on tensor cores"},
    };
    for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++)
        if (!strcmp(lessons[i].key, key)) return lessons[i].lesson;
    return "the technique this exercise is about";
}

int evidence_measure(const Exercise *e, const Counters *c, EvidenceLine *lines, int *unmet, const char **missing) {
    *unmet = -1;
    *missing = NULL;
    int n = 0;
    for (int i = 0; i < e->nevidence && n < MAX_EVIDENCE; i++) {
        const Requirement *r = &e->evidence[i];
        const char *names[MAX_READ + 1];
        double v[MAX_READ] = {0};
        counters_of(r, names);
        for (int k = 0; names[k]; k++)
            if (!evidence_value(c, names[k], &v[k])) {
                *missing = names[k];
                return n;
            }
        EvidenceLine *l = &lines[n++];
        memset(l, 0, sizeof *l);
        snprintf(l->key, sizeof l->key, "%s", r->key->key);
        const char *k = r->key->key;
        double m = 0, bound = r->number;
        bool at_most = false, also = true; /* also: a second condition, where the line states two */
        if (!strcmp(k, "tma_load_share") || !strcmp(k, "tma_store_share")) {
            /* of every byte the call loaded (stored): through TMA, or by
             * its threads (sectors of 32 bytes), and never less than the
             * inputs (outputs) themselves, whatever path read them */
            bool load = k[4] == 'l';
            double floor_bytes = load ? c->in_bytes : c->out_bytes, all = v[0] + 32 * v[1];
            m = v[0] / fmax(fmax(floor_bytes, all), 1);
            snprintf(l->text, sizeof l->text, "TMA %s: %.2f of the bytes %s (at least %.2f)", load ? "loads" : "stores",
                     m, load ? "loaded" : "stored", bound);
        } else if (!strcmp(k, "tma_multicast_share")) {
            /* bytes that landed in a block other than the one that asked
             * for them: what multicast landed, less what was requested (at
             * most 128 bytes a request, so never more than that), over every
             * byte TMA loaded. A load multicast to its own block only counts
             * nothing. */
            m = fmax(v[0] - 128 * v[1], 0) / fmax(v[2], 1);
            snprintf(l->text, sizeof l->text, "TMA multicast: %.2f of the bytes TMA loaded landed in another block "
                     "(at least %.2f)", m, bound);
        } else if (!strcmp(k, "gmma_type") && !strcmp(r->word, "e4m3")) {
            if (c->flops <= 0) {
                *missing = EVIDENCE_NO_FLOPS;
                return n - 1;
            }
            double other = (v[1] + v[2] + v[3] + v[4] + v[5]) / c->flops;
            bound = FP8_BUSY;
            m = v[0] / c->flops;
            also = other <= FP8_OTHER_SHARE;
            snprintf(l->text, sizeof l->text, "wgmma e4m3: the tensor pipe busy %.1e cycles per FLOP (at least %.0e), "
                     "%.2f of the FLOPs as 16-bit or TF32 MMAs (at most %.2f)", m, bound, other, FP8_OTHER_SHARE);
        } else if (!strcmp(k, "mma_type") || !strcmp(k, "gmma_type")) {
            bound = TENSOR_SHARE;
            if (c->flops <= 0) {
                *missing = EVIDENCE_NO_FLOPS;
                return n - 1;
            }
            m = v[0] / c->flops;
            snprintf(l->text, sizeof l->text, "%s %s: %.2f of the products' FLOPs (at least %.2f)",
                     k[0] == 'm' ? "mma.sync" : "wgmma", r->word, m, bound);
        } else if (!strcmp(k, "ldsm_share") || !strcmp(k, "ldgsts_share")) {
            m = v[0] + v[1] > 0 ? v[0] / (v[0] + v[1]) : 0;
            snprintf(l->text, sizeof l->text, "%s: %.2f of the %s loads (at least %.2f)",
                     k[2] == 's' ? "ldmatrix" : "cp.async", m, k[2] == 's' ? "shared-memory" : "global", bound);
        } else if (!strcmp(k, "bank_conflicts_max")) {
            at_most = true;
            m = v[1] > 0 ? v[0] / v[1] : 0;
            snprintf(l->text, sizeof l->text, "bank conflicts: %.3f per shared-memory wavefront (at most %.3f)", m,
                     bound);
        } else if (!strcmp(k, "load_sectors_min")) {
            m = v[1] > 0 ? v[0] / v[1] : 32; /* no thread loads at all: nothing narrow */
            snprintf(l->text, sizeof l->text, "global loads: %.1f sectors per request (at least %.1f)", m, bound);
        } else if (!strcmp(k, "tensor_cores")) {
            at_most = true;
            bound = TENSOR_IDLE;
            m = c->flops > 0 ? (v[0] + v[1]) / c->flops : v[0] + v[1];
            snprintf(l->text, sizeof l->text, "tensor cores: %.1e busy cycles per FLOP (at most %.0e: none)", m, bound);
        }
        l->measured = m;
        l->bound = bound;
        l->ok = (at_most ? m <= bound : m >= bound) && also;
        if (!l->ok && *unmet < 0) *unmet = n - 1;
    }
    return n;
}
