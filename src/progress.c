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

#include "yamlguard.h"

static const char *const status_keys[ST_COUNT] = {"not_started", "attempted", "compiles", "correct", "passed"};
static const char *const status_names[ST_COUNT] = {"not started", "attempted", "compiles", "correct", "passed"};

const char *status_name(ExStatus s) { return s < ST_COUNT ? status_names[s] : "?"; }
const char *status_key(ExStatus s) { return s < ST_COUNT ? status_keys[s] : "?"; }

const ExProgress *progress_find(const Progress *p, const char *id) {
    for (int i = 0; i < p->count; i++)
        if (!strcmp(p->items[i].id, id)) return &p->items[i];
    return NULL;
}

ExProgress *progress_get(Progress *p, const char *id, bool create) {
    const ExProgress *found = progress_find(p, id);
    if (found) return &p->items[found - p->items];
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

/* Reads one entry into e. A bad value is left out and reported through
 * problems ("line:col: what"); the entry's other values are kept. */
static void parse_entry(yaml_document_t *d, yaml_node_t *map, const char *id, ExProgress *e, StrList *problems) {
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(d, p->key), *v = scalar(d, p->value);
        if (!k) {
            yaml_mark_t at = yaml_document_get_node(d, p->key)->start_mark;
            char *why = xprintf("%zu:%zu: keys must be plain names in '%s'", at.line + 1, at.column + 1, id);
            strlist_add(problems, why);
            free(why);
            continue;
        }
        bool ok = true; /* a bad value leaves the field as it was */
        if (!strcmp(k, "status")) {
            ok = false;
            for (int s = 0; s < ST_COUNT && v; s++)
                if (!strcmp(v, status_keys[s])) e->status = (ExStatus)s, ok = true;
        } else if (!strcmp(k, "attempts")) ok = parse_int(v, &e->attempts);
        else if (!strcmp(k, "hints_seen")) ok = parse_int(v, &e->hints_seen);
        else if (!strcmp(k, "best_vs_reference")) ok = parse_double(v, &e->best_vs_reference);
        else if (!strcmp(k, "best_vs_baseline")) ok = parse_double(v, &e->best_vs_baseline);
        else if (!strcmp(k, "best_vs_library")) ok = parse_double(v, &e->best_vs_library);
        else if (!strcmp(k, "best_tflops")) ok = parse_double(v, &e->best_tflops);
        else if (!strcmp(k, "last_verdict")) ok = copy_text(v, e->last_verdict, sizeof e->last_verdict);
        else if (!strcmp(k, "first_attempt")) ok = copy_text(v, e->first_attempt, sizeof e->first_attempt);
        else if (!strcmp(k, "last_attempt")) ok = copy_text(v, e->last_attempt, sizeof e->last_attempt);
        else if (!strcmp(k, "passed_at")) ok = copy_text(v, e->passed_at, sizeof e->passed_at);
        /* unknown keys are kept out rather than fatal: a later version may add some */
        if (!ok) {
            yaml_mark_t at = yaml_document_get_node(d, p->value)->start_mark;
            char *why = xprintf("%zu:%zu: bad value for '%s' in '%s'", at.line + 1, at.column + 1, k, id);
            strlist_add(problems, why);
            free(why);
        }
    }
}

/* Parses text into p. Returns NULL when the document as a whole is fine, else
 * a description of the damage ("line:col: what"). Bad entries and values are
 * left out of p and listed in problems. */
static char *parse_progress(const char *text, size_t len, Progress *p, bool *too_new, StrList *problems) {
    char guard[512];
    if (yaml_guard_check(text, len, NULL, guard, sizeof guard) < 0) return xstrdup(guard);
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        size_t line, col;
        yaml_guard_error_pos(&parser, text, len, &line, &col);
        char *why = xprintf("%zu:%zu: %s", line, col, parser.problem ? parser.problem : "cannot parse");
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
                yaml_node_t *kn = yaml_document_get_node(&doc, q->key), *entry = yaml_document_get_node(&doc, q->value);
                char *bad = NULL;
                if (!id || strlen(id) >= sizeof p->items[0].id)
                    bad = xprintf("%zu:%zu: bad exercise id", kn->start_mark.line + 1, kn->start_mark.column + 1);
                else if (entry->type != YAML_MAPPING_NODE)
                    bad = xprintf("%zu:%zu: the entry of '%s' must be a mapping", entry->start_mark.line + 1,
                                  entry->start_mark.column + 1, id);
                else
                    parse_entry(&doc, entry, id, progress_get(p, id, true), problems);
                if (bad) strlist_add(problems, bad);
                free(bad);
            }
        }
    }
    if (version < 0) why = xstrdup("1:1: no 'version'");
    else if (version > PROGRESS_VERSION) *too_new = true, why = xprintf("version %d", version);
