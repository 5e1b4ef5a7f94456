/* CUDA C++ coloured the way a student's editor shows it: keywords, types,
 * CUDA's built-ins (threadIdx, __syncthreads, __shared__, atomicAdd,
 * cudaMalloc), comments, strings, numbers and preprocessor directives. A
 * small tokenizer, not a parser; no curses here. */
#ifndef GPUCOURSE_TUI_HIGHLIGHT_H
#define GPUCOURSE_TUI_HIGHLIGHT_H

#include <stdbool.h>
#include <stddef.h>

/* Sets one Style (doc.h) per byte of code. A whole block at a time, since a
 * comment may span lines. */
void highlight_cuda(const char *code, size_t len, unsigned char *style);

/* Whether a code block's language (a fence's info string, "cuda continues")
 * is one highlight_cuda colours. */
bool highlight_knows(const char *lang);

#endif
