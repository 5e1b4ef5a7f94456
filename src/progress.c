#define _GNU_SOURCE
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

static const char *const status_keys[ST_COUNT] = {"not_started", "attempted", "compiles", "correct", "passed"};
static const char *const status_names[ST_COUNT] = {"not started", "attempted", "compiles", "correct", "passed"};

const char *status_name(ExStatus s) { return s < ST_COUNT ? status_names[s] : "?"; }
const char *status_key(ExStatus s) { return s < ST_COUNT ? status_keys[s] : "?"; }

ExProgress *progress_get(Progress *p, const char *id, bool create) {
    for (int i = 0; i < p->count; i++)
        if (!strcmp(p->items[i].id, id)) return &p->items[i];
    if (!create) return NULL;
    p->items = xrealloc(p->items, sizeof *p->items * (size_t)(p->count + 1));
    ExProgress *e = &p->items[p->count++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    return e;
}

void progress_free(Progress *p) {
    free(p->items);
    free(p->notice);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------ reading */

static const char *scalar(yaml_document_t *d, int index) {
    yaml_node_t *n = yaml_document_get_node(d, index);
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool parse_int(const char *s, int *out) {
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end || v < 0 || v > 1000000000) return false;
    *out = (int)v;
    return true;
}

static bool parse_double(const char *s, double *out) {
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v >= 0 && v < 1e6)) return false;
    *out = v;
    return true;
}

static bool copy_text(const char *s, char *out, size_t size) {
    if (!s || strlen(s) >= size) return false;
    strcpy(out, s);
    return true;
}

/* Returns NULL when fine, else what is wrong (static text) and where. */
static const char *parse_entry(yaml_document_t *d, yaml_node_t *map, ExProgress *e, yaml_mark_t *where) {
    if (map->type != YAML_MAPPING_NODE) {
        *where = map->start_mark;
        return "an exercise entry must be a mapping";
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(d, p->key), *v = scalar(d, p->value);
        *where = yaml_document_get_node(d, p->value)->start_mark;
        bool ok = true;
        if (!k) return "keys must be plain names";
        if (!strcmp(k, "status")) {
            ok = false;
            for (int s = 0; s < ST_COUNT && v; s++)
                if (!strcmp(v, status_keys[s])) e->status = (ExStatus)s, ok = true;
        } else if (!strcmp(k, "attempts")) ok = parse_int(v, &e->attempts);
        else if (!strcmp(k, "hints_seen")) ok = parse_int(v, &e->hints_seen);
        else if (!strcmp(k, "best_vs_reference")) ok = parse_double(v, &e->best_vs_reference);
        else if (!strcmp(k, "best_vs_baseline")) ok = parse_double(v, &e->best_vs_baseline);
        else if (!strcmp(k, "last_verdict")) ok = copy_text(v, e->last_verdict, sizeof e->last_verdict);
        else if (!strcmp(k, "first_attempt")) ok = copy_text(v, e->first_attempt, sizeof e->first_attempt);
        else if (!strcmp(k, "last_attempt")) ok = copy_text(v, e->last_attempt, sizeof e->last_attempt);
        else if (!strcmp(k, "passed_at")) ok = copy_text(v, e->passed_at, sizeof e->passed_at);
        /* unknown keys are kept out rather than fatal: a later version may add some */
        if (!ok) return "bad value";
    }
    return NULL;
}

/* Parses text into p. Returns NULL when fine, else a description of the damage. */
static char *parse_progress(const char *text, size_t len, Progress *p, bool *too_new) {
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        char *why = xprintf("%zu:%zu: %s", parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                            parser.problem ? parser.problem : "cannot parse");
        yaml_parser_delete(&parser);
        return why;
    }
    yaml_parser_delete(&parser);
    char *why = NULL;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        why = xstrdup("1:1: the file is empty");
        goto out;
    }
    if (root->type != YAML_MAPPING_NODE) {
        why = xprintf("%zu:%zu: expected a mapping with 'version' and 'exercises'", root->start_mark.line + 1,
                      root->start_mark.column + 1);
        goto out;
    }
    int version = -1;
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
        const char *k = scalar(&doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
        if (k && !strcmp(k, "version")) {
            if (!parse_int(scalar(&doc, pr->value), &version)) {
                why = xprintf("%zu:%zu: 'version' must be a number", v->start_mark.line + 1, v->start_mark.column + 1);
                goto out;
            }
        } else if (k && !strcmp(k, "exercises")) {
            if (v->type == YAML_SCALAR_NODE && !*v->data.scalar.value) continue; /* "exercises:" with none */
            if (v->type != YAML_MAPPING_NODE) {
                why = xprintf("%zu:%zu: 'exercises' must be a mapping", v->start_mark.line + 1,
                              v->start_mark.column + 1);
                goto out;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
                const char *id = scalar(&doc, q->key);
                if (!id || strlen(id) >= sizeof p->items[0].id) {
                    yaml_node_t *kn = yaml_document_get_node(&doc, q->key);
                    why = xprintf("%zu:%zu: bad exercise id", kn->start_mark.line + 1, kn->start_mark.column + 1);
                    goto out;
                }
                ExProgress *e = progress_get(p, id, true);
                yaml_mark_t where;
                const char *bad = parse_entry(&doc, yaml_document_get_node(&doc, q->value), e, &where);
                if (bad) {
                    why = xprintf("%zu:%zu: %s in '%s'", where.line + 1, where.column + 1, bad, id);
                    goto out;
                }
            }
        }
    }
    if (version < 0) why = xstrdup("1:1: no 'version'");
    else if (version > PROGRESS_VERSION) *too_new = true, why = xprintf("version %d", version);
