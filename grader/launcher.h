/* Where the GPU part of a grade runs: here, or through a launcher on a
 * machine that has the GPU. GPUCOURSE_LAUNCHER is a command prefix, split
 * at blanks (no quoting), e.g.
 *
 *   GPUCOURSE_LAUNCHER="srun --gres=gpu:1 --partition=gpu --time=5"
 *
 * The student's file is compiled here (so are the harness and the
 * reference, into the workspace's build directory); only the judge runs
 * through the launcher, which must pass the environment on (srun's default)
 * and run it where the workspace is at the same path (a shared home). The
 * judge's output streams back through the launcher; its results come back in
 * a file in the build directory (the runner's sandbox reaches neither); its
 * time bound is its own, since a queue's wait is not the student's time.
 * Slurm's GPU allocation keeps other gradings off that GPU, so no lock of
 * ours is taken for it. */
#ifndef GPUCOURSE_LAUNCHER_H
#define GPUCOURSE_LAUNCHER_H

#include <stdbool.h>

#include "../src/util.h"

typedef struct {
    StrList words; /* the prefix, word by word; empty: the GPU part runs here */
    char *text;    /* as set, for messages */
    double wait_s; /* how long a grade waits for it to start the judge (a queue), on top
                      of the judge's own bound: GPUCOURSE_LAUNCH_WAIT, set by the grade */
} Launcher;

/* The launcher this process was given, if any (a blank setting is none). */
bool launcher_from_env(Launcher *l);
void launcher_free(Launcher *l);

#endif
