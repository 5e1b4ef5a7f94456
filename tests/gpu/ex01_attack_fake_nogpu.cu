// expect: 4 runtime_error -- computes nothing; before the runner's READY, a constructor sends the judge a MSG_FAIL (seq 0) whose text is "nogpu: no CUDA-capable device is detected"
// unsure: the judge passes a runner's FAIL text at startup (and at BIND) into its "error:" line unprefixed, and the grader takes the word before the colon as the error kind: as written I expect "skipped" (exit 77, "no GPU") instead of a failure
// Attack: a constructor answers the judge's wait for READY with a MSG_FAIL (seq 0) saying "nogpu: ...": the grader has
// a verdict for machines without a GPU (skipped, exit 77; JUnit <skipped>; `grade --all` exits 77 when all that did not
// pass were skipped), so a wrong answer is never graded. Should stop it: a FAIL from the student's runner is the
// student's failure whatever its text; the judge should prefix it as it does for FAILs during a call ("cuda: ...").
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

// harness/protocol.h, as shipped with the course
enum { MAX_ARRAYS = 6 };
enum : uint32_t { MSG_MAGIC = 0x52435047u, MSG_FAIL = 6 };
struct Dims {
    int count;
    long long d[3];
};
struct Scalars {
    float f[4];
};
struct Msg {
    uint32_t magic, type;
    uint64_t seq;
    int32_t who, slot, narrays, reserved;
    uint64_t bytes[MAX_ARRAYS];
    Dims dims;
    Scalars scalars;
    double event_ms;
    char text[512];
};
static_assert(sizeof(Msg) == 648, "Msg layout as in harness/protocol.h");

__attribute__((constructor)) static void no_gpu_here(void) {
    Msg m;
    memset(&m, 0, sizeof m);
    m.magic = MSG_MAGIC;
    m.type = MSG_FAIL;
    m.seq = 0;  // the judge's await for READY accepts READY or FAIL with seq 0
    snprintf(m.text, sizeof m.text, "nogpu: no CUDA-capable device is detected");
    ssize_t r = send(3, &m, sizeof m, MSG_NOSIGNAL);
    (void)r;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;  // c stays poisoned, were it ever called
}
