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
/* ... and at most this share: tail tiles padded to 256 add a few percent
 * (ex25 at 5000 x 3000 x 4040: 1.06); a burst of the instruction beside
 * other work adds its whole count. */
static const double TENSOR_SHARE_MAX = 1.30;
/* tma_load_share, tma_store_share: TMA may move at most this many times the
 * inputs (outputs), or, for a matrix product, the bytes a kernel with 64 x 64
 * tiles of 4-byte elements reads (each operand once per tile of the other
 * side: 4 * FLOPs / 64 bytes). The references move 1.0x (copies, transposes)
 * and 12x-50x the inputs (GEMMs with 128 x 256 tiles). */
static const double TMA_MAX_TIMES = 4;
static const double TMA_MAX_PER_FLOP = 4.0 / 64;
/* ldsm_share, ldgsts_share: a warp's ldmatrix.x4 or 16-byte cp.async moves
 * at most 512 bytes; the instructions counted must have had room for at
 * least this share of the inputs' bytes, or the "share" is of almost
 * nothing (one ldmatrix a call, the fragments loaded from registers). */
static const double WARP_LOAD_BYTES = 512;
static const double CARRIED_MIN = 0.5;
/* bank_conflicts_max: the wavefronts a conflict is taken a share of, at
 * most this many per FLOP. ex40's reference reads 3.2e-3 at 4096^3, ex39's
 * layout (4-way conflicts) 5.3e-3; an answer that adds conflict-free shared
 * traffic to dilute its conflicts counts no more than this. */
static const double WAVEFRONTS_PER_FLOP_MAX = 8e-3;
/* Every timed sample of a size is counted; their measures may differ by
 * this share of the larger one (or of the bound) before the calls are said
 * to disagree. The same kernel at the same size counts the same work
 * whatever the inputs' values. */
static const double CALLS_SPREAD = 0.10;
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
    else if (!strcmp(k, "store_sectors_min")) out[0] = STORE_SECTORS, out[1] = STORE_REQUESTS;
    else if (!strcmp(k, "tensor_cores")) out[0] = TENSOR_CYCLES, out[1] = DMMA_CYCLES;
    else if (!strcmp(k, "partial_sums_min")) out[0] = STORE_SECTORS, out[1] = TMA_STORE_BYTES;
}

/* The witness's counters for e's evidence (NULL-terminated, at most MAX_WITNESSED). */
static void witnessed_of(const Exercise *e, const char *out[MAX_WITNESSED + 1]) {
    bool tensor = false, l2 = false;
    for (int i = 0; i < e->nevidence; i++) {
        const char *k = e->evidence[i].key->key;
        tensor |= !strcmp(k, "mma_type") || !strcmp(k, "gmma_type") || !strcmp(k, "tensor_cores");
        l2 |= !strcmp(k, "tma_multicast_share");
    }
    int n = 0;
    memset(out, 0, (MAX_WITNESSED + 1) * sizeof *out);
    if (tensor) out[n++] = WITNESS_TENSOR, out[n++] = WITNESS_TENSOR_ALL;
    if (l2) out[n++] = WITNESS_L2_SECTORS;
}

static void add_once(StrList *all, const char *name) {
    for (int j = 0; j < all->count; j++)
        if (!strcmp(all->items[j], name)) return;
    strlist_add(all, name);
}

static char *joined(StrList *all) {
    StrBuf sb = {0};
    for (int j = 0; j < all->count; j++) sb_printf(&sb, "%s%s", j ? "," : "", all->items[j]);
    strlist_free(all);
    return sb.buf;
}

char *evidence_metrics(const Exercise *e) {
    if (e->nevidence == 0) return NULL;
    StrList all = {0};
    for (int i = 0; i < e->nevidence; i++) {
        const char *names[MAX_READ + 1];
        counters_of(&e->evidence[i], names);
        for (int k = 0; names[k]; k++) add_once(&all, names[k]);
    }
    const char *witnessed[MAX_WITNESSED + 1];
    witnessed_of(e, witnessed);
    for (int k = 0; witnessed[k]; k++) add_once(&all, witnessed[k]);
    return joined(&all);
}

char *evidence_witness_metrics(const Exercise *e) {
    const char *witnessed[MAX_WITNESSED + 1];
    witnessed_of(e, witnessed);
    if (!witnessed[0]) return NULL;
    StrList all = {0};
    for (int k = 0; witnessed[k]; k++) add_once(&all, witnessed[k]);
    return joined(&all);
}

