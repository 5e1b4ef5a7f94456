/* A class at once: `gpucourse class grade ROSTER`. Every student's
 * workspace (or repository checkout) is graded as it is, read only: their
 * files are compiled into a build directory under OUT, their progress file
 * is read (attempts) and never written; progress stays the student's own
 * gpucourse's. Per student OUT/FILE.json and OUT/FILE.xml (JUnit), and a
 * line per exercise in OUT/FILE.tsv, which the collection reads into
 * OUT/gradebook.csv (one row per student) and a terminal summary with the
 * flags an instructor wants: a ratio far above the reference's or the
 * class's, and files identical or nearly so to another student's or to the
 * reference.
 *
 * A student's files under OUT are named by their file name (Student.file),
 * and their library in OUT/build is student-FILE-EX.so: no name takes the
 * reference's path.
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
    char *name; /* as the roster gives it (shown, in the gradebook): UTF-8, no control characters */
    char *path; /* the student's workspace: PATH/exercises/FILE, PATH/progress.yaml */
    char *file; /* names the student's files under OUT: letters, digits, '.', '-', '_', unique */
} Student;

typedef struct {
    Student *students;
    int count;
    StrList skipped; /* a directory's entries that are no workspace: "ENTRY: why" */
    char *run;       /* a frozen roster's run (class_freeze_roster), else NULL */
} Roster;

/* A roster file (a line per student, `NAME PATH`: NAME a word, PATH the
 * rest of the line, relative to the file's directory; blank lines skipped,
 * a `#` at a line's start or after a blank starts a comment) or a directory
 * (each subdirectory with an exercises/ directory is a student named after
 * it; every other entry is listed in skipped with its reason). A name that
 * is not a plain file name (`zoë`, `mary ann`, `o'brien`, `.hidden`) keeps
 * its name and gets a file name of its own (zo_-HASH). Also reads a frozen
 * roster (class_freeze_roster). Errors as `file:line: what is wrong`. */
int roster_load(const char *path, Roster *r);
void roster_free(Roster *r);

/* Writes the roster to path as it is now (absolute paths, the names and
 * file names decided) and run, the run's id: what a Slurm job's tasks
 * read, so that a directory changed while the job waits changes nothing,
 * and each task's results carry the run they belong to. */
int class_freeze_roster(const Roster *r, const char *run, const char *path);

typedef struct {
    const Exercise *const *exercises;
    int nexercises;
    const char *out;                /* the output directory */
    unsigned long long seed;        /* 0: fresh */
    int timeout_s;                  /* 0: the exercises' own */
    void (*on_phase)(const char *phase, void *ctx); /* progress lines, or NULL */
    const char *run; /* this run's id (class_run_id), written into each FILE.tsv; the
                        collection takes no results of another run; NULL: none */
} ClassOptions;

/* A fresh id for a class's run (the time, the process, the clock's ns). */
char *class_run_id(void);

/* Grades student i into OUT (FILE.json, FILE.xml, FILE.tsv), last run's removed first. Returns 0, or
 * EXIT_INTERRUPTED after Ctrl-C, or -1 with error set. */
int class_grade_student(const Course *c, const Roster *r, int i, const ClassOptions *o);

/* Removes student s's results of an earlier run from OUT (FILE.tsv, .json,
 * .xml): done for every student before the class is graded, and again by
 * class_grade_student, so that a grading that dies leaves no results and
 * the gradebook says "not graded". Returns 0 or -1 with error set. */
int class_clear_outputs(const ClassOptions *o, const Student *s);

/* Removes from OUT the results of students who are not in r (FILE.tsv,
 * .json, .xml, where FILE.tsv is one of class grade's: it starts "# run "),
 * so that OUT holds this roster's results only and a CI's glob of *.xml
 * finds no one else's. Other files are left alone. 0 or -1 with error set. */
int class_clear_others(const ClassOptions *o, const Roster *r);

typedef struct {
    int students;
    int not_graded; /* students without results (their task or worker failed) */
    int reached;    /* gradings that got past compiling (not setup_error, not compile_error) */
    int skipped;    /* of those, the ones not run: no GPU (verdict skipped) */
} ClassTotals;

/* Reads every student's FILE.tsv, writes OUT/gradebook.csv, prints the
 * summary with flags to `summary`, and the counts into *totals. A student
 * whose results are missing (a task that failed) is a row that says so; a
 * mark of a grading's row (the .tsv's last field) is a flag. Returns 0 or
 * -1 with error set. */
int class_collect(const Course *c, const Roster *r, const ClassOptions *o, FILE *summary, ClassTotals *totals);

/* How alike two sources are, 0 to 1, as their code reads (comments and
 * spacing ignored): the share of token 4-grams they have in common (1.0:
 * the same tokens in the same order). */
double class_similarity(const char *a, const char *b);

/* `gpucourse class starter DIR`: the starter repository a class's students
 * clone, made in DIR (new, or empty): exercises/ with every stub, a
 * .gitignore of what gpucourse keeps for itself (.build/, backups/, the
 * lock and temp files), .course-id (the course's id: the checkout is a
 * workspace of this course) and a README.md saying how to work in it and
 * what to commit (exercises/ and progress.yaml). 0, or -1 with error set. */
int class_starter(const Course *c, const char *dir);

#endif
