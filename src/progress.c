#define _GNU_SOURCE
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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

/* A new entry at the end: its id is not there yet. */
static ExProgress *add_entry(Progress *p, const char *id) {
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->items = xrealloc(p->items, sizeof *p->items * (size_t)p->cap);
    }
    ExProgress *e = &p->items[p->count++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    return e;
}

ExProgress *progress_get(Progress *p, const char *id, bool create) {
    const ExProgress *found = progress_find(p, id);
    if (found) return &p->items[found - p->items];
    return create ? add_entry(p, id) : NULL;
}

void progress_add_attempt(ExProgress *e) {
    if (e->attempts < PROGRESS_COUNT_MAX) e->attempts++;
}

/* One event of a value kept as read. */
typedef struct {
    yaml_event_type_t type; /* scalar, or a sequence's or mapping's start or end */
    int style;              /* quoted, flow, ...: a quoted "2" stays a string */
    char *tag;              /* NULL: its kind's default, left implicit */
    char *text;             /* a scalar's value, len bytes */
    size_t len;
} KeptEvent;

/* A key and its value, as events. */
typedef struct {
    int entry;         /* its entry's index in items; -1: the top level */
    int first, count;  /* in events */
} KeptPair;

/* In the order read: an entry's pairs come in the order of the entries. */
struct KeptValues {
    KeptEvent *events;
    int nevents, cap_events;
    KeptPair *pairs;
    int npairs, cap_pairs;
};

static void kept_free(KeptValues *k) {
    if (!k) return;
    for (int i = 0; i < k->nevents; i++) {
        free(k->events[i].tag);
        free(k->events[i].text);
    }
    free(k->events);
    free(k->pairs);
    free(k);
}