const char EVIDENCE_NO_FLOPS[] = "the FLOPs of the call";

/* A counters line out of order or beyond the bounds: the record is not
 * whole, so nothing of it is trusted. */
static void malformed(Counters *c, const char *what) {
    if (c->status == COUNTERS_UNAVAILABLE || c->status == COUNTERS_FAILED) return;
    c->status = COUNTERS_FAILED;
    snprintf(c->why, sizeof c->why, "the judge's record of the counted calls is malformed (%s)", what);
}

/* A witness line out of order: nothing of the witness is trusted. */
static void witness_malformed(Counters *c, const char *what) {
    if (c->witness == COUNTERS_UNAVAILABLE || c->witness == COUNTERS_FAILED) return;
    c->witness = COUNTERS_FAILED;
    snprintf(c->witness_why, sizeof c->witness_why, "the judge's witness lines are malformed (%s)", what);
}

static bool witness_parse_line(Counters *c, const char *key, const char *rest) {
    if (!strcmp(key, "witnessed")) {
        char name[96];
        double v;
        if (c->witness != COUNTERS_COLLECTED) return true;
        WitnessedSize *w = &c->witnessed[c->nwitnessed - 1];
        if (sscanf(rest, "%95s %lf", name, &v) != 2 || w->n == MAX_WITNESSED) {
            witness_malformed(c, "a value without its size");
            return true;
        }
        snprintf(w->names[w->n], sizeof w->names[0], "%s", name);
        w->values[w->n++] = v;
        return true;
    }
    if (!strncmp(rest, "unavailable: ", 13) || !strncmp(rest, "failed: ", 8)) {
        bool unavailable = rest[0] == 'u';
        if (c->witness != COUNTERS_UNAVAILABLE) {
            c->witness = unavailable ? COUNTERS_UNAVAILABLE : COUNTERS_FAILED;
            snprintf(c->witness_why, sizeof c->witness_why, "%s", rest + (unavailable ? 13 : 8));
        }
        return true;
    }
    WitnessedSize got = {0};
    int samples;
    if (sscanf(rest, "%63s calls %d samples %d", got.size, &got.calls, &samples) != 3 || got.calls < 1) {
        witness_malformed(c, "a size without its calls");
        return true;
    }
    if (c->witness == COUNTERS_NONE) c->witness = COUNTERS_COLLECTED;
    if (c->witness != COUNTERS_COLLECTED) return true;
    for (int k = 0; k < c->nwitnessed; k++)
        if (!strcmp(c->witnessed[k].size, got.size)) {
            witness_malformed(c, "a size twice");
            return true;
        }
    if (c->nwitnessed == MAX_COUNTED_SIZES) {
        witness_malformed(c, "too many sizes");
        return true;
    }
    c->witnessed[c->nwitnessed++] = got;
    return true;
}

