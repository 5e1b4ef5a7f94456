// expect: 4 runtime_error -- a slow correct kernel; solve forges MSG_DONE packets (event_ms 0.001) on the harness socket, fd 3, while the kernel runs
// Attack: with struct Msg copied from harness/protocol.h, answer the RUN on fd 3 before the slow kernel ends: MSG_DONE,
// event_ms 0.001, seq read off the runner's stack (else guessed: BIND, RUN, UNBIND take one each), plus spares for
// seq+1..+3. Stopped: a right-seq answer is still timed by the judge's clock (it waits for an idle GPU), and every
// extra packet (the spares, the runner's own DONE) is an unasked-for answer: "violation: protocol".
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

// ---- harness/protocol.h and harness/harness.h, as shipped with the course
enum { RUNNER_FD = 3, MAX_ARRAYS = 6 };
enum : uint32_t { MSG_MAGIC = 0x52435047u };
enum : uint32_t { MSG_READY = 1, MSG_BIND, MSG_UNBIND, MSG_RUN, MSG_DONE, MSG_FAIL, MSG_QUIT };
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

__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

// The RUN message the runner is serving: on the main thread's stack, above our frame.
static bool find_run_on_stack(int n, uint64_t* seq) {
    pthread_attr_t attr;
    void* low = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
    pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    uintptr_t top = (uintptr_t)low + size;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)7;
    uintptr_t end = here + (64u << 10) < top ? here + (64u << 10) : top;
    for (uintptr_t p = here; p + sizeof(Msg) <= end; p += 8) {
        const Msg* m = (const Msg*)p;
        if (m->magic == MSG_MAGIC && m->type == MSG_RUN && m->who == 0 && m->dims.count == 1 && m->dims.d[0] == n) {
            *seq = m->seq;
            return true;
        }
    }
    return false;
}

// Without the stack: the judge's counter. Each check size is BIND, RUN, UNBIND (seqs 3k+1..3k+3, k = 0..4); the timed
// size is one BIND (16) and then RUNs only (17, 18, ...).
static uint64_t guess_seq(int call) { return call < 5 ? 3 * (uint64_t)call + 2 : 17 + (uint64_t)(call - 5); }

static void send_done(uint64_t seq) {
    Msg m;
    memset(&m, 0, sizeof m);
    m.magic = MSG_MAGIC;
    m.type = MSG_DONE;
    m.seq = seq;
    m.event_ms = 0.001;
    ssize_t r = send(RUNNER_FD, &m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)r;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int calls;
    int call = calls++;
    if (n <= 0) return;
    slow_add<<<64, 64>>>(a, b, c, n);  // still running while we answer for it
    uint64_t seq;
    bool exact = find_run_on_stack(n, &seq);
    if (!exact) seq = guess_seq(call);
    fprintf(stderr, "forge_done: call %d, seq %llu (%s)\n", call, (unsigned long long)seq, exact ? "from the stack" : "guessed");
    for (uint64_t k = 0; k < 4; k++) send_done(seq + k);
}