void progress_free(Progress *p) {
    free(p->items);
    free(p->notice);
    kept_free(p->kept);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------ reading */

/* A scalar's text; NULL for another node, or for text holding a NUL (it
 * would read as a shorter key or value). */
static const char *scalar(yaml_document_t *d, int index) {
    yaml_node_t *n = yaml_document_get_node(d, index);
    if (!n || n->type != YAML_SCALAR_NODE) return NULL;
    const char *s = (const char *)n->data.scalar.value;
    return strlen(s) == n->data.scalar.length ? s : NULL;
}

static bool parse_int(const char *s, int *out) {
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end || v < 0 || v > PROGRESS_COUNT_MAX) return false;
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

static void add_problem(StrList *problems, yaml_node_t *at, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* problems gets "line:col: what", at the node's start. */
static void add_problem(StrList *problems, yaml_node_t *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *what;
    if (vasprintf(&what, fmt, ap) < 0) what = NULL;
    va_end(ap);
    char *line = xprintf("%zu:%zu: %s", at->start_mark.line + 1, at->start_mark.column + 1, what ? what : fmt);
    strlist_add(problems, line);
    free(line);
    free(what);
}

static KeptEvent *new_event(KeptValues *k, yaml_event_type_t type) {
    if (k->nevents == k->cap_events) {
        k->cap_events = k->cap_events ? 2 * k->cap_events : 32;
        k->events = xrealloc(k->events, sizeof *k->events * (size_t)k->cap_events);
    }
    KeptEvent *ev = &k->events[k->nevents++];
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    return ev;
}

/* Appends node n (its whole tree) to k as events. The guard bounds its depth
 * and, aliases expanded, its size. Tags are kept when not their kind's
 * default; the loader leaves no trace of an explicit default one (!!str). */
static void keep_node(KeptValues *k, yaml_document_t *d, yaml_node_t *n) {
    const char *tag = (const char *)n->tag;
    KeptEvent *ev;
    if (n->type == YAML_SCALAR_NODE) {
        ev = new_event(k, YAML_SCALAR_EVENT);
        ev->style = n->data.scalar.style;
        ev->text = xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
        ev->len = n->data.scalar.length;
        ev->tag = tag && strcmp(tag, YAML_DEFAULT_SCALAR_TAG) ? xstrdup(tag) : NULL;
    } else if (n->type == YAML_SEQUENCE_NODE) {
        ev = new_event(k, YAML_SEQUENCE_START_EVENT);
        ev->style = n->data.sequence.style;
        ev->tag = tag && strcmp(tag, YAML_DEFAULT_SEQUENCE_TAG) ? xstrdup(tag) : NULL;
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
            keep_node(k, d, yaml_document_get_node(d, *i));
        new_event(k, YAML_SEQUENCE_END_EVENT);
    } else {
        ev = new_event(k, YAML_MAPPING_START_EVENT);
        ev->style = n->data.mapping.style;
        ev->tag = tag && strcmp(tag, YAML_DEFAULT_MAPPING_TAG) ? xstrdup(tag) : NULL;
        for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
            keep_node(k, d, yaml_document_get_node(d, pr->key));
            keep_node(k, d, yaml_document_get_node(d, pr->value));
        }
        new_event(k, YAML_MAPPING_END_EVENT);
    }
}

/* Keeps a pair this gpucourse does not know, of entry (-1: the top level). */
static void keep_pair(Progress *p, int entry, yaml_document_t *d, yaml_node_pair_t *pr) {
    if (!p->kept) p->kept = xcalloc(1, sizeof *p->kept);
    KeptValues *k = p->kept;
    if (k->npairs == k->cap_pairs) {
        k->cap_pairs = k->cap_pairs ? 2 * k->cap_pairs : 8;
        k->pairs = xrealloc(k->pairs, sizeof *k->pairs * (size_t)k->cap_pairs);
    }
    KeptPair *kp = &k->pairs[k->npairs++];
    kp->entry = entry;
    kp->first = k->nevents;
    keep_node(k, d, yaml_document_get_node(d, pr->key));
    keep_node(k, d, yaml_document_get_node(d, pr->value));
    kp->count = k->nevents - kp->first;
}

/* The plain keys of one mapping, hashed: a key met again is found at once,
 * also among 50,000 exercises. */
typedef struct {
    yaml_node_pair_t **slots;
    size_t mask;
} KeyIndex;

static void key_index_init(KeyIndex *ix, yaml_node_t *map) {
    size_t pairs = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start), size = 8;
    while (size < 2 * pairs) size *= 2;
    ix->slots = xcalloc(size, sizeof *ix->slots);
    ix->mask = size - 1;
}

/* The earlier pair with pr's key; NULL when there is none (pr is added then)
 * or pr's key is not plain text. */
static yaml_node_pair_t *key_seen(KeyIndex *ix, yaml_document_t *d, yaml_node_pair_t *pr) {
    const char *k = scalar(d, pr->key);
    if (!k) return NULL;
    for (size_t i = hash_str(HASH_INIT, k) & ix->mask;; i = (i + 1) & ix->mask) {
        if (!ix->slots[i]) {
            ix->slots[i] = pr;
            return NULL;
        }
        if (!strcmp(scalar(d, ix->slots[i]->key), k)) return ix->slots[i];
    }
}

/* "line:col: 'KEY' is listed twice[ in 'ID'] (first at line:col)" for the
 * first key of map met again, else NULL. */
static char *repeated_key(yaml_document_t *d, yaml_node_t *map, const char *id) {
    KeyIndex ix;
    key_index_init(&ix, map);
    char *why = NULL;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; !why && pr < map->data.mapping.pairs.top; pr++) {
        yaml_node_pair_t *first = key_seen(&ix, d, pr);
        if (!first) continue;
        yaml_mark_t at = yaml_document_get_node(d, pr->key)->start_mark;
        yaml_mark_t was = yaml_document_get_node(d, first->key)->start_mark;
        why = xprintf("%zu:%zu: '%s' is listed twice%s%s%s (first at %zu:%zu)", at.line + 1, at.column + 1,
                      scalar(d, pr->key), id ? " in '" : "", id ? id : "", id ? "'" : "", was.line + 1, was.column + 1);
    }
    free(ix.slots);
    return why;
}

