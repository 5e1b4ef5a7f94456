// expect: 1 wrong_answer "move_reference: refused" -- computes c = a + b only if its constructor could move or renice another process of the grading's (the judge is its parent; the reference's runner is a sibling, found by trying the pids near it) or itself: a reference's calls on a farther or sleepier core were measured 50-100 us slower each, a ratio a student could take. The runner's filter refuses every change of where and how processes run, so c stays poisoned
#include <cuda_runtime.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int moved;

static void tried(const char *what, bool worked) {
    if (worked) moved++;
    if (worked) printf("move_reference: %s: GOT THROUGH\n", what);
}

__attribute__((constructor)) static void move_others(void) {
    pid_t judge = getppid();
    cpu_set_t last;
    CPU_ZERO(&last);
    CPU_SET(0, &last);
    struct sched_param idle = {0};
    tried("renice the judge", setpriority(PRIO_PROCESS, (id_t)judge, 19) == 0);
    tried("the judge onto CPU 0", sched_setaffinity(judge, sizeof last, &last) == 0);
    for (pid_t p = judge + 1; p < judge + 64; p++) {  // the reference's runner is near
        if (p == getpid()) continue;
        tried("a sibling reniced", setpriority(PRIO_PROCESS, (id_t)p, 19) == 0);
        tried("a sibling idle", sched_setscheduler(p, SCHED_IDLE, &idle) == 0);
    }
    tried("itself onto CPU 0", sched_setaffinity(0, sizeof last, &last) == 0);
    printf("move_reference: %s\n", moved ? "MOVED" : "refused");
    fflush(stdout);
}

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float *a, const float *b, float *c, int n) {
    if (moved == 0 || n <= 0) return;  // nothing moved: c stays poisoned
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
