#define _GNU_SOURCE
#include "course.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "yamlguard.h"

/* One YAML file being read: its document and where problems go. */
typedef struct {
    const char *file;      /* as shown in messages */
    yaml_document_t doc;
    StrList *problems;
    const char *breadcrumb; /* "in exercise 'ex03'" or NULL */
    int shown;             /* problems said of this file, up to MAX_FILE_PROBLEMS */
    size_t more;           /* and those past it, counted for yaml_close to say */
    yaml_mark_t more_at;   /* the first of them */
} Yaml;

/* "file:line:col: msg (breadcrumb)", malloc'd; libyaml's marks are 0-based. */
static char *located(const Yaml *y, const yaml_node_t *n, const char *msg) {
    size_t line = n ? n->start_mark.line + 1 : 1, col = n ? n->start_mark.column + 1 : 1;
    if (y->breadcrumb) return xprintf("%s:%zu:%zu: %s (%s)", y->file, line, col, msg, y->breadcrumb);
    return xprintf("%s:%zu:%zu: %s", y->file, line, col, msg);
}

static void problem_at(Yaml *y, const yaml_node_t *n, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void problem_at(Yaml *y, const yaml_node_t *n, const char *fmt, ...) {
    if (y->shown == MAX_FILE_PROBLEMS) {
        if (y->more++ == 0 && n) y->more_at = n->start_mark;
        return;
    }
    y->shown++;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *line = located(y, n, msg);
    strlist_add(y->problems, line);
    free(line);
}

/* Parses a whole file into y->doc; syntax errors become problems. The guard
 * first: a tree is built only of a document within its limits. */
static bool yaml_open(Yaml *y, const char *path, const char *shown, StrList *problems) {
    memset(y, 0, sizeof *y);
    y->file = shown;
    y->problems = problems;
    size_t len;
    char *text = read_file_max(path, YAML_GUARD_MAX_BYTES, &len);
    char err[512];
    if (!text || yaml_guard_check(text, len, shown, err, sizeof err) < 0) {
        char *large = !text && errno == EFBIG ? too_large_reason(len, YAML_GUARD_MAX_BYTES) : NULL;
        if (large) snprintf(err, sizeof err, "%s:1:1: %s", shown, large); /* as the guard says it */
        else if (!text) snprintf(err, sizeof err, "%s: %s", shown, last_error());
        free(large);
        strlist_add(problems, err);
        free(text);
        return false;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    bool ok = yaml_parser_load(&parser, &y->doc);
    if (!ok) {
        size_t line, col;
        yaml_guard_error_pos(&parser, text, len, &line, &col);
        char *msg;
        if (parser.context)
            msg = xprintf("%s:%zu:%zu: %s %s", shown, line, col, parser.problem, parser.context);
        else
            msg = xprintf("%s:%zu:%zu: %s", shown, line, col, parser.problem ? parser.problem : "cannot parse");
        strlist_add(problems, msg);
        free(msg);
    }
    yaml_parser_delete(&parser);
    free(text);
    if (ok && !yaml_document_get_root_node(&y->doc)) {
        char *msg = xprintf("%s:1:1: the file is empty", shown);
        strlist_add(problems, msg);
        free(msg);
        yaml_document_delete(&y->doc);
        return false;
    }
    return ok;
}

/* Frees the document, and says how many problems were past the limit. */
static void yaml_close(Yaml *y) {
    if (y->more) {
        char *line = xprintf("%s:%zu:%zu: ... and %zu more problem%s in this file", y->file, y->more_at.line + 1,
                             y->more_at.column + 1, y->more, y->more == 1 ? "" : "s");
        strlist_add(y->problems, line);
        free(line);
    }
    yaml_document_delete(&y->doc);
}

static long exercise_number(const char *key);

static yaml_node_t *node_at(Yaml *y, int index) { return yaml_document_get_node(&y->doc, index); }

static const char *scalar(const yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *map_get(Yaml *y, yaml_node_t *map, const char *key) {
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(node_at(y, p->key));
        if (k && !strcmp(k, key)) return node_at(y, p->value);
    }
    return NULL;
}

/* Rejects keys not in `allowed` (typos would otherwise be silently ignored)
 * and keys given twice. */
static bool check_keys(Yaml *y, yaml_node_t *map, const char *const *allowed, const char *what) {
    if (!map || map->type != YAML_MAPPING_NODE) {
        problem_at(y, map, "%s must be a mapping of keys to values", what);
        return false;
    }
    bool ok = true;
    bool seen[32] = {false}; /* by index in allowed: linear in the keys, however many */
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = node_at(y, p->key);
        const char *k = scalar(kn);
        if (!k) {
            problem_at(y, kn, "%s has a key that is not a plain name", what);
            ok = false;
            continue;
        }
        const char *const *a = allowed;
        while (*a && strcmp(*a, k)) a++;
        if (!*a) {
            StrBuf list = {0};
            for (a = allowed; *a; a++) sb_printf(&list, "%s%s", a == allowed ? "" : ", ", *a);
            problem_at(y, kn, "unknown key '%s' in %s (known: %s)", k, what, list.buf);
            sb_free(&list);
            ok = false;
        } else if (seen[a - allowed]) {
            problem_at(y, kn, "key '%s' given twice in %s", k, what);
            ok = false;
        }
        if (*a) seen[a - allowed] = true;
    }
    return ok;
}

static char *get_string(Yaml *y, yaml_node_t *map, const char *key, bool required) {
    yaml_node_t *n = map_get(y, map, key);
    if (!n) {
        if (required) problem_at(y, map, "missing key '%s'", key);
        return NULL;
    }
    const char *s = scalar(n);
    if (!s || (!*s && required)) {
        problem_at(y, n, "'%s' must be a non-empty string", key);
        return NULL;
    }
    return xstrdup(s);
}

/* An optional one-line text of 1 to `max` characters (NULL when absent or
 * not valid): it is said inside a sentence. The final newline of a block
 * scalar (`>`, `|`) is no second line. */
static char *get_short_text(Yaml *y, yaml_node_t *map, const char *key, int max) {
    char *s = get_string(y, map, key, false);
    size_t len = s ? strlen(s) : 0;
    while (len && s[len - 1] == '\n') s[--len] = '\0';
    if (s && (!len || len > (size_t)max)) {
        problem_at(y, map_get(y, map, key), "'%s' must be 1 to %d characters, not %zu", key, max, len);
    } else if (s && strpbrk(s, "\r\n")) {
        problem_at(y, map_get(y, map, key), "'%s' must be one line", key);
    } else {
        return s;
    }
    free(s);
    return NULL;
}

/* A number in [lo, hi]; `fallback` when absent and not required. */
static double get_number(Yaml *y, yaml_node_t *map, const char *key, bool required, double fallback,
                         double lo, double hi) {
    yaml_node_t *n = map_get(y, map, key);
    if (!n) {
        if (required) problem_at(y, map, "missing key '%s'", key);
        return fallback;
    }
    const char *s = scalar(n);
    char *end = NULL;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end) {
        problem_at(y, n, "'%s' must be a number, not '%s'", key, s ? s : "a list or mapping");
        return fallback;
    }
    if (!isfinite(v)) { /* NaN would pass the range check below: every comparison with it is false */
        problem_at(y, n, "'%s' must be a finite number, not '%s'", key, s);
        return fallback;
    }
    if (v < lo || v > hi) {
        problem_at(y, n, "'%s' is %g, out of range [%g, %g]", key, v, lo, hi);
        return fallback;
    }
    return v;
}

