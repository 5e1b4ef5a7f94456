/* What the terminal app shows, before curses draws it: semantic styles (one
 * table, below), glyphs (Unicode or ASCII), and the Doc, a list of lines in
 * which every byte carries a style. Lessons, tasks, result cards and help are
 * built as Docs and drawn by one scroller. No curses here. */
#ifndef GPUCOURSE_TUI_DOC_H
#define GPUCOURSE_TUI_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "../src/util.h"

/* Colours and attributes in the table; draw.c maps them to curses. */
enum { C_DEFAULT = -1, C_BLACK, C_RED, C_GREEN, C_YELLOW, C_BLUE, C_MAGENTA, C_CYAN, C_WHITE };
enum { AT_BOLD = 1, AT_REVERSE = 2, AT_UNDERLINE = 4, AT_DIM = 8, AT_ITALIC = 16 };

/* The one table of styles: name, foreground, background, attributes with
 * colour, attributes in monochrome (NO_COLOR, or a terminal without colour). */
#define TUI_STYLES(X)                                                        \
    X(S_NORMAL, C_DEFAULT, C_DEFAULT, 0, 0)                                  \
    X(S_DIM, C_DEFAULT, C_DEFAULT, AT_DIM, AT_DIM)                           \
    X(S_TITLE, C_BLACK, C_CYAN, 0, AT_REVERSE)                               \
    X(S_FOOTER, C_BLACK, C_WHITE, 0, AT_REVERSE)                             \
    X(S_KEY, C_BLUE, C_WHITE, AT_BOLD, AT_REVERSE | AT_BOLD)                 \
    X(S_SELECTED, C_WHITE, C_BLUE, AT_BOLD, AT_REVERSE)                      \
    X(S_MESSAGE, C_YELLOW, C_DEFAULT, AT_BOLD, AT_BOLD)                      \
    X(S_H1, C_CYAN, C_DEFAULT, AT_BOLD | AT_UNDERLINE, AT_BOLD | AT_UNDERLINE) \
    X(S_H2, C_CYAN, C_DEFAULT, AT_BOLD, AT_BOLD)                             \
    X(S_H3, C_DEFAULT, C_DEFAULT, AT_BOLD, AT_BOLD)                          \
    X(S_EMPH, C_DEFAULT, C_DEFAULT, AT_ITALIC, AT_UNDERLINE)                 \
    X(S_STRONG, C_DEFAULT, C_DEFAULT, AT_BOLD, AT_BOLD)                      \
    X(S_CODE, C_YELLOW, C_DEFAULT, 0, AT_BOLD)                               \
    X(S_CODEBLOCK, C_GREEN, C_DEFAULT, 0, 0)                                 \
    X(S_SYN_KEYWORD, C_YELLOW, C_DEFAULT, AT_BOLD, AT_BOLD)                  \
    X(S_SYN_TYPE, C_GREEN, C_DEFAULT, 0, 0)                                  \
    X(S_SYN_BUILTIN, C_MAGENTA, C_DEFAULT, AT_BOLD, AT_BOLD)                 \
    X(S_SYN_COMMENT, C_CYAN, C_DEFAULT, 0, AT_DIM)                           \
    X(S_SYN_STRING, C_RED, C_DEFAULT, 0, 0)                                  \
    X(S_SYN_NUMBER, C_RED, C_DEFAULT, 0, 0)                                  \
    X(S_SYN_PREPROC, C_BLUE, C_DEFAULT, AT_BOLD, AT_BOLD)                    \
    X(S_QUOTE, C_MAGENTA, C_DEFAULT, 0, AT_DIM)                              \
    X(S_LINK, C_BLUE, C_DEFAULT, AT_UNDERLINE, AT_UNDERLINE)                 \
    X(S_LABEL, C_DEFAULT, C_DEFAULT, AT_BOLD, AT_BOLD)                       \
    X(S_PASS, C_GREEN, C_DEFAULT, AT_BOLD, AT_BOLD)                          \
    X(S_FAIL, C_RED, C_DEFAULT, AT_BOLD, AT_BOLD | AT_REVERSE)               \
    X(S_WARN, C_YELLOW, C_DEFAULT, AT_BOLD, AT_BOLD)                         \
    X(S_SKIP, C_CYAN, C_DEFAULT, AT_BOLD, AT_BOLD)                           \
    X(S_INFO, C_BLUE, C_DEFAULT, AT_BOLD, 0)                                 \
    X(S_BAR_YOU, C_CYAN, C_DEFAULT, AT_BOLD, 0)                              \
    X(S_BAR_REF, C_BLUE, C_DEFAULT, 0, 0)                                    \
    X(S_BAR_BASE, C_MAGENTA, C_DEFAULT, 0, 0)                                \
    X(S_FLOOR, C_RED, C_DEFAULT, AT_BOLD, AT_BOLD | AT_REVERSE)              \
    X(S_ROOF, C_YELLOW, C_DEFAULT, 0, 0)                                     \
    X(S_POINT, C_RED, C_DEFAULT, AT_BOLD, AT_BOLD | AT_REVERSE)              \
    X(S_LOG, C_DEFAULT, C_DEFAULT, 0, 0)                                     \
    X(S_ERROR, C_RED, C_DEFAULT, 0, AT_BOLD)

