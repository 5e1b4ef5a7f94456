#define _GNU_SOURCE
#include "libcache.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/util.h"

/* A library larger than this is compiled each time rather than read whole to be hashed. */
enum { LIBRARY_HASH_LIMIT = 64 << 20, SOURCE_LIMIT = 16 << 20 };

static const char record_magic[] = "gpucourse build 1";

/* The user's directory of build records, or NULL where there is none. */
static char *records_dir(void) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/') return xprintf("%s/gpucourse/builds", xdg);
    if (home && home[0] == '/') return xprintf("%s/.cache/gpucourse/builds", home);
    return NULL;
}

/* The record's path for this library, or NULL where there is no cache directory. */
static char *record_path(const char *library) {
    char *dir = records_dir();
    if (!dir) return NULL;
    char *real = realpath(library, NULL);
    uint64_t h = hash_str(HASH_INIT, real ? real : library);
    free(real);
    const char *base = strrchr(library, '/');
    char *path = xprintf("%s/%016llx-%s.record", dir, (unsigned long long)h, base ? base + 1 : library);
    free(dir);
    return path;
}

static bool library_hash(const char *library, uint64_t *h) {
    size_t len = 0;
    char *data = read_file_max(library, LIBRARY_HASH_LIMIT, &len);
    if (!data) return false;
    *h = digest_bytes(HASH_INIT, data, len); /* what decides trust: a digest, not FNV */
    free(data);
    return true;
}

/* The directive's name after '#' and blanks, at p; the end of the line. */
static bool directive_ok(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    size_t n = 0;
    while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_')) n++;
    bool include = (n == 7 && !strncmp(p, "include", 7)) || (n == 12 && !strncmp(p, "include_next", 12)) ||
                   (n == 6 && !strncmp(p, "import", 6));
    if (n == 5 && !strncmp(p, "embed", 5)) return false;
    if (!include) return true;
    p += n;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p >= end || *p != '<' || p[1] == '/') return false; /* "local.h", a macro, an absolute path */
    const char *close = memchr(p, '>', (size_t)(end - p));
    if (!close) return false;
    for (const char *q = p; q + 1 < close; q++)
        if (q[0] == '.' && q[1] == '.') return false;
    return true;
}

bool libcache_self_contained(const char *text, size_t len) {
    const char *end = text + len;
    if (memmem(text, len, "\\\n", 2) || memmem(text, len, "\\\r\n", 3) || memmem(text, len, "incbin", 6) ||
        memmem(text, len, "__has_include", 13) || memmem(text, len, "?" "?=", 3))
        return false; /* a splice, a binary pulled in by the assembler, a trigraph of '#' */
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end, *p = line;
        while (p < stop && (*p == ' ' || *p == '\t')) p++;
        /* a directive may also follow a comment on its line: any '#' (or its digraph %:) counts */
        for (const char *h = p; h < stop; h++)
            if ((*h == '#' && !directive_ok(h + 1, stop)) || (h + 1 < stop && h[0] == '%' && h[1] == ':' && !directive_ok(h + 2, stop)))
                return false;
        line = nl ? nl + 1 : end;
    }
    return true;
}

static bool source_self_contained(const char *source) {
    size_t len = 0;
    char *text = read_file_max(source, SOURCE_LIMIT, &len);
    bool ok = text && libcache_self_contained(text, len);
    free(text);
    return ok;
}

bool libcache_lookup(const char *source, const char *library, uint64_t key, char **log, unsigned *repairs) {
    *log = NULL;
    *repairs = 0;
    char *path = record_path(library);
    if (!path) return false;
    size_t len = 0;
    char *record = read_file_max(path, 1 << 20, &len);
    free(path);
    unsigned long long want_key = 0, want_library = 0;
    unsigned bits = 0;
    uint64_t have_library = 0;
    const char *body = record ? memchr(record, '\n', len) : NULL;
    bool ok = body && !strncmp(record, record_magic, sizeof record_magic - 1) &&
              sscanf(record + sizeof record_magic - 1, " %llx %llx %x", &want_key, &want_library, &bits) == 3 &&
              want_key == key && source_self_contained(source) && library_hash(library, &have_library) &&
              have_library == want_library;
    if (ok) {
        *log = xstrdup(body + 1);
        *repairs = bits;
    }
    free(record);
    return ok;
}

void libcache_store(const char *source, const char *library, uint64_t key, const char *log, unsigned repairs) {
    char *path = record_path(library);
    uint64_t lib = 0;
    if (path && source_self_contained(source) && library_hash(library, &lib)) {
        char *dir = path_dirname(path);
        char *text = xprintf("%s %016llx %016llx %x\n%s", record_magic, (unsigned long long)key,
                             (unsigned long long)lib, repairs, log ? log : "");
        if (make_dirs(dir) == 0) write_file_atomic(path, text, strlen(text));
        free(text);
        free(dir);
    }
    free(path);
}

/* The SASS beside the record: the library's hash on its first line. */
static char *sass_path(const char *library) {
    char *record = record_path(library);
    char *path = record ? xprintf("%s.sass", record) : NULL;
    free(record);
    return path;
}

char *libcache_sass(const char *library) {
    char *path = sass_path(library);
    size_t len = 0;
    char *kept = path ? read_file_max(path, (16 << 20) + 64, &len) : NULL;
    free(path);
    unsigned long long want = 0;
    uint64_t have = 0;
    const char *body = kept ? memchr(kept, '\n', len) : NULL;
    char *sass = NULL;
    if (body && sscanf(kept, "%llx", &want) == 1 && library_hash(library, &have) && have == want)
        sass = xstrdup(body + 1);
    free(kept);
    return sass;
}

void libcache_store_sass(const char *library, const char *sass) {
    char *path = sass_path(library);
    uint64_t lib = 0;
    if (path && library_hash(library, &lib)) {
        char *dir = path_dirname(path);
        char *text = xprintf("%016llx\n%s", (unsigned long long)lib, sass);
        if (make_dirs(dir) == 0) write_file_atomic(path, text, strlen(text));
        free(text);
        free(dir);
    }
    free(path);
}

/* A course part's record: its build key and the hash of what that build
 * wrote, in the name; nothing in it. */
static char *part_record(const char *output, uint64_t key) {
    char *dir = records_dir();
    uint64_t h = 0;
    char *path = dir && library_hash(output, &h)
                     ? xprintf("%s/part-%016llx-%016llx", dir, (unsigned long long)key, (unsigned long long)h)
                     : NULL;
    free(dir);
    return path;
}

bool libcache_part_built(const char *output, uint64_t key) {
    char *path = file_exists(output) ? part_record(output, key) : NULL;
    bool built = path && access(path, F_OK) == 0;
    free(path);
    return built;
}

void libcache_store_part(const char *output, uint64_t key) {
    char *path = part_record(output, key);
    char *dir = path ? path_dirname(path) : NULL;
    if (dir && make_dirs(dir) == 0) write_file_atomic(path, "", 0);
    free(dir);
    free(path);
}