bool evidence_parse_line(Counters *c, const char *key, const char *rest) {
    if (!strcmp(key, "witness") || !strcmp(key, "witnessed")) {
        if (!strcmp(key, "witnessed") && (c->witness == COUNTERS_NONE || c->nwitnessed == 0)) {
            witness_malformed(c, "a value before any size");
            return true;
        }
        return witness_parse_line(c, key, rest);
    }
    if (!strcmp(key, "counter")) {
        char name[96];
        double v;
        if (c->status != COUNTERS_COLLECTED) return true;
        if (sscanf(rest, "%95s %lf", name, &v) != 2 || c->ncalls == 0) {
            malformed(c, "a counter outside a call");
            return true;
        }
        CountedCall *call = &c->calls[c->ncalls - 1];
        if (c->ncalls == 1 && c->n < MAX_RESULT_COUNTERS && call->n == c->n)
            snprintf(c->names[c->n++], sizeof c->names[0], "%s", name); /* the first call names them */
        if (call->n >= c->n || strcmp(c->names[call->n], name)) {
            malformed(c, "a call's counters differ from the first call's");
            return true;
        }
        call->values[call->n++] = v;
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
    CountedSize got = {0};
    double ms = NAN;
    int fields = sscanf(rest, "%63s work %lf %lf %lf ms %lf", got.size, &got.in_bytes, &got.out_bytes, &got.flops, &ms);
    if (fields < 4) {
        malformed(c, "a call without its work");
        return true;
    }
    if (c->status == COUNTERS_NONE) c->status = COUNTERS_COLLECTED;
    if (c->status != COUNTERS_COLLECTED) return true;
    if (c->ncalls > 0 && c->calls[c->ncalls - 1].n != c->n) {
        malformed(c, "a call with fewer counters than the first");
        return true;
    }
    int k = 0;
    while (k < c->nsizes && strcmp(c->sizes[k].size, got.size)) k++;
    if (k == c->nsizes) {
        if (c->nsizes == MAX_COUNTED_SIZES) {
            malformed(c, "too many sizes");
            return true;
        }
        c->sizes[c->nsizes++] = got;
    } else if (c->sizes[k].in_bytes != got.in_bytes || c->sizes[k].out_bytes != got.out_bytes ||
               c->sizes[k].flops != got.flops) {
        malformed(c, "one size with two works");
        return true;
    }
    if (c->ncalls == MAX_COUNTED_CALLS) {
        malformed(c, "too many calls");
        return true;
    }
    c->calls[c->ncalls].size = k;
    c->calls[c->ncalls].n = 0;
    c->calls[c->ncalls].ms = fields == 5 ? ms : NAN;
    c->ncalls++;
    return true;
}

bool evidence_call_value(const Counters *c, int k, const char *name, double *v) {
    if (k < 0 || k >= c->ncalls) return false;
    for (int i = 0; i < c->calls[k].n; i++)
        if (!strcmp(c->names[i], name) && isfinite(c->calls[k].values[i]) && c->calls[k].values[i] >= 0) {
            *v = c->calls[k].values[i];
            return true;
        }
    return false;
}

bool evidence_value(const Counters *c, const char *name, double *v) { return evidence_call_value(c, 0, name, v); }

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
        {"store_sectors_min", "the lesson's stores are 16 bytes wide (float4): fewer, wider requests"},
        {"tensor_cores", "this rung is about the CUDA cores: its FP32 arithmetic runs as FFMA, not on tensor cores"},
        {"partial_sums_min", "the last wave's tiles are cut along k and their partial sums handed to the owner "
                             "through memory: a kernel that cuts nothing stores only its outputs"},
    };
    for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++)
        if (!strcmp(lessons[i].key, key)) return lessons[i].lesson;
    return "the technique this exercise is about";
}

/* One requirement on one call: the measure m, its bound, and the sentence. */
typedef struct {
    double m, bound;
    bool at_most; /* the bound is a ceiling */
    bool also;    /* a second condition the sentence states, met */
    char text[240];
} Measure;

/* Measures requirement r on one call's values v (in counters_of's order)
 * with the work w of its size. False when w lacks what r needs (FLOPs). */
