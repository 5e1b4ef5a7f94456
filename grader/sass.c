#include "sass.h"

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
