/* Markdown (lessons, tasks, hints) to a Doc, through cmark, the CommonMark
 * reference parser: headings, emphasis, lists, quotes and rules wrapped to
 * the width; code blocks (and the ASCII diagrams in them) kept line for line. */
#ifndef GPUCOURSE_TUI_MARKDOWN_H
#define GPUCOURSE_TUI_MARKDOWN_H

#include "doc.h"

/* Appends the rendering of text, wrapped at width columns, to d. */
void md_render(Doc *d, const char *text, int width);

#endif
