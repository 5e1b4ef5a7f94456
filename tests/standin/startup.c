/* The start of a grading, as the judge (harness/main.cu spawn_runner)
 * starts the student's runner, for tests/runner_box.sh:
 *
 *   startup RUNNER LIBRARY UID GID TIMEOUT_S [SKIP]
 *
 * The runner gets what the judge gives it: argv `RUNNER --student LIBRARY`,
 * the judge's minimal environment (CUDA_CACHE_DISABLE=1, PATH=/usr/bin:/bin
 * and LD_LIBRARY_PATH passed through), its SOCK_SEQPACKET socket at
 * descriptor 3 (RUNNER_FD, harness/protocol.h), no other descriptor but 0-2,
 * and PR_SET_PDEATHSIG. Stdout and stderr are this program's (the test's
 * file, as the judge's are gpucourse's capture). Beyond the judge:
 *  - the runner's session has a controlling terminal, a pseudo-terminal made
 *    here, also at descriptor 0: the session of an instructor who runs
 *    `gpucourse class grade` (or a judge by hand) in a terminal. The pty is
 *    in raw mode, and what is pushed into its input queue (TIOCSTI) is read
 *    back here after the runner ended: that is what the grader's shell would
 *    have run;
 *  - the runner runs as UID:GID when this program is root (the test's second
 *    user: RLIMIT_NPROC never binds root);
 *  - SKIP (HOSTILE_SKIP in the environment: the probes tests/standin/hostile.c
 *    leaves out, after one of them ended the process).
 *
 * Once the runner is confined (Seccomp: 2 in its /proc status) it sends
 * MSG_LOAD, as the judge does once the library is in place (MSG_BYTES, the
 * size of struct Msg, is given at compile time by the test). With
 * STARTUP_FILL=inplace:SRC or rename:SRC in this program's environment,
 * LIBRARY is first given SRC's bytes, written into the file the runner's
 * sandbox named (as the grader fills the copy the early judge's runner
 * loads) or put in place by a rename (a new file, as nvcc writes one).
 *
 * It waits for MSG_READY (the library is loaded: its constructor ran) or
 * MSG_FAIL, then closes the socket, which ends the runner, and prints:
 *   ready: TEXT | fail: TEXT | no answer: WHY
 *   runner: exit status N | runner: signal N (NAME)
 *   tty: nothing pushed | tty: N bytes pushed: TEXT
 * Exit status 0 when it could do all that, 2 on a usage or setup error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum { RUNNER_FD = 3, MSG_READY = 1, MSG_FAIL = 6, MSG_LOAD = 9, TEXT_BYTES = 512 };
#define MSG_MAGIC 0x52435047u

static int die(const char *what) {
    fprintf(stderr, "startup: %s: %s\n", what, strerror(errno));
    return 2;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits up to `seconds` for the child; 1 when it ended (status in *status). */
static int wait_child(pid_t pid, int *status, double seconds) {
    for (double end = now() + seconds; now() < end; usleep(10000))
        if (waitpid(pid, status, WNOHANG) == pid) return 1;
    return 0;
}

/* Waits up to `seconds` for the child's syscall filter (its sandbox is
 * whole); 0 at once when it ended or answered first (the control, load.c,
 * has no sandbox and loads at once). */
static int wait_confined(pid_t pid, int sock, double seconds) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    for (double end = now() + seconds; now() < end; usleep(10000)) {
        struct pollfd p = {sock, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) return 0;
        FILE *f = fopen(path, "r");
        int confined = 0, ended = !f;
        while (f && fgets(line, sizeof line, f))
            confined |= !strncmp(line, "Seccomp:\t2", 10), ended |= !strncmp(line, "State:\tZ", 8);
        if (f) fclose(f);
        if (confined || ended) return confined;
    }
    return 0;
}

/* LIBRARY given SRC's bytes: "inplace:SRC" into the same file, "rename:SRC"
 * as a new file renamed over it. */
