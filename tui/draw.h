/* The curses layer: starting and always restoring the terminal (also on
 * Ctrl-C, SIGTERM, SIGHUP and crashes), the colour table, and the few ways
 * the views put text on the screen. */
#ifndef GPUCOURSE_TUI_DRAW_H
#define GPUCOURSE_TUI_DRAW_H

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "doc.h"

enum { MIN_COLS = 80, MIN_ROWS = 24 };

/* Starts curses on the terminal; -1 with error set when there is none. */
int draw_init(void);
/* Restores the terminal; safe to call more than once. */
void draw_end(void);
/* Around a program that uses the terminal itself (the editor). */
void draw_suspend(void);
void draw_resume(void);

int draw_rows(void);
int draw_cols(void);
bool draw_too_small(void);
void draw_begin_frame(void); /* erases the frame being built */
void draw_end_frame(void);   /* shows it, one update */

/* Text clipped to maxw columns; returns the columns used. */
int draw_text(int y, int x, int maxw, Style s, const char *text);
int draw_textn(int y, int x, int maxw, Style s, const char *text, size_t len);
/* A row filled with spaces in a style (bars, the selection). */
void draw_fill(int y, int x, int w, Style s);
/* A Doc line clipped to maxw; with over != S_NORMAL, all of it in that
 * style (the selected row). */
void draw_doc_line(int y, int x, int maxw, const DocLine *l, Style over);

/* The next key, or ERR when none is waiting (never blocks). */
int draw_key(void);

#endif
