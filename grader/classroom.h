/* A class at once: `gpucourse class grade ROSTER`. Every student's
 * workspace (or repository checkout) is graded as it is, read only: their
 * files are compiled into a build directory under OUT, their progress file
 * is read (attempts) and never written; progress stays the student's own
 * gpucourse's. Per student OUT/NAME.json and OUT/NAME.xml (JUnit), and a
 * line per exercise in OUT/NAME.tsv, which the collection reads into
 * OUT/gradebook.csv (one row per student) and a terminal summary with the
 * flags an instructor wants: a ratio far above the reference's or the
 * class's, and files identical or nearly so to another student's or to the
 * reference.
 *
 * Students are graded one after another here, or as a Slurm job array
 * (`--slurm`): each array task runs `gpucourse class grade ... --task I`
 * on a GPU node, and the command collects when the array is done. */
#ifndef GPUCOURSE_CLASSROOM_H
#define GPUCOURSE_CLASSROOM_H

#include <stdbool.h>
#include <stdio.h>

#include "../src/course.h"

typedef struct {
    char *name; /* letters, digits, '.', '-', '_': it names the student's files under OUT */
    char *path; /* the student's workspace: PATH/exercises/FILE, PATH/progress.yaml */
} Student;

typedef struct {
    Student *students;
    int count;
} Roster;

/* A roster file (a line per student, `NAME PATH`, PATH relative to the
 * file's directory; blank lines and `#` comments skipped) or a directory
 * (each subdirectory with an exercises/ directory is a student named after
 * it). Errors as `file:line: what is wrong`. */
int roster_load(const char *path, Roster *r);
void roster_free(Roster *r);

typedef struct {
    const Exercise *const *exercises;
    int nexercises;
    const char *out;                /* the output directory */
    unsigned long long seed;        /* 0: fresh */
    int timeout_s;                  /* 0: the exercises' own */
    void (*on_phase)(const char *phase, void *ctx); /* progress lines, or NULL */
} ClassOptions;

/* Grades student i into OUT (NAME.json, NAME.xml, NAME.tsv). Returns 0, or
 * EXIT_INTERRUPTED after Ctrl-C, or -1 with error set. */
int class_grade_student(const Course *c, const Roster *r, int i, const ClassOptions *o);

/* Reads every student's NAME.tsv, writes OUT/gradebook.csv, prints the
 * summary with flags to `summary`. A student whose results are missing (a
 * task that failed) is a row that says so. Returns 0 or -1 with error set. */
int class_collect(const Course *c, const Roster *r, const ClassOptions *o, FILE *summary);

/* How alike two sources are, 0 to 1, as their code reads (comments and
 * spacing ignored): the share of token 4-grams they have in common (1.0:
 * the same tokens in the same order). */
double class_similarity(const char *a, const char *b);

#endif
