/* The one way gpucourse runs another program (nvcc, the harness,
 * cuobjdump): fork and exec of an argv array (never a shell string), in its
 * own session and process group (no controlling terminal; a timeout or
 * Ctrl-C ends the whole group), stdout and
 * stderr captured together up to a cap, and optionally a private result pipe
 * at a fixed descriptor in the child.
 *
 * Containment: nothing a run started outlives it. gpucourse is a child
 * subreaper, so a process that left the group (setsid, a double fork) is
 * re-parented to us; when the child has exited, its group and every child of
 * ours that the run left behind are killed and reaped. The run ends when the
 * child ends, even if such a process still holds the output pipes open.
 * Nothing outlives gpucourse either, even when it is killed with SIGKILL:
 * each program runs below a small guard process of ours that kills the
 * program's whole tree when gpucourse dies. */
#ifndef GPUCOURSE_PROC_H
#define GPUCOURSE_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct {
    const char *const *argv;      /* argv[0] is looked up in PATH */
    const char *const *env;       /* extra "NAME=value" entries, NULL-terminated, or NULL */
    double timeout_s;             /* 0: none */
    const char *dir;              /* the child's working directory, or NULL: ours */
    size_t memory_limit;          /* bytes of address space (RLIMIT_AS) of the child and of every
                                     program it starts, each on its own; 0: no limit of ours */
    size_t capture_limit;         /* bytes of output kept; the rest is read and counted */
    int result_fd;                /* >2: a pipe at this descriptor in the child */
    int go_fd;                    /* >2: a pipe from us at this descriptor in the child (GPUCOURSE_GO_FD
                                     names it): proc_go writes one byte, or closes it with none */
    /* Called in the child after fork, before exec, with confine_ctx: while
     * it has one thread, and so that every program it starts inherits what
     * it sets (the compiler's Landlock rules, grader/toolchain.c). Non-zero,
     * with errno set: the program is not run and proc_run fails. NULL:
     * nothing. */
    int (*confine)(const void *ctx);
    const void *confine_ctx;
    /* Called with every piece of output as it arrives (live logs, scans),
     * also the pieces past capture_limit, or NULL. */
    void (*on_output)(const char *data, size_t len, void *ctx);
    void *ctx;
} ProcSpec;

typedef struct {
    bool exited;          /* exited normally: exit_code is valid */
    int exit_code;
    int signal;           /* killed by this signal (when !exited) */
    bool timed_out;       /* we killed it at the timeout */
    bool interrupted;     /* we killed it because we got SIGINT/SIGTERM/SIGHUP */
    char *output;         /* captured stdout+stderr, NUL-terminated */
    size_t output_len;
    size_t output_dropped; /* bytes beyond capture_limit */
    char *results;        /* what the child wrote to result_fd (its first 4 MiB), NUL-terminated */
    double wall_s;
} ProcResult;

/* Returns 0 when the program ran (whatever its outcome), -1 with error set
 * when it could not be started (not found, not executable). Our children
 * from before the call (and proc_run_terminal's editor) are left alone. */
int proc_run(const ProcSpec *spec, ProcResult *res);

/* The same run in steps, for a program that starts while we do something
 * else (the judge beside nvcc): proc_start starts it (0, or -1 with error
 * set, as proc_run); proc_wait waits for it and fills res (the one given to
 * proc_start, or where its owner has moved it since: the run keeps no
 * pointer into the caller's memory), and frees the run once it is over (true). With enough, it
 * returns false as soon as the program closed its result pipe and enough()
 * says that what it wrote there is whole: res holds that and the output so
 * far (exited set, as the program said), the program still ends its own
 * way, and a later proc_wait(run, res, NULL) waits for that (its output from
 * then on is kept, not passed to on_output). Every started run
 * must be waited for to its end: until then a Ctrl-C is kept for it, and
 * only then is everything the run started killed and reaped. */
typedef struct ProcRun ProcRun;
int proc_start(const ProcSpec *spec, ProcResult *res, ProcRun **run);
bool proc_wait(ProcRun *run, ProcResult *res, bool (*enough)(const char *results, size_t len));
/* go: one byte on the go pipe, then it is closed, and the run's timeout
 * counts from now; !go: closed with none. */
void proc_go(ProcRun *run, bool go);
/* Kills the run's whole group at once (the wait still reaps it). */
void proc_kill(ProcRun *run);
void proc_result_free(ProcResult *res);

/* Whether a run was interrupted (res.interrupted) since the last call, which
 * clears it: for a task of several runs whose results do not all reach it
 * (a build through the cache), so that Ctrl-C during any of them ends it. */
bool proc_take_interrupted(void);

/* Waits until done(ctx) is true (asked every 100 ms), at most timeout_s
 * seconds, for something that is no run of ours (the GPU's lock); Ctrl-C
 * (SIGINT, SIGTERM, SIGHUP) ends it as it ends a run, and counts for
 * proc_take_interrupted. */
typedef enum { PROC_WAIT_DONE, PROC_WAIT_INTERRUPTED, PROC_WAIT_TIMED_OUT } ProcWait;
ProcWait proc_wait_for(bool (*done)(void *ctx), void *ctx, double timeout_s);

/* Independent jobs on several copies of this process at once: `grade
 * --all` and `class grade` on a machine with several GPUs, check-course's
 * compiles. Each worker is a fork of gpucourse (no exec: it runs work()
 * with this process's state) below it, and dies with it; a free worker gets
 * the next job at once. What work() puts in its reply comes back here, and
 * done() sees each job's reply in job order, as a loop over the jobs would.
 * With one worker (or one job) the jobs run here, one after another, with
 * no fork.
 *
 * A worker that dies mid-job (a crash, a kill) is done() with reply NULL,
 * and the others go on. done() returning false stops the jobs: none is
 * started after it, and the replies after it are dropped. Ctrl-C (SIGINT,
 * SIGTERM, SIGHUP) reaches every worker's run (proc_run sees it), stops
 * the jobs the same way once the replies before the first that did not
 * come back are delivered, and counts for proc_take_interrupted; a second
 * one kills the workers at once. */
typedef struct {
    int njobs, workers;
    void (*work)(int job, StrBuf *reply, void *ctx);
    bool (*done)(int job, const char *reply, size_t len, void *ctx);
    void *ctx;
} ProcPool;

/* Returns how many jobs' replies done() saw; *interrupted: Ctrl-C stopped
 * them. */
int proc_pool_run(const ProcPool *pool, bool *interrupted);

/* Runs an interactive program (the student's editor) on our terminal: in our
 * process group, with our stdin, stdout and stderr, and waits for it; SIGINT
 * and SIGQUIT go to it, not to us, while it runs. *exit_code is its exit
 * status (128 + signal when killed). Returns -1 with error set when it could
 * not be started. */
int proc_run_terminal(const char *const *argv, int *exit_code);

/* Called once at startup: makes gpucourse non-dumpable, so that the
 * student's code (same user) can neither ptrace it nor open its
 * /proc/PID/mem or /proc/PID/fd/. */
void proc_harden_self(void);

/* Finds a program in PATH; returns a malloc'd path or NULL. */
char *proc_find_in_path(const char *name);

#endif
