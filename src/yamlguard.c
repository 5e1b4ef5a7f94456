#define _GNU_SOURCE
#include "yamlguard.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* An anchor and what an alias to it stands for. */
typedef struct Anchor {
    struct Anchor *next;   /* in its bucket */
    char *name;
    size_t line, col;      /* where it is defined, 1-based */
    size_t nodes, bytes;   /* the anchored node, expanded */
    bool open;             /* still being read: an alias to it is a cycle */
} Anchor;

/* Hashed: up to a thousand anchors, looked up by up to 100000 aliases. */
enum { BUCKETS = 1024 };

static Anchor *anchor_find(Anchor **buckets, const char *name) {
    for (Anchor *a = buckets[hash_str(HASH_INIT, name) % BUCKETS]; a; a = a->next)
        if (!strcmp(a->name, name)) return a;
    return NULL;
}

static Anchor *anchor_add(Anchor **buckets, const char *name, size_t line, size_t col) {
    Anchor **b = &buckets[hash_str(HASH_INIT, name) % BUCKETS];
    Anchor *a = xcalloc(1, sizeof *a);
    a->name = xstrdup(name);
    a->line = line;
    a->col = col;
    a->next = *b;
    *b = a;
    return a;
}

static int reject(const char *path, size_t line, size_t col, char *err, size_t err_size, const char *fmt, ...)
    PRINTF_LIKE(6, 7);

static int reject(const char *path, size_t line, size_t col, char *err, size_t err_size, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (path)
        snprintf(err, err_size, "%s:%zu:%zu: %s", path, line, col, msg);
    else
        snprintf(err, err_size, "%zu:%zu: %s", line, col, msg);
    return error("%s", err);
}

int yaml_guard_check(const char *data, size_t len, const char *path, char *err, size_t err_size) {
    if (len > YAML_GUARD_MAX_BYTES)
        return reject(path, 1, 1, err, err_size, "the file has %zu bytes, more than the limit of %d MiB", len,
                      YAML_GUARD_MAX_BYTES >> 20);
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    Anchor *buckets[BUCKETS] = {0};
    /* the collections being read; the anchored ones learn their size at their end */
    struct {
        Anchor *anchor;
        size_t nodes, bytes; /* the counts before it */
    } stack[YAML_GUARD_MAX_DEPTH];
    int depth = 0, anchors = 0, rc = 0;
    size_t nodes = 0, bytes = 0; /* the document so far, expanded */
    bool done = false;
    while (!done && rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) break; /* the real parse reports it */
        size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
        const char *anchor = ev.type == YAML_SCALAR_EVENT           ? (const char *)ev.data.scalar.anchor
                             : ev.type == YAML_SEQUENCE_START_EVENT ? (const char *)ev.data.sequence_start.anchor
                             : ev.type == YAML_MAPPING_START_EVENT  ? (const char *)ev.data.mapping_start.anchor
                                                                    : NULL;
        /* libyaml's loader refuses it too, in words that come out garbled
         * ("second occurrence found duplicate anchor; first occurrence") */
        const Anchor *twice = anchor ? anchor_find(buckets, anchor) : NULL;
        if (twice) {
            rc = reject(path, line, col, err, err_size, "anchor '&%s' is defined twice (first at %s%s%zu:%zu)", anchor,
                        path ? path : "", path ? ":" : "", twice->line, twice->col);
            yaml_event_delete(&ev);
            break;
        }
        switch (ev.type) {
        case YAML_SCALAR_EVENT:
            nodes++;
            bytes += ev.data.scalar.length;
            if (anchor) {
                anchors++;
                Anchor *a = anchor_add(buckets, anchor, line, col);
                a->nodes = 1;
                a->bytes = ev.data.scalar.length;
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (depth == YAML_GUARD_MAX_DEPTH) {
                rc = reject(path, line, col, err, err_size, "nested deeper than %d levels", YAML_GUARD_MAX_DEPTH);
                break;
            }
            stack[depth].anchor = NULL;
            if (anchor) {
                anchors++;
                stack[depth].anchor = anchor_add(buckets, anchor, line, col);
                stack[depth].anchor->open = true;
            }
            stack[depth].nodes = nodes++;
            stack[depth].bytes = bytes;
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0 && stack[--depth].anchor) {
                Anchor *a = stack[depth].anchor;
                a->nodes = nodes - stack[depth].nodes;
                a->bytes = bytes - stack[depth].bytes;
                a->open = false;
            }
            break;
        case YAML_ALIAS_EVENT: {
            Anchor *a = anchor_find(buckets, (const char *)ev.data.alias.anchor);
            if (a && a->open) {
                rc = reject(path, line, col, err, err_size, "alias '*%s' is inside the node it names",
                            ev.data.alias.anchor);
                break;
            }
            nodes += a ? a->nodes : 1; /* an unknown anchor: the real parse reports it */
            bytes += a ? a->bytes : 0;
            break;
        }
        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        /* Checked after every event, so the sums never grow past twice the limits. */
        if (rc == 0 && nodes > YAML_GUARD_MAX_NODES)
            rc = reject(path, line, col, err, err_size, "more than %d nodes once aliases are expanded",
                        YAML_GUARD_MAX_NODES);
        else if (rc == 0 && bytes > YAML_GUARD_MAX_BYTES)
            rc = reject(path, line, col, err, err_size, "more than %d MiB of text once aliases are expanded",
                        YAML_GUARD_MAX_BYTES >> 20);
        else if (rc == 0 && anchors > YAML_GUARD_MAX_ANCHORS)
            rc = reject(path, line, col, err, err_size, "more than %d anchors", YAML_GUARD_MAX_ANCHORS);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    for (int b = 0; b < BUCKETS; b++)
        for (Anchor *a = buckets[b], *next; a; a = next) {
            next = a->next;
            free(a->name);
            free(a);
        }
    return rc;
}

void yaml_guard_error_pos(const yaml_parser_t *parser, const char *data, size_t len, size_t *line, size_t *col) {
    *line = parser->problem_mark.line + 1;
    *col = parser->problem_mark.column + 1;
    if (parser->error != YAML_READER_ERROR) return;
    /* Count lines (\n, \r\n, \r) and characters (UTF-8 lead bytes), as libyaml's marks do. */
    size_t end = parser->problem_offset < len ? parser->problem_offset : len;
    *line = *col = 1;
    for (size_t i = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0; i < end; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= len || data[i + 1] != '\n')))
            ++*line, *col = 1;
        else if (c != '\r' && (c & 0xC0) != 0x80)
            ++*col;
    }
}
