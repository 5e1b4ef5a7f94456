// expect: 1 wrong_answer -- computes c = a + b only if one of issue 44's escapes works from its constructor under the real driver (TIOCSTI into a terminal, UDP and Unix sockets, System V memory, a POSIX message queue, memfd code, shared anonymous memory, another process's /proc, a file of the user's); each is refused, so c stays poisoned
// Attack: prove a way out of the runner before doing the work. Every way tried is one a student who wants the
// instructor's keys, or a channel to a helper process, would try first. Stopped: the runner has no controlling
// terminal and every 'T' ioctl answers ENOTTY; socket() is refused for every family; System V IPC, POSIX
// message queues, memfd_create and MAP_SHARED|MAP_ANONYMOUS are refused by the syscall filter; Landlock lets it
// read only the runtime's libraries, the driver's files and its own /proc directory. What got through is printed
// (the result's output).
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int escapes;

static void tried(const char *what, bool worked) {
    if (worked) escapes++;
    printf("escape_box: %s: %s\n", what, worked ? "GOT THROUGH" : strerror(errno));
}

__attribute__((constructor)) static void try_every_way_out(void) {
    int tty = open("/dev/tty", O_RDONLY | O_CLOEXEC);
    char c = '#';
    tried("TIOCSTI on /dev/tty", tty >= 0 && ioctl(tty, TIOCSTI, &c) == 0);
    tried("TIOCSTI on stdin", ioctl(0, TIOCSTI, &c) == 0);
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in to = {};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    tried("UDP to 127.0.0.1", udp >= 0 && sendto(udp, "x", 1, 0, (sockaddr *)&to, sizeof to) == 1);
    int unx = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    tried("a Unix socket (ssh-agent, D-Bus)", unx >= 0);
    int shm = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
    tried("System V shared memory", shm >= 0);
    if (shm >= 0) shmctl(shm, IPC_RMID, nullptr);
    int queue = (int)syscall(SYS_mq_open, "gpucourse-escape", O_CREAT | O_RDWR | O_CLOEXEC, 0600, nullptr);
    tried("a POSIX message queue (outlives the runner)", queue >= 0);
    if (queue >= 0) syscall(SYS_mq_unlink, "gpucourse-escape");
    tried("memfd_create", syscall(SYS_memfd_create, "code", 0) >= 0);
    void *shared = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    tried("shared anonymous memory", shared != MAP_FAILED);
    tried("/proc/1/cmdline", open("/proc/1/cmdline", O_RDONLY | O_CLOEXEC) >= 0);
    tried("/etc/hostname", open("/etc/hostname", O_RDONLY | O_CLOEXEC) >= 0);
    tried("/root", open("/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC) >= 0);
    fflush(stdout);
}

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float *a, const float *b, float *c, int n) {
    if (escapes == 0 || n <= 0) return;  // no way out: c stays poisoned
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