static bool get_bool(Yaml *y, yaml_node_t *map, const char *key, bool fallback) {
    yaml_node_t *n = map_get(y, map, key);
    if (!n) return fallback;
    const char *s = scalar(n);
    if (s && !strcmp(s, "true")) return true;
    if (s && !strcmp(s, "false")) return false;
    problem_at(y, n, "'%s' must be true or false, not '%s'", key, s ? s : "a list or mapping");
    return fallback;
}

static void get_string_list(Yaml *y, yaml_node_t *map, const char *key, bool required, StrList *out) {
    yaml_node_t *n = map_get(y, map, key);
    if (!n) {
        if (required) problem_at(y, map, "missing key '%s'", key);
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        problem_at(y, n, "'%s' must be a list", key);
        return;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(y, *it);
        const char *s = scalar(item);
        if (!s || !*s)
            problem_at(y, item, "each entry of '%s' must be a non-empty string", key);
        else
            strlist_add(out, s);
    }
    if (required && out->count == 0) problem_at(y, n, "'%s' must not be empty", key);
}

/* [1000] or [16384, 16383] */
static bool parse_size(Yaml *y, yaml_node_t *n, SizeSpec *out) {
    memset(out, 0, sizeof *out);
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        problem_at(y, n, "a size must be a list of 1 to %d positive integers, like [1000] or [512, 1000]",
                   MAX_SIZE_ARGS);
        return false;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(y, *it);
        const char *s = scalar(item);
        char *end = NULL;
        errno = 0;
        long long v = s ? strtoll(s, &end, 10) : 0;
        if (!s || end == s || *end || errno || v < 1) {
            problem_at(y, item, "size '%s' must be a positive integer", s ? s : "?");
            return false;
        }
        if (out->count == MAX_SIZE_ARGS) {
            problem_at(y, n, "a size has at most %d numbers", MAX_SIZE_ARGS);
            return false;
        }
        out->d[out->count++] = v;
    }
    if (out->count == 0) {
        problem_at(y, n, "a size must not be empty");
        return false;
    }
    return true;
}

static void parse_sizes(Yaml *y, yaml_node_t *map, Exercise *e) {
    static const char *const keys[] = {"check", "timing", NULL};
    yaml_node_t *sizes = map_get(y, map, "sizes");
    if (!sizes) {
        problem_at(y, map, "missing key 'sizes'");
        return;
    }
    if (!check_keys(y, sizes, keys, "sizes")) return;
    yaml_node_t *check = map_get(y, sizes, "check");
    if (!check || check->type != YAML_SEQUENCE_NODE || check->data.sequence.items.top == check->data.sequence.items.start) {
        problem_at(y, check ? check : sizes, "'check' must be a non-empty list of sizes, like [[1], [1000]]");
        return;
    }
    int count = (int)(check->data.sequence.items.top - check->data.sequence.items.start);
    e->check_sizes = xcalloc((size_t)count, sizeof *e->check_sizes);
    for (int k = 0; k < count; k++) {
        yaml_node_t *sn = node_at(y, check->data.sequence.items.start[k]);
        if (!parse_size(y, sn, &e->check_sizes[e->ncheck_sizes])) continue;
        if (e->ncheck_sizes && e->check_sizes[e->ncheck_sizes].count != e->check_sizes[0].count)
            problem_at(y, sn, "every size of an exercise has the same number of arguments (%d here, %d before)",
                       e->check_sizes[e->ncheck_sizes].count, e->check_sizes[0].count);
        e->ncheck_sizes++;
    }
    yaml_node_t *timing = map_get(y, sizes, "timing");
    if (!timing) {
        problem_at(y, sizes, "missing key 'timing'");
        return;
    }
    /* One size, [4096], or a list of them, [[4096, 4096, 4096], [8192, 8192, 8192]]. */
    bool seq = timing->type == YAML_SEQUENCE_NODE;
    yaml_node_item_t *items = seq ? timing->data.sequence.items.start : NULL;
    int len = seq ? (int)(timing->data.sequence.items.top - items) : 0;
    bool list = len > 0 && node_at(y, items[0])->type == YAML_SEQUENCE_NODE;
    int n = list ? len : 1;
    if (n > MAX_TIMING_SIZES) {
        problem_at(y, timing, "'timing' has at most %d sizes", MAX_TIMING_SIZES);
        return;
    }
    e->timing_sizes = xcalloc((size_t)n, sizeof *e->timing_sizes);
    for (int k = 0; k < n; k++) {
        yaml_node_t *tn = list ? node_at(y, items[k]) : timing;
        SizeSpec *t = &e->timing_sizes[e->ntiming_sizes];
        if (!parse_size(y, tn, t)) continue;
        if (e->ncheck_sizes && t->count != e->check_sizes[0].count)
            problem_at(y, tn, "the timing size has %d arguments, the check sizes %d", t->count, e->check_sizes[0].count);
        e->ntiming_sizes++;
    }
}

const char *const course_libraries[] = {"cublas", "cudnn", "cub", "thrust", "cutlass", NULL};

/* forbidden_libraries: absent means all of them; [] none. */
static void parse_libraries(Yaml *y, yaml_node_t *map, StrList *out) {
    yaml_node_t *n = map_get(y, map, "forbidden_libraries");
    if (!n) {
        for (const char *const *l = course_libraries; *l; l++) strlist_add(out, *l);
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        problem_at(y, n, "'forbidden_libraries' must be a list");
        return;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(y, *it);
        const char *s = scalar(item);
        bool known = false;
        for (const char *const *l = course_libraries; s && *l; l++) known |= !strcmp(*l, s);
        if (known) {
            strlist_add(out, s);
            continue;
        }
        StrBuf list = {0};
        for (const char *const *l = course_libraries; *l; l++)
            sb_printf(&list, "%s%s", l == course_libraries ? "" : ", ", *l);
        if (s)
            problem_at(y, item, "unknown library '%s' (known: %s)", s, list.buf);
        else
            problem_at(y, item, "each entry of 'forbidden_libraries' is a library name (%s)", list.buf);
        sb_free(&list);
    }
}

bool course_plain_name(const char *s, const char *extra) {
    if (!*s) return false;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr(extra, *s)) return false;
    return true;
}

/* The library a kind times against (the name in its KIND_LIBRARY("NAME",
 * fn)), malloc'd; NULL when it times none. */
static char *kind_library(const char *kind_file) {
    char *src = read_file(kind_file, NULL);
    const char *at = src ? strstr(src, "KIND_LIBRARY(\"") : NULL;
    char *name = at ? xstrndup(at + 14, strcspn(at + 14, "\"\n")) : NULL;
    free(src);
    return name;
}

static bool is_name(const char *s) { return course_plain_name(s, "_"); }

/* Whether path, a file that exists, is inside the course directory once
 * links are followed: a course names its files relative to itself, and no
 * link in it may take the app (or the compiler) to a file elsewhere. */
static bool inside_course(const Course *c, const char *path) {
    if (!c->real_root) return true; /* no course.yaml to read: said there */
    char *real = realpath(path, NULL);
    size_t n = strlen(c->real_root);
    bool inside = real && !strncmp(real, c->real_root, n) && (real[n] == '/' || n == 1);
    free(real);
    return inside;
}

/* Whether rel, relative to a directory `depth` levels below the course's,
 * stays inside the course as written ("../shared/intro.md" from a chapter
 * does; an absolute path does not). Links are inside_course's. */
