// expect: 1 wrong_answer -- computes nothing; writes forged result lines ("harness: 1 ...", "done: correct", "PASS ex01") to every descriptor it holds
// Attack: write a complete forged result ("harness: 1 <nonce>", checks ok, times at 1.05x, "done: correct") and a
// fake "PASS ex01" to stdout, stderr and every other fd that could be a result pipe (not fd 3, the harness socket:
// that is forge_done; not the driver's own fds). Stopped: the result pipe exists only in the judge; stdout/stderr are
// only captured output; the grader reads nothing before the judge's own "harness: 1 NONCE".
#include <cuda_runtime.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char kForged[] =
    "harness: 1 8c3d0f6be41a9d27c55e10f3a6b2e9d4\n"  // a guess of the nonce's shape (two 64-bit hex numbers)
    "harness: 1 -\n"                                  // what the judge prints when run without a nonce
    "kind: vector_add\n"
    "seed: 1\n"
    "device: NVIDIA H100 80GB HBM3\n"
    "sm: 9.0 132 1980\n"
    "sandbox: landlock 7, seccomp on\n"
    "check: 1 ok\n"
    "check: 31 ok\n"
    "check: 1000 ok\n"
    "check: 65537 ok\n"
    "check: 1000003 ok\n"
    "bytes: 3221225472\n"
    "check: 268435456 ok\n"
    "check: 268435456 ok (timed sample)\n"
    "overhead: 0.300000\n"
    "time: student 0.001000 0.001000 0.001000 21\n"   // the crude forgery ...
    "time: student 1.050000 1.040000 1.090000 21\n"   // ... and a plausible one (the later line wins in a naive parser)
    "clock: student event 1.050000 wall 1.350000 judged 0 of 21\n"
    "time: reference 1.100000 1.090000 1.150000 21\n"
    "time: baseline 1.080000 1.070000 1.120000 21\n"
    "done: correct\n"
    "PASS ex01: correct, and 1.05x the reference's throughput (floor 0.70)\n";

static void put(int fd, const char* text, size_t len) {
    ssize_t r = write(fd, text, len);  // errors ignored: try everything
    (void)r;
}

// True for descriptors the CUDA driver owns, and for our harness socket.
static bool leave_alone(int fd, const char* target) {
    if (fd == 3) return true;  // the harness socket (see the header)
    if (!strncmp(target, "socket:", 7) || !strncmp(target, "anon_inode:", 11)) return true;
    if (!strncmp(target, "/dev/nvidia", 11)) return true;
    if (!strncmp(target, "pipe:", 5)) {  // its read end here too: the driver's own wake-up pipe
        for (int other = 0; other < 1024; other++) {
            char path[64], link[256];
            snprintf(path, sizeof path, "/proc/self/fd/%d", other);
            ssize_t n = readlink(path, link, sizeof link - 1);
            if (n <= 0) continue;
            link[n] = '\0';
            if (!strcmp(link, target) && (fcntl(other, F_GETFL) & O_ACCMODE) == O_RDONLY) return true;
        }
    }
    return false;
}

static void forge_everywhere(void) {
    signal(SIGPIPE, SIG_IGN);  // a pipe nobody reads must not end us
    for (int fd = 0; fd < 1024; fd++) {
        char path[64], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0) {  // not open (or /proc hidden): write anyway, EBADF costs nothing
            if (fd != 3) put(fd, kForged, sizeof kForged - 1);
            continue;
        }
        target[n] = '\0';
        if (leave_alone(fd, target)) continue;
        int mode = fcntl(fd, F_GETFL);
        if (mode >= 0 && (mode & O_ACCMODE) == O_RDONLY && fd > 2) continue;
        put(fd, kForged, sizeof kForged - 1);
    }
    fflush(NULL);
}

__attribute__((constructor)) static void forge_at_load(void) { forge_everywhere(); }

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static int calls;
    if (calls++ < 3) forge_everywhere();  // c is left as the harness poisoned it: the honest verdict is wrong_answer
}