static bool measure_one(const Requirement *r, const double *v, const CountedSize *w, Measure *out) {
    const char *k = r->key->key;
    Measure x = {.bound = r->number, .also = true};
    if (!strcmp(k, "tma_load_share") || !strcmp(k, "tma_store_share")) {
        /* of every byte the call loaded (stored): through TMA, or by its
         * threads (sectors of 32 bytes), and never less than the inputs
         * (outputs) themselves, whatever path read them; and at most what a
         * kernel that reads its inputs once per 64-wide tile moves */
        bool load = k[4] == 'l';
        double floor_bytes = load ? w->in_bytes : w->out_bytes, all = v[0] + 32 * v[1];
        double ceiling = fmax(TMA_MAX_TIMES * floor_bytes, w->flops * TMA_MAX_PER_FLOP);
        x.m = v[0] / fmax(fmax(floor_bytes, all), 1);
        x.also = v[0] <= ceiling;
        snprintf(x.text, sizeof x.text, "TMA %s: %.2f of the bytes %s (at least %.2f), %.1fx the %s (at most %.0fx)",
                 load ? "loads" : "stores", x.m, load ? "loaded" : "stored", x.bound,
                 v[0] / fmax(floor_bytes, 1), load ? "inputs" : "outputs", ceiling / fmax(floor_bytes, 1));
    } else if (!strcmp(k, "tma_multicast_share")) {
        /* bytes that landed in a block other than the one that asked for
         * them: what multicast landed, less what was requested (at most 128
         * bytes a request, so never more than that), over every byte TMA
         * loaded. A load multicast to its own block only counts nothing. */
        x.m = fmax(v[0] - 128 * v[1], 0) / fmax(v[2], 1);
        snprintf(x.text, sizeof x.text, "TMA multicast: %.2f of the bytes TMA loaded landed in another block "
                 "(at least %.2f)", x.m, x.bound);
    } else if (!strcmp(k, "gmma_type") && !strcmp(r->word, "e4m3")) {
        if (w->flops <= 0) return false;
        double other = (v[1] + v[2] + v[3] + v[4] + v[5]) / w->flops;
        x.bound = FP8_BUSY;
        x.m = v[0] / w->flops;
        x.also = other <= FP8_OTHER_SHARE;
        snprintf(x.text, sizeof x.text, "wgmma e4m3: the tensor pipe busy %.1e cycles per FLOP (at least %.0e), "
                 "%.2f of the FLOPs as 16-bit or TF32 MMAs (at most %.2f)", x.m, x.bound, other, FP8_OTHER_SHARE);
    } else if (!strcmp(k, "mma_type") || !strcmp(k, "gmma_type")) {
        if (w->flops <= 0) return false;
        x.bound = TENSOR_SHARE;
        x.m = v[0] / w->flops;
        x.also = x.m <= TENSOR_SHARE_MAX;
        snprintf(x.text, sizeof x.text, "%s %s: %.2f of the products' FLOPs (between %.2f and %.2f)",
                 k[0] == 'm' ? "mma.sync" : "wgmma", r->word, x.m, x.bound, TENSOR_SHARE_MAX);
    } else if (!strcmp(k, "ldsm_share") || !strcmp(k, "ldgsts_share")) {
        /* a share of the loads, and enough of them to have carried the
         * inputs (a share of almost nothing is not the technique) */
        bool ldsm = k[2] == 's';
        double carried = v[0] * WARP_LOAD_BYTES / fmax(w->in_bytes, 1);
        x.m = v[0] + v[1] > 0 ? v[0] / (v[0] + v[1]) : 0;
        x.also = carried >= CARRIED_MIN;
        snprintf(x.text, sizeof x.text, "%s: %.2f of the %s loads (at least %.2f), room for %.2fx the inputs "
                 "(at least %.2fx)", ldsm ? "ldmatrix" : "cp.async", x.m, ldsm ? "shared-memory" : "global", x.bound,
                 carried, CARRIED_MIN);
    } else if (!strcmp(k, "bank_conflicts_max")) {
        /* per wavefront, the wavefronts counted up to what the work can
         * need: traffic added without conflicts cannot dilute them */
        double wavefronts = w->flops > 0 ? fmin(v[1], WAVEFRONTS_PER_FLOP_MAX * w->flops) : v[1];
        x.at_most = true;
        x.m = wavefronts > 0 ? v[0] / wavefronts : 0;
        snprintf(x.text, sizeof x.text, "bank conflicts: %.3f per shared-memory wavefront (at most %.3f)", x.m,
                 x.bound);
    } else if (!strcmp(k, "load_sectors_min") || !strcmp(k, "store_sectors_min")) {
        /* per request of the threads' loads (stores), and enough of them to
         * have carried half the inputs (outputs): wide accesses in a kernel
         * that never runs, beside one that moves the data some other way,
         * count for nothing */
        bool load = k[0] == 'l';
        double carried = 32 * v[0] / fmax(load ? w->in_bytes : w->out_bytes, 1);
        x.m = v[1] > 0 ? v[0] / v[1] : 0;
        x.also = carried >= CARRIED_MIN;
        snprintf(x.text, sizeof x.text, "global %s: %.1f sectors per request (at least %.1f), %.2fx the %s' bytes "
                 "(at least %.2fx)", load ? "loads" : "stores", x.m, x.bound, carried, load ? "inputs" : "outputs",
                 CARRIED_MIN);
    } else if (!strcmp(k, "partial_sums_min")) {
        /* split-K's hand-over: bytes stored beyond the outputs (by the
         * threads, 32 a sector, or by TMA), a share of the outputs */
        x.m = (32 * v[0] + v[1] - w->out_bytes) / fmax(w->out_bytes, 1);
        snprintf(x.text, sizeof x.text, "partial sums: %.2f of the outputs' bytes stored besides them (at least %.2f "
                 "at one timed size)", x.m, x.bound);
    } else if (!strcmp(k, "tensor_cores")) {
        x.at_most = true;
        x.bound = TENSOR_IDLE;
        x.m = w->flops > 0 ? (v[0] + v[1]) / w->flops : v[0] + v[1];
        snprintf(x.text, sizeof x.text, "tensor cores: %.1e busy cycles per FLOP (at most %.0e: none)", x.m, x.bound);
    }
    *out = x;
    return true;
}

