/* gpucourse new: a course, a chapter or an exercise, scaffolded so that
 * check-course takes it as it is (see docs/authoring.md). The YAML is
 * appended to as text, so that an instructor's comments and layout stay;
 * no file is ever overwritten. Each function returns 0, or with error set
 * SCAFFOLD_REFUSED (what was asked cannot be done: a bad name, no such
 * chapter or kind, a file that exists) or SCAFFOLD_FILES (the course's files
 * cannot be read, parsed or written). `made` gets one line per file created
 * or changed; nothing is left half made. */
#ifndef GPUCOURSE_SCAFFOLD_H
#define GPUCOURSE_SCAFFOLD_H

#include "util.h"

enum { SCAFFOLD_REFUSED = -1, SCAFFOLD_FILES = -2 };

/* DIR/course/course.yaml with no chapters yet, and exercises/, solutions/,
 * harness/kinds/ (for the course's own kinds). */
int scaffold_course(const char *dir, const char *title, StrList *made);

/* course/NN-NAME/ (chapter.yaml without exercises, lesson.md), listed last
 * in course/course.yaml. title NULL: made from NAME. */
int scaffold_chapter(const char *root, const char *name, const char *title, StrList *made);

/* The next exercise of `chapter` (its directory, its number, or its name
 * without the number): its entry in chapter.yaml, a stub with TODOs and a
 * reference to write, both with the kind's solve signature. */
int scaffold_exercise(const char *root, const char *chapter, const char *name, const char *kind,
                      const char *title, StrList *made);

/* A kind's solve signature and number of size arguments, read from its
 * source: the KindDef's second and third fields ("NAME", "void solve(...)",
 * NDIMS). -1 with error set when they are not there. */
int kind_signature(const char *source, char **signature, int *ndims);

#endif
