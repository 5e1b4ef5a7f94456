/* Markdown (lessons, tasks, hints) to a Doc, through cmark-gfm (GitHub's
 * CommonMark parser, with its table extension): headings, emphasis, lists,
 * quotes and rules wrapped to the width; tables laid out in columns that
 * fit it; code blocks (and the ASCII diagrams in them) kept line for line,
 * CUDA coloured (highlight.c). */
#ifndef GPUCOURSE_TUI_MARKDOWN_H
#define GPUCOURSE_TUI_MARKDOWN_H

#include "doc.h"

/* Appends the rendering of text, wrapped at width columns, to d. */
void md_render(Doc *d, const char *text, int width);
/* Appends a whole file of code (the reference solution) as a lesson's code
 * blocks show code, but not indented: coloured when lang is CUDA or C++
 * ("cuda", "c++"), a line wider than width continued below after a marker. */
void md_code(Doc *d, const char *code, const char *lang, int width);

#endif
