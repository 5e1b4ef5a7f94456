#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

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

char *too_large_reason(uintmax_t size, size_t max) {
    char *limit = max % (1 << 20) ? xprintf("%zu bytes", max) : xprintf("%zu MiB", max >> 20);
    char *why = size ? xprintf("the file has %ju bytes, more than the limit of %s", size, limit)
                     : xprintf("the file has more than the limit of %s", limit);
    free(limit);
    return why;
}

/* Opens path to read; O_NONBLOCK so that a pipe with no writer is not waited
 * on (regular files ignore it). -1 with error set, else the fd and *st. */
static int open_to_read(const char *path, struct stat *st) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return error("cannot open '%s': %s", path, strerror(errno));
    if (fstat(fd, st) < 0) {
        int saved = errno;
        close(fd);
        return error("cannot read '%s': %s", path, strerror(saved));
    }
    return fd;
}

/* A read that goes on after EINTR. */
static ssize_t read_some(int fd, char *buf, size_t size) {
    ssize_t n;
    while ((n = read(fd, buf, size)) < 0 && errno == EINTR) continue;
    return n;
}

/* Refuses a file larger than max (size 0: not known): NULL, errno EFBIG. */
static char *refuse_large(const char *path, uintmax_t size, size_t max, size_t *len) {
    char *why = too_large_reason(size, max);
    error("cannot read '%s': %s", path, why);
    free(why);
    if (len) *len = (size_t)(size < SIZE_MAX ? size : SIZE_MAX);
    errno = EFBIG;
    return NULL;
}

char *read_file(const char *path, size_t *len) { return read_file_max(path, FILE_SIZE_LIMIT, len); }

/* What fd (open to read, st its fstat) holds, at most max bytes; fd closed
 * here. */
static char *read_open(int fd, const struct stat *st, const char *path, size_t max, size_t *len) {
    /* before any read: a sparse 30 GB file costs nothing to look at, everything to read */
    if (S_ISREG(st->st_mode) && (uintmax_t)st->st_size > max) {
        close(fd);
        return refuse_large(path, (uintmax_t)st->st_size, max, len);
    }
    StrBuf sb = {0};
    char chunk[65536];
    ssize_t n;
    /* at most max + 1 bytes: a file may grow meanwhile, a device never end */
    while ((n = read_some(fd, chunk, sb.len + sizeof chunk > max + 1 ? max + 1 - sb.len : sizeof chunk)) > 0) {
        if (sb.len + (size_t)n > max) {
            close(fd);
            sb_free(&sb);
            return refuse_large(path, 0, max, len);
        }
        sb_add(&sb, chunk, (size_t)n);
    }
    int saved = errno;
    close(fd);
    if (n < 0) {
        sb_free(&sb);
        error("cannot read '%s': %s", path, strerror(saved));
        return NULL;
    }
    if (len) *len = sb.len;
    return sb_take(&sb);
}

char *read_file_max(const char *path, size_t max, size_t *len) {
    if (len) *len = 0;
    struct stat st;
    int fd = open_to_read(path, &st);
    if (fd < 0) return NULL;
    return read_open(fd, &st, path, max, len);
}

char *read_regular_file(const char *path, size_t max, size_t *len) {
    if (len) *len = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    const char *why = fd < 0 || fstat(fd, &st) < 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
    if (why) {
        error("cannot read '%s': %s", path, why);
        if (fd >= 0) close(fd);
        return NULL;
    }
    return read_open(fd, &st, path, max, len);
}

