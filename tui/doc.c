#define _GNU_SOURCE
#include "doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const Glyphs glyphs_ascii = {"#", ".", "-", "|", "+", "*", "|", "^", "o", "v"};
const Glyphs glyphs_unicode = {"\u2588", "\u2591", "\u2500", "\u2502", "\u2514", "\u2022", "\u2503", "\u25b2",
                               "\u25cf", "\u2193"};
const Glyphs *glyph = &glyphs_ascii;

void line_addn(DocLine *l, Style s, const char *text, size_t len) {
    if (l->len + len + 1 > l->cap) {
        l->cap = (l->len + len + 1) * 2;
        l->text = xrealloc(l->text, l->cap);
        l->style = xrealloc(l->style, l->cap);
    }
    memcpy(l->text + l->len, text, len);
    memset(l->style + l->len, (int)s, len);
    l->len += len;
    l->text[l->len] = '\0';
}

void line_free(DocLine *l) {
    free(l->text);
    free(l->style);
    memset(l, 0, sizeof *l);
}

void doc_free(Doc *d) {
    for (int i = 0; i < d->count; i++) line_free(&d->lines[i]);
    free(d->lines);
    memset(d, 0, sizeof *d);
}

static DocLine *current(Doc *d) {
    if (!d->open) {
        if (d->count == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 64;
            d->lines = xrealloc(d->lines, (size_t)d->cap * sizeof *d->lines);
        }
        memset(&d->lines[d->count++], 0, sizeof(DocLine));
        d->open = true;
    }
    return &d->lines[d->count - 1];
}

void doc_addn(Doc *d, Style s, const char *text, size_t len) {
    while (len) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        line_addn(current(d), s, text, n);
        if (!nl) break;
        d->open = false;
        text += n + 1;
        len -= n + 1;
    }
}

void doc_add(Doc *d, Style s, const char *text) { doc_addn(d, s, text, strlen(text)); }

void doc_printf(Doc *d, Style s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n > 0) doc_addn(d, s, text, (size_t)n);
    free(text);
}

void doc_newline(Doc *d) {
    current(d);
    d->open = false;
}

void doc_add_line(Doc *d, const DocLine *l) {
    DocLine *cur = current(d);
    for (size_t i = 0; l && i < l->len;) {
        size_t j = i;
        while (j < l->len && l->style[j] == l->style[i]) j++;
        line_addn(cur, (Style)l->style[i], l->text + i, j - i);
        i = j;
    }
}

int doc_here(const Doc *d) { return d->open ? d->count - 1 : d->count; }

int text_width(const char *s, size_t len) {
    int w = 0;
    for (size_t i = 0; i < len; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

size_t text_bytes_for(const char *s, size_t len, int cols) {
    size_t i = 0;
    int w = 0;
    while (i < len) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (w == cols) break;
            w++;
        }
        i++;
    }
    return i;
}

static int line_width(const DocLine *l) { return l ? text_width(l->text, l->len) : 0; }

void doc_wrap_styled(Doc *d, const DocLine *para, const DocLine *first, const DocLine *rest, int width) {
    if (d->open) doc_newline(d);
    doc_add_line(d, first);
    current(d);
    int col = line_width(first), start_col = col;
    int rest_w = line_width(rest);
    size_t i = 0, n = para->len;
    while (i < n) {
        if (para->text[i] == '\n') { /* a hard break */
            doc_newline(d);
            doc_add_line(d, rest);
            current(d);
            col = start_col = rest_w;
            i++;
            continue;
        }
        if (para->text[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && para->text[j] != ' ' && para->text[j] != '\n') j++;
        int w = text_width(para->text + i, j - i);
        bool space = i > 0 && para->text[i - 1] == ' ' && col > start_col;
        if (col > start_col && col + space + w > width) {
            doc_newline(d);
            doc_add_line(d, rest);
            current(d);
            col = start_col = rest_w;
            space = false;
        }
        if (space) {
            line_addn(current(d), (Style)para->style[i - 1], " ", 1);
            col++;
        }
        for (size_t k = i; k < j;) { /* keep each run's style */
            size_t m = k;
            while (m < j && para->style[m] == para->style[k]) m++;
            line_addn(current(d), (Style)para->style[k], para->text + k, m - k);
            k = m;
        }
        col += w;
        i = j;
    }
    doc_newline(d);
}

void doc_wrap(Doc *d, Style s, const char *text, int indent, int width) {
    DocLine para = {0}, pre = {0};
    line_addn(&para, s, text, strlen(text));
    for (int i = 0; i < indent; i++) line_addn(&pre, S_NORMAL, " ", 1);
    if (d->open) { /* continue the open line: its width counts */
        DocLine *cur = &d->lines[d->count - 1];
        DocLine first = *cur;
        d->count--;
        d->open = false;
        doc_wrap_styled(d, &para, &first, &pre, width);
        line_free(&first);
    } else {
        doc_wrap_styled(d, &para, NULL, &pre, width);
    }
    line_free(&para);
    line_free(&pre);
}