typedef enum {
#define X(name, fg, bg, attr, mono) name,
    TUI_STYLES(X)
#undef X
        S_COUNT
} Style;

/* Glyphs: Unicode in a UTF-8 locale, ASCII elsewhere (draw_init chooses). */
typedef struct {
    const char *block;   /* a full bar cell */
    const char *shade;   /* an empty bar cell */
    const char *hline, *vline, *corner; /* axes and rules */
    const char *cross;   /* where a table's rule crosses a column's line */
    const char *bullet;
    const char *floor;   /* a floor marked on a bar */
    const char *up;      /* points at a floor from below */
    const char *point;   /* the kernel in the roofline */
    const char *more;    /* more text below */
    const char *wrap;    /* a line of code or a log continued from above */
    const char *ellipsis; /* text cut short */
    const char *dots;    /* the rule under a small heading (a big one's is hline) */
} Glyphs;

extern const Glyphs glyphs_ascii, glyphs_unicode;
extern const Glyphs *glyph;

/* One line: text and one style per byte. */
typedef struct {
    char *text;
    unsigned char *style;
    size_t len, cap;
} DocLine;

/* A heading of a rendered document (markdown.c records them): where the
 * lesson's contents and its sections lead. */
typedef struct {
    char *text;  /* as shown: "Shared memory and __syncthreads()" */
    int line;    /* its first line in the Doc */
    int level;   /* 1 to 6 */
} DocHeading;

typedef struct {
    DocLine *lines;
    int count, cap;
    bool open; /* the last line takes more text */
    DocHeading *heads;
    int nheads;
} Doc;

void doc_free(Doc *d);
/* Appends text in a style to the current line; '\n' ends the line. */
void doc_addn(Doc *d, Style s, const char *text, size_t len);
void doc_add(Doc *d, Style s, const char *text);
void doc_printf(Doc *d, Style s, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Ends the current line; with none open, adds an empty one. */
void doc_newline(Doc *d);
/* Appends a copy of a line (a prefix) to the current line. */
void doc_add_line(Doc *d, const DocLine *l);
/* Appends text wrapped at width columns, continuation lines indented. */
void doc_wrap(Doc *d, Style s, const char *text, int indent, int width);
/* Appends a styled paragraph wrapped at width columns at spaces ('\n' in it
 * breaks the line; a word wider than a line is broken where it must), its
 * first line after `first`, the others after `rest` (either may be NULL).
 * Ends on a fresh line. */
void doc_wrap_styled(Doc *d, const DocLine *para, const DocLine *first, const DocLine *rest, int width);
/* Appends one line that keeps its spaces (code, compiler output) after
 * `first`; where it is wider than width columns, the rest goes on lines
 * after `cont` (a continuation marker), cut after a space where there is one.
 * Ends on a fresh line. */
void doc_wrap_verbatim(Doc *d, const DocLine *line, const DocLine *first, const DocLine *cont, int width);
/* Appends text on one row (line breaks as spaces) cut to width columns:
 * whole words and an ellipsis when it is wider. */
void doc_add_clipped(Doc *d, Style s, const char *text, int width);
/* The number of the line text goes to next (0-based). */
int doc_here(const Doc *d);
/* Records a heading that starts at the line text goes to next. */
void doc_heading(Doc *d, const char *text, size_t len, int level);
/* The index of the heading called name, as a course names a section (its
 * markdown's backticks and asterisks ignored), or -1. */
int doc_find_heading(const Doc *d, const char *name);

/* Appends text to a line. Text that would not show as it is (escapes, other
 * controls, bytes that are not UTF-8) is kept in sb_add_visible's form: a
 * Doc shows a course's or a program's escapes, never obeys them, and its
 * widths are the widths drawn. */
void line_addn(DocLine *l, Style s, const char *text, size_t len);
void line_free(DocLine *l);

/* Columns a UTF-8 string takes (one per code point: no wide characters here). */
int text_width(const char *s, size_t len);
/* Byte length of the first `cols` columns of s (at most len). */
size_t text_bytes_for(const char *s, size_t len, int cols);

#endif
