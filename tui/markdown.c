#include "markdown.h"

#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highlight.h"

typedef struct {
    Doc *d;
    int width;
} Render;

/* Inline content of a block as one styled run; softbreaks become spaces. */
static void inlines(DocLine *out, cmark_node *n, Style s) {
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
        const char *lit = cmark_node_get_literal(c);
        switch (cmark_node_get_type(c)) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_HTML_INLINE: line_addn(out, s, lit, strlen(lit)); break;
        case CMARK_NODE_CODE: line_addn(out, S_CODE, lit, strlen(lit)); break;
        case CMARK_NODE_SOFTBREAK: line_addn(out, s, " ", 1); break;
        case CMARK_NODE_LINEBREAK: line_addn(out, s, "\n", 1); break;
        case CMARK_NODE_EMPH: inlines(out, c, s == S_NORMAL ? S_EMPH : s); break;
        case CMARK_NODE_STRONG: inlines(out, c, s == S_NORMAL || s == S_EMPH ? S_STRONG : s); break;
        case CMARK_NODE_LINK: {
            inlines(out, c, S_LINK);
            const char *url = cmark_node_get_url(c);
            if (url && *url && url[0] != '#') {
                line_addn(out, S_DIM, " <", 2);
                line_addn(out, S_DIM, url, strlen(url));
                line_addn(out, S_DIM, ">", 1);
            }
            break;
        }
        case CMARK_NODE_IMAGE:
            line_addn(out, S_DIM, "[image: ", 8);
            inlines(out, c, S_DIM);
            line_addn(out, S_DIM, "]", 1);
            break;
        default: inlines(out, c, s); break;
        }
    }
}

static void prefix_plus(DocLine *out, const DocLine *base, Style s, const char *add) {
    memset(out, 0, sizeof *out);
    if (base) {
        for (size_t i = 0; i < base->len; i++) line_addn(out, (Style)base->style[i], base->text + i, 1);
    }
    line_addn(out, s, add, strlen(add));
}

static void block(Render *r, cmark_node *n, const DocLine *first, const DocLine *rest);

/* Children of a container, a blank line between them unless tight. */
static void children(Render *r, cmark_node *n, const DocLine *first, const DocLine *rest, bool tight) {
    bool is_first = true;
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
        if (!is_first && !tight) {
            doc_add_line(r->d, rest);
            doc_newline(r->d);
        }
        block(r, c, is_first ? first : rest, rest);
        is_first = false;
    }
}

/* Lines of a literal block after the prefix and the indent, each kept as it
 * is; where one is wider than width, the rest goes below after the
 * continuation marker. style: one per byte of text. */
static void literal_lines(Doc *d, const char *text, const unsigned char *style, const char *indent,
                          const DocLine *first, const DocLine *rest, int width) {
    char mark[16];
    snprintf(mark, sizeof mark, "%s ", glyph->wrap);
    DocLine pre_first, pre_rest, pre_cont, line = {0};
    prefix_plus(&pre_first, first, S_NORMAL, indent);
    prefix_plus(&pre_rest, rest, S_NORMAL, indent);
    prefix_plus(&pre_cont, rest, S_DIM, mark);
    bool is_first = true;
    for (size_t i = 0, n = strlen(text); i < n;) {
        size_t end = i;
        while (end < n && text[end] != '\n') end++;
        line.len = 0;
        for (size_t k = i; k < end;) { /* each run in its style */
            size_t m = k;
            while (m < end && style[m] == style[k]) m++;
            line_addn(&line, (Style)style[k], text + k, m - k);
            k = m;
        }
        doc_wrap_verbatim(d, &line, is_first ? &pre_first : &pre_rest, &pre_cont, width);
        is_first = false;
        i = end + 1;
    }
    line_free(&line);
    line_free(&pre_first);
    line_free(&pre_rest);
    line_free(&pre_cont);
}

/* A literal block: CUDA and C++ coloured, other code and diagrams in one style. */
static void code_block(Doc *d, const char *code, const char *lang, Style plain, const char *indent,
                       const DocLine *first, const DocLine *rest, int width) {
    size_t len = strlen(code);
    unsigned char *style = xmalloc(len + 1);
    if (highlight_knows(lang)) highlight_cuda(code, len, style);
    else memset(style, plain, len);
    literal_lines(d, code, style, indent, first, rest, width);
    free(style);
}

