#define _GNU_SOURCE
#include "draw.h"

#include <term.h>

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"

static const struct {
    short fg, bg;
    int attr, mono;
} style_table[S_COUNT] = {
#define X(name, fg, bg, attr, mono) [name] = {fg, bg, attr, mono},
    TUI_STYLES(X)
#undef X
};

static attr_t attrs[S_COUNT];
static SCREEN *screen;
/* Set while curses owns the terminal: the handlers restore it only then. */
static volatile sig_atomic_t active;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};

void draw_end(void) {
    if (!active) return;
    active = 0;
    endwin();
}

/* The terminal first, then die of the same signal so the exit status says
 * what happened (130 for Ctrl-C). */
static void on_fatal_signal(int sig) {
    draw_end();
    signal(sig, SIG_DFL);
    raise(sig);
}

static attr_t curses_attr(int at) {
    attr_t a = A_NORMAL;
    if (at & AT_BOLD) a |= A_BOLD;
    if (at & AT_REVERSE) a |= A_REVERSE;
    if (at & AT_UNDERLINE) a |= A_UNDERLINE;
    if (at & AT_DIM) a |= A_DIM;
#ifdef A_ITALIC
    if (at & AT_ITALIC) a |= A_ITALIC;
#else
    if (at & AT_ITALIC) a |= A_UNDERLINE;
#endif
    return a;
}

static void setup_colours(void) {
    const char *no_color = getenv("NO_COLOR"); /* https://no-color.org: set and not empty */
    bool colour = has_colors() && !(no_color && *no_color);
    bool defaults = false;
    if (colour) {
        start_color();
        defaults = use_default_colors() == OK;
    }
    for (int i = 0; i < S_COUNT; i++) {
        if (!colour || COLOR_PAIRS <= S_COUNT) {
            attrs[i] = curses_attr(style_table[i].mono);
            continue;
        }
        short fg = style_table[i].fg, bg = style_table[i].bg;
        if (!defaults) {
            if (fg < 0) fg = COLOR_WHITE;
            if (bg < 0) bg = COLOR_BLACK;
        }
        attrs[i] = curses_attr(style_table[i].attr);
        if (style_table[i].fg >= 0 || style_table[i].bg >= 0) {
            init_pair((short)(i + 1), fg, bg);
            attrs[i] |= COLOR_PAIR(i + 1);
        }
    }
}

/* TERM=dumb (an editor's shell, some CI runners) is a terminal that cannot
 * move its cursor: the app drawn there comes out on one line. */
bool tui_can_draw(void) {
    const char *term = getenv("TERM");
    int err;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !*term ||
        setupterm(term, STDOUT_FILENO, &err) != OK)
        return false;
    const char *cup = tigetstr("cup");
    bool moves = cup && cup != (char *)-1;
    del_curterm(cur_term);
    return moves;
}

int draw_init(void) {
    setlocale(LC_ALL, "");
    if (!tui_can_draw()) return error("the app needs a terminal that can move its cursor");
    screen = newterm(NULL, stdout, stdin);
    if (!screen) return error("cannot use the terminal '%s'", getenv("TERM"));
    set_term(screen);
    active = 1;
    atexit(draw_end);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_fatal_signal;
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) sigaction(fatal_signals[i], &act, NULL);
    glyph = !strcmp(nl_langinfo(CODESET), "UTF-8") ? &glyphs_unicode : &glyphs_ascii;
    cbreak(); /* not raw: Ctrl-C stays a signal, so it also stops a grading run */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    setup_colours();
    return 0;
}

void draw_suspend(void) {
    def_prog_mode();
    endwin();
    active = 0;
}

void draw_resume(void) {
    reset_prog_mode();
    active = 1;
    clearok(curscr, TRUE);
    refresh();
}

int draw_rows(void) { return LINES; }
int draw_cols(void) { return COLS; }
bool draw_too_small(void) { return COLS < MIN_COLS || LINES < MIN_ROWS; }

void draw_begin_frame(void) {
    erase();
    attrset(A_NORMAL);
}

void draw_end_frame(void) {
    wnoutrefresh(stdscr);
    doupdate();
}

int draw_textn(int y, int x, int maxw, Style s, const char *text, size_t len) {
    if (y < 0 || y >= LINES || x >= COLS || maxw <= 0) return 0;
    if (x + maxw > COLS) maxw = COLS - x;
    size_t bytes = text_bytes_for(text, len, maxw);
    attrset(attrs[s]);
    mvaddnstr(y, x, text, (int)bytes);
    attrset(A_NORMAL);
    return text_width(text, bytes);
}

int draw_text(int y, int x, int maxw, Style s, const char *text) {
    return draw_textn(y, x, maxw, s, text, strlen(text));
}

void draw_fill(int y, int x, int w, Style s) {
    if (y < 0 || y >= LINES) return;
    if (x + w > COLS) w = COLS - x;
    attrset(attrs[s]);
    for (int i = 0; i < w; i++) mvaddch(y, x + i, ' ');
    attrset(A_NORMAL);
}

void draw_doc_line(int y, int x, int maxw, const DocLine *l, Style over) {
    int col = 0;
    for (size_t i = 0; i < l->len && col < maxw;) {
        size_t j = i;
        while (j < l->len && l->style[j] == l->style[i]) j++;
        Style s = (Style)l->style[i];
        if (over != S_NORMAL) s = over;
        col += draw_textn(y, x + col, maxw - col, s, l->text + i, j - i);
        i = j;
    }
}

int draw_key(void) { return getch(); }
