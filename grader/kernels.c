#include "kernels.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/util.h"

/* One <length><identifier> at *p; false when there is none. */
static bool source_name(const char **p, char *buf, size_t size, size_t *len) {
    if (!isdigit((unsigned char)**p)) return false;
    char *end;
    long n = strtol(*p, &end, 10);
    if (n <= 0 || strlen(end) < (size_t)n) return false;
    *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "%.*s", (int)n, end);
    *p = end + n;
    return true;
}

/* Template arguments after 'I' up to the matching 'E': integers shown, anything else as "..". */
static void template_args(const char **p, char *buf, size_t size, size_t *len) {
    const char *s = *p + 1;
    int depth = 1, shown = 0;
    *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "<");
    while (*s && depth > 0) {
        if (*s == 'L' && depth == 1) { /* L <type> <number> E: a literal */
            const char *q = s + 1;
            while (*q && !isdigit((unsigned char)*q) && *q != 'n' && *q != 'E') q++;
            const char *num = q;
            bool neg = *q == 'n';
            if (neg) q++;
            while (isdigit((unsigned char)*q)) q++;
            if (*q == 'E' && q > num) {
                *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "%s%s%.*s", shown++ ? ", " : "",
                                         neg ? "-" : "", (int)(q - num - neg), num + neg);
                s = q + 1;
                continue;
            }
        }
        if (*s == 'I' || *s == 'N') depth++;
        else if (*s == 'E') depth--;
        if (depth == 1 && *s != 'E' && !shown++)
            *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "..");
        s++;
    }
    *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, ">");
    *p = s;
}

void kernel_name(const char *mangled, char *buf, size_t size) {
    snprintf(buf, size, "%s", mangled);
    if (strncmp(mangled, "_Z", 2)) return;
    const char *p = mangled + 2;
    char out[256];
    size_t len = 0;
    out[0] = '\0';
    if (*p == 'N') { /* nested: names until E */
        p++;
        while (*p == 'K' || *p == 'V' || *p == 'r') p++;
        for (int k = 0; *p && *p != 'E'; k++) {
            size_t mark = len;
            if (k) len += (size_t)snprintf(out + len, len < sizeof out ? sizeof out - len : 0, "::");
            if (!source_name(&p, out, sizeof out, &len)) return;
            if (strstr(out + mark, "_GLOBAL__N_")) { /* an anonymous namespace: left out */
                len = mark;
                out[len] = '\0';
                k = -1;
                continue;
            }
            if (*p == 'I') template_args(&p, out, sizeof out, &len);
        }
    } else {
        if (!source_name(&p, out, sizeof out, &len)) return;
        if (*p == 'I') template_args(&p, out, sizeof out, &len);
    }
    if (len < sizeof out) snprintf(buf, size, "%s", out);
}

/* ptxas's "(C75..) Potential Performance Loss: wgmma.mma_async instructions are
 * serialized due to ... in the function 'NAME'": the code into code, NAME made
 * readable into name. It comes before that function's "Compiling entry
 * function" line, so it is matched by name once all are read. */
static bool serialized_line(const char *info, char code[8], char *name, size_t nsize) {
    const char *c = strstr(info, "(C75"), *f = strstr(info, "in the function '");
    if (!c || !f || !strstr(info, "wgmma") || !strstr(info, "serialized")) return false;
    char mangled[256];
    if (sscanf(c, "(%7[A-Z0-9])", code) != 1 || sscanf(f, "in the function '%255[^']'", mangled) != 1) return false;
    kernel_name(mangled, name, nsize);
    return true;
}

int kernels_parse(const char *log, KernelInfo *out, int max) {
    int n = 0;
    KernelInfo *cur = NULL;
    struct {
        char code[8], name[96];
    } serialized[MAX_KERNELS];
    int nserialized = 0;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), line);
        const char *info = strstr(text, "ptxas info    : ");
        char name[256];
        if (info && nserialized < MAX_KERNELS &&
            serialized_line(info, serialized[nserialized].code, serialized[nserialized].name,
                            sizeof serialized[nserialized].name)) {
            nserialized++;
        } else if (info && sscanf(info, "ptxas info    : Compiling entry function '%255[^']'", name) == 1) {
            cur = n < max ? &out[n++] : NULL;
            if (cur) {
                memset(cur, 0, sizeof *cur);
                kernel_name(name, cur->name, sizeof cur->name);
            }
        } else if (cur && strstr(text, "bytes stack frame")) {
            sscanf(text, " %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &cur->stack,
                   &cur->spill_stores, &cur->spill_loads);
        } else if (cur && info && !strncmp(info + 16, "Used ", 5)) {
            sscanf(info + 16, "Used %d registers", &cur->registers);
            const char *b = strstr(info, "used ");
            if (b) sscanf(b, "used %d barriers", &cur->barriers);
            for (const char *s = strstr(info, " bytes smem"); s; s = NULL) { /* the number before it */
                const char *q = s;
                while (q > info && isdigit((unsigned char)q[-1])) q--;
                cur->shared = strtol(q, NULL, 10);
            }
        }
        line = end ? end + 1 : NULL;
    }
    for (int i = 0; i < nserialized; i++)
        for (int k = 0; k < n; k++)
            if (!out[k].serialized[0] && !strcmp(out[k].name, serialized[i].name))
                snprintf(out[k].serialized, sizeof out[k].serialized, "%.7s", serialized[i].code);
    return n;
}

/* ptxas's info lines and the property lines that follow "Function properties". */
static bool info_line(const char *line, size_t len) {
    if (len >= 16 && !strncmp(line, "ptxas info    : ", 16)) return true;
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), line);
    return text[0] == ' ' && strstr(text, " bytes stack frame, ") != NULL;
}

char *kernels_strip_log(const char *log) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s", "");
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (!info_line(line, len)) sb_printf(&sb, "%.*s%s", (int)len, line, end ? "\n" : "");
        line = end ? end + 1 : NULL;
    }
    return sb.buf;
}

void kernel_text(const KernelInfo *k, char *buf, size_t size) {
    char spills[64] = "no spills";
    if (k->spill_stores || k->spill_loads)
        snprintf(spills, sizeof spills, "SPILLS %ld B stored, %ld B loaded", k->spill_stores, k->spill_loads);
    char stack[32] = "";
    if (k->stack) snprintf(stack, sizeof stack, ", %ld B stack", k->stack);
    char serialized[48] = "";
    if (k->serialized[0]) snprintf(serialized, sizeof serialized, ", WGMMA SERIALIZED (ptxas %s)", k->serialized);
    snprintf(buf, size, "%s: %d registers, %ld B shared, %s%s%s", k->name, k->registers, k->shared, spills, stack,
             serialized);
}
