/* One timed grading per GPU at a time, across processes and users: two
 * judges timing on one GPU move each other's ratios (two ex13 grades at
 * once: the reference's ratio to the copy went from 0.49 to 0.58), and
 * near a floor that is a wrong verdict. The lock is an flock(2) on a file
 * named by the GPU's UUID in a directory every user can write
 * (GPUCOURSE_LOCK_DIR, default /tmp), held around the GPU part of a
 * grade (the judge) or of a diagnosis, and released by closing it, also
 * when gpucourse dies. The holder writes who it is into the file, for the
 * message of the one that waits. On a host with several GPUs a grading
 * takes whichever is free, so that as many gradings time at once as there
 * are GPUs, never two on one. */
#ifndef GPUCOURSE_GPULOCK_H
#define GPUCOURSE_GPULOCK_H

#include <stdbool.h>

typedef struct {
    int fd;    /* -1: not held */
    int which; /* the index in the request's gpus of the GPU held */
} GpuLock;

typedef enum { GPU_LOCK_HELD, GPU_LOCK_INTERRUPTED, GPU_LOCK_TIMED_OUT, GPU_LOCK_FAILED } GpuLockResult;

typedef struct {
    const char *const *gpus; /* the GPUs' UUIDs (GpuInfo.uuids): any one of them will do */
    int ngpus;
    const char *what;        /* who we are, for a waiting neighbour: "ex13" */
    double timeout_s;        /* how long to wait (a grade: GPUCOURSE_GPU_WAIT); 0: 600 s */
    void (*on_wait)(const char *message, void *ctx); /* said once when it must wait */
    void *ctx;
} GpuLockRequest;

/* Takes the lock of the first free GPU of req->gpus, waiting while other
 * gradings hold them all; Ctrl-C
 * (SIGINT, SIGTERM, SIGHUP) stops the wait (and counts for
 * proc_take_interrupted). GPU_LOCK_FAILED sets error:
 * the lock file cannot be opened (the caller decides; see gpucourse doctor). */
GpuLockResult gpu_lock(const GpuLockRequest *req, GpuLock *out);
void gpu_unlock(GpuLock *l);

/* The lock file of a GPU (malloc'd). */
char *gpu_lock_path(const char *gpu);

#endif
