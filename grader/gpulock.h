/* One timed grading per GPU at a time, across processes and users: two
 * judges timing on one GPU move each other's ratios (two ex13 grades at
 * once: the reference's ratio to the copy went from 0.49 to 0.58), and
 * near a floor that is a wrong verdict. The lock is held around the GPU
 * part of a grade (the judge) or of a diagnosis, and released by closing
 * it, also when gpucourse dies. On a host with several GPUs a grading
 * takes whichever is free, so that as many gradings time at once as there
 * are GPUs, never two on one.
 *
 * Other users of the machine can put anything at a lock's path, so the
 * lock has two levels, both flock(2):
 *   - the lock directory itself (gpu_lock_dir()), which must be one that
 *     only root and we can change: held shared beside a GPU's own file,
 *     or exclusive alone;
 *   - a GPU's own file in it, gpucourse-gpu-UUID.lock, held exclusive, used
 *     only when nobody else can take it away: a regular file with no other
 *     name, ours or root's. The holder writes who it is into a file of its
 *     own, for the message of the one that waits.
 * Where a GPU's file cannot serve (another user's file, a FIFO, a
 * directory, a link), the grading takes the directory exclusive: it waits
 * for every grading on the machine and they for it. Squatting a name can
 * slow gradings down, never hang one or let two time on one GPU.
 *
 * A grading whose exercise is witnessed (the judge samples its GPU's
 * counters itself: CUPTI PM sampling) needs the machine to itself: the
 * sampler loses samples when the host's CPUs are busy, whatever the other
 * GPUs do. Measured on a host of four H200s, ex33's reference graded
 * alone passed every time (8 of 8); beside another witnessed grading
 * 2 of 4 lost samples, beside three others 12 of 12; beside three plain
 * ex01/ex13 gradings 2 of 2; beside 64 busy CPU loops 1 of 1; beside
 * kernels and contexts made and destroyed on the other three GPUs, 0 of
 * 2. Such a grading (GpuLockRequest.alone) takes the directory
 * exclusive, and first a file of the machine's, gpucourse-machine.lock,
 * exclusive, which every other grading must be
 * able to take shared before it starts: so the gradings that run end, no
 * new one starts, and the witnessed grading is not starved by a stream of
 * others. */
#ifndef GPUCOURSE_GPULOCK_H
#define GPUCOURSE_GPULOCK_H

#include <stdbool.h>

typedef struct {
    int fd;         /* the GPU's own file, held exclusive; -1: none */
    int which;      /* the index in the request's gpus of the GPU held */
    bool held;      /* false: nothing to let go (a zeroed GpuLock is one) */
    int dir_fd;     /* the lock directory: shared beside fd, exclusive without it (or alone) */
    int machine_fd; /* gpucourse-machine.lock, held exclusive by a grading alone; -1: none */
    char machine_why[200]; /* why that file cannot serve (nobody is kept out while one waits), or "" */
    char why[256];  /* the directory alone was (or would have been) taken: why the GPU's own file cannot serve */
} GpuLock;

typedef enum { GPU_LOCK_HELD, GPU_LOCK_INTERRUPTED, GPU_LOCK_TIMED_OUT, GPU_LOCK_FAILED } GpuLockResult;

typedef struct {
    const char *const *gpus; /* the GPUs' UUIDs (GpuInfo.uuids): any one of them will do */
    int ngpus;
    bool alone;              /* the machine to itself: every other grading on it ended, none to start */
    const char *what;        /* who we are, for a waiting neighbour: "ex13" */
    double timeout_s;        /* how long to wait (a grade: GPUCOURSE_GPU_WAIT); 0: 600 s */
    bool no_wait;            /* taken now or not at all (GPU_LOCK_TIMED_OUT, nothing said, no error) */
    void (*on_wait)(const char *message, void *ctx); /* said once when it must wait */
    void *ctx;
} GpuLockRequest;

/* Takes the lock of the first free GPU of req->gpus, waiting while other
 * gradings hold them all; Ctrl-C
 * (SIGINT, SIGTERM, SIGHUP) stops the wait (and counts for
 * proc_take_interrupted). GPU_LOCK_FAILED sets error: the lock directory
 * cannot be used (missing, or others may change it); the caller decides,
 * and a grade timed anyway is marked unlocked (GradeResult.unlocked). */
GpuLockResult gpu_lock(const GpuLockRequest *req, GpuLock *out);
void gpu_unlock(GpuLock *l);

/* The directory of the locks: $GPUCOURSE_LOCK_DIR, else the shared one
 * that make install makes (GPUCOURSE_SHARED_LOCK_DIR) when it is there,
 * else /tmp. */
const char *gpu_lock_dir(void);
extern const char gpu_lock_shared_dir[];

/* The lock file of a GPU (malloc'd). */
char *gpu_lock_path(const char *gpu);

/* The machine's lock file, gpucourse-machine.lock (malloc'd). */
char *gpu_machine_lock_path(void);

#endif