static bool stays_inside(const char *rel, int depth) {
    if (rel[0] == '/') return false;
    for (const char *p = rel; *p; p += *p == '/') {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2)) {
            if (--depth < 0) return false;
        } else if (n && !(n == 1 && *p == '.')) {
            depth++;
        }
        p += n;
    }
    return true;
}

/* Whether w is one of the space-separated words. */
static bool has_word(const char *words, const char *w) {
    size_t n = strlen(w);
    for (const char *p = words; n && (p = strstr(p, w)); p += n)
        if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return true;
    return false;
}

/* An instruction pattern (grader/sass.h): an opcode and modifiers,
 * "HGMMA.TF32", "LDG.E.128": letters, digits and _ between the dots, the
 * opcode in capitals. */
static bool is_sass_pattern(const char *p) {
    if (!(*p >= 'A' && *p <= 'Z')) return false;
    bool opcode = true;
    for (const char *c = p; *c; c++) {
        if (*c == '.') {
            if (!c[1] || c[1] == '.') return false; /* no empty part */
            opcode = false;
        } else if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                     (!opcode && *c >= 'a' && *c <= 'z')))
            return false;
    }
    return true;
}

static void check_sass_patterns(Yaml *y, yaml_node_t *n, const char *key, const StrList *list) {
    for (int i = 0; i < list->count; i++)
        if (!is_sass_pattern(list->items[i]))
            problem_at(y, map_get(y, n, key),
                       "'%s' entry '%s' is not an instruction pattern: an opcode in capitals and modifiers joined by "
                       "dots, e.g. HGMMA.TF32 or LDG.E.128",
                       key, list->items[i]);
}

/* required_sass_around: {inside: [...], each_side: [...], why: "..."}, an
 * order rule on the machine code (grader/sass.h, sass_around). */
static void parse_sass_around(Yaml *y, yaml_node_t *n, Exercise *e) {
    static const char *const around_keys[] = {"inside", "each_side", "why", NULL};
    yaml_node_t *map = map_get(y, n, "required_sass_around");
    if (!map || !check_keys(y, map, around_keys, "required_sass_around")) return;
    get_string_list(y, map, "inside", true, &e->around_inside);
    get_string_list(y, map, "each_side", true, &e->around_side);
    check_sass_patterns(y, map, "inside", &e->around_inside);
    check_sass_patterns(y, map, "each_side", &e->around_side);
    e->around_why = get_short_text(y, map, "why", MAX_TIMEOUT_HINT);
    if (!e->around_why && !map_get(y, map, "why")) problem_at(y, map, "missing key 'why'");
}

const EvidenceKey course_evidence_keys[] = {
    {"tma_load_share", NULL, 0.01, 1},
    {"tma_store_share", NULL, 0.01, 1},
    {"tma_multicast_share", NULL, 0.01, 1},
    {"mma_type", "bf16 f16 tf32", 0, 0},
    {"gmma_type", "bf16 f16 tf32 e4m3", 0, 0},
    {"ldsm_share", NULL, 0.01, 1},
    {"ldgsts_share", NULL, 0.01, 1},
    {"bank_conflicts_max", NULL, 0, 1},
    {"load_sectors_min", NULL, 1, 32},
    {"store_sectors_min", NULL, 1, 32},
    {"tensor_cores", "none", 0, 0},
    {"partial_sums_min", NULL, 0.01, 4},
    {NULL, NULL, 0, 0},
};

/* evidence: a map of course_evidence_keys to their bounds or words. */
static void parse_evidence(Yaml *y, yaml_node_t *n, Exercise *e) {
    yaml_node_t *map = map_get(y, n, "evidence");
    if (!map) return;
    StrBuf known = {0};
    for (const EvidenceKey *k = course_evidence_keys; k->key; k++)
        sb_printf(&known, "%s%s", k == course_evidence_keys ? "" : ", ", k->key);
    if (map->type != YAML_MAPPING_NODE) {
        problem_at(y, map, "'evidence' must be a map of requirements (%s)", known.buf);
        free(known.buf);
        return;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = node_at(y, p->key), *vn = node_at(y, p->value);
        const char *name = scalar(kn), *value = scalar(vn);
        const EvidenceKey *k = course_evidence_keys;
        while (k->key && !(name && !strcmp(k->key, name))) k++;
        if (!k->key) {
            problem_at(y, kn, "unknown evidence key '%s' (known: %s)", name ? name : "?", known.buf);
            continue;
        }
        bool repeated = false;
        for (int i = 0; i < e->nevidence; i++) repeated |= e->evidence[i].key == k;
        if (repeated) {
            problem_at(y, kn, "evidence key '%s' is given twice", k->key);
            continue;
        }
        Requirement r = {k, 0, NULL};
        if (k->words) {
            if (!value || !has_word(k->words, value)) {
                problem_at(y, vn, "evidence '%s' must be one of: %s", k->key, k->words);
                continue;
            }
            r.word = xstrdup(value);
        } else {
            char *end = NULL;
            r.number = value ? strtod(value, &end) : 0;
            if (!value || end == value || *end || !(r.number >= k->lo && r.number <= k->hi)) {
                problem_at(y, vn, "evidence '%s' must be a number from %g to %g", k->key, k->lo, k->hi);
                continue;
            }
        }
        if (e->nevidence < MAX_EVIDENCE) e->evidence[e->nevidence++] = r;
        else free(r.word);
    }
    free(known.buf);
}

const char *const course_findings[] = {"out_of_bounds", "misaligned", "race", "barrier", "uninitialized",
                                       "launch_error", "tile_pattern", "tail", NULL};
const char *const course_measures[] = {"sectors_per_request", "store_sectors_per_request", "bank_conflicts",
                                       "occupancy", "dram_bytes", "local_bytes", "issue_active", "tensor_active",
                                       "tma_load_share", "registers", "spill_bytes", "shared_bytes", "wgmma_serialized", NULL};

static const char *in_list(const char *const *list, const char *s) {
    for (; s && *list; list++)
        if (!strcmp(*list, s)) return *list;
    return NULL;
}

static bool has_string(const StrList *l, const char *s) {
    for (int i = 0; i < l->count; i++)
        if (!strcmp(l->items[i], s)) return true;
    return false;
}

static char *joined(const char *const *list) {
    StrBuf sb = {0};
    for (const char *const *p = list; *p; p++) sb_printf(&sb, "%s%s", p == list ? "" : ", ", *p);
    return sb.buf;
}

/* The headings of a lesson ("## Coalescing" -> "Coalescing"); empty when it
 * cannot be read (that is reported where the lesson is named). */
static void lesson_sections(const char *path, StrList *out) {
    char *text = path ? read_file(path, NULL) : NULL;
    for (char *line = text; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (line[0] == '#') {
            char *h = line + strspn(line, "#");
            h += strspn(h, " ");
            size_t n = strlen(h);
            while (n && (h[n - 1] == ' ' || h[n - 1] == '\r')) h[--n] = '\0';
            if (*h) strlist_add(out, h);
        }
        line = end ? end + 1 : NULL;
    }
    free(text);
}

/* diagnose: a list of entries, each a finding or a measure with one
 * comparison, a message and a section of the lesson (lesson_dir's). */
