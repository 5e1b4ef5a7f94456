/* A cheap look at a YAML document before anything builds a tree of it.
 * libyaml limits nothing: an alias repeated thousands of times expands into
 * gigabytes in whoever walks the tree (billion laughs), its scanner takes
 * quadratic time in the nesting depth and its loader in the number of anchors. The guard reads the document's events
 * only (no tree) and stops at the first limit passed, or at an anchor defined
 * twice (which the loader refuses too, in words that come out garbled). */
#ifndef GPUCOURSE_YAMLGUARD_H
#define GPUCOURSE_YAMLGUARD_H

#include <stddef.h>
#include <yaml.h>

enum {
    YAML_GUARD_MAX_BYTES = 4 << 20,  /* the document, and its scalars' text once aliases are expanded */
    YAML_GUARD_MAX_DEPTH = 64,       /* nested sequences and mappings */
    YAML_GUARD_MAX_NODES = 100000,   /* nodes once aliases are expanded */
    YAML_GUARD_MAX_ANCHORS = 1000,   /* libyaml's loader looks each alias up among all anchors */
};

/* Returns 0 when data is within the limits and defines no anchor twice,
 * else -1 with "path:line:col:
 * message" in err (1-based; "line:col: message" when path is NULL) and in
 * error(). Syntax errors are left to the real parse (returns 0): everything
 * before them was checked. Only the first document is looked at, as
 * yaml_parser_load reads only that one. */
int yaml_guard_check(const char *data, size_t len, const char *path, char *err, size_t err_size);

/* The 1-based line and column of a failed parse of data. libyaml gives no
 * mark for encoding errors (invalid UTF-8, control characters), only a byte
 * offset; this finds that byte's line and column. */
void yaml_guard_error_pos(const yaml_parser_t *parser, const char *data, size_t len, size_t *line, size_t *col);

#endif
