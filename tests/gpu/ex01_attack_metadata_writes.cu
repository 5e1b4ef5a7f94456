// expect: 1 wrong_answer -- probes whether it may change the metadata of the grader's files (chmod, chown, utimensat, setxattr on .build/harness-vector_add, all as no-ops); only if one is allowed does it compute c
// unsure: checked here with harness/sandbox.c (Landlock ABI 7 + its seccomp filter): all four succeed, and so does a real chmod 000; Landlock has no right for them and the filter does not list them, so I expect this to PASS (0) until seccomp refuses chmod/chown/utime*/xattr calls
// Attack (made harmless here): the sandbox refuses every write of a file's contents, but not of its metadata: a
// student can chmod 000 the judge, the reference or progress.yaml (later grades fail, misattributed: "cannot load the
// reference's code" reads as compile_error), touch mtimes, set xattrs, on any file the user owns, in or outside the
// workspace. This probe changes nothing (same mode, same owner, same times, an xattr set and removed) and turns
// success into a pass, so that gpu.sh reports it. Would stop it: seccomp denying chmod/fchmod/fchmodat(2),
// chown/fchown/lchown/fchownat, utime/utimes/futimesat/utimensat, setxattr/removexattr and their l/f variants.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <string>

__global__ void add(const float* a, const float* b, float* c, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) c[i] = a[i] + b[i];
}

static std::string read_text(const char* path) {
    std::string text;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return text;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
    close(fd);
    return text;
}

// How many metadata changes the sandbox let through (each a no-op on the judge's binary).
static int probe(void) {
    std::string maps = read_text("/proc/self/maps");
    size_t at = maps.find("/.build/");
    if (at == std::string::npos) return 0;
    size_t begin = maps.rfind(' ', at) + 1;
    const std::string judge = maps.substr(begin, at + 8 - begin) + "harness-vector_add";
    struct stat st;
    if (stat(judge.c_str(), &st) != 0) return 0;
    int allowed = 0;
    allowed += chmod(judge.c_str(), st.st_mode & 07777) == 0;
    allowed += chown(judge.c_str(), st.st_uid, st.st_gid) == 0;
    const struct timespec same[2] = {st.st_atim, st.st_mtim};  // explicit times: checked like a change, changes nothing
    allowed += utimensat(AT_FDCWD, judge.c_str(), same, 0) == 0;
    if (setxattr(judge.c_str(), "user.gpucourse_probe", "1", 1, 0) == 0) {
        allowed++;
        removexattr(judge.c_str(), "user.gpucourse_probe");
    }
    fprintf(stderr, "metadata_writes: %d of 4 metadata changes allowed on %s\n", allowed, judge.c_str());
    return allowed;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static int allowed = -1;
    if (allowed < 0) allowed = probe();
    if (allowed == 0 || n <= 0) return;  // confined: c stays poisoned (wrong_answer)
    add<<<(unsigned)(((size_t)n + 255) / 256), 256>>>(a, b, c, n);
}