void md_code(Doc *d, const char *code, const char *lang, int width) {
    if (d->open) doc_newline(d);
    code_block(d, code, lang, S_CODEBLOCK, "", NULL, NULL, width);
}

static void block(Render *r, cmark_node *n, const DocLine *first, const DocLine *rest) {
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_DOCUMENT: children(r, n, first, rest, false); break;
    case CMARK_NODE_PARAGRAPH: {
        DocLine para = {0};
        inlines(&para, n, S_NORMAL);
        doc_wrap_styled(r->d, &para, first, rest, r->width);
        line_free(&para);
        break;
    }
    case CMARK_NODE_HEADING: {
        int level = cmark_node_get_heading_level(n);
        Style s = level == 1 ? S_H1 : level == 2 ? S_H2 : S_H3;
        DocLine para = {0};
        inlines(&para, n, s);
        for (size_t i = 0; i < para.len; i++)
            if (para.style[i] == S_NORMAL) para.style[i] = (unsigned char)s;
        doc_wrap_styled(r->d, &para, first, rest, r->width);
        if (level <= 2) { /* a rule under the big headings, as wide as the text */
            doc_add_line(r->d, rest);
            int w = text_width(para.text, para.len);
            for (int i = 0; i < w; i++) doc_add(r->d, s == S_H1 ? S_H1 : S_DIM, level == 1 ? "=" : glyph->hline);
            doc_newline(r->d);
        }
        line_free(&para);
        break;
    }
    case CMARK_NODE_CODE_BLOCK:
        code_block(r->d, cmark_node_get_literal(n), cmark_node_get_fence_info(n), S_CODEBLOCK, "  ", first, rest,
                   r->width);
        break;
    case CMARK_NODE_HTML_BLOCK:
        code_block(r->d, cmark_node_get_literal(n), NULL, S_DIM, "  ", first, rest, r->width);
        break;
    case CMARK_NODE_THEMATIC_BREAK: {
        doc_add_line(r->d, first);
        for (int i = 0; i < (r->width < 40 ? r->width : 40); i++) doc_add(r->d, S_DIM, glyph->hline);
        doc_newline(r->d);
        break;
    }
    case CMARK_NODE_BLOCK_QUOTE: {
        char bar[16];
        snprintf(bar, sizeof bar, "%s ", glyph->vline);
        DocLine f, rs;
        prefix_plus(&f, first, S_QUOTE, bar);
        prefix_plus(&rs, rest, S_QUOTE, bar);
        children(r, n, &f, &rs, false);
        line_free(&f);
        line_free(&rs);
        break;
    }
    case CMARK_NODE_LIST: {
        bool ordered = cmark_node_get_list_type(n) == CMARK_ORDERED_LIST;
        bool tight = cmark_node_get_list_tight(n);
        int number = cmark_node_get_list_start(n);
        bool is_first = true;
        for (cmark_node *item = cmark_node_first_child(n); item; item = cmark_node_next(item), number++) {
            if (!is_first && !tight) {
                doc_add_line(r->d, rest);
                doc_newline(r->d);
            }
            char marker[24], pad[24];
            if (ordered) snprintf(marker, sizeof marker, "%d. ", number);
            else snprintf(marker, sizeof marker, "%s ", glyph->bullet);
            int w = text_width(marker, strlen(marker));
            snprintf(pad, sizeof pad, "%*s", w, "");
            DocLine f, rs;
            prefix_plus(&f, is_first ? first : rest, S_NORMAL, marker);
            prefix_plus(&rs, rest, S_NORMAL, pad);
            children(r, item, &f, &rs, tight);
            line_free(&f);
            line_free(&rs);
            is_first = false;
        }
        break;
    }
    default: children(r, n, first, rest, false); break;
    }
}

void md_render(Doc *d, const char *text, int width) {
    cmark_node *root = cmark_parse_document(text, strlen(text), CMARK_OPT_DEFAULT);
    if (!root) {
        doc_add(d, S_NORMAL, text);
        doc_newline(d);
        return;
    }
    Render r = {d, width < 20 ? 20 : width};
    if (d->open) doc_newline(d);
    block(&r, root, NULL, NULL);
    cmark_node_free(root);
}