static void parse_diagnose(Yaml *y, yaml_node_t *n, const StrList *sections, const char *lesson, int chapter,
                           DiagnoseRule *out, int *count) {
    static const char *const keys[] = {"finding", "measure", "above_reference", "below_reference", "above", "below",
                                       "message", "section", NULL};
    static const char *const compares[] = {"above_reference", "below_reference", "above", "below"};
    yaml_node_t *list = map_get(y, n, "diagnose");
    if (!list) return;
    if (list->type != YAML_SEQUENCE_NODE) {
        problem_at(y, list, "'diagnose' must be a list of entries, each with 'finding' or 'measure'");
        return;
    }
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
        yaml_node_t *en = node_at(y, *it);
        if (!check_keys(y, en, keys, "a diagnose entry")) continue;
        DiagnoseRule r = {0};
        r.chapter = chapter;
        char *finding = get_string(y, en, "finding", false), *measure = get_string(y, en, "measure", false);
        char *known = NULL;
        if (!finding == !measure) {
            problem_at(y, en, "a diagnose entry names either a 'finding' or a 'measure'");
        } else if (finding && !(r.finding = in_list(course_findings, finding))) {
            problem_at(y, map_get(y, en, "finding"), "unknown finding '%s' (known: %s)", finding,
                       known = joined(course_findings));
        } else if (measure && !(r.measure = in_list(course_measures, measure))) {
            problem_at(y, map_get(y, en, "measure"), "unknown measure '%s' (known: %s)", measure,
                       known = joined(course_measures));
        }
        free(finding);
        free(measure);
        free(known);
        int ncompare = 0;
        for (int k = 0; k < 4; k++) {
            if (!map_get(y, en, compares[k])) continue;
            ncompare++;
            r.compare = (DiagnoseCompare)k;
            r.value = get_number(y, en, compares[k], true, 0, 0, 1e12);
        }
        if (r.measure && ncompare != 1)
            problem_at(y, en, "measure '%s' needs one of above_reference, below_reference, above, below", r.measure);
        if (r.finding && ncompare)
            problem_at(y, en, "finding '%s' takes no comparison (it fires when the sanitizer reports one)", r.finding);
        r.message = get_short_text(y, en, "message", MAX_DIAGNOSE_MESSAGE);
        if (!map_get(y, en, "message")) problem_at(y, en, "missing key 'message'");
        r.section = get_string(y, en, "section", true);
        if (r.section && !has_string(sections, r.section))
            problem_at(y, map_get(y, en, "section"), "section '%s' is not a heading of %s", r.section,
                       lesson ? lesson : "the chapter's lesson");
        if ((!r.finding && !r.measure) || !r.message || !r.section || *count >= MAX_DIAGNOSE) {
            if (*count >= MAX_DIAGNOSE) problem_at(y, en, "more than %d diagnose entries for one exercise", MAX_DIAGNOSE);
            free(r.message);
            free(r.section);
            continue;
        }
        out[(*count)++] = r;
    }
}

/* ladder: ids of earlier exercises, each once. Ids follow course order
 * (checked where they are), so an earlier id is that of a number below e's.
 * Each entry is looked at once: a repeated one is one problem with its
 * count, found through a hash table of the entries, so that n copies are
 * neither n(n-1)/2 problems nor as many comparisons. check_order: false when
 * the exercises' numbers are not known (an earlier chapter failed). */
static void parse_ladder(Yaml *y, yaml_node_t *n, Exercise *e, bool check_order) {
    get_string_list(y, n, "ladder", false, &e->ladder);
    yaml_node_t *list = map_get(y, n, "ladder");
    char **items = e->ladder.items;
    int count = e->ladder.count;
    size_t size = 2 * (size_t)count + 1;
    int *first = xmalloc(size * sizeof *first); /* a slot per distinct entry: its first index, or -1 */
    int *copies = xcalloc((size_t)count, sizeof *copies); /* by an entry's first index; 0 for a repeat */
    for (size_t h = 0; h < size; h++) first[h] = -1;
    for (int i = 0; i < count; i++) {
        size_t h = hash_str(HASH_INIT, items[i]) % size;
        while (first[h] >= 0 && strcmp(items[first[h]], items[i])) h = (h + 1) % size;
        if (first[h] < 0) first[h] = i;
        copies[first[h]]++;
    }
    for (int i = 0; i < count; i++) {
        if (!copies[i]) continue; /* a repeat, said with its first */
        char expected[32];
        long number = exercise_number(items[i]);
        snprintf(expected, sizeof expected, "ex%02ld", number);
        bool earlier = number >= 1 && number <= e->index && !strcmp(items[i], expected);
        if (check_order && !earlier)
            problem_at(y, list, "ladder entry '%s' is not an earlier exercise's id (ex01 to ex%02d)", items[i],
                       e->index);
        if (copies[i] == 2) problem_at(y, list, "ladder entry '%s' is given twice", items[i]);
        if (copies[i] > 2) problem_at(y, list, "ladder entry '%s' is given %d times", items[i], copies[i]);
    }
    free(first);
    free(copies);
}

/* Whether text has a line that starts "TODO:", as the summary, the task and
 * the hint that gpucourse new writes have until the instructor writes them.
 * A task may speak of the stub's TODOs ("the TODO 1 in the kernel"). */
static bool has_placeholder(const char *text) {
    for (const char *line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (!strncmp(line + strspn(line, " \t"), "TODO:", 5)) return true;
    return false;
}

/* Adds name to what when the text of v is a placeholder; *at: the first. */
static void note_placeholder(const yaml_node_t *v, const char *name, StrList *what, const yaml_node_t **at) {
    if (!scalar(v) || !has_placeholder(scalar(v))) return;
    strlist_add(what, name);
    if (!*at) *at = v;
}

/* e->placeholders: one problem naming what of e is still a placeholder, at
 * the first of them. */
static void find_placeholders(Yaml *y, yaml_node_t *n, Exercise *e) {
    StrList what = {0};
    const yaml_node_t *at = NULL;
    note_placeholder(map_get(y, n, "summary"), "the summary", &what, &at);
    note_placeholder(map_get(y, n, "task"), "the task", &what, &at);
    yaml_node_t *hints = map_get(y, n, "hints");
    if (hints && hints->type == YAML_SEQUENCE_NODE)
        for (yaml_node_item_t *it = hints->data.sequence.items.start; it < hints->data.sequence.items.top; it++) {
            char name[32];
            snprintf(name, sizeof name, "hint %d", (int)(it - hints->data.sequence.items.start) + 1);
            note_placeholder(node_at(y, *it), name, &what, &at);
        }
    if (!what.count) return;
    StrBuf msg = {0};
    for (int k = 0; k < what.count; k++)
        sb_printf(&msg, "%s%s", k == 0 ? "" : k + 1 < what.count ? ", " : " and ", what.items[k]);
    bool one = what.count == 1;
    sb_printf(&msg, " %s still gpucourse new's placeholder%s (a line that starts TODO:): write %s", one ? "is" : "are",
              one ? "" : "s", one ? "it" : "them");
    e->placeholders = located(y, at, msg.buf);
    sb_free(&msg);
    strlist_free(&what);
}

/* The first line of the file at path that holds one of markers (NULL
 * ended), as "REL:LINE:COL: WHAT" appended to problems. A file that cannot
 * be read was said by loading. */
static void find_scaffold_lines(const char *path, const char *rel, const char *const *markers, const char *what,
                                StrList *problems) {
    char *text = read_file_max(path, 4 << 20, NULL);
    int line = 1;
    for (const char *p = text; p && *p; line++) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p), *at = NULL;
        for (const char *const *m = markers; *m && !at; m++) {
            const char *hit = memmem(p, (size_t)(end - p), *m, strlen(*m));
            if (hit) at = hit;
        }
        if (at) {
            const char *todo = memmem(p, (size_t)(end - p), "TODO", 4);
            strlist_add(problems, xprintf("%s:%d:%d: %s", rel, line, (int)((todo ? todo : at) - p) + 1, what));
            break;
        }
        p = nl ? nl + 1 : end;
    }
    free(text);
}

