#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char last_error_buf[2048];

int error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error_buf, sizeof last_error_buf, fmt, ap);
    va_end(ap);
    return -1;
}

const char *last_error(void) { return last_error_buf[0] ? last_error_buf : "unknown error"; }

static void out_of_memory(void) {
    fputs("gpucourse: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) out_of_memory();
    return p;
}

void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory();
    return p;
}

void *xrealloc(void *p, size_t size) {
    p = realloc(p, size ? size : 1);
    if (!p) out_of_memory();
    return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s;
    if (vasprintf(&s, fmt, ap) < 0) out_of_memory();
    va_end(ap);
    return s;
}

void sb_add(StrBuf *sb, const char *data, size_t len) {
    if (sb->len + len + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 256;
        while (cap < sb->len + len + 1) cap *= 2;
        sb->buf = xrealloc(sb->buf, cap);
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s) { sb_add(sb, s, strlen(s)); }

void sb_printf(StrBuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) out_of_memory();
    sb_add(sb, s, (size_t)n);
    free(s);
}

char *sb_take(StrBuf *sb) {
    char *s = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return s;
}

void sb_free(StrBuf *sb) {
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

void strlist_add(StrList *l, const char *s) {
    l->items = xrealloc(l->items, sizeof(char *) * (size_t)(l->count + 1));
    l->items[l->count++] = xstrdup(s);
}

void strlist_add_words(StrList *l, const char *text) {
    char *copy = xstrdup(text ? text : ""), *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) strlist_add(l, w);
    free(copy);
}

const char **strlist_argv(const StrList *l) {
    const char **argv = xcalloc((size_t)l->count + 1, sizeof *argv);
    for (int i = 0; i < l->count; i++) argv[i] = l->items[i];
    return argv;
}

void strlist_free(StrList *l) {
    for (int i = 0; i < l->count; i++) free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        error("cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    StrBuf sb = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_add(&sb, chunk, n);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        sb_free(&sb);
        error("cannot read '%s'", path);
        return NULL;
    }
    if (len) *len = sb.len;
    return sb_take(&sb);
}

bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int make_dirs(const char *path) {
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
            error("cannot create directory '%s': %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdir(p, 0777) < 0 && errno != EEXIST) rc = error("cannot create directory '%s': %s", p, strerror(errno));
    free(p);
    return rc;
}

int write_file_atomic(const char *path, const char *data, size_t len) {
    char *tmp = xprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        error("cannot write '%s': %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    int failed = done != len || fsync(fd) < 0;
    int saved = errno;
    if (close(fd) < 0) failed = 1;
    if (failed || rename(tmp, path) < 0) {
        if (!failed) saved = errno;
        unlink(tmp);
        error("cannot write '%s': %s", path, strerror(saved));
        free(tmp);
        return -1;
    }
    free(tmp);
    /* make the rename itself durable */
    char *dir = path_dirname(path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
    return 0;
}

int copy_file(const char *from, const char *to) {
    size_t len;
    char *data = read_file(from, &len);
    if (!data) return -1;
    int rc = write_file_atomic(to, data, len);
    free(data);
    return rc;
}

char *path_join(const char *dir, const char *name) {
    if (name[0] == '/' || !dir[0]) return xstrdup(name);
    size_t n = strlen(dir);
    return xprintf("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

char *path_dirname(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return xstrdup(".");
    if (slash == path) return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

uint64_t hash_bytes(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t hash_str(uint64_t h, const char *s) { return hash_bytes(h, s, strlen(s) + 1); }

void now_iso8601(char *buf, size_t size) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char zone[8];
    strftime(zone, sizeof zone, "%z", &tm); /* +0100 -> +01:00 */
    strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    size_t n = strlen(buf);
    if (strlen(zone) == 5) snprintf(buf + n, size - n, "%.3s:%s", zone, zone + 3);
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long utf8_decode(const char *s, size_t len, size_t *n) {
    const unsigned char *p = (const unsigned char *)s;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    int more;
    long cp;
    *n = 1;
    if (p[0] < 0x80) return p[0];
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        more = 1, cp = p[0] & 0x1f;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        more = 2, cp = p[0] & 0x0f;
        if (p[0] == 0xe0) lo = 0xa0; /* below: overlong */
        if (p[0] == 0xed) hi = 0x9f; /* above: surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        more = 3, cp = p[0] & 0x07;
        if (p[0] == 0xf0) lo = 0x90; /* below: overlong */
        if (p[0] == 0xf4) hi = 0x8f; /* above: past U+10FFFF */
    } else {
        return -1; /* a continuation byte, 0xc0, 0xc1 (overlong), 0xf5 and up */
    }
    for (int i = 1; i <= more; i++) {
        if ((size_t)i >= len || p[i] < lo || p[i] > hi) {
            *n = (size_t)i; /* the lead and the good bytes so far: one U+FFFD */
            return -1;
        }
        cp = cp << 6 | (p[i] & 0x3f);
        lo = 0x80, hi = 0xbf;
    }
    *n = (size_t)more + 1;
    return cp;
}

size_t utf8_cut(const char *s, size_t len) {
    size_t i = len;
    while (i > 0 && len - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) i--;
    if (i == 0) return len;
    i--; /* the last lead byte */
    size_t n;
    unsigned char lead = (unsigned char)s[i];
    if (lead >= 0xc2 && lead <= 0xf4 && utf8_decode(s + i, len - i, &n) < 0 && n == len - i) return i;
    return len;
}

void sb_add_visible(StrBuf *sb, const char *s, size_t len) {
    for (size_t i = 0, n; i < len; i += n) {
        long cp = utf8_decode(s + i, len - i, &n);
        if (cp == '\n' || cp == '\t') sb_add(sb, s + i, 1);
        else if (cp == '\r') continue; /* "\r\n" line ends, progress lines: nothing to show */
        else if (cp < 0 || cp == 0xfffe || cp == 0xffff) sb_puts(sb, "\xef\xbf\xbd"); /* XML refuses U+FFFE, U+FFFF */
        else if (cp < 0x20 || cp == 0x7f) sb_printf(sb, "^%c", (char)(cp ^ 0x40));
        else if (cp >= 0x80 && cp < 0xa0) sb_printf(sb, "\\u%04lx", cp);
        else sb_add(sb, s + i, n);
    }
}

void fprintf_visible(FILE *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) out_of_memory();
    StrBuf sb = {0};
    sb_add_visible(&sb, s, (size_t)n);
    if (sb.len) fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    free(s);
}
