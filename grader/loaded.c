#define _GNU_SOURCE
#include "loaded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* The most a module or a cubin may have: what a runner keeps of all its
 * modules together (harness/modules.h), and more than any library the
 * grader reads (libscan's 128 MiB). */
enum { MODULE_LIMIT = 128 << 20 };

bool loaded_parse_line(LoadedModules *m, const char *key, const char *rest) {
    if (!strcmp(key, "modules")) {
        if (!strncmp(rest, "failed: ", 8)) {
            m->status = LOADED_FAILED;
            snprintf(m->why, sizeof m->why, "%s", rest + 8);
            return true;
        }
        char *end = NULL;
        long long n = strtoll(rest, &end, 10);
        if (end == rest || *end || n < 0) { /* a line the judge never writes: nothing proven */
            m->status = LOADED_FAILED;
            snprintf(m->why, sizeof m->why, "the judge's record of them is unreadable: '%.80s'", rest);
            return true;
        }
        m->loaded += n;
        if (m->status == LOADED_NONE) m->status = LOADED_RECORDED;
        return true;
    }
    if (strcmp(key, "module")) return false;
    int i = m->n++;
    if (i >= MAX_LOADED_MODULES) return true; /* counted: loaded_complete says no */
    int number = 0, at = 0;
    long long bytes = -1;
    if (sscanf(rest, "%d %lld %n", &number, &bytes, &at) < 2 || !at) bytes = -1;
    m->bytes[i] = bytes;
    const char *path = at ? rest + at : "-";
    m->path[i][0] = '\0';
    if (strcmp(path, "-") && strlen(path) < sizeof m->path[i]) snprintf(m->path[i], sizeof m->path[i], "%s", path);
    return true;
}

bool loaded_complete(const LoadedModules *m) {
    if (m->n > MAX_LOADED_MODULES || m->n != m->loaded) return false;
    for (int i = 0; i < m->n; i++)
        if (!m->path[i][0] || m->bytes[i] <= 0) return false;
    return true;
}

/* The size of a regular file, or -1 with error set. */
static long long file_size(const char *path) {
    struct stat st;
    if (stat(path, &st) < 0) return error("cannot read %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return error("%s is not a file", path);
    return (long long)st.st_size;
}

int loaded_foreign(const LoadedModules *m, const StrList *cubins) {
    int n = m->n < MAX_LOADED_MODULES ? m->n : MAX_LOADED_MODULES;
    for (int i = 0; i < n; i++) {
        long long size = file_size(m->path[i]);
        if (size < 0) return -2;
        if (size != m->bytes[i]) { /* the judge wrote what it said: a different size is not its file */
            error("%s has %lld bytes, not the %lld the judge wrote", m->path[i], size, m->bytes[i]);
            return -2;
        }
        size_t len = 0;
        char *module = read_file_max(m->path[i], MODULE_LIMIT, &len);
        if (!module) return -2;
        bool found = false;
        for (int k = 0; k < cubins->count && !found; k++) {
            if (file_size(cubins->items[k]) != size) continue; /* sizes first: most differ */
            size_t clen = 0;
            char *cubin = read_file_max(cubins->items[k], MODULE_LIMIT, &clen);
            found = cubin && clen == len && !memcmp(cubin, module, len);
            free(cubin);
        }
        free(module);
        if (!found) return i;
    }
    return -1;
}