out:
    yaml_document_delete(&doc);
    return why;
}

int progress_load(const char *path, Progress *p) {
    memset(p, 0, sizeof *p);
    if (!file_exists(path)) {
        if (access(path, F_OK) == 0) return error("progress file '%s' is not a regular file", path);
        return 0;
    }
    size_t len;
    char *text = read_file(path, &len);
    if (!text) return -1;
    bool too_new = false;
    char *why = parse_progress(text, len, p, &too_new);
    free(text);
    if (!why) return 0;
    progress_free(p);
    if (too_new) {
        error("progress file '%s' has %s, newer than this gpucourse (%d): upgrade gpucourse", path, why,
              PROGRESS_VERSION);
        free(why);
        return -1;
    }
    /* Keep the damaged file beside, under a name that says when. */
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char *aside = xprintf("%s.damaged-%s", path, stamp);
    for (int k = 2; access(aside, F_OK) == 0; k++) {
        free(aside);
        aside = xprintf("%s.damaged-%s-%d", path, stamp, k);
    }
    if (rename(path, aside) < 0) {
        error("progress file '%s' is damaged (%s) and cannot be moved aside: %s", path, why, strerror(errno));
        free(why);
        free(aside);
        return -1;
    }
    p->notice = xprintf("progress file was damaged (%s:%s); it was kept as '%s' and progress starts afresh",
                        path, why, aside);
    free(why);
    free(aside);
    return 0;
}

/* ------------------------------------------------------------ writing */

int progress_save(const char *path, const Progress *p) {
    StrBuf sb = {0};
    sb_printf(&sb, "# gpucourse progress (written by gpucourse; damaged files are kept aside)\n");
    sb_printf(&sb, "version: %d\n", PROGRESS_VERSION);
    sb_printf(&sb, "exercises:%s\n", p->count ? "" : " {}");
    for (int i = 0; i < p->count; i++) {
        const ExProgress *e = &p->items[i];
        sb_printf(&sb, "  %s:\n", e->id);
        sb_printf(&sb, "    status: %s\n", status_key(e->status));
        sb_printf(&sb, "    attempts: %d\n", e->attempts);
        sb_printf(&sb, "    hints_seen: %d\n", e->hints_seen);
        if (e->best_vs_reference > 0) sb_printf(&sb, "    best_vs_reference: %.4f\n", e->best_vs_reference);
        if (e->best_vs_baseline > 0) sb_printf(&sb, "    best_vs_baseline: %.4f\n", e->best_vs_baseline);
        if (e->last_verdict[0]) sb_printf(&sb, "    last_verdict: %s\n", e->last_verdict);
        if (e->first_attempt[0]) sb_printf(&sb, "    first_attempt: \"%s\"\n", e->first_attempt);
        if (e->last_attempt[0]) sb_printf(&sb, "    last_attempt: \"%s\"\n", e->last_attempt);
        if (e->passed_at[0]) sb_printf(&sb, "    passed_at: \"%s\"\n", e->passed_at);
    }
    int rc = write_file_atomic(path, sb.buf, sb.len);
    sb_free(&sb);
    return rc;
}

int progress_update(const char *path, void (*change)(Progress *, void *), void *ctx, char **notice) {
    char *lock_path = xprintf("%s.lock", path);
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        error("cannot open '%s': %s", lock_path, strerror(errno));
        free(lock_path);
        return -1;
    }
    free(lock_path);
    while (flock(fd, LOCK_EX) < 0)
        if (errno != EINTR) {
            close(fd);
            return error("cannot lock the progress file: %s", strerror(errno));
        }
    Progress p;
    int rc = progress_load(path, &p);
    if (rc == 0) {
        if (notice && p.notice) *notice = xstrdup(p.notice);
        change(&p, ctx);
        rc = progress_save(path, &p);
    }
    progress_free(&p);
    close(fd); /* releases the lock */
    return rc;
}