static bool measure_ok(const Measure *x) { return (x->at_most ? x->m <= x->bound : x->m >= x->bound) && x->also; }

/* Whether x did worse than y (the line reports the worst call). */
static bool worse(const Measure *x, const Measure *y) {
    if (measure_ok(x) != measure_ok(y)) return !measure_ok(x);
    return x->at_most ? x->m > y->m : x->m < y->m;
}

int evidence_measure(const Exercise *e, const Counters *c, EvidenceLine *lines, int *unmet, const char **missing) {
    *unmet = -1;
    *missing = NULL;
    int n = 0;
    for (int i = 0; i < e->nevidence && n < MAX_EVIDENCE; i++) {
        const Requirement *r = &e->evidence[i];
        const char *names[MAX_READ + 1];
        counters_of(r, names);
        if (c->ncalls == 0) { /* collected, yet no call: nothing was counted */
            *missing = names[0];
            return n;
        }
        Measure worst = {0};
        int worst_call = -1;
        double lo[MAX_COUNTED_SIZES], hi[MAX_COUNTED_SIZES];
        Measure least[MAX_COUNTED_SIZES]; /* each size's call with the lowest measure */
        int least_call[MAX_COUNTED_SIZES];
        for (int s = 0; s < c->nsizes; s++) lo[s] = INFINITY, hi[s] = -INFINITY, least_call[s] = -1;
        for (int call = 0; call < c->ncalls; call++) {
            double v[MAX_READ] = {0};
            for (int k = 0; names[k]; k++)
                if (!evidence_call_value(c, call, names[k], &v[k])) {
                    *missing = names[k];
                    return n;
                }
            Measure x;
            int s = c->calls[call].size;
            if (!measure_one(r, v, &c->sizes[s], &x)) {
                *missing = EVIDENCE_NO_FLOPS;
                return n;
            }
            if (x.m < lo[s]) least[s] = x, least_call[s] = call;
            lo[s] = fmin(lo[s], x.m);
            hi[s] = fmax(hi[s], x.m);
            if (worst_call < 0 || worse(&x, &worst)) worst = x, worst_call = call;
        }
        /* a cut along k where it pays: at the size whose calls show the most
         * (each size's calls at their least) */
        if (!strcmp(r->key->key, "partial_sums_min")) {
            int best = -1;
            for (int s = 0; s < c->nsizes; s++)
                if (least_call[s] >= 0 && (best < 0 || lo[s] > lo[best])) best = s;
            if (best >= 0) worst = least[best], worst_call = least_call[best];
        }
        EvidenceLine *l = &lines[n++];
        memset(l, 0, sizeof *l);
        snprintf(l->key, sizeof l->key, "%s", r->key->key);
        snprintf(l->text, sizeof l->text, "%s", worst.text);
        snprintf(l->size, sizeof l->size, "%s", c->sizes[c->calls[worst_call].size].size);
        l->measured = worst.m;
        l->bound = worst.bound;
        l->ok = measure_ok(&worst);
        /* The calls of one size do the same work: counts that differ by more
         * than noise mean a call that did other work than the rest. */
        for (int s = 0; s < c->nsizes && l->ok; s++) {
            double scale = fmax(fmax(fabs(hi[s]), fabs(lo[s])), worst.bound);
            if (hi[s] - lo[s] > CALLS_SPREAD * scale) {
                l->ok = false;
                snprintf(l->size, sizeof l->size, "%s", c->sizes[s].size);
                snprintf(l->text, sizeof l->text, "%s from %.3g to %.3g between calls of the same size (they may "
                         "differ by %.0f%%): a call that does other work than the rest", r->key->key, lo[s], hi[s],
                         100 * CALLS_SPREAD);
            }
        }
        if (!l->ok && *unmet < 0) *unmet = n - 1;
    }
    return n;
}

/* The witness against the counted calls. The same code at the same size
 * issues the same tensor work whoever counts it (a count of issued work,
 * not of time), and asks L2 for the same sectors; the counted calls run
 * under replay, a few percent apart at most. A witnessed counter may
 * differ from the counted calls' median by WITNESS_SPREAD of the larger,
 * plus, for the tensor pipe, TENSOR_IDLE cycles per FLOP (an exercise
 * that forbids the tensor cores reads about 0 in both). */
