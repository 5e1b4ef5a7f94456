#define _GNU_SOURCE
#include "doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const Glyphs glyphs_ascii = {"#", ".", "-", "|", "+", "+", "*", "|", "^", "o", "v", ">", "...", "."};
const Glyphs glyphs_unicode = {"\u2588", "\u2591", "\u2500", "\u2502", "\u2514", "\u253c", "\u2022", "\u2503",
                               "\u25b2", "\u25cf", "\u2193", "\u21aa", "\u2026", "\u00b7"};
const Glyphs *glyph = &glyphs_ascii;

static void line_add_raw(DocLine *l, Style s, const char *text, size_t len) {
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

/* Printable ASCII, '\n' and '\t' only: shown on a terminal as it is. */
static bool plain_ascii(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f) return false;
    }
    return true;
}

void line_addn(DocLine *l, Style s, const char *text, size_t len) {
    if (plain_ascii(text, len)) {
        line_add_raw(l, s, text, len);
        return;
    }
    StrBuf vis = {0};
    sb_add_visible(&vis, text, len);
    line_add_raw(l, s, vis.buf ? vis.buf : "", vis.len);
    sb_free(&vis);
}

void line_free(DocLine *l) {
    free(l->text);
    free(l->style);
    memset(l, 0, sizeof *l);
}

void doc_free(Doc *d) {
    for (int i = 0; i < d->count; i++) line_free(&d->lines[i]);
    free(d->lines);
    for (int i = 0; i < d->nheads; i++) free(d->heads[i].text);
    free(d->heads);
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

void doc_heading(Doc *d, const char *text, size_t len, int level) {
    d->heads = xrealloc(d->heads, (size_t)(d->nheads + 1) * sizeof *d->heads);
    d->heads[d->nheads++] = (DocHeading){xstrndup(text, len), doc_here(d), level};
}

int doc_find_heading(const Doc *d, const char *name) {
    for (int i = 0; name && i < d->nheads; i++) {
        const char *h = d->heads[i].text, *s = name;
        for (;; s++) {
            while (*s == '`' || *s == '*') s++;
            if (*s != *h || !*s) break;
            h++;
        }
        if (!*s && !*h) return i;
    }
    return -1;
}

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

/* Bytes from..to of src, each run in its style, onto dst. */
static void add_runs(DocLine *dst, const DocLine *src, size_t from, size_t to) {
    for (size_t k = from; k < to;) {
        size_t m = k;
        while (m < to && src->style[m] == src->style[k]) m++;
        line_addn(dst, (Style)src->style[k], src->text + k, m - k);
        k = m;
    }
}

/* Ends the line and starts the next after prefix; returns its width. */
static int next_line(Doc *d, const DocLine *prefix) {
    doc_newline(d);
    doc_add_line(d, prefix);
    current(d);
    return line_width(prefix);
}

void doc_wrap_styled(Doc *d, const DocLine *para, const DocLine *first, const DocLine *rest, int width) {
    if (d->open) doc_newline(d);
    doc_add_line(d, first);
    current(d);
    int col = line_width(first), start_col = col;
    int room = width - (line_width(first) > line_width(rest) ? line_width(first) : line_width(rest));
    size_t i = 0, n = para->len;
    while (i < n) {
        if (para->text[i] == '\n') { /* a hard break */
            col = start_col = next_line(d, rest);
            i++;
            continue;
        }
        if (para->text[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && para->text[j] != ' ' && para->text[j] != '\n') j++;
        /* a space inside inline code joins the words around it, as long as
         * they fit a line: `(n + block - 1) / block` is not broken at its spaces */
        while (j < n && para->text[j] == ' ' && j > i && para->style[j - 1] == S_CODE && para->style[j] == S_CODE) {
            size_t k = j;
            while (k < n && para->text[k] == ' ' && para->style[k] == S_CODE) k++;
            if (k == n || para->style[k] != S_CODE || para->text[k] == '\n') break;
            while (k < n && para->text[k] != ' ' && para->text[k] != '\n') k++;
            if (text_width(para->text + i, k - i) > room) break;
            j = k;
        }
        int w = text_width(para->text + i, j - i);
        bool space = i > 0 && para->text[i - 1] == ' ' && col > start_col;
        if (col > start_col && col + space + w > width) {
            col = start_col = next_line(d, rest);
            space = false;
        }
        if (col + w > width) { /* wider than a whole line (a path): as much as fits, the rest below */
            int fit = width - col > 0 ? width - col : 1;
            size_t k = i + text_bytes_for(para->text + i, j - i, fit);
            add_runs(current(d), para, i, k);
            col = start_col = next_line(d, rest);
            i = k;
            continue;
        }
        if (space) {
            line_addn(current(d), (Style)para->style[i - 1], " ", 1);
            col++;
        }
        add_runs(current(d), para, i, j);
        col += w;
        i = j;
    }
    doc_newline(d);
}

void doc_wrap_verbatim(Doc *d, const DocLine *line, const DocLine *first, const DocLine *cont, int width) {
    if (d->open) doc_newline(d);
    const DocLine *prefix = first;
    size_t i = 0, n = line->len;
    do {
        doc_add_line(d, prefix);
        current(d);
        int avail = width - line_width(prefix) > 0 ? width - line_width(prefix) : 1;
        size_t end = i + text_bytes_for(line->text + i, n - i, avail);
        if (end < n && line->text[end] != ' ') { /* inside a word: cut before it, if text comes before */
            size_t word = end, text_end;
            while (word > i && line->text[word - 1] != ' ') word--;
            for (text_end = word; text_end > i && line->text[text_end - 1] == ' ';) text_end--;
            if (text_end > i) end = word;
        }
        size_t shown = end;
        while (end < n && shown > i && line->text[shown - 1] == ' ') shown--; /* the spaces at a cut: dropped */
        add_runs(current(d), line, i, shown);
        doc_newline(d);
        for (i = end; i < n && line->text[i] == ' ';) i++;
        prefix = cont;
    } while (i < n);
}

static void add_clipped(Doc *d, Style s, const char *text, size_t len, int width) {
    if (text_width(text, len) <= width) {
        doc_addn(d, s, text, len);
        return;
    }
    int room = width - text_width(glyph->ellipsis, strlen(glyph->ellipsis));
    size_t end = text_bytes_for(text, len, room > 0 ? room : 0);
    if (text[end] != ' ') { /* inside a word: before it, unless it is the first */
        size_t word = end;
        while (word > 0 && text[word - 1] != ' ') word--;
        if (word > 0) end = word;
    }
    while (end > 0 && strchr(" ,;:", text[end - 1])) end--; /* "a tree of…", not "a tree of, …" */
    doc_addn(d, s, text, end);
    doc_add(d, s, glyph->ellipsis);
}

void doc_add_clipped(Doc *d, Style s, const char *text, int width) {
    StrBuf vis = {0}; /* measured as it shows: an escape takes two columns (^[) */
    sb_add_visible(&vis, text, strlen(text));
    for (size_t i = 0; i < vis.len; i++)
        if (vis.buf[i] == '\n' || vis.buf[i] == '\t') vis.buf[i] = ' '; /* one row */
    add_clipped(d, s, vis.buf ? vis.buf : "", vis.len, width);
    sb_free(&vis);
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
