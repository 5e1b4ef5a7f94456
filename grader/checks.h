/* The checks of the student's compiled code, the library file itself and
 * its machine code, beside what ran (grader.c calls them in a grading's
 * order): not part of grader.h's interface. */
#ifndef GPUCOURSE_CHECKS_H
#define GPUCOURSE_CHECKS_H

#include "grader.h"
#include "toolchain.h"

/* What the compiled library shows, read from the ELF file itself: a solve
 * the judge can call (a compile error without one, GPU or not), and none of
 * the libraries the exercise forbids (forbidden_libraries: by default all
 * that libscan knows) or its forbidden_symbols: hidden visibility does not
 * hide the names nvcc registers kernels by. Returns false when grading stops
 * here (no solve, a forbidden library, a file that cannot be scanned). */
bool check_library(const Exercise *e, const char *lib, GradeResult *r);

/* The rule on the modules loaded at run time, with the cubins it compares
 * them with: the student's library's and the runner's, and only when one
 * of those does not match, the libraries the runner may load from the
 * toolkit (CUPTI, the CUDA runtime), which hold more and are unpacked only
 * then. The cubins are unpacked into a directory of this grading's in the
 * build directory and removed after. */
void check_loaded(const Toolchain *t, const Exercise *e, const char *student_so, const CourseParts *parts,
                  const Workspace *w, GradeResult *r);

/* Whether the machine code is looked at: it has patterns, and the answer
 * is correct, or nothing ran (no GPU) and the code alone decides. */
bool sass_checked(const Exercise *e, const GradeResult *r);

/* The instruction checks on the student's compiled library. */
void check_sass(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r);

/* No GPU (on this machine, or in a launcher's job): r is skipped with the
 * reason why. Nothing runs, but the checks of the compiled code alone do
 * (the libraries were read before): one that fails is a verdict,
 * requirement not met, and counts; all passed is still no grade (skipped),
 * and the reason says what was checked and what could not be. */
void check_static(const Toolchain *t, const Exercise *e, const char *lib, GradeResult *r);

#endif
