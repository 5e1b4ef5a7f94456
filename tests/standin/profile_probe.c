/* The student's library in the runner's profile mode (gpucourse why
 * --profile: `runner-KIND --diagnose SIZE --profile LOCK_DIR` under ncu),
 * for tests/runner_box.sh: its constructor tries what that mode's allow-list
 * touches, and prints `probe NAME: OPEN (...)` or `probe NAME: blocked
 * (...)` for each, as hostile.c does. What the mode adds, and nothing more:
 *  - lock-file: make a file in LOCK_DIR (ncu's part makes its lock there):
 *    allowed;
 *  - inject-read: read a file in the directory of the library named by
 *    CUDA_INJECTION64_PATH (ncu's own libraries): allowed;
 *  - lock-parent, outside-tmp: make a file beside LOCK_DIR, or elsewhere in
 *    the test's directory: blocked;
 *  - lock-mkdir, lock-unlink: a directory in LOCK_DIR, removing a file
 *    there: blocked (the filter refuses them everywhere);
 *  - inject-sibling: read a file in a directory beside ncu's: blocked;
 *  - read-ssh-key: the grading user's key: blocked.
 * The places are -D constants of the test's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void result(const char *name, int ok, const char *what) {
    if (ok) printf("probe %s: OPEN (%s)\n", name, what);
    else printf("probe %s: blocked (%s: %s)\n", name, what, strerror(errno));
    fflush(stdout);
}

static void make_file(const char *name, const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, "x", 1) == 1;
    result(name, ok, path);
    if (fd >= 0) close(fd);
}

static void read_file(const char *name, const char *path) {
    char buf[16];
    int fd = open(path, O_RDONLY);
    result(name, fd >= 0 && read(fd, buf, sizeof buf) > 0, path);
    if (fd >= 0) close(fd);
}

__attribute__((constructor)) static void probe_all(void) {
    printf("probe ready: pid %d uid %d\n", (int)getpid(), (int)getuid());
    make_file("lock-file", LOCK_DIR "/lock.probe");
    read_file("inject-read", INJECT_DIR "/libinjection.so");
    make_file("lock-parent", LOCK_DIR "/../escape");
    make_file("outside-tmp", OUTSIDE "/escape");
    result("lock-mkdir", mkdir(LOCK_DIR "/sub", 0755) == 0, LOCK_DIR "/sub");
    result("lock-unlink", unlink(LOCK_DIR "/victim") == 0, LOCK_DIR "/victim");
    read_file("inject-sibling", SIBLING_DIR "/secret");
    read_file("read-ssh-key", SSH_KEY);
    printf("probe done\n");
    fflush(stdout);
}

/* vector_add's signature, so that the runner accepts the library */
void solve(const float *a, const float *b, float *c, int n) { (void)a, (void)b, (void)c, (void)n; }