/* e->summary_long: the summary (or the title, which a list shows where
 * there is none) is longer than a list's line leaves it. */
static void check_summary_length(Yaml *y, yaml_node_t *n, Exercise *e) {
    const yaml_node_t *at = map_get(y, n, "summary");
    const char *what = at ? "the summary" : "the title (a list's summary when there is none)";
    if (!at) at = map_get(y, n, "title");
    int chars = 0;
    for (const char *s = e->summary; *s; s++) chars += ((unsigned char)*s & 0xc0) != 0x80;
    if (chars <= MAX_SUMMARY) return;
    char *msg = xprintf("%s is %d characters; a list shows %d (one line at 80 columns): shorten it%s", what, chars,
                        MAX_SUMMARY, at == map_get(y, n, "title") ? ", or add a summary" : "");
    e->summary_long = located(y, at, msg);
    free(msg);
}

void course_check_content(const Course *c, StrList *problems) {
    static const char *const lesson[] = {SCAFFOLD_LESSON_TODO, NULL};
    static const char *const stub[] = {SCAFFOLD_STUB_IDEA_TODO, SCAFFOLD_STUB_FILL_TODO, NULL};
    static const char *const reference[] = {SCAFFOLD_REFERENCE_TODO, SCAFFOLD_REFERENCE_KERNEL_TODO, NULL};
    size_t skip = strlen(c->root) + 1; /* paths said relative to the course, as the YAML's are */
    for (int k = 0; k < c->nchapters; k++) {
        const char *path = c->chapters[k].lesson_path;
        find_scaffold_lines(path, strlen(path) > skip ? path + skip : path, lesson,
                            "the lesson is still gpucourse new's placeholder: write it (students read it in the app)",
                            problems);
    }
    for (int i = 0; i < c->nexercises; i++) {
        const Exercise *e = &c->exercises[i];
        if (e->placeholders) strlist_add(problems, e->placeholders);
        if (e->summary_long) strlist_add(problems, e->summary_long);
        char *path = course_stub_path(c, e), *rel = xprintf("exercises/%s", e->file);
        find_scaffold_lines(path, rel, stub,
                            "the stub's header is still gpucourse new's placeholder: say what the exercise teaches and "
                            "what to fill in (the TODOs in the kernel are the student's)",
                            problems);
        free(path), free(rel);
        path = course_solution_path(c, e), rel = xprintf("solutions/%s", e->file);
        find_scaffold_lines(path, rel, reference,
                            "the reference still has gpucourse new's placeholder: write the reference and what it does",
                            problems);
        free(path), free(rel);
    }
}

/* check_order: false when an earlier chapter could not be read, so that this
 * exercise's place in the course is unknown. */
static void parse_exercise(Course *c, Yaml *y, yaml_node_t *n, Exercise *e, bool check_order, const StrList *sections,
                           const char *lesson) {
    static const char *const keys[] = {"id", "name", "title", "kind", "file", "summary", "task", "sizes",
                                       "tolerance", "floors", "floors_why", "timeout", "timeout_hint", "hints",
                                       "required_sass", "forbidden_sass", "required_sass_around", "evidence",
                                       "forbidden_symbols", "forbidden_libraries", "ladder", "diagnose", "lesson_section",
                                       NULL};
    static const char *const tol_keys[] = {"rel", "abs", "deterministic", NULL};
    static const char *const floor_keys[] = {"reference", "baseline", "library", NULL};
    e->where = xprintf("%s:%zu:%zu", y->file, n->start_mark.line + 1, n->start_mark.column + 1);
    char expected[16];
    snprintf(expected, sizeof expected, "ex%02d", e->index + 1);
    char crumb[64];
    snprintf(crumb, sizeof crumb, "in exercise %d of the course", e->index + 1);
    y->breadcrumb = crumb;
    const char *id = scalar(map_get(y, n, "id"));
    if (id && *id) snprintf(crumb, sizeof crumb, "in exercise '%s'", id);
    if (!check_keys(y, n, keys, "an exercise")) {
        if (n->type != YAML_MAPPING_NODE) return;
    }
    e->id = get_string(y, n, "id", true);
    if (e->id && check_order) {
        if (strcmp(e->id, expected))
            problem_at(y, map_get(y, n, "id"), "id '%s' out of course order: this exercise must be '%s'", e->id,
                       expected);
    }
    e->name = get_string(y, n, "name", true);
    if (e->name && !is_name(e->name))
        problem_at(y, map_get(y, n, "name"), "name '%s' must use only a-z, 0-9 and _", e->name);
    e->title = get_string(y, n, "title", true);
    e->kind = get_string(y, n, "kind", true);
    if (e->kind) {
        char *kp = course_kind_path(c, e->kind);
        if (!is_name(e->kind) || !file_exists(kp))
            problem_at(y, map_get(y, n, "kind"), "unknown kind '%s': no harness/kinds/%s.cu", e->kind, e->kind);
        else e->library = kind_library(kp);
        free(kp);
    }
    e->file = get_string(y, n, "file", true);
    if (e->file) {
        size_t len = strlen(e->file);
        if (strchr(e->file, '/') || len < 4 || strcmp(e->file + len - 3, ".cu")) {
            problem_at(y, map_get(y, n, "file"), "file '%s' must be a plain .cu file name", e->file);
        } else {
            char *paths[] = {course_stub_path(c, e), course_solution_path(c, e)};
            static const char *const dirs[] = {"exercises", "solutions"}, *const what[] = {"the stub", "the reference"};
            for (int k = 0; k < 2; k++) {
                if (!file_exists(paths[k]))
                    problem_at(y, map_get(y, n, "file"), "missing file: %s/%s (%s)", dirs[k], e->file, what[k]);
                else if (!inside_course(c, paths[k]))
                    problem_at(y, map_get(y, n, "file"), "%s/%s (%s) leads outside the course directory (through a link)",
                               dirs[k], e->file, what[k]);
                free(paths[k]);
            }
        }
    }
    e->summary = get_string(y, n, "summary", false);
    if (!e->summary) e->summary = xstrdup(e->title ? e->title : "");
    check_summary_length(y, n, e);
    e->task = get_string(y, n, "task", true);
    e->lesson_section = get_string(y, n, "lesson_section", false);
    if (e->lesson_section && !has_string(sections, e->lesson_section))
        problem_at(y, map_get(y, n, "lesson_section"), "lesson_section '%s' is not a heading of %s",
                   e->lesson_section, lesson ? lesson : "the chapter's lesson");
    parse_sizes(y, n, e);

    e->tol_rel = 1e-5;
    e->tol_abs = 1e-6;
    yaml_node_t *tol = map_get(y, n, "tolerance");
    if (tol && check_keys(y, tol, tol_keys, "tolerance")) {
        e->tol_rel = get_number(y, tol, "rel", false, 1e-5, 0, 1);
        e->tol_abs = get_number(y, tol, "abs", false, 1e-6, 0, 1e6);
        e->deterministic = get_bool(y, tol, "deterministic", false);
    }
    yaml_node_t *floors = map_get(y, n, "floors");
    if (!floors)
        problem_at(y, n, "missing key 'floors'");
    else if (check_keys(y, floors, floor_keys, "floors")) {
        e->floor_reference = get_number(y, floors, "reference", true, 0, 0.05, 1.5);
        e->floor_baseline = get_number(y, floors, "baseline", false, 0, 0, 1.5);
        e->floor_library = get_number(y, floors, "library", false, 0, 0, 1.5);
        if (e->floor_library > 0 && e->kind && !e->library)
            problem_at(y, map_get(y, floors, "library"), "a library floor, but kind '%s' times no library", e->kind);
    }
    e->floors_why = get_short_text(y, n, "floors_why", MAX_FLOORS_WHY);
    e->timeout_s = (int)get_number(y, n, "timeout", false, 60, 1, 600);
    e->timeout_hint = get_short_text(y, n, "timeout_hint", MAX_TIMEOUT_HINT);
    get_string_list(y, n, "hints", true, &e->hints);
    find_placeholders(y, n, e);
    get_string_list(y, n, "required_sass", false, &e->required_sass);
    get_string_list(y, n, "forbidden_sass", false, &e->forbidden_sass);
    check_sass_patterns(y, n, "required_sass", &e->required_sass);
    check_sass_patterns(y, n, "forbidden_sass", &e->forbidden_sass);
    parse_sass_around(y, n, e);
    parse_evidence(y, n, e);
    get_string_list(y, n, "forbidden_symbols", false, &e->forbidden_symbols);
    parse_libraries(y, n, &e->forbidden_libraries);
    parse_ladder(y, n, e, check_order);
    parse_diagnose(y, n, sections, lesson, e->chapter, e->diagnose, &e->ndiagnose);
    y->breadcrumb = NULL;
}

