/* The machine code the student's process loaded at run time (issue 45):
 * the judge's "modules:" and "module:" result lines (harness/modules.h),
 * and what the rule compares them with. A kernel handed to the driver
 * while the library runs (PTX compiled by its JIT, a cubin kept as bytes)
 * is in neither the compiled library's machine code nor nvcc's log, so the
 * static checks never see it; the rule is that every module the process
 * loaded is byte-identical to a cubin of the student's compiled library,
 * the runner, or a library the runner may load (CUPTI, the CUDA runtime).
 * The record comes from the student's own process (docs/harness.md). */
#ifndef GPUCOURSE_LOADED_H
#define GPUCOURSE_LOADED_H

#include "../src/util.h"

/* The module lines a result keeps: an honest grading loads a handful (its
 * runner's, the student's library's); a line past these is counted only. */
enum { MAX_LOADED_MODULES = 32 };

typedef enum {
    LOADED_NONE,     /* no "modules:" line (the run stopped before, or an old judge) */
    LOADED_RECORDED,
    LOADED_FAILED,   /* a runner could not record them ("modules: failed: why"); wins over RECORDED */
} LoadedStatus;

typedef struct {
    LoadedStatus status;
    char why[400];               /* FAILED: what the runner said */
    long long loaded;            /* modules the runners said their processes loaded, summed */
    int n;                       /* "module:" lines read; the first MAX_LOADED_MODULES are kept below */
    long long bytes[MAX_LOADED_MODULES];
    char path[MAX_LOADED_MODULES][768]; /* "" when the runner kept no bytes (past its cap), or the path did not fit */
} LoadedModules;

/* Reads one result line ("key: rest") into m when it is a modules line;
 * returns whether it was. */
bool loaded_parse_line(LoadedModules *m, const char *key, const char *rest);

/* Whether m lists every module loaded, each with its bytes: false when a
 * runner loaded more than it kept, or more than a result keeps. */
bool loaded_complete(const LoadedModules *m);

/* The first module of m byte-identical to none of the files in cubins: its
 * index; -1 when every one is one of them; -2 with error set when a file
 * cannot be read. */
int loaded_foreign(const LoadedModules *m, const StrList *cubins);

#endif
