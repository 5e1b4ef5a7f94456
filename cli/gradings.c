/* What the commands that grade share: how many gradings run at once, what
 * a grading says while it runs, and a result a worker did not send back. */
#define _GNU_SOURCE
#include "cli.h"

/* When this process began (main), for a trace's first line. */
double process_start;

/* How many nvcc runs check-course starts at once: one per core, no more
 * than the memory holds at nvcc's limit each (COMPILE_MEMORY_LIMIT). */
int build_workers(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long by_memory = pages > 0 && page > 0 ? (long)((double)pages * (double)page / (double)COMPILE_MEMORY_LIMIT) : 1;
    long n = cores < by_memory ? cores : by_memory;
    return n < 1 ? 1 : n > 32 ? 32 : (int)n;
}

/* How many gradings run at once (--gpus): one per GPU of this machine
 * (each takes whichever GPU is free, never two on one), no more than asked,
 * than there are jobs, or than the compilers the memory holds (each
 * grading compiles). Through a launcher its jobs bring their own GPUs: as
 * many as asked, 1 unless --gpus N. *gpus: the GPUs that count. */
int grading_workers(const Options *o, int jobs, int *gpus) {
    Launcher launch;
    int n;
    bool fewer = false; /* --gpus asked for more GPUs than this machine has */
    if (launcher_from_env(&launch)) {
        launcher_free(&launch);
        n = *gpus = o->gpus ? o->gpus : 1;
    } else {
        GpuInfo g;
        gpu_probe(&g); /* kept for the process: the gradings probe no more */
        *gpus = g.count;
        n = g.count < 1 ? 1 : g.count;
        if (o->gpus && o->gpus < n) n = o->gpus;
        fewer = o->gpus > g.count && g.count > 0;
    }
    int compilers = build_workers();
    if (n > compilers) n = compilers;
    if (n > jobs) n = jobs;
    if (n < 1) n = 1;
    if (fewer)
        fprintf(stderr, "gpucourse: --gpus %d: this machine has %d GPU%s; grading on %d at once\n", o->gpus, *gpus,
                *gpus == 1 ? "" : "s", n);
    return n;
}

/* What took how long, for a run of several gradings: "N gradings in S s,
 * W at once on G GPUs: R a minute". */
void print_throughput(FILE *out, int gradings, double seconds, int at_once, int gpus) {
    fprintf(out, "%d grading%s in %.*f s", gradings, gradings == 1 ? "" : "s", seconds < 10 ? 1 : 0, seconds);
    if (at_once > 1) fprintf(out, ", %d at once on %d GPU%s", at_once, gpus, gpus == 1 ? "" : "s");
    else if (gpus > 0) fprintf(out, ", one at a time on %d GPU%s", gpus, gpus == 1 ? "" : "s");
    if (seconds > 0) fprintf(out, ": %.1f a minute", 60.0 * gradings / seconds);
    fputc('\n', out);
}

void on_phase(const char *what, void *ctx) {
    const Exercise *e = ctx;
    /* a wait for a lock (a GPU, the machine) is said in a CI log too: it explains a slow job */
    if (isatty(2) || !strncmp(what, "waiting", 7)) fprintf(stderr, "%s: %s...\n", e->id, what);
}

/* A result that did not come back from its worker (reply NULL: the worker
 * died), as a setup error: never the student's code, which runs in a
 * process of its own. */
void result_from_worker(GradeResult *r, const char *reply, size_t len, const char *what, const Exercise *e) {
    if (reply && grade_result_unpack(reply, len, r)) return;
    memset(r, 0, sizeof *r);
    r->verdict = V_SETUP_ERROR;
    snprintf(r->reason, sizeof r->reason,
             "the process of gpucourse's that %s %s ended before it said how (not your code's doing: that runs in a "
             "process of its own); run it again", what, e->id);
}
