#include "highlight.h"

#include <ctype.h>
#include <string.h>

#include "doc.h"

static const char *const keywords[] = {
    "alignas", "alignof", "asm", "auto", "break", "case", "catch", "class", "const", "const_cast", "constexpr",
    "continue", "decltype", "default", "delete", "do", "dynamic_cast", "else", "enum", "explicit", "extern",
    "false", "for", "friend", "goto", "if", "inline", "mutable", "namespace", "new", "noexcept", "nullptr",
    "operator", "private", "protected", "public", "register", "reinterpret_cast", "return", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
    "typename", "union", "using", "virtual", "volatile", "while",
};
static const char *const types[] = {
    "bool", "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void", "size_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t",
    "dim3", "half", "float2", "float3", "float4", "double2", "int2", "int3", "int4", "uint2", "uint3", "uint4",
    "char4", "uchar4",
};
/* Besides these: every name that starts with "__" (__global__, __shared__,
 * __syncthreads, __shfl_down_sync), atomicX and cudaX. */
static const char *const builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
static const char *const languages[] = {"cuda", "cu", "c", "cpp", "c++", "cxx"};

static bool listed(const char *const *list, size_t n, const char *word, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && !memcmp(list[i], word, len)) return true;
    return false;
}

static bool prefixed(const char *word, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len > n && !memcmp(word, prefix, n) && isupper((unsigned char)word[n]);
}

static Style word_style(const char *w, size_t len) {
    if ((len > 2 && w[0] == '_' && w[1] == '_') || listed(builtins, ARRAY_SIZE(builtins), w, len) ||
        prefixed(w, len, "atomic") || prefixed(w, len, "cuda"))
        return S_SYN_BUILTIN;
    if (listed(keywords, ARRAY_SIZE(keywords), w, len)) return S_SYN_KEYWORD;
    if (listed(types, ARRAY_SIZE(types), w, len)) return S_SYN_TYPE;
    return S_NORMAL;
}

static bool is_word(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The end of the token at i, and its style. */
static size_t token(const char *c, size_t n, size_t i, bool line_start, Style *s) {
    size_t j = i + 1;
    *s = S_NORMAL;
    if (c[i] == '/' && j < n && c[j] == '/') {
        *s = S_SYN_COMMENT;
        while (j < n && c[j] != '\n') j++;
    } else if (c[i] == '/' && j < n && c[j] == '*') {
        *s = S_SYN_COMMENT;
        for (j = i + 2; j + 1 < n && !(c[j] == '*' && c[j + 1] == '/');) j++;
        j = j + 1 < n ? j + 2 : n;
    } else if (c[i] == '"' || c[i] == '\'') {
        *s = S_SYN_STRING;
        while (j < n && c[j] != c[i] && c[j] != '\n') j += c[j] == '\\' && j + 1 < n ? 2 : 1;
        if (j < n && c[j] == c[i]) j++;
    } else if (c[i] == '#' && line_start) {
        *s = S_SYN_PREPROC;
        while (j < n && (c[j] == ' ' || c[j] == '\t')) j++;
        while (j < n && is_word(c[j])) j++;
    } else if (isdigit((unsigned char)c[i]) || (c[i] == '.' && j < n && isdigit((unsigned char)c[j]))) {
        *s = S_SYN_NUMBER;
        bool hex = c[i] == '0' && j < n && (c[j] == 'x' || c[j] == 'X');
        const char *exponent = hex ? "pP" : "eE"; /* 1e-5f, 0x1p-3: a sign after these is the number's */
        while (j < n && (is_word(c[j]) || c[j] == '.' || ((c[j] == '+' || c[j] == '-') && strchr(exponent, c[j - 1]))))
            j++;
    } else if (is_word(c[i])) {
        while (j < n && is_word(c[j])) j++;
        *s = word_style(c + i, j - i);
    }
    return j;
}

void highlight_cuda(const char *code, size_t len, unsigned char *style) {
    bool line_start = true; /* only blanks so far on this line: '#' starts a directive */
    for (size_t i = 0; i < len;) {
        Style s;
        size_t j = token(code, len, i, line_start, &s);
        memset(style + i, s, j - i);
        if (code[i] == '\n') line_start = true;
        else if (code[i] != ' ' && code[i] != '\t') line_start = false;
        i = j;
    }
}

bool highlight_knows(const char *lang) {
    size_t n = lang ? strcspn(lang, " \t") : 0;
    return n && listed(languages, ARRAY_SIZE(languages), lang, n);
}