out:
    yaml_document_delete(&doc);
    return why;
}

char *create_stamped_file(const char *prefix) {
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 1; k <= 1000; k++) {
        char *name = k == 1 ? xprintf("%s%s", prefix, stamp) : xprintf("%s%s-%d", prefix, stamp, k);
        /* the name is taken by creating it, never checked first: another process may be choosing too */
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            return name;
        }
        if (errno != EEXIST) {
            int saved = errno;
            error("cannot create '%s': %s", name, strerror(saved));
            free(name);
            errno = saved;
            return NULL;
        }
        free(name);
    }
    error("cannot create '%s%s': a thousand files of that name exist", prefix, stamp);
    errno = EEXIST;
    return NULL;
}

char *progress_target(const char *path) {
    char *p = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        char link[4096];
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) return p; /* not a link (or absent): p itself */
        link[n] = '\0';
        char *dir = path_dirname(p);
        free(p);
        p = path_join(dir, link); /* a relative link is relative to its directory */
        free(dir);
    }
    error("progress file '%s': too many levels of symbolic links", path);
    free(p);
    return NULL;
}

/* The lock that progress_update holds: an fd to close, or -1 (error set). */
static int lock_progress(const char *path) {
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
    return fd;
}

/* Moves the damaged file aside and writes back what was kept (all of it but
 * what problems lists, or nothing when why is set). Under the lock. */
static int set_aside(const char *path, const char *real, Progress *p, const char *why, const StrList *problems) {
    char *prefix = xprintf("%s.damaged-", real);
    char *aside = create_stamped_file(prefix);
    free(prefix);
    if (!aside || rename(real, aside) < 0) {
        int saved = errno;
        if (aside) unlink(aside);
        free(aside);
        progress_free(p);
        return error("progress file '%s' is damaged (%s) and cannot be moved aside: %s", path,
                     why ? why : problems->items[0], strerror(saved));
    }
    if (why) {
        progress_free(p);
        p->notice = xprintf("progress file was damaged (%s:%s); it was kept as '%s' and progress starts afresh",
                            path, why, aside);
        free(aside);
        return 0;
    }
    StrBuf sb = {0};
    for (int i = 0; i < problems->count; i++) sb_printf(&sb, "%s%s:%s", i ? "; " : "", path, problems->items[i]);
    int rc = progress_save(path, p);
    if (rc == 0)
        p->notice = xprintf("progress file had bad values (%s); they were left out, the rest is kept, and the "
                            "original file was kept as '%s'", sb.buf, aside);
    else
        progress_free(p);
    sb_free(&sb);
    free(aside);
    return rc;
}

/* progress_load; locked: the caller holds the lock (else it is taken to set a damaged file aside). */
static int load(const char *path, Progress *p, bool locked) {
    memset(p, 0, sizeof *p);
    char *real = progress_target(path);
    if (!real) return -1;
    if (!file_exists(real)) {
        int rc = access(real, F_OK) == 0 ? error("progress file '%s' is not a regular file", path) : 0;
        free(real);
        return rc;
    }
    size_t len;
    char *text = read_file_max(real, YAML_GUARD_MAX_BYTES, &len), *why = NULL;
    if (!text && errno != EFBIG) {
        free(real);
        return -1;
    }
    bool too_new = false;
    StrList problems = {0};
    if (text) {
        why = parse_progress(text, len, p, &too_new, &problems);
    } else { /* too large to read: damaged like a file the guard refuses, and never read whole */
        char *reason = too_large_reason(len, YAML_GUARD_MAX_BYTES);
        why = xprintf("1:1: %s", reason);
        free(reason);
    }
    free(text);
    int rc = 0;
    if (too_new) { /* before any repair: what looks bad here may be a newer version's value */
        progress_free(p);
        rc = error("progress file '%s' has %s, newer than this gpucourse (%d): upgrade gpucourse", path, why,
                   PROGRESS_VERSION);
    } else if ((why || problems.count) && !locked) {
        /* again under the lock, from what the file holds by then: an update may have come first */
        progress_free(p);
        int fd = lock_progress(path);
        rc = fd < 0 ? -1 : load(path, p, true);
        if (fd >= 0) close(fd);
    } else if (why || problems.count) {
        rc = set_aside(path, real, p, why, &problems);
    }
    free(why);
    strlist_free(&problems);
    free(real);
    return rc;
}

int progress_load(const char *path, Progress *p) { return load(path, p, false); }