/* Returns whether the chapter's list of exercises was read: if not, the
 * course order of the chapters after it is unknown. */
static bool parse_chapter(Course *c, const char *dir, int number, bool check_order, StrList *problems) {
    static const char *const keys[] = {"title", "lesson", "exercises", "diagnose", NULL};
    char *rel = xprintf("course/%s/chapter.yaml", dir);
    StrList sections = {0};
    char *lesson_rel = NULL;
    DiagnoseRule shared[MAX_DIAGNOSE];
    int nshared = 0;
    char *path = path_join(c->root, rel);
    Chapter *ch = &c->chapters[number];
    ch->dir = xstrdup(dir);
    ch->first = c->nexercises;
    bool listed = false;
    Yaml y;
    if (!yaml_open(&y, path, rel, problems)) goto out;
    yaml_node_t *root = yaml_document_get_root_node(&y.doc);
    if (!check_keys(&y, root, keys, "a chapter") && root->type != YAML_MAPPING_NODE) goto close;
    ch->title = get_string(&y, root, "title", true);
    char *lesson = get_string(&y, root, "lesson", true);
    if (lesson) {
        yaml_node_t *ln = map_get(&y, root, "lesson");
        char *lrel = xprintf("course/%s/%s", dir, lesson);
        char *lpath = path_join(c->root, lrel);
        if (lesson[0] == '/')
            problem_at(&y, ln, "lesson '%s' must be a path relative to chapter.yaml, not an absolute one", lesson);
        else if (!stays_inside(lesson, 2)) /* course/DIR/ */
            problem_at(&y, ln, "lesson '%s' leads outside the course directory", lesson);
        else if (!file_exists(lpath))
            problem_at(&y, ln, "missing file: %s", lrel);
        else if (!inside_course(c, lpath))
            problem_at(&y, ln, "lesson '%s' leads outside the course directory (through a link)", lesson);
        else {
            ch->lesson_path = lpath;
            lpath = NULL;
            lesson_sections(ch->lesson_path, &sections);
        }
        free(lpath);
        lesson_rel = lrel;
        free(lesson);
    }
    parse_diagnose(&y, root, &sections, lesson_rel, number, shared, &nshared);
    yaml_node_t *list = map_get(&y, root, "exercises");
    if (!list || list->type != YAML_SEQUENCE_NODE || list->data.sequence.items.top == list->data.sequence.items.start) {
        problem_at(&y, list ? list : root, "'exercises' must be a non-empty list (add one: gpucourse new exercise %s NAME --kind KIND)", dir);
        goto close;
    }
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
        c->exercises = xrealloc(c->exercises, sizeof *c->exercises * (size_t)(c->nexercises + 1));
        Exercise *e = &c->exercises[c->nexercises];
        memset(e, 0, sizeof *e);
        e->index = c->nexercises++;
        e->chapter = number;
        parse_exercise(c, &y, node_at(&y, *it), e, check_order, &sections, lesson_rel);
        for (int k = 0; k < nshared && e->ndiagnose < MAX_DIAGNOSE; k++) { /* the chapter's after its own */
            DiagnoseRule r = shared[k];
            r.message = xstrdup(r.message);
            r.section = xstrdup(r.section);
            e->diagnose[e->ndiagnose++] = r;
        }
        ch->count++;
    }
    listed = true;
close:
    yaml_close(&y);
out:
    for (int k = 0; k < nshared; k++) free(shared[k].message), free(shared[k].section);
    strlist_free(&sections);
    free(lesson_rel);
    free(rel);
    free(path);
    return listed;
}

static const char *unique_field(const Exercise *e, int f) { return f == 0 ? e->id : f == 1 ? e->name : e->file; }

/* Ids, names and files must be unique across the whole course. Each repeat is
 * reported once, against the first, found through a hash table of exercise
 * indices: linear however many exercises a chapter lists. At most
 * MAX_FILE_PROBLEMS of them per chapter file, then how many more. */
static void check_unique(Course *c, StrList *problems) {
    size_t size = 2 * (size_t)c->nexercises + 1;
    int *tables = xmalloc(3 * size * sizeof *tables); /* one per field */
    for (size_t h = 0; h < 3 * size; h++) tables[h] = -1;
    int *shown = xcalloc((size_t)c->nchapters + 1, sizeof *shown);
    size_t *more = xcalloc((size_t)c->nchapters + 1, sizeof *more);
    const char **more_at = xcalloc((size_t)c->nchapters + 1, sizeof *more_at); /* the first past the limit */
    for (int i = 0; i < c->nexercises; i++) {
        Exercise *b = &c->exercises[i];
        for (int f = 0; f < 3; f++) {
            const char *s = unique_field(b, f);
            if (!s) continue;
            int *first = tables + f * size;
            size_t h = hash_str(HASH_INIT, s) % size;
            while (first[h] >= 0 && strcmp(unique_field(&c->exercises[first[h]], f), s)) h = (h + 1) % size;
            if (first[h] < 0) {
                first[h] = i;
                continue;
            }
            if (shown[b->chapter] == MAX_FILE_PROBLEMS) {
                if (more[b->chapter]++ == 0) more_at[b->chapter] = b->where;
                continue;
            }
            shown[b->chapter]++;
            Exercise *a = &c->exercises[first[h]];
            char *m = f == 2 ? xprintf("%s: file '%s' is already used by %s", b->where, s, a->where)
                             : xprintf("%s: duplicate %s '%s' (first at %s)", b->where, f ? "name" : "id", s, a->where);
            strlist_add(problems, m);
            free(m);
        }
    }
    for (int k = 0; k < c->nchapters; k++) {
        if (!more[k]) continue;
        char *m = xprintf("%s: ... and %zu more ids, names or files used twice in this file", more_at[k], more[k]);
        strlist_add(problems, m);
        free(m);
    }
    free(more_at);
    free(more);
    free(shown);
    free(tables);
}

