/* Instruction patterns matched against the machine code (cuobjdump -sass).
 * Only instruction lines count: a kernel's name, a section header or a
 * comment never matches. A pattern is an opcode and modifiers joined by
 * dots: it matches an instruction with that opcode whose modifiers include
 * the pattern's, in the same order ("HGMMA.TF32" matches
 * "HGMMA.64x256x8.F32.TF32"; "LDG.E.128" matches "LDG.E.128.CONSTANT";
 * "HMMA" matches every HMMA). */
#ifndef GPUCOURSE_SASS_H
#define GPUCOURSE_SASS_H

#include <stdbool.h>
#include <stddef.h>

/* The instruction (opcode and modifiers) of one line of cuobjdump -sass,
 * "HGMMA.64x256x8.F32.TF32" of "  /0110/   @P0 HGMMA.64x256x8.F32.TF32 gdesc[UR4], ...",
 * into out. false for a line that is not an instruction. */
bool sass_instruction(const char *line, size_t len, char *out, size_t size);

/* Whether an instruction matches a pattern. */
bool sass_matches(const char *instruction, const char *pattern);

/* The first instruction of sass that matches pattern, into out; false when
 * none does. */
bool sass_find(const char *sass, const char *pattern, char *out, size_t size);

/* Where an order rule (sass_around) fails. */
typedef enum {
    SASS_AROUND_OK,     /* in place, or no function has an instruction of `inside` */
    SASS_AROUND_BEFORE, /* the sides do not all come before the first of them */
    SASS_AROUND_AFTER,  /* nor after the last of them, before an EXIT */
} SassAround;

/* An order rule, in the order of the machine code: in every function (a
 * "Function : NAME" line starts one) that has an instruction matching one
 * of the n_inside patterns of `inside`, instructions matching side[0], ...,
 * side[n_side - 1], in that order, come before its first such instruction,
 * and again after its last one with no EXIT between it and them. ex44:
 * a cluster barrier (UCGABAR_ARV, UCGABAR_WAIT) before the first multicast
 * load and after the last. The order of the text is not the order in which
 * the code runs (a branch can skip a barrier, ptxas can place a loop after
 * the EXIT): it proves the instructions are there and in place, not that
 * they ran. A function without an instruction of `inside` is not looked at.
 * On failure, the function's name and its first instruction of `inside`
 * into function and instruction (sizes fsize, isize; 0: not wanted). */
SassAround sass_around(const char *sass, char *const *inside, int n_inside, char *const *side, int n_side,
                       char *function, size_t fsize, char *instruction, size_t isize);

#endif
