#define _GNU_SOURCE
#include "sass.h"

#include <stdio.h>
#include <string.h>

static bool is_upper_or_digit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

bool sass_instruction(const char *line, size_t len, char *out, size_t size) {
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    /* the address: a comment of hex digits, "/" "*" "0110" "*" "/" */
    if (end - p < 5 || p[0] != '/' || p[1] != '*') return false;
    p += 2;
    const char *digits = p;
    while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) p++;
    if (p == digits || end - p < 2 || p[0] != '*' || p[1] != '/') return false;
    p += 2;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p < end && *p == '@') { /* a predicate: @P0, @!PT, @UP1 */
        while (p < end && *p != ' ' && *p != '\t') p++;
        while (p < end && (*p == ' ' || *p == '\t')) p++;
    }
    const char *start = p;
    if (p >= end || !(*p >= 'A' && *p <= 'Z')) return false;
    while (p < end && (is_upper_or_digit(*p) || *p == '.' || (*p >= 'a' && *p <= 'z'))) p++;
    if (p < end && *p != ' ' && *p != '\t' && *p != ';') return false;
    size_t n = (size_t)(p - start);
    if (n + 1 > size) return false;
    memcpy(out, start, n);
    out[n] = '\0';
    return true;
}

/* The next dot-separated part of s at *pos into part; false at the end. */
static bool next_part(const char *s, size_t *pos, const char **part, size_t *n) {
    if (!s[*pos]) return false;
    *part = s + *pos;
    *n = strcspn(*part, ".");
    *pos += *n + ((*part)[*n] == '.');
    return true;
}

bool sass_matches(const char *instruction, const char *pattern) {
    size_t ip = 0, pp = 0, in = 0, pn = 0;
    const char *i, *p;
    if (!next_part(instruction, &ip, &i, &in) || !next_part(pattern, &pp, &p, &pn)) return false;
    if (in != pn || memcmp(i, p, in)) return false; /* the opcode, exactly */
    while (next_part(pattern, &pp, &p, &pn)) {
        bool found = false;
        while (!found && next_part(instruction, &ip, &i, &in)) found = in == pn && !memcmp(i, p, in);
        if (!found) return false;
    }
    return true;
}

bool sass_find(const char *sass, const char *pattern, char *out, size_t size) {
    char instruction[128];
    for (const char *line = sass; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (sass_instruction(line, len, instruction, sizeof instruction) && sass_matches(instruction, pattern)) {
            if (size) {
                strncpy(out, instruction, size - 1);
                out[size - 1] = '\0';
            }
            return true;
        }
        line = nl ? nl + 1 : NULL;
    }
    return false;
}

/* Whether instruction matches one of n patterns. */
static bool matches_any(const char *instruction, char *const *patterns, int n) {
    for (int i = 0; i < n; i++)
        if (sass_matches(instruction, patterns[i])) return true;
    return false;
}

/* The name after "Function : " on a line of cuobjdump -sass, into out;
 * false for any other line. */
static bool function_header(const char *line, size_t len, char *out, size_t size) {
    static const char mark[] = "Function : ";
    const char *p = memmem(line, len, mark, sizeof mark - 1);
    if (!p) return false;
    p += sizeof mark - 1;
    size_t n = len - (size_t)(p - line);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r')) n--;
    if (n + 1 > size) n = size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

/* One function's walk (see sass_around): how far each side has come. */
typedef struct {
    bool inside;       /* an instruction of `inside` seen */
    int before;        /* sides seen, in order, before the first of them */
    int after;         /* sides seen, in order, after the latest of them */
    bool exited;       /* an EXIT came after the latest of them before its sides were all there */
    char first[128];   /* the first of them, for the message */
} AroundWalk;

/* What an ended function's walk says; its name stays in function. */
static SassAround around_verdict(const AroundWalk *w, int n_side, char *instruction, size_t isize) {
    if (!w->inside) return SASS_AROUND_OK;
    if (isize) snprintf(instruction, isize, "%s", w->first);
    if (w->before < n_side) return SASS_AROUND_BEFORE;
    if (w->after < n_side) return SASS_AROUND_AFTER;
    return SASS_AROUND_OK;
}

SassAround sass_around(const char *sass, char *const *inside, int n_inside, char *const *side, int n_side,
                       char *function, size_t fsize, char *instruction, size_t isize) {
    AroundWalk w = {0};
    char name[256] = "", ins[128];
    for (const char *line = sass, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char next[sizeof name];
        if (function_header(line, len, next, sizeof next)) { /* the function before it ends */
            SassAround v = around_verdict(&w, n_side, instruction, isize);
            if (v != SASS_AROUND_OK) {
                if (fsize) snprintf(function, fsize, "%s", name);
                return v;
            }
            memset(&w, 0, sizeof w);
            memcpy(name, next, sizeof name);
            continue;
        }
        if (!sass_instruction(line, len, ins, sizeof ins)) continue;
        if (matches_any(ins, inside, n_inside)) {
            if (!w.inside) snprintf(w.first, sizeof w.first, "%s", ins);
            w.inside = true;
            w.after = 0, w.exited = false; /* only what follows the last one counts */
        } else if (!w.inside && w.before < n_side && sass_matches(ins, side[w.before])) {
            w.before++;
        } else if (w.inside && !w.exited && w.after < n_side && sass_matches(ins, side[w.after])) {
            w.after++;
        } else if (w.inside && w.after < n_side && sass_matches(ins, "EXIT")) {
            w.exited = true; /* a way out before the sides: they must come before the first EXIT */
        }
    }
    SassAround v = around_verdict(&w, n_side, instruction, isize);
    if (v != SASS_AROUND_OK && fsize) snprintf(function, fsize, "%s", name);
    return v;
}
