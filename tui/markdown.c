#include "markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
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
            size_t start = out->len;
            inlines(out, c, S_LINK);
            const char *url = cmark_node_get_url(c);
            bool said = url && strlen(url) == out->len - start && !memcmp(out->text + start, url, out->len - start);
            if (url && *url && url[0] != '#' && !said) { /* an autolink <url> is its own text */
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

/* ------------------------------------------------------------ tables */

/* GitHub's tables: columns as wide as their widest cell when the table fits
 * the width; else narrowed, a column at a time, where it costs the fewest
 * lines, with every word whole, and each cell wraps inside its column.
 * The header row is bold with a rule under it; when a body row takes more
 * than one line, a rule also separates the body rows. No outer border: it
 * would only take width. A table that cannot fit with its words whole
 * becomes a list, a row an item: the row's first cell, then each other
 * cell after its column's header. */
typedef struct {
    DocLine *cells; /* rows x cols, row-major */
    int rows, cols;
    int header_rows;
} Table;

static bool is_type(cmark_node *n, const char *type) {
    const char *t = cmark_node_get_type_string(n);
    return t && !strcmp(t, type);
}

static void table_read(cmark_node *n, Table *t) {
    t->cols = cmark_gfm_extensions_get_table_columns(n);
    t->rows = 0;
    for (cmark_node *row = cmark_node_first_child(n); row; row = cmark_node_next(row)) t->rows++;
    t->cells = xcalloc((size_t)(t->rows * t->cols) + 1, sizeof *t->cells);
    int r = 0;
    for (cmark_node *row = cmark_node_first_child(n); row; row = cmark_node_next(row), r++) {
        bool header = cmark_gfm_extensions_get_table_row_is_header(row);
        if (header) t->header_rows = r + 1;
        int c = 0;
        for (cmark_node *cell = cmark_node_first_child(row); cell && c < t->cols; cell = cmark_node_next(cell), c++) {
            DocLine *l = &t->cells[r * t->cols + c];
            inlines(l, cell, header ? S_STRONG : S_NORMAL);
        }
    }
}

/* The width of the longest word of a cell. */
static int longest_word(const DocLine *l) {
    int longest = 0;
    for (size_t i = 0; i < l->len;) {
        size_t n = strcspn(l->text + i, " ");
        if (i + n > l->len) n = l->len - i;
        int w = text_width(l->text + i, n);
        if (w > longest) longest = w;
        i += n + 1;
    }
    return longest;
}

/* How many lines a cell takes at width w, words whole (as the wrap below
 * breaks them, near enough to choose widths by). */
static int cell_height(const DocLine *l, int w) {
    int lines = 1, used = 0;
    for (size_t i = 0; i < l->len;) {
        size_t n = strcspn(l->text + i, " ");
        if (i + n > l->len) n = l->len - i;
        int word = text_width(l->text + i, n);
        if (word > 0) {
            if (used > 0 && used + 1 + word > w) lines++, used = 0;
            used += (used > 0) + word;
        }
        i += n + 1;
    }
    return lines;
}

/* What a table costs a reader at widths w: its lines (each row as tall as
 * its tallest cell), and one more for each cell broken over lines (a short
 * cell, a label, kept whole where the lines are the same). */
static int table_cost(const Table *t, const int *w) {
    int total = 0;
    for (int r = 0; r < t->rows; r++) {
        int h = 1;
        for (int c = 0; c < t->cols; c++) {
            int ch = cell_height(&t->cells[r * t->cols + c], w[c]);
            if (ch > h) h = ch;
            total += ch > 1;
        }
        total += h;
    }
    return total;
}

/* A cell this wide or less is a label or a figure: kept on one line while
 * the table can fit so. */
enum { SHORT_CELL = 24 };

/* Column widths that fit `room` columns of text: the natural ones, then
 * narrowed a column at a time, each time the one whose narrowing costs the
 * least (table_cost; the widest of those): first none narrower than its
 * longest word or short cell, then than its longest word. False when the
 * words do not fit whole. */
static bool table_widths(const Table *t, int room, int *w) {
    int total = 0;
    int *word = xcalloc((size_t)t->cols, sizeof *word), *whole = xcalloc((size_t)t->cols, sizeof *whole);
    for (int c = 0; c < t->cols; c++) {
        w[c] = 1;
        for (int r = 0; r < t->rows; r++) {
            const DocLine *l = &t->cells[r * t->cols + c];
            int cw = text_width(l->text ? l->text : "", l->len);
            if (cw > w[c]) w[c] = cw;
            if (longest_word(l) > word[c]) word[c] = longest_word(l);
            if (cw <= SHORT_CELL && cw > whole[c]) whole[c] = cw;
        }
        if (word[c] > whole[c]) whole[c] = word[c];
        total += w[c];
    }
    for (int keep_short = 1; keep_short >= 0 && total > room; keep_short--)
        while (total > room) {
            int best = -1, best_cost = 0;
            for (int c = 0; c < t->cols; c++) {
                if (w[c] <= (keep_short ? whole[c] : word[c])) continue;
                w[c]--;
                int cost = table_cost(t, w);
                w[c]++;
                if (best < 0 || cost < best_cost || (cost == best_cost && w[c] > w[best])) best = c, best_cost = cost;
            }
            if (best < 0) break;
            w[best]--;
            total--;
        }
    free(word);
    free(whole);
    return total <= room;
}

/* A cell wrapped at width w: its lines in a Doc of their own. */
static void cell_lines(const DocLine *cell, int w, Doc *out) {
    memset(out, 0, sizeof *out);
    if (cell->len) doc_wrap_styled(out, cell, NULL, NULL, w);
    while (out->count > 0 && out->lines[out->count - 1].len == 0) line_free(&out->lines[--out->count]);
}

static void table_rule(Render *r, const DocLine *prefix, const int *w, int cols) {
    doc_add_line(r->d, prefix);
    for (int c = 0; c < cols; c++) {
        for (int i = 0; i < w[c] + (c + 1 < cols ? 2 : 1); i++) doc_add(r->d, S_DIM, glyph->hline);
        if (c + 1 < cols) doc_add(r->d, S_DIM, glyph->cross);
    }
    doc_newline(r->d);
}

/* A table too wide for its words, as a list: an item a body row, its first
 * cell bold, each other cell on a line of its own after its header. */
static void table_as_list(Render *r, const Table *t, const DocLine *first, const DocLine *rest) {
    char bullet[16];
    snprintf(bullet, sizeof bullet, "%s ", glyph->bullet);
    DocLine item_first, item_rest, field_first, field_rest;
    prefix_plus(&item_rest, rest, S_NORMAL, "  ");
    prefix_plus(&field_first, rest, S_NORMAL, "  ");
    prefix_plus(&field_rest, rest, S_NORMAL, "    ");
    const DocLine *header = t->header_rows ? &t->cells[(t->header_rows - 1) * t->cols] : NULL;
    for (int row = t->header_rows; row < t->rows; row++) {
        const DocLine *cells = &t->cells[row * t->cols];
        prefix_plus(&item_first, row == t->header_rows ? first : rest, S_NORMAL, bullet);
        DocLine para = {0};
        if (header && header[0].len && cells[0].len) { /* the row's name after its column's, bold */
            for (size_t i = 0; i < header[0].len; i++) line_addn(&para, S_DIM, header[0].text + i, 1);
            line_addn(&para, S_DIM, ": ", 2);
        }
        for (size_t i = 0; i < cells[0].len; i++)
            line_addn(&para, cells[0].style[i] == S_NORMAL ? S_STRONG : (Style)cells[0].style[i], cells[0].text + i, 1);
        doc_wrap_styled(r->d, &para, &item_first, &item_rest, r->width);
        line_free(&para);
        line_free(&item_first);
        for (int c = 1; c < t->cols; c++) {
            if (cells[c].len == 0) continue;
            DocLine field = {0};
            if (header && header[c].len) {
                for (size_t i = 0; i < header[c].len; i++)
                    line_addn(&field, S_DIM, header[c].text + i, 1);
                line_addn(&field, S_DIM, ": ", 2);
            }
            for (size_t i = 0; i < cells[c].len; i++) line_addn(&field, (Style)cells[c].style[i], cells[c].text + i, 1);
            doc_wrap_styled(r->d, &field, &field_first, &field_rest, r->width);
            line_free(&field);
        }
    }
    line_free(&item_rest);
    line_free(&field_first);
    line_free(&field_rest);
}

static void table(Render *r, cmark_node *n, const DocLine *first, const DocLine *rest) {
    Table t = {0};
    table_read(n, &t);
    if (t.cols == 0 || t.rows == 0) {
        free(t.cells);
        return;
    }
    const uint8_t *align = cmark_gfm_extensions_get_table_alignments(n);
    int prefix = rest ? text_width(rest->text ? rest->text : "", rest->len) : 0;
    int *w = xcalloc((size_t)t.cols, sizeof *w);
    /* a cell takes its width plus " | " between columns and one space before the first */
    if (!table_widths(&t, r->width - prefix - 3 * (t.cols - 1) - 1, w) && t.rows > t.header_rows) {
        table_as_list(r, &t, first, rest);
        for (int i = 0; i < t.rows * t.cols; i++) line_free(&t.cells[i]);
        free(w);
        free(t.cells);
        return;
    }
    Doc *lines = xcalloc((size_t)(t.rows * t.cols), sizeof *lines);
    bool wraps = false; /* a body row of more than one line: rules between the rows */
    for (int i = 0; i < t.rows * t.cols; i++) {
        cell_lines(&t.cells[i], w[i % t.cols], &lines[i]);
        wraps |= lines[i].count > 1 && i / t.cols >= t.header_rows;
    }
    for (int row = 0; row < t.rows; row++) {
        if (row > 0 && (row == t.header_rows || (wraps && row > t.header_rows))) table_rule(r, rest, w, t.cols);
        int height = 1;
        for (int c = 0; c < t.cols; c++)
            if (lines[row * t.cols + c].count > height) height = lines[row * t.cols + c].count;
        for (int k = 0; k < height; k++) {
            doc_add_line(r->d, row == 0 && k == 0 ? first : rest);
            for (int c = 0; c < t.cols; c++) {
                const Doc *cell = &lines[row * t.cols + c];
                const DocLine *l = k < cell->count ? &cell->lines[k] : NULL;
                int used = l ? text_width(l->text ? l->text : "", l->len) : 0;
                int pad = w[c] > used ? w[c] - used : 0;
                char a = align ? (char)align[c] : 0;
                int before = a == 'r' ? pad : a == 'c' ? pad / 2 : 0;
                doc_printf(r->d, S_NORMAL, " %*s", before, "");
                if (l) doc_add_line(r->d, l);
                if (c + 1 < t.cols) {
                    doc_printf(r->d, S_NORMAL, "%*s ", pad - before, "");
                    doc_add(r->d, S_DIM, glyph->vline);
                }
            }
            doc_newline(r->d);
        }
    }
    for (int i = 0; i < t.rows * t.cols; i++) {
        doc_free(&lines[i]);
        line_free(&t.cells[i]);
    }
    free(lines);
    free(w);
    free(t.cells);
}

static void block(Render *r, cmark_node *n, const DocLine *first, const DocLine *rest) {
    if (is_type(n, "table")) {
        table(r, n, first, rest);
        return;
    }
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
        if (r->d->open) doc_newline(r->d);
        doc_heading(r->d, para.text ? para.text : "", para.len, level);
        doc_wrap_styled(r->d, &para, first, rest, r->width);
        /* a rule under every heading, as wide as the text: a small one's
         * dotted, so that it reads as a heading where bold does not show */
        doc_add_line(r->d, rest);
        int w = text_width(para.text, para.len);
        for (int i = 0; i < w; i++)
            doc_add(r->d, s == S_H1 ? S_H1 : S_DIM, level == 1 ? "=" : level == 2 ? glyph->hline : glyph->dots);
        doc_newline(r->d);
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
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *parser = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_syntax_extension *tables = cmark_find_syntax_extension("table");
    if (tables) cmark_parser_attach_syntax_extension(parser, tables);
    cmark_parser_feed(parser, text, strlen(text));
    cmark_node *root = cmark_parser_finish(parser);
    cmark_parser_free(parser);
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
