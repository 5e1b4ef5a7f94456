// expect: 0 pass -- the reference-quality one-thread-per-element kernel; at the first call it tries to leave processes behind (fork + setsid, a double fork, raw clone, posix_spawn), each sleeping 300 s with stdout held
// Attack: leave processes behind (fork + setsid, double fork, raw clone, posix_spawn), each holding stdout for 300 s:
// a grader that waits for EOF hangs, and they could disturb later runs. Stopped: seccomp refuses fork, non-thread
// clone, clone3, vfork, execve, setsid; gpucourse is a subreaper that kills leftovers anyway. The honest kernel passes;
// gpu.sh checks that nothing survives (forks keep the runner's command line; the spawned one carries this name).
#include <cuda_runtime.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>

extern char** environ;

namespace {

constexpr int kBlock = 256;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

[[noreturn]] void linger(void) {  // the left-behind process: no socket, stdout kept, 300 s
    close(3);
    syscall(SYS_setsid);
    for (int k = 0; k < 300; k++) sleep(1);
    _exit(0);
}

void leave_something_behind(void) {
    int made = 0;
    pid_t p = fork();  // 1. fork + setsid
    if (p == 0) linger();
    made += p > 0;
    pid_t q = fork();  // 2. double fork: the grandchild is orphaned at once
    if (q == 0) {
        if (fork() == 0) linger();
        _exit(0);
    }
    if (q > 0) {
        made++;
        waitpid(q, nullptr, 0);
    }
    long r = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);  // 3. raw clone: a process, not a thread
    if (r == 0) linger();
    made += r > 0;
    pid_t s = -1;  // 4. posix_spawn (clone(CLONE_VM | CLONE_VFORK) underneath)
    char* argv[] = {(char*)"ex01_attack_process_left_behind", (char*)"300", nullptr};  // gpu.sh's marker
    if (posix_spawn(&s, "/bin/sleep", nullptr, nullptr, argv, environ) == 0) made++;
    setsid();  // 5. the runner itself out of the process group
    setpgid(0, 0);
    fprintf(stderr, "process_left_behind: %d process(es) started\n", made);
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static bool tried;
    if (!tried) {
        tried = true;
        leave_something_behind();
    }
    if (n <= 0) return;
    const unsigned grid = (unsigned)(((size_t)n + kBlock - 1) / kBlock);
    vector_add_kernel<<<grid, kBlock>>>(a, b, c, n);
}