/* Reads one entry into p->items[entry]. A bad value is left out and reported
 * through problems ("line:col: what"); the entry's other values are kept, and
 * keys not known here are kept as read. */
static void parse_entry(yaml_document_t *d, yaml_node_t *map, Progress *p, int entry, StrList *problems) {
    ExProgress *e = &p->items[entry];
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
        const char *k = scalar(d, pr->key), *v = scalar(d, pr->value);
        if (!k) {
            add_problem(problems, yaml_document_get_node(d, pr->key), "keys must be plain names in '%s'", e->id);
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
        else keep_pair(p, entry, d, pr); /* a newer gpucourse's: it survives this one's writes */
        if (!ok)
            add_problem(problems, yaml_document_get_node(d, pr->value), "bad value for '%s' in '%s'", k, e->id);
    }
}

/* Reads the exercises mapping into p. An exercise listed twice is left out
 * (both times: which one is right cannot be known), as are bad entries; each
 * is listed in problems. */
static void parse_exercises(yaml_document_t *d, yaml_node_t *map, Progress *p, StrList *problems) {
    yaml_node_pair_t *start = map->data.mapping.pairs.start;
    int n = (int)(map->data.mapping.pairs.top - start);
    bool *repeated = xcalloc((size_t)n + 1, sizeof *repeated);
    KeyIndex ix;
    key_index_init(&ix, map);
    for (int i = 0; i < n; i++) {
        yaml_node_pair_t *first = key_seen(&ix, d, &start[i]);
        if (!first) continue;
        repeated[i] = repeated[first - start] = true;
        yaml_mark_t was = yaml_document_get_node(d, first->key)->start_mark;
        add_problem(problems, yaml_document_get_node(d, start[i].key), "'%s' is listed twice (first at %zu:%zu)",
                    scalar(d, start[i].key), was.line + 1, was.column + 1);
    }
    free(ix.slots);
    for (int i = 0; i < n; i++) {
        const char *id = scalar(d, start[i].key);
        yaml_node_t *key = yaml_document_get_node(d, start[i].key), *entry = yaml_document_get_node(d, start[i].value);
        char *twice;
        if (repeated[i]) continue;
        if (!id || strlen(id) >= sizeof p->items[0].id) {
            add_problem(problems, key, "bad exercise id");
        } else if (entry->type != YAML_MAPPING_NODE) {
            add_problem(problems, entry, "the entry of '%s' must be a mapping", id);
        } else if ((twice = repeated_key(d, entry, id))) {
            strlist_add(problems, twice);
            free(twice);
        } else {
            add_entry(p, id); /* ids are unique by now: no lookup, which made 50,000 entries quadratic */
            parse_entry(d, entry, p, p->count - 1, problems);
        }
    }
    free(repeated);
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
    if ((why = repeated_key(&doc, root, NULL))) goto out;
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
            parse_exercises(&doc, v, p, problems);
        } else {
            keep_pair(p, -1, &doc, pr);
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

/* Whether `target`, reached through a link from `path`, lies in path's
 * directory or below it (target itself may not be written yet). */
static bool beside(const char *path, const char *target) {
    char *home = path_dirname(path), *dir = path_dirname(target);
    bool in = path_within(dir, home);
    free(home), free(dir);
    return in;
}

char *progress_target(const char *path) {
    char *p = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        char link[4096];
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0 && hops > 0 && !beside(path, p)) {
            /* what it reads, moves aside when damaged and writes would be a file of whoever runs
             * gpucourse, chosen by whoever made the link (a classroom CI grading a repository) */
            error("progress file '%s' is a link to '%s', outside its workspace: progress is kept in the "
                  "workspace (to keep it elsewhere, make the workspace there)", path, p);
            free(p);
            return NULL;
        }
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
    int fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666); /* not through a link */
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

