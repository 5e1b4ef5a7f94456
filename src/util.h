/* Small helpers shared by every part: the error convention, memory, strings,
 * files and paths. */
#ifndef GPUCOURSE_UTIL_H
#define GPUCOURSE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* The error convention: a failing function calls error() to record what went
 * wrong ("cannot open 'x': No such file or directory", lowercase, no full
 * stop) and returns its result, -1. The caller that talks to the user shows
 * last_error(). Only the most recent message is kept. */
int error(const char *fmt, ...) PRINTF_LIKE(1, 2);
const char *last_error(void);

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* A growable string. */
typedef struct {
    char *buf;
    size_t len, cap;
} StrBuf;

void sb_add(StrBuf *sb, const char *data, size_t len);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
char *sb_take(StrBuf *sb); /* the string (never NULL); sb is empty again */
void sb_free(StrBuf *sb);

/* A list of owned strings. */
typedef struct {
    char **items;
    int count;
} StrList;

void strlist_add(StrList *l, const char *s);
/* Adds the words of text, split at blanks (no quoting): a command prefix set
 * in the environment. */
void strlist_add_words(StrList *l, const char *text);
/* The list as a NULL-terminated argv for proc_run (malloc'd; the strings
 * stay the list's). */
const char **strlist_argv(const StrList *l);
void strlist_free(StrList *l);

/* Files. The most that read_file and copy_file take: far more than any
 * source, lesson or log, and a bound on what a bad file costs in memory or
 * disk (a sparse 30 GB file takes no room on disk). */
enum { FILE_SIZE_LIMIT = 64 << 20 };
/* The file's contents, NUL-terminated (len: their length without the NUL);
 * NULL (error set) when the file cannot be read. */
char *read_file(const char *path, size_t *len);
/* read_file, or NULL (error set) when the file has more than max bytes:
 * errno is then EFBIG and *len the size seen (0 when the file has no size, a
 * pipe or a device, and its read was stopped past max). The size is looked at
 * before anything is read, and the read stops past max bytes. A pipe with no
 * writer is read as empty rather than waited on. */
char *read_file_max(const char *path, size_t max, size_t *len);
/* read_file_max of a regular file only: a final link is not followed, and a
 * pipe, a device or a directory is refused (error set) without waiting on it. */
char *read_regular_file(const char *path, size_t max, size_t *len);
/* Why a file of size bytes (0: not known, only that it went past max) is
 * refused: "the file has N bytes, more than the limit of 4 MiB" (malloc'd). */
char *too_large_reason(uintmax_t size, size_t max);
bool file_exists(const char *path);
bool dir_exists(const char *path);
int make_dirs(const char *path); /* mkdir -p */
/* Writes through a temporary file, fsync and rename: readers see the old
 * contents or the new, never half. A file replaced keeps its mode; a new one
 * gets the umask's. */
int write_file_atomic(const char *path, const char *data, size_t len);
/* write_file_atomic of from's contents, read in chunks (FILE_SIZE_LIMIT at
 * most: a larger file is refused before anything is written). */
int copy_file(const char *from, const char *to);
/* Writes all of data to fd (through EINTR and short writes); -1 with errno. */
int write_all(int fd, const char *data, size_t len);
char *path_join(const char *dir, const char *name);
/* Whether path, links followed, is dir or lies below it: both resolved
 * (realpath), false when either does not exist. What keeps a link in a
 * directory a student fills from leading out of it. */
bool path_within(const char *path, const char *dir);
char *path_dirname(const char *path);

/* FNV-1a: fast, for tables and names. Never for what decides trust: a
 * second input with a given FNV hash takes seconds to make. */
uint64_t hash_bytes(uint64_t h, const void *data, size_t len);
uint64_t hash_str(uint64_t h, const char *s);
#define HASH_INIT 0xcbf29ce484222325ull

/* What decides trust (a build's key, a built file's contents in a build
 * record): SHA-256 of d (8 bytes, big-endian) and the data, its first 64
 * bits; chained as hash_bytes is. A second input with the same digest
 * (2^64 tries) cannot be made. */
uint64_t digest_bytes(uint64_t d, const void *data, size_t len);
uint64_t digest_str(uint64_t d, const char *s);
/* SHA-256 of data (FIPS 180-4). */
void sha256(const void *data, size_t len, unsigned char out[32]);

/* How far a typo is from a name: letters dropped, added, replaced or two
 * neighbours swapped, ignoring case; INT_MAX past 64 characters. */
int edit_distance(const char *a, const char *b);

/* Local time as 2026-11-22T10:04:05+01:00. */
void now_iso8601(char *buf, size_t size);
double now_seconds(void); /* monotonic */
/* A number of seconds from the environment variable NAME: FALLBACK when it
 * is unset or empty; digits with an optional fraction, more than 0 and at
 * most MAX, else an error naming it (-1). */
int env_seconds(const char *name, double fallback, double max, double *out);


/* UTF-8. utf8_decode reads the character at s (len > 0 bytes): its code
 * point, *n its length; or -1 for bytes that are not UTF-8 (a stray byte, an
 * overlong form, a surrogate, past U+10FFFF, a character cut short), *n then
 * the bytes that one U+FFFD stands for. */
long utf8_decode(const char *s, size_t len, size_t *n);
/* Where a capped text ends without half a character: len, or less when
 * s[0..len) ends in a character cut short. */
size_t utf8_cut(const char *s, size_t len);
/* Appends compiler or program output made harmless to show on a terminal
 * (where ESC could clear the screen or retitle the window) or in XML 1.0:
 * valid UTF-8, U+FFFD for what is not, control characters in caret notation
 * (ESC as ^[, BEL as ^G, DEL as ^?), C1 controls as \u0080, \r dropped;
 * \n and \t kept. */
void sb_add_visible(StrBuf *sb, const char *s, size_t len);
/* fprintf, all of what it prints made harmless as by sb_add_visible: for
 * text from course files or from programs (a title, a hint, a build log). */
void fprintf_visible(FILE *out, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Text fitted to the screen: the command line's one way to wrap.
 * output_width: the columns to fit out's lines to: the terminal's width when
 * out is a terminal, else 80 (a pipe, a file, a CI log: the same lines
 * everywhere, and the width the course's texts are written for). */
int output_width(FILE *out);
/* Where a line broken by sb_add_wrapped goes on: at column hang (>= 0), or
 * as it says (its first line as it was, a column found in it). */
enum {
    WRAP_PROSE = -1,  /* under its own start: its leading blanks and a list marker ("- ", "1. ", "| ") */
    WRAP_LABELS = -2, /* under the text after its label: "  compile    ok", "To pass:    ...",
                         "SKIPPED ex01: ..."; else as WRAP_PROSE */
};
/* Appends text made visible (as sb_add_visible) with each of its lines
 * broken at blanks so that none is wider than width columns where its words
 * allow (a longer word, a path, stays whole on a line of its own). Lines
 * that fit are kept as they are. */
void sb_add_wrapped(StrBuf *sb, const char *text, size_t len, int width, int hang);
/* fprintf_visible, each line wrapped to output_width(out) as sb_add_wrapped does. */
void fprintf_wrapped(FILE *out, int hang, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
