// expect: 2 too_slow -- a slow correct kernel; a constructor puts a proxy thread between the runner and the judge's socket (fd 3) that passes every message through, descriptors included, but rewrites each DONE to say 0.001 ms
// Attack: own the channel: move the real socket away, give the runner a socketpair at fd 3, and relay everything in
// both directions (BIND descriptors too), changing only DONE's event_ms to 0.001. No extra or out-of-turn packet ever:
// every seq is the one the judge asked for. Stopped: the judge's clock bounds the runner's number, so all samples are
// judged by the clock and the slow kernel stays too slow.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

// harness/protocol.h, as shipped with the course (only what the proxy touches)
enum : uint32_t { MSG_MAGIC = 0x52435047u, MSG_DONE = 5 };
struct MsgHead {
    uint32_t magic, type;
    uint64_t seq;
};
constexpr size_t kMsgSize = 648, kEventOffset = 128;  // sizeof(Msg), offsetof(Msg, event_ms)

__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

static int judge_side = -1, runner_side = -1;
static int rewritten;

// One packet from `from` to `to`, with whatever descriptors came with it; false at end of stream.
static bool relay(int from, int to, bool to_judge) {
    char data[2048];
    union {
        char buf[CMSG_SPACE(sizeof(int) * 16)];
        cmsghdr align;
    } ctl;
    iovec io = {data, sizeof data};
    msghdr h;
    memset(&h, 0, sizeof h);
    h.msg_iov = &io;
    h.msg_iovlen = 1;
    h.msg_control = ctl.buf;
    h.msg_controllen = sizeof ctl.buf;
    ssize_t n = recvmsg(from, &h, MSG_CMSG_CLOEXEC);
    if (n <= 0) return false;
    int fds[16], nfds = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfds < 16; k++)
                memcpy(&fds[nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
    MsgHead head;
    memcpy(&head, data, sizeof head);
    if (to_judge && (size_t)n == kMsgSize && head.magic == MSG_MAGIC && head.type == MSG_DONE) {
        double claimed = 0.001;
        memcpy(data + kEventOffset, &claimed, sizeof claimed);
        rewritten++;
    }
    io.iov_len = (size_t)n;
    h.msg_controllen = 0;
    h.msg_control = nullptr;
    if (nfds) {
        h.msg_control = ctl.buf;
        h.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        cmsghdr* c = CMSG_FIRSTHDR(&h);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    h.msg_flags = 0;
    ssize_t sent = sendmsg(to, &h, MSG_NOSIGNAL);
    for (int k = 0; k < nfds; k++) close(fds[k]);
    return sent == n;
}

static void proxy(void) {
    for (;;) {
        pollfd p[2] = {{judge_side, POLLIN, 0}, {runner_side, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) continue;
        if ((p[0].revents & (POLLIN | POLLHUP)) && !relay(judge_side, runner_side, false)) break;
        if ((p[1].revents & (POLLIN | POLLHUP)) && !relay(runner_side, judge_side, true)) break;
    }
    close(runner_side);  // the judge went away: the runner sees the end of its stream too
    close(judge_side);
}

__attribute__((constructor)) static void take_the_socket(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return;
    judge_side = fcntl(3, F_DUPFD_CLOEXEC, 100);  // the real socket, out of the way
    if (judge_side < 0 || dup2(sv[0], 3) < 0) {      // the runner now talks to us
        close(sv[0]), close(sv[1]);
        return;
    }
    close(sv[0]);
    runner_side = sv[1];
    std::thread(proxy).detach();
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int calls;
    if (calls++ == 0) fprintf(stderr, "socket_proxy: in place (real socket at fd %d)\n", judge_side);
    if (n > 0) slow_add<<<64, 64>>>(a, b, c, n);
}