/* One kept pair's events, as read. */
static bool emit_kept(yaml_emitter_t *em, const KeptValues *k, const KeptPair *kp) {
    bool ok = true;
    for (int i = kp->first; ok && i < kp->first + kp->count; i++) {
        const KeptEvent *e = &k->events[i];
        yaml_char_t *tag = (yaml_char_t *)e->tag;
        yaml_event_t ev;
        switch (e->type) {
        case YAML_SCALAR_EVENT:
            ok = yaml_scalar_event_initialize(&ev, NULL, tag, (yaml_char_t *)e->text, (int)e->len, !tag, !tag,
                                              (yaml_scalar_style_t)e->style);
            break;
        case YAML_SEQUENCE_START_EVENT:
            ok = yaml_sequence_start_event_initialize(&ev, NULL, tag, !tag, (yaml_sequence_style_t)e->style);
            break;
        case YAML_MAPPING_START_EVENT:
            ok = yaml_mapping_start_event_initialize(&ev, NULL, tag, !tag, (yaml_mapping_style_t)e->style);
            break;
        case YAML_SEQUENCE_END_EVENT: ok = yaml_sequence_end_event_initialize(&ev); break;
        default: ok = yaml_mapping_end_event_initialize(&ev); break;
        }
        ok = ok && yaml_emitter_emit(em, &ev);
    }
    return ok;
}

/* Entry i, only what differs from a new entry's (an entry never touched is
 * "{}", as cheap as it was read), then its kept pairs: *next walks them in
 * order, each entry's after the one before's. */
static bool emit_entry(yaml_emitter_t *em, const Progress *p, int i, int *next) {
    const ExProgress *e = &p->items[i];
    char attempts[16], hints[16], ref[32], base[32], lib[32], tflops[32];
    snprintf(attempts, sizeof attempts, "%d", e->attempts);
    snprintf(hints, sizeof hints, "%d", e->hints_seen);
    snprintf(ref, sizeof ref, "%.4f", e->best_vs_reference);
    snprintf(base, sizeof base, "%.4f", e->best_vs_baseline);
    snprintf(lib, sizeof lib, "%.4f", e->best_vs_library);
    snprintf(tflops, sizeof tflops, "%.2f", e->best_tflops);
    bool ok = emit_scalar(em, e->id) && emit_mapping(em, true) &&
              (e->status == ST_NOT_STARTED || emit_pair(em, "status", status_key(e->status))) &&
              (e->attempts <= 0 || emit_pair(em, "attempts", attempts)) &&
              (e->hints_seen <= 0 || emit_pair(em, "hints_seen", hints)) &&
              (e->best_vs_reference <= 0 || emit_pair(em, "best_vs_reference", ref)) &&
              (e->best_vs_baseline <= 0 || emit_pair(em, "best_vs_baseline", base)) &&
              (e->best_vs_library <= 0 || emit_pair(em, "best_vs_library", lib)) &&
              (e->best_tflops <= 0 || emit_pair(em, "best_tflops", tflops)) &&
              (!e->last_verdict[0] || emit_pair(em, "last_verdict", e->last_verdict)) &&
              (!e->first_attempt[0] || emit_pair(em, "first_attempt", e->first_attempt)) &&
              (!e->last_attempt[0] || emit_pair(em, "last_attempt", e->last_attempt)) &&
              (!e->passed_at[0] || emit_pair(em, "passed_at", e->passed_at));
    const KeptValues *k = p->kept;
    for (; ok && k && *next < k->npairs && k->pairs[*next].entry <= i; ++*next)
        if (k->pairs[*next].entry == i) ok = emit_kept(em, k, &k->pairs[*next]);
    return ok && emit_mapping(em, false);
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
              emit_mapping(&em, true) && emit_pair(&em, "version", version);
    for (int i = 0; ok && p->kept && i < p->kept->npairs; i++) /* the top level's kept pairs */
        if (p->kept->pairs[i].entry < 0) ok = emit_kept(&em, p->kept, &p->kept->pairs[i]);
    ok = ok && emit_scalar(&em, "exercises") && emit_mapping(&em, true); /* none: "exercises: {}" */
    for (int i = 0, next = 0; ok && i < p->count; i++) ok = emit_entry(&em, p, i, &next);
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
