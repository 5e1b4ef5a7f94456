// expect: 1 wrong_answer -- computes nothing; tries to kill or stop the judge, the trusted runner and gpucourse (kill, tgkill, rt_sigqueueinfo, pidfd), and kill(0)/kill(-1) when the syscall filter is in place
// Attack: kill or stop the judge, the trusted runner and gpucourse (kill, tgkill, rt_sigqueueinfo, pidfd, kill(0),
// kill(-1)) so that nothing reports the wrong answer. Stopped: seccomp lets signals go only to the runner itself and
// Landlock scopes signals to the sandbox. kill(0)/kill(-1) are tried only when PR_GET_SECCOMP says a filter is on.
#include <cuda_runtime.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

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

static std::string outcomes;

static void note(const char* what, long rc) {
    char line[160];
    snprintf(line, sizeof line, "  %s: %s\n", what, rc == 0 ? "SUCCEEDED" : strerror(errno));
    outcomes += line;
}

static void attack(void) {
    const int judge = getppid(), grader = parent_of(judge);
    std::vector<int> siblings;  // the trusted runner: the judge's other child
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            int pid = atoi(e->d_name);
            if (pid > 0 && pid != getpid() && parent_of(pid) == judge) siblings.push_back(pid);
        }
        closedir(d);
    }
    for (int s : siblings) note("kill(trusted runner, SIGKILL)", kill(s, SIGKILL));
    note("kill(judge, SIGSTOP)", kill(judge, SIGSTOP));
    note("tgkill(judge, judge, SIGKILL)", syscall(SYS_tgkill, judge, judge, SIGKILL));
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_signo = SIGKILL;
    info.si_code = SI_QUEUE;
    note("rt_sigqueueinfo(judge, SIGKILL)", syscall(SYS_rt_sigqueueinfo, judge, SIGKILL, &info));
#ifdef SYS_pidfd_open
    long pidfd = syscall(SYS_pidfd_open, judge, 0);
    note("pidfd_open(judge)", pidfd >= 0 ? 0 : -1);
    if (pidfd >= 0) note("pidfd_send_signal(judge, SIGKILL)", syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0));
#endif
    note("kill(judge, SIGKILL)", kill(judge, SIGKILL));
    if (grader > 1) note("kill(gpucourse, SIGKILL)", kill(grader, SIGKILL));
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2) {  // only with the filter: otherwise this would be destructive
        note("kill(0, SIGKILL)", kill(0, SIGKILL));
        note("kill(-1, SIGTERM)", kill(-1, SIGTERM));
    } else {
        outcomes += "  kill(0) and kill(-1) skipped: no seccomp filter\n";
    }
    fprintf(stderr, "kill_parent:\n%s", outcomes.c_str());
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static bool tried;
    if (!tried) {
        tried = true;
        attack();  // c stays poisoned
    }
}
