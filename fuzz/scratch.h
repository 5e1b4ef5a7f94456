/* A fuzz target's scratch file: FILE in a directory of the run's own under
 * $TMPDIR (else /tmp), made at the first input; cleanup (the target's own)
 * runs at exit. Aborts when the directory cannot be made. */
#ifndef GPUCOURSE_FUZZ_SCRATCH_H
#define GPUCOURSE_FUZZ_SCRATCH_H

#include <stdlib.h>

#include "../src/util.h"

static inline void fuzz_scratch(char **dir, char **path, const char *file, void (*cleanup)(void)) {
    if (*dir) return;
    const char *base = getenv("TMPDIR");
    *dir = xprintf("%s/gpucourse-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(*dir)) abort();
    *path = path_join(*dir, file);
    atexit(cleanup);
}

#endif