bool path_within(const char *path, const char *dir) {
    char *real = realpath(path, NULL), *top = realpath(dir, NULL);
    size_t n = top ? strlen(top) : 0;
    bool in = real && top && (!strcmp(top, "/") || (!strncmp(real, top, n) && (real[n] == '/' || !real[n])));
    free(real);
    free(top);
    return in;
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

/* The temporary file that write_file_atomic and copy_file fill and rename
 * onto path, created afresh (a stale one of the same name may have another
 * mode). It gets the mode of the file it replaces, or the umask's for a new
 * one: a 0600 file is never replaced by a 0644 one. -1 (error set), else the
 * fd and *tmp (malloc'd). */
static int open_temp(const char *path, char **tmp) {
    *tmp = xprintf("%s.tmp.%ld", path, (long)getpid());
    struct stat old;
    bool replaces = stat(path, &old) == 0;
    unlink(*tmp);
    /* owner-only until its mode is set: its contents are never readable wider than the old file's */
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replaces ? 0600 : 0666);
    if (fd < 0) {
        error("cannot write '%s': %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    if (replaces) (void)fchmod(fd, old.st_mode & 0777); /* best effort: 0600 when it fails */
    return fd;
}

int write_all(int fd, const char *data, size_t len) {
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Ends open_temp's file: fsync, close and rename onto path. When failed is
 * set it is removed instead: failed is the write's errno, or -1 when the
 * caller has said why already. Frees tmp. */
static int finish_temp(int fd, char *tmp, const char *path, int failed) {
    if (!failed && fsync(fd) < 0) failed = errno;
    if (close(fd) < 0 && !failed) failed = errno;
    if (!failed && rename(tmp, path) < 0) failed = errno;
    if (failed) {
        unlink(tmp);
        free(tmp);
        return failed < 0 ? -1 : error("cannot write '%s': %s", path, strerror(failed));
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

int write_file_atomic(const char *path, const char *data, size_t len) {
    char *tmp;
    int fd = open_temp(path, &tmp);
    if (fd < 0) return -1;
    return finish_temp(fd, tmp, path, write_all(fd, data, len) < 0 ? errno : 0);
}

/* copy_file's refusal of a file larger than FILE_SIZE_LIMIT (size 0: not known). */
static int refuse_copy(const char *from, uintmax_t size) {
    char *why = too_large_reason(size, FILE_SIZE_LIMIT);
    error("cannot copy '%s': %s", from, why);
    free(why);
    return -1;
}

int copy_file(const char *from, const char *to) {
    struct stat st;
    int in = open_to_read(from, &st);
    if (in < 0) return -1;
    int rc = 0;
    if (!S_ISREG(st.st_mode)) rc = error("cannot copy '%s': not a regular file", from);
    else if ((uintmax_t)st.st_size > FILE_SIZE_LIMIT) rc = refuse_copy(from, (uintmax_t)st.st_size); /* nothing written */
    char *tmp = NULL;
    int out = rc == 0 ? open_temp(to, &tmp) : -1;
    if (out < 0) {
        close(in);
        return -1;
    }
    /* in chunks: memory stays small whatever the file */
    char chunk[65536];
    size_t total = 0;
    int failed = 0;
    ssize_t n;
    while (!failed && (n = read_some(in, chunk, sizeof chunk)) != 0) {
        if (n < 0) failed = error("cannot read '%s': %s", from, strerror(errno));
        else if ((total += (size_t)n) > FILE_SIZE_LIMIT) failed = refuse_copy(from, 0); /* it grew */
        else if (write_all(out, chunk, (size_t)n) < 0) failed = errno;
    }
    close(in);
    return finish_temp(out, tmp, to, failed);
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

/* SHA-256: Nettle's (linked in statically, as libyaml is). */
void sha256(const void *data, size_t len, unsigned char out[32]) {
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, len, data);
    sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

uint64_t digest_bytes(uint64_t d, const void *data, size_t len) {
    unsigned char head[8], out[SHA256_DIGEST_SIZE];
    for (int i = 0; i < 8; i++) head[i] = (unsigned char)(d >> (56 - 8 * i));
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, sizeof head, head);
    sha256_update(&c, len, data);
    sha256_digest(&c, sizeof out, out);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | out[i];
    return v;
}

uint64_t digest_str(uint64_t d, const char *s) { return digest_bytes(d, s, strlen(s) + 1); }

/* Edit distance, ignoring case: letters dropped, added, replaced, and two
 * neighbours swapped ("shwo" is 1 from "show"), each 1; INT_MAX for strings
 * too long to be a typo of a name. */
int edit_distance(const char *a, const char *b) {
    enum { MAX_LEN = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX_LEN || lb > MAX_LEN) return INT_MAX;
    int x[MAX_LEN], y[MAX_LEN];
    for (size_t i = 0; i < la; i++) x[i] = tolower((unsigned char)a[i]);
    for (size_t j = 0; j < lb; j++) y[j] = tolower((unsigned char)b[j]);
    /* rows i-2, i-1 and i of the table whose [i][j] is the distance from
     * a[0..i) to b[0..j) */
    int before[MAX_LEN + 1], above[MAX_LEN + 1], row[MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++) above[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int change = above[j - 1] + (x[i - 1] != y[j - 1]);         /* keep or replace */
            int d = above[j] + 1;                                         /* drop a[i-1] */
            if (row[j - 1] + 1 < d) d = row[j - 1] + 1;                   /* add b[j-1] */
            if (change < d) d = change;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] && before[j - 2] + 1 < d)
                d = before[j - 2] + 1;                                    /* swap a[i-2] and a[i-1] */
            row[j] = d;
        }
        memcpy(before, above, sizeof above);
        memcpy(above, row, sizeof row);
    }
    return above[lb];
}

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

int env_seconds(const char *name, double fallback, double max, double *out) {
    const char *set = getenv(name);
    *out = fallback;
    if (!set || !*set) return 0;
    size_t digits = strspn(set, "0123456789");
    const char *rest = set + digits;
    if (*rest == '.') rest += 1 + strspn(rest + 1, "0123456789");
    double s = digits && !*rest ? strtod(set, NULL) : 0;
    if (!(s > 0 && s <= max))
        return error("%s='%.40s' is not a number of seconds from more than 0 to %g", name, set, max);
    *out = s;
    return 0;
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

int output_width(FILE *out) {
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return 80;
}

/* Columns of s[0..len): one a character (the course's texts and ours are
 * not wide script), a tab to the next multiple of 8 from col. */
static int columns(const char *s, size_t len, int col) {
    int at = col;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\t') at = (at / 8 + 1) * 8;
        else if (((unsigned char)s[i] & 0xc0) != 0x80) at++;
    }
    return at - col;
}

/* Where line's broken lines go on (sb_add_wrapped's hang). */
static int hang_of(const char *line, size_t len, int width, int hang) {
    if (hang >= 0) return hang < width - 20 ? hang : 0;
    size_t lead = strspn(line, " ");
    if (lead > len) lead = len;
    size_t at = lead, marker = 0;
    if (at + 1 < len && strchr("-*+|", line[at]) && line[at + 1] == ' ') marker = 2; /* | : a quoted log */
    size_t digits = strspn(line + at, "0123456789");
    if (digits && at + digits + 1 < len && strchr(".)", line[at + digits]) && line[at + digits + 1] == ' ')
        marker = digits + 2;
    int prose = columns(line, lead + marker, 0);
    if (hang == WRAP_LABELS && !marker) {
        /* a label's column: text after the last run of 2 or more blanks that
         * starts in the first 40 columns; else after a "label: " there */
        int label = -1;
        for (size_t i = lead; i + 2 < len && columns(line, i, 0) < 40; i++)
            if (line[i] != ' ' && line[i + 1] == ' ' && line[i + 2] == ' ') {
                size_t j = i + 1 + strspn(line + i + 1, " ");
                if (j < len) label = columns(line, j, 0);
            }
        for (size_t i = lead; label < 0 && i + 1 < len && columns(line, i, 0) < 40; i++)
            if (line[i] == ':' && line[i + 1] == ' ') label = columns(line, i + 2, 0);
        if (label > 0) prose = label;
    }
    return prose < width - 20 ? prose : 0;
}

/* One line (no newline) into sb, broken at blanks to width columns. */
static void add_wrapped_line(StrBuf *sb, const char *line, size_t len, int width, int hang) {
    if (columns(line, len, 0) <= width) { /* as it is, trailing blanks too */
        sb_add(sb, line, len);
        return;
    }
    while (len && line[len - 1] == ' ') len--; /* trailing blanks: nothing to show, and no line to break */
    int go_on = hang_of(line, len, width, hang);
    size_t i = strspn(line, " ");
    if (i > len) i = len;
    sb_add(sb, line, i);
    int col = columns(line, i, 0);
    bool line_start = true; /* nothing but the indent on this line yet */
    while (i < len) {
        size_t blanks = i;
        while (i < len && line[i] == ' ') i++;
        size_t word = i;
        while (i < len && line[i] != ' ') i++;
        int word_cols = columns(line + word, i - word, col + (int)(word - blanks));
        if (!line_start && col + (int)(word - blanks) + word_cols > width) {
            sb_printf(sb, "\n%*s", go_on, "");
            col = go_on;
        } else {
            sb_add(sb, line + blanks, word - blanks);
            col += (int)(word - blanks);
        }
        sb_add(sb, line + word, i - word);
        col += word_cols;
        line_start = false;
    }
}

void sb_add_wrapped(StrBuf *sb, const char *text, size_t len, int width, int hang) {
    StrBuf shown = {0};
    sb_add_visible(&shown, text, len);
    for (size_t at = 0; at < shown.len;) {
        size_t n = strcspn(shown.buf + at, "\n");
        add_wrapped_line(sb, shown.buf + at, n, width, hang);
        at += n;
        if (at < shown.len) sb_add(sb, "\n", 1), at++;
    }
    sb_free(&shown);
}

void fprintf_wrapped(FILE *out, int hang, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) out_of_memory();
    StrBuf sb = {0};
    sb_add_wrapped(&sb, s, (size_t)n, output_width(out), hang);
    if (sb.len) fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    free(s);
}