static int fill_library(const char *how, const char *library) {
    const char *src = strchr(how, ':') ? strchr(how, ':') + 1 : "";
    int rename_it = !strncmp(how, "rename:", 7);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", library);
    int in = open(src, O_RDONLY), out = rename_it ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)
                                                  : open(library, O_WRONLY | O_TRUNC);
    if (in < 0 || out < 0) return die("STARTUP_FILL");
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) return die("STARTUP_FILL: write");
    close(in);
    close(out);
    if (rename_it && rename(tmp, library) < 0) return die("STARTUP_FILL: rename");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 6 || argc > 7) {
        fprintf(stderr, "usage: %s RUNNER LIBRARY UID GID TIMEOUT_S [SKIP]\n", argv[0]);
        return 2;
    }
    const char *runner = argv[1], *library = argv[2], *skip = argc == 7 ? argv[6] : NULL;
    uid_t uid = (uid_t)atol(argv[3]);
    gid_t gid = (gid_t)atol(argv[4]);
    double timeout = atof(argv[5]);

    /* the terminal: raw, so that one pushed byte can be read back at once */
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) return die("posix_openpt");
    const char *slave_name = ptsname(master);
    int slave = slave_name ? open(slave_name, O_RDWR | O_NOCTTY | O_NONBLOCK) : -1;
    if (slave < 0) return die("open the pty's slave");
    struct termios tio;
    if (tcgetattr(slave, &tio) < 0) return die("tcgetattr");
    cfmakeraw(&tio);
    if (tcsetattr(slave, TCSANOW, &tio) < 0) return die("tcsetattr");

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return die("socketpair");
    char *env[5];
    int n = 0;
    env[n++] = "CUDA_CACHE_DISABLE=1";
    env[n++] = "PATH=/usr/bin:/bin";
    char *ld = getenv("LD_LIBRARY_PATH");
    char ld_text[4096], skip_text[1024];
    if (ld) snprintf(ld_text, sizeof ld_text, "LD_LIBRARY_PATH=%s", ld), env[n++] = ld_text;
    if (skip) snprintf(skip_text, sizeof skip_text, "HOSTILE_SKIP=%s", skip), env[n++] = skip_text;
    env[n] = NULL;
    char *args[] = {(char *)runner, "--student", (char *)library, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return die("fork");
    if (pid == 0) {
        /* a session of its own whose controlling terminal is the pty */
        if (setsid() < 0) _exit(120);
        int tty = open(slave_name, O_RDWR);
        if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0) _exit(121);
        if (dup2(tty, 0) < 0) _exit(122);
        if (dup2(sv[1], RUNNER_FD) < 0) _exit(123);
        for (int fd = RUNNER_FD + 1; fd < 4096; fd++) close(fd);
        if (getuid() == 0 && uid != 0) {
            if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0) _exit(124);
        }
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execve(runner, args, env);
        _exit(127);
    }
    close(sv[1]);

    /* MSG_LOAD once confined, the library given its bytes first if asked */
    const char *fill = getenv("STARTUP_FILL");
    if (wait_confined(pid, sv[0], timeout) && fill && fill_library(fill, library)) return 2;
    static unsigned char load[MSG_BYTES];
    uint32_t words[2] = {MSG_MAGIC, MSG_LOAD};
    memcpy(load, words, sizeof words);
    if (send(sv[0], load, sizeof load, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
        return die("send MSG_LOAD");

    /* MSG_READY or MSG_FAIL: magic and type are the message's first two
     * words, its text its last TEXT_BYTES (struct Msg, harness/protocol.h) */
    static unsigned char buf[1 << 16];
    struct pollfd p = {sv[0], POLLIN, 0};
    int ready = poll(&p, 1, (int)(timeout * 1000));
    ssize_t got = ready > 0 ? recv(sv[0], buf, sizeof buf, 0) : -1;
    uint32_t magic, type;
    memcpy(&magic, buf, 4);
    memcpy(&type, buf + 4, 4);
    if (got >= 8 + TEXT_BYTES && magic == MSG_MAGIC && (type == MSG_READY || type == MSG_FAIL)) {
        char text[TEXT_BYTES + 1];
        memcpy(text, buf + got - TEXT_BYTES, TEXT_BYTES);
        text[TEXT_BYTES] = 0;
        printf("%s: %s\n", type == MSG_READY ? "ready" : "fail", text);
    } else if (ready == 0) {
        printf("no answer: nothing within %.0f s\n", timeout);
    } else if (got == 0) {
        printf("no answer: the runner closed its socket\n");
    } else {
        printf("no answer: a message that is not MSG_READY or MSG_FAIL (%zd bytes)\n", got);
    }
    fflush(stdout);
    close(sv[0]);  // the judge goes away: the runner's msg_recv gets 0 and it returns

    int status = 0;
    if (!wait_child(pid, &status, 10)) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        printf("runner: killed: still running 10 s after its socket closed\n");
    } else if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) >= 120 && WEXITSTATUS(status) <= 127)
            printf("runner: not started (startup's child exit %d)\n", WEXITSTATUS(status));
        else printf("runner: exit status %d\n", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        printf("runner: signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
    }

    /* what the runner pushed into the terminal's input queue */
    char pushed[256];
    ssize_t k = read(slave, pushed, sizeof pushed - 1);
    if (k > 0) {
        for (ssize_t i = 0; i < k; i++)
            if (pushed[i] < 32 || pushed[i] > 126) pushed[i] = '.';
        pushed[k] = 0;
        printf("tty: %zd bytes pushed: %s\n", k, pushed);
    } else {
        printf("tty: nothing pushed\n");
    }
    return 0;
}