Course *course_load(const char *root, StrList *problems) {
    static const char *const keys[] = {"title", "id", "chapters", NULL};
    int before = problems->count;
    Course *c = xcalloc(1, sizeof *c);
    c->root = xstrdup(root);
    c->real_root = realpath(root, NULL);
    c->harness_dir = course_harness_dir(root);
    char *path = path_join(root, "course/course.yaml");
    Yaml y;
    if (yaml_open(&y, path, "course/course.yaml", problems)) {
        yaml_node_t *top = yaml_document_get_root_node(&y.doc);
        if (check_keys(&y, top, keys, "the course") || top->type == YAML_MAPPING_NODE) {
            c->title = get_string(&y, top, "title", true);
            c->id = get_string(&y, top, "id", false);
            if (c->id && (!course_plain_name(c->id, "-_") || strlen(c->id) > MAX_COURSE_ID)) {
                problem_at(&y, map_get(&y, top, "id"), "'id' is a-z, 0-9, - and _, 1 to %d characters, not '%s'",
                           MAX_COURSE_ID, c->id);
                free(c->id);
                c->id = NULL;
            } else if (!c->id) { /* a course from before ids: its directory's name */
                const char *dir = c->real_root ? c->real_root : root, *slash = strrchr(dir, '/');
                c->id = course_id_from(slash && slash[1] ? slash + 1 : dir);
            }
            yaml_node_t *list = map_get(&y, top, "chapters");
            if (!list || list->type != YAML_SEQUENCE_NODE ||
                list->data.sequence.items.top == list->data.sequence.items.start) {
                problem_at(&y, list ? list : top, "'chapters' must be a non-empty list of chapter directories");
            } else {
                int count = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
                c->chapters = xcalloc((size_t)count, sizeof *c->chapters);
                /* After a chapter entry that fails, the ids of the chapters after it
                 * are not checked for course order: one cause, reported once. */
                bool in_order = true;
                yaml_mark_t *marks = xcalloc((size_t)count, sizeof *marks); /* of c->chapters, for messages */
                for (int k = 0; k < count; k++) {
                    yaml_node_t *cn = node_at(&y, list->data.sequence.items.start[k]);
                    const char *dir = scalar(cn);
                    int first = -1;
                    for (int j = 0; j < c->nchapters && dir && first < 0; j++)
                        if (!strcmp(c->chapters[j].dir, dir)) first = j;
                    char *cy = dir ? xprintf("%s/course/%s/chapter.yaml", root, dir) : NULL;
                    bool read = false;
                    if (!dir || strchr(dir, '/') || !*dir || !strcmp(dir, ".") || !strcmp(dir, ".."))
                        problem_at(&y, cn, "a chapter is named by its directory under course/");
                    else if (first >= 0)
                        problem_at(&y, cn, "chapter '%s' is listed twice (first at %s:%zu:%zu)", dir, y.file,
                                   marks[first].line + 1, marks[first].column + 1);
                    else if (!file_exists(cy))
                        problem_at(&y, cn, "missing file: course/%s/chapter.yaml", dir);
                    else if (!inside_course(c, cy))
                        problem_at(&y, cn, "course/%s/chapter.yaml leads outside the course directory (through a link)",
                                   dir);
                    else {
                        marks[c->nchapters] = cn->start_mark;
                        read = parse_chapter(c, dir, c->nchapters++, in_order, problems);
                    }
                    if (!read) in_order = false;
                    free(cy);
                }
                free(marks);
            }
        }
        yaml_close(&y);
    }
    free(path);
    check_unique(c, problems);
    if (problems->count > before) {
        course_free(c);
        return NULL;
    }
    return c;
}

/* The scalars of a list's entries, or of one key of each entry (a mapping). */
static void outline_list(Yaml *y, yaml_node_t *list, const char *key, StrList *out) {
    if (!list || list->type != YAML_SEQUENCE_NODE) return;
    for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(y, *it);
        const char *s = scalar(key ? map_get(y, item, key) : item);
        strlist_add(out, s ? s : "");
    }
}

int course_outline(const char *root, CourseOutline *o, StrList *problems) {
    memset(o, 0, sizeof *o);
    int before = problems->count;
    char *path = path_join(root, "course/course.yaml");
    Yaml y;
    StrList dirs = {0};
    if (yaml_open(&y, path, "course/course.yaml", problems)) {
        outline_list(&y, map_get(&y, yaml_document_get_root_node(&y.doc), "chapters"), NULL, &dirs);
        yaml_close(&y);
    }
    free(path);
    o->chapters = xcalloc((size_t)dirs.count + 1, sizeof *o->chapters);
    for (int k = 0; k < dirs.count; k++) {
        OutlineChapter *ch = &o->chapters[o->nchapters++];
        ch->dir = xstrdup(dirs.items[k]);
        char *rel = xprintf("course/%s/chapter.yaml", ch->dir);
        char *cpath = path_join(root, rel);
        if (yaml_open(&y, cpath, rel, problems)) {
            yaml_node_t *list = map_get(&y, yaml_document_get_root_node(&y.doc), "exercises");
            outline_list(&y, list, "id", &ch->ids);
            outline_list(&y, list, "name", &ch->names);
            outline_list(&y, list, "file", &ch->files);
            yaml_close(&y);
        }
        free(cpath);
        free(rel);
    }
    strlist_free(&dirs);
    return problems->count > before ? -1 : 0;
}

void course_outline_free(CourseOutline *o) {
    for (int k = 0; k < o->nchapters; k++) {
        free(o->chapters[k].dir);
        strlist_free(&o->chapters[k].ids);
        strlist_free(&o->chapters[k].names);
        strlist_free(&o->chapters[k].files);
    }
    free(o->chapters);
    memset(o, 0, sizeof *o);
}

static void exercise_free(Exercise *e) {
    free(e->id), free(e->name), free(e->title), free(e->kind), free(e->file);
    free(e->summary), free(e->task), free(e->lesson_section), free(e->check_sizes), free(e->timing_sizes), free(e->where);
    free(e->timeout_hint);
    free(e->floors_why);
    free(e->library);
    free(e->placeholders);
    free(e->summary_long);
    strlist_free(&e->hints);
    strlist_free(&e->required_sass);
    strlist_free(&e->forbidden_sass);
    strlist_free(&e->around_inside);
    strlist_free(&e->around_side);
    free(e->around_why);
    for (int i = 0; i < e->nevidence; i++) free(e->evidence[i].word);
    strlist_free(&e->forbidden_symbols);
    strlist_free(&e->ladder);
    strlist_free(&e->forbidden_libraries);
    for (int i = 0; i < e->ndiagnose; i++) free(e->diagnose[i].message), free(e->diagnose[i].section);
}

char *course_id_from(const char *text) {
    char *id = xstrndup(text, MAX_COURSE_ID);
    for (char *p = id; *p; p++) {
        *p = (char)tolower((unsigned char)*p);
        if (!course_plain_name((char[]){*p, 0}, "-_")) *p = '-';
    }
    if (!*id) {
        free(id);
        id = xstrdup("course");
    }
    return id;
}

void course_free(Course *c) {
    if (!c) return;
    free(c->id);
    for (int i = 0; i < c->nexercises; i++) exercise_free(&c->exercises[i]);
    for (int i = 0; i < c->nchapters; i++) {
        free(c->chapters[i].dir);
        free(c->chapters[i].title);
        free(c->chapters[i].lesson_path);
    }
    free(c->exercises);
    free(c->chapters);
    free(c->title);
    free(c->root);
    free(c->real_root);
    free(c->harness_dir);
    free(c);
}

