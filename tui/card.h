/* The result card: a grading result as a Doc that a person reads at a
 * glance. The verdict, the first mismatches with coordinates, bars of you vs
 * the reference vs the same-run baseline with the floors marked, and a small
 * roofline. No curses here. */
#ifndef GPUCOURSE_TUI_CARD_H
#define GPUCOURSE_TUI_CARD_H

#include "../grader/diagnose.h"
#include "../grader/grader.h"
#include "../src/progress.h"
#include "doc.h"

/* The verdict as a word or two in capitals, and its style. */
const char *card_verdict_banner(Verdict v);
Style card_verdict_style(Verdict v);
/* What an attempt with the verdict did, in words: "did not compile". */
const char *card_verdict_phrase(Verdict v);

/* c and p (may be NULL) give the ladder of an exercise that has one: the
 * best results of its earlier rungs, from the progress file. */
void card_build(Doc *d, const Course *c, const Progress *p, const Exercise *e, const GradeResult *r, int width);

/* Parts, also used on their own. */
/* The text report's lines on the card: g's diagnosis, or (g NULL) the
 * picture of where r's output is wrong; a line wider than width continued
 * below after the continuation mark. */
void card_report_lines(Doc *d, Style s, const GradeResult *r, const Course *c, const Exercise *e, const Diagnosis *g,
                       int width);
void card_bars(Doc *d, const GradeResult *r, int width);
void card_ceilings(Doc *d, const GradeResult *r, int width);
void card_roofline(Doc *d, const Exercise *e, const GradeResult *r, int width);
void card_ladder(Doc *d, const Course *c, const Progress *p, const Exercise *e, const GradeResult *r, int width);

#endif
