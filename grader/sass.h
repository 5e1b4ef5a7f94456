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

#endif