/* The number in "7", "07", "ex7", "EX007": digits only, after an optional
 * "ex"; -1 for anything else (strtol would take "+7", " 7" and "7x"). Stops
 * growing past any course's size, so that many digits cannot overflow. */
static long exercise_number(const char *key) {
    if (!strncasecmp(key, "ex", 2)) key += 2;
    if (!*key) return -1;
    long n = 0;
    for (; *key; key++) {
        if (*key < '0' || *key > '9') return -1;
        if (n < 1000000) n = n * 10 + (*key - '0');
    }
    return n;
}

Exercise *course_find(const Course *c, const char *key) {
    for (int i = 0; i < c->nexercises; i++) {
        Exercise *e = &c->exercises[i];
        if (!strcasecmp(e->id, key) || !strcasecmp(e->name, key)) return e;
    }
    /* ids are ex01, ex02, ... in course order (checked by course_load) */
    long number = exercise_number(key);
    if (number >= 1 && number <= c->nexercises) return &c->exercises[number - 1];
    if (number >= 0 && c->nexercises > 0)
        return error("no exercise '%s': the course has %s to %s", key, c->exercises[0].id,
                     c->exercises[c->nexercises - 1].id),
               NULL;
    /* a part of names, as typed to find them (sgem: the nine sgemm_ rungs);
     * two letters are in too many names to help */
    enum { MAX_LISTED = 12 };
    StrBuf meant = {0};
    int parts = 0;
    for (int i = 0; strlen(key) >= 3 && i < c->nexercises; i++) {
        if (!strcasestr(c->exercises[i].name, key)) continue;
        if (parts++ < MAX_LISTED)
            sb_printf(&meant, "%s%s (%s)", parts > 1 ? ", " : "", c->exercises[i].id, c->exercises[i].name);
    }
    if (parts > MAX_LISTED) sb_printf(&meant, " and %d more", parts - MAX_LISTED);
    if (parts) {
        error("no exercise '%s'; did you mean %s%s?", key, parts > 1 ? "one of " : "", meant.buf);
        sb_free(&meant);
        return NULL;
    }
    /* a typo: one or two letters off an id or a name, not half of it */
    const Exercise *nearest = NULL;
    int best = INT_MAX;
    for (int i = 0; i < c->nexercises; i++) {
        const char *fields[] = {c->exercises[i].id, c->exercises[i].name};
        for (int f = 0; f < 2; f++) {
            int d = edit_distance(key, fields[f]);
            if (d <= 2 && 2 * d < (int)strlen(fields[f]) && d < best) nearest = &c->exercises[i], best = d;
        }
    }
    if (nearest) return error("no exercise '%s'; did you mean %s (%s)?", key, nearest->id, nearest->name), NULL;
    return error("no exercise '%s'", key), NULL;
}

const Exercise *course_rung_below(const Course *c, const Exercise *e) {
    if (e->ladder.count > 0) return course_find(c, e->ladder.items[e->ladder.count - 1]);
    for (int i = e->index - 1; i >= 0 && c->exercises[i].chapter == e->chapter; i--)
        if (!strcmp(c->exercises[i].kind, e->kind)) return &c->exercises[i];
    return NULL;
}

char *course_stub_path(const Course *c, const Exercise *e) {
    char *rel = xprintf("exercises/%s", e->file);
    char *p = path_join(c->root, rel);
    free(rel);
    return p;
}

char *course_solution_path(const Course *c, const Exercise *e) {
    char *rel = xprintf("solutions/%s", e->file);
    char *p = path_join(c->root, rel);
    free(rel);
    return p;
}

char *exercise_pass_rule(const Exercise *e) {
    StrBuf b = {0};
    sb_printf(&b, "correct at every size%s, and at least %.2fx the reference's throughput",
              e->deterministic ? " (the same bits on every call)" : "", e->floor_reference);
    char other[2][160]; /* the other floors, in the order said */
    int n = 0;
    if (e->floor_baseline > 0) snprintf(other[n++], sizeof other[0], "%.2fx the copy bandwidth of the same run", e->floor_baseline);
    if (e->floor_library > 0)
        snprintf(other[n++], sizeof other[0], "%.2fx %s's", e->floor_library, e->library ? e->library : "the library");
    if (n == 1) sb_printf(&b, " and %s", other[0]);
    if (n == 2) sb_printf(&b, ", %s and %s", other[0], other[1]);
    if (e->ntiming_sizes > 1) sb_printf(&b, ", at each of its %d timed sizes", e->ntiming_sizes);
    if (e->required_sass.count || e->forbidden_sass.count || e->around_inside.count || e->nevidence)
        sb_printf(&b, "; and the technique it teaches, seen in its machine code%s", e->nevidence ? " and the GPU's counters" : "");
    return b.buf;
}

char *course_kind_file(const char *root, const char *harness_dir, const char *kind) {
    char *rel = xprintf("harness/kinds/%s.cu", kind);
    char *own = path_join(root, rel);
    free(rel);
    if (file_exists(own) || !harness_dir) return own;
    rel = xprintf("kinds/%s.cu", kind);
    char *shared = path_join(harness_dir, rel);
    free(rel);
    if (!file_exists(shared)) {
        free(shared);
        return own;
    }
    free(own);
    return shared;
}

char *course_kind_path(const Course *c, const char *kind) { return course_kind_file(c->root, c->harness_dir, kind); }

void size_text(const SizeSpec *s, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->count && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%lld", k ? "x" : "", s->d[k]);
}

static bool dir_has(const char *dir, const char *file) {
    char *p = path_join(dir, file);
    bool ok = file_exists(p);
    free(p);
    return ok;
}

static bool is_course_dir(const char *dir) { return dir_has(dir, "course/course.yaml"); }

/* The first directory beside the binary that has `marker`, wherever the
 * binary is started from (through a link too: /proc/self/exe is the real
 * file): installed by make install (PREFIX/bin/gpucourse, the data in
 * PREFIX/share/gpucourse), or in the repository's build tree
 * (build/gpucourse, the course in ..). malloc'd, or NULL. */
static char *beside_binary(const char *marker) {
    static const char *const beside[] = {"../share/gpucourse", ".."};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *bin = path_dirname(exe);
    char *found = NULL;
    for (size_t i = 0; i < ARRAY_SIZE(beside) && !found; i++) {
        char *dir = path_join(bin, beside[i]);
        if (dir_has(dir, marker)) found = realpath(dir, NULL);
        free(dir);
    }
    free(bin);
    return found;
}

char *course_harness_dir(const char *root) {
    if (dir_has(root, "harness/main.cu")) return path_join(root, "harness");
    char *home = beside_binary("harness/main.cu");
    char *dir = home ? path_join(home, "harness") : NULL;
    free(home);
    return dir;
}

char *course_locate(const char *option) {
    const char *env = getenv("GPUCOURSE_COURSE");
    const char *given = option ? option : (env && *env ? env : NULL);
    if (given) {
        if (!is_course_dir(given))
            return error("no course in '%s': course/course.yaml not found", given), NULL;
        return realpath(given, NULL);
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) && is_course_dir(cwd)) return xstrdup(cwd);
    char *real = beside_binary("course/course.yaml");
    if (real) return real;
    return error("no course found: run gpucourse in the course's directory, or give --course DIR or "
                 "GPUCOURSE_COURSE"),
           NULL;
}
