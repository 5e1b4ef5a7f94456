// expect: 1 wrong_answer -- computes nothing; tries to reach into the judge's memory (ptrace attach/seize, /proc/<judge>/mem, process_vm_writev) to rewrite its "check: %s fail" format into "check: %s ok"
// Attack: edit the judge: ptrace attach/seize, or /proc/<judge>/mem read-write (writes ignore page protection) to turn
// its "check: %s fail %zu%s" format into "check: %s ok", or process_vm_writev; also gpucourse. Stopped: judge, trusted
// runner and gpucourse are not dumpable; seccomp refuses ptrace, process_vm_* and opens for writing; Landlock refuses
// ptrace-type access outside the sandbox.
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

static std::string report;

static void note(const std::string& what, bool ok) {
    report += "  " + what + ": " + (ok ? "SUCCEEDED" : strerror(errno)) + "\n";
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

// Through /proc/PID/mem: find the judge's format string and make every check read "ok".
static void patch_through_mem(int pid) {
    const std::string base = "/proc/" + std::to_string(pid);
    int mem = open((base + "/mem").c_str(), O_RDWR | O_CLOEXEC);
    note("open " + base + "/mem read-write", mem >= 0);
    if (mem < 0) {
        mem = open((base + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
        note("open " + base + "/mem read-only", mem >= 0);
        if (mem < 0) return;
    }
    FILE* maps = fopen((base + "/maps").c_str(), "re");
    note("open " + base + "/maps", maps != nullptr);
    static const char needle[] = "check: %s fail %zu%s";
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long s, e;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3 || perms[0] != 'r' || e - s > (64u << 20)) continue;
        std::string chunk(e - s, '\0');
        if (pread(mem, &chunk[0], chunk.size(), (off_t)s) != (ssize_t)chunk.size()) continue;
        size_t at = chunk.find(needle);
        if (at == std::string::npos) continue;
        static const char ok[] = "check: %s ok";  // and a NUL: the rest of the format is ignored
        bool wrote = pwrite(mem, ok, sizeof ok, (off_t)(s + at)) == (ssize_t)sizeof ok;
        note("rewrite the judge's check format", wrote);
    }
    if (maps) fclose(maps);
    close(mem);
}

static void attack_one(int pid, const char* who) {
    if (pid <= 1) return;
    std::string name = std::string(who) + " " + std::to_string(pid);
    long r = ptrace(PTRACE_SEIZE, pid, nullptr, nullptr);
    note("ptrace(PTRACE_SEIZE, " + name + ")", r == 0);
    if (r == 0) ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    r = ptrace(PTRACE_ATTACH, pid, nullptr, nullptr);
    note("ptrace(PTRACE_ATTACH, " + name + ")", r == 0);
    if (r == 0) {
        waitpid(pid, nullptr, __WALL);
        ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    }
    char byte = 0;
    struct iovec local = {&byte, 1}, remote = {(void*)0x10000, 1};
    note("process_vm_readv(" + name + ")", syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0) >= 0);
    note("process_vm_writev(" + name + ")", syscall(SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0) >= 0);
    patch_through_mem(pid);
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static bool tried;
    if (tried) return;  // c stays poisoned
    tried = true;
    int judge = getppid(), grader = parent_of(judge);
    attack_one(judge, "judge");
    attack_one(grader, "gpucourse");
    fprintf(stderr, "ptrace_judge:\n%s", report.c_str());
}