static const double WITNESS_SPREAD = 0.10;

static double median_of(double *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool evidence_witness(const Exercise *e, const Counters *c, EvidenceLine *line, bool *unavailable) {
    const char *names[MAX_WITNESSED + 1];
    witnessed_of(e, names);
    *unavailable = false;
    if (!names[0]) return false;
    memset(line, 0, sizeof *line);
    snprintf(line->key, sizeof line->key, "witness");
    if (c->witness != COUNTERS_COLLECTED) {
        *unavailable = c->witness == COUNTERS_UNAVAILABLE;
        snprintf(line->text, sizeof line->text, "no reading of the judge's own counters during your timed calls (%.150s)",
                 c->witness == COUNTERS_NONE ? "the judge said nothing of them" : c->witness_why);
        return true;
    }
    double worst = -1;
    for (int w = 0; w < c->nwitnessed; w++) {
        const WitnessedSize *ws = &c->witnessed[w];
        int s = 0;
        while (s < c->nsizes && strcmp(c->sizes[s].size, ws->size)) s++;
        for (int k = 0; names[k]; k++) {
            int i = 0;
            while (i < ws->n && strcmp(ws->names[i], names[k])) i++;
            double counted[MAX_COUNTED_CALLS];
            int n = 0;
            for (int call = 0; s < c->nsizes && call < c->ncalls; call++)
                if (c->calls[call].size == s && evidence_call_value(c, call, names[k], &counted[n])) n++;
            if (i == ws->n || n == 0 || !isfinite(ws->values[i]) || ws->values[i] < 0) {
                snprintf(line->text, sizeof line->text, "no %s both witnessed and counted at size %.60s", names[k],
                         ws->size);
                snprintf(line->size, sizeof line->size, "%s", ws->size);
                return true;
            }
            double timed = ws->values[i], med = median_of(counted, n);
            bool tensor = strcmp(names[k], WITNESS_L2_SECTORS) != 0;
            double slack = tensor ? TENSOR_IDLE * c->sizes[s].flops : 0;
            double apart = fabs(timed - med), allowed = WITNESS_SPREAD * fmax(timed, med) + slack;
            double score = allowed > 0 ? apart / allowed : (apart > 0 ? INFINITY : 0);
            if (score <= worst) continue;
            worst = score;
            line->ok = score <= 1;
            line->measured = med > 0 ? timed / med : 0;
            line->bound = 1 + WITNESS_SPREAD;
            snprintf(line->size, sizeof line->size, "%s", ws->size);
            snprintf(line->text, sizeof line->text,
                     "%s: %.4g per timed call (the judge's own reading) against %.4g in the counted calls",
                     tensor ? "tensor-pipe cycles" : "L2 sectors asked by the SMs", timed, med);
        }
    }
    if (worst < 0) snprintf(line->text, sizeof line->text, "no timed size was witnessed");
    return true;
}

/* A counted call's own time (the runner's events around it) against the
 * median of the timed calls of its size. The profiler makes a counted call
 * slower: ex43's reference took 0.310 ms counted against 0.224 ms timed at
 * 5000 x 3000 x 4096 on the H100 (every other reference stayed within a
 * factor 1.33); and a timed median may be the judge's clock, up to its
 * overhead bound (0.15 ms at most) above the events. So a counted call may
 * take up to COUNTED_CLOCK_FACTOR times the timed median plus
 * COUNTED_CLOCK_SLOW_MS, and at least the median over the factor less
 * COUNTED_CLOCK_FAST_MS. A path taken only while counted (TF32 for FP16, a
 * burst of decoy work, the technique itself where the timed calls do
 * without) shows as another time where the calls are long enough. */
static const double COUNTED_CLOCK_FACTOR = 1.5;
static const double COUNTED_CLOCK_SLOW_MS = 0.5;
static const double COUNTED_CLOCK_FAST_MS = 0.15;

bool evidence_counted_time_ok(double counted_ms, double timed_ms, double *lo, double *hi) {
    *lo = timed_ms / COUNTED_CLOCK_FACTOR - COUNTED_CLOCK_FAST_MS;
    *hi = timed_ms * COUNTED_CLOCK_FACTOR + COUNTED_CLOCK_SLOW_MS;
    return counted_ms >= *lo && counted_ms <= *hi;
}
