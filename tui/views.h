/* The views: each draws the whole screen for the app's current view from its
 * state, and handles the keys that are the view's own (movement, scrolling).
 * The main loop (app.c) calls them; they never call back into it. */
#ifndef GPUCOURSE_TUI_VIEWS_H
#define GPUCOURSE_TUI_VIEWS_H

#include "state.h"

/* Draws the whole screen for the current view. */
void view_draw(App *a);
/* Builds the Doc of a document view at a width. */
void view_build(App *a, Doc *d, int width);
/* Handles a key of the current view (movement, scrolling); false when the
 * key is not the view's own. */
bool view_key(App *a, int key);
int view_body_rows(void);

#endif