/* ------------------------------------------------------------ writing */

static int append(void *sb, unsigned char *data, size_t size) {
    sb_add(sb, (const char *)data, size);
    return 1;
}

/* A plain scalar where YAML allows one, else quoted and escaped: the emitter
 * decides, so whatever the reader took in comes back the same. */
static bool emit_scalar(yaml_emitter_t *em, const char *s) {
    yaml_event_t ev;
    return yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                        YAML_ANY_SCALAR_STYLE) &&
           yaml_emitter_emit(em, &ev);
}

static bool emit_pair(yaml_emitter_t *em, const char *key, const char *value) {
    return emit_scalar(em, key) && emit_scalar(em, value);
}

static bool emit_mapping(yaml_emitter_t *em, bool start) {
    yaml_event_t ev;
    if (start) return yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) &&
                      yaml_emitter_emit(em, &ev);
    return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
}

static bool emit_entry(yaml_emitter_t *em, const ExProgress *e) {
    char attempts[16], hints[16], ref[32], base[32], lib[32], tflops[32];
    snprintf(attempts, sizeof attempts, "%d", e->attempts);
    snprintf(hints, sizeof hints, "%d", e->hints_seen);
    snprintf(ref, sizeof ref, "%.4f", e->best_vs_reference);
    snprintf(base, sizeof base, "%.4f", e->best_vs_baseline);
    snprintf(lib, sizeof lib, "%.4f", e->best_vs_library);
    snprintf(tflops, sizeof tflops, "%.2f", e->best_tflops);
    return emit_scalar(em, e->id) && emit_mapping(em, true) && emit_pair(em, "status", status_key(e->status)) &&
           emit_pair(em, "attempts", attempts) && emit_pair(em, "hints_seen", hints) &&
           (e->best_vs_reference <= 0 || emit_pair(em, "best_vs_reference", ref)) &&
           (e->best_vs_baseline <= 0 || emit_pair(em, "best_vs_baseline", base)) &&
           (e->best_vs_library <= 0 || emit_pair(em, "best_vs_library", lib)) &&
           (e->best_tflops <= 0 || emit_pair(em, "best_tflops", tflops)) &&
           (!e->last_verdict[0] || emit_pair(em, "last_verdict", e->last_verdict)) &&
           (!e->first_attempt[0] || emit_pair(em, "first_attempt", e->first_attempt)) &&
           (!e->last_attempt[0] || emit_pair(em, "last_attempt", e->last_attempt)) &&
           (!e->passed_at[0] || emit_pair(em, "passed_at", e->passed_at)) && emit_mapping(em, false);
}

int progress_save(const char *path, const Progress *p) {
    StrBuf sb = {0};
    sb_printf(&sb, "# gpucourse progress (written by gpucourse; damaged files are kept aside)\n");
    yaml_emitter_t em;
    yaml_event_t ev;
    char version[16];
    snprintf(version, sizeof version, "%d", PROGRESS_VERSION);
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output(&em, append, &sb);
    yaml_emitter_set_unicode(&em, 1); /* ü, not "\xFC" */
    yaml_emitter_set_width(&em, -1);  /* a value on one line */
    bool ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
              yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&em, &ev) &&
              emit_mapping(&em, true) && emit_pair(&em, "version", version) && emit_scalar(&em, "exercises") &&
              emit_mapping(&em, true); /* none: "exercises: {}" */
    for (int i = 0; ok && i < p->count; i++) ok = emit_entry(&em, &p->items[i]);
    ok = ok && emit_mapping(&em, false) && emit_mapping(&em, false) && yaml_document_end_event_initialize(&ev, 1) &&
         yaml_emitter_emit(&em, &ev) && yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
    int rc = -1;
    if (!ok) {
        error("cannot write '%s': %s", path, em.problem ? em.problem : "a value is not valid UTF-8");
    } else {
        char *real = progress_target(path); /* a link stays a link: its target is replaced */
        rc = real ? write_file_atomic(real, sb.buf, sb.len) : -1;
        free(real);
    }
    yaml_emitter_delete(&em);
    sb_free(&sb);
    return rc;
}

int progress_update(const char *path, void (*change)(Progress *, void *), void *ctx, char **notice) {
    int fd = lock_progress(path);
    if (fd < 0) return -1;
    Progress p;
    int rc = load(path, &p, true);
    if (rc == 0) {
        if (notice && p.notice) *notice = xstrdup(p.notice);
        change(&p, ctx);
        rc = progress_save(path, &p);
    }
    progress_free(&p);
    close(fd); /* releases the lock */
    return rc;
}
