// expect: 2 too_slow -- looks for the course's compiled reference (reference-ex01.so), dlopens it and calls its solve; falls back to a slow correct kernel
// Attack: find the compiled reference (judge's --reference in /proc/<ppid>/cmdline, .build dirs in /proc/self/maps,
// $HOME, $GPUCOURSE_WORKSPACE, /tmp/gpucourse-gpu-*), dlopen it under a run-time name and call its solve: in a grader
// loading student code beside its own files, the reference's speed becomes ours. Stopped: Landlock refuses to open it,
// the slow fallback is timed; were it readable, the judge's maps check would say requirement_not_met.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

typedef void (*Solve)(const float*, const float*, float*, int);

__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

// "reference-ex01.so", assembled at run time (no such string in the library for a scanner to find).
static std::string reference_name(void) {
    const char parts[][8] = {"refe", "rence", "-", "ex", "01", ".so"};
    std::string s;
    for (const char* p : parts) s += p;
    return s;
}

static std::string read_text(const std::string& path) {
    std::string text;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return text;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
    close(fd);
    return text;
}

static std::vector<std::string> candidates(void) {
    std::vector<std::string> out;
    const std::string name = reference_name();
    // the judge's command line: harness-KIND --student S --runner R --reference REF ...
    std::string cmd = read_text("/proc/" + std::to_string(getppid()) + "/cmdline");
    std::vector<std::string> args;
    for (size_t at = 0; at < cmd.size();) {
        size_t end = cmd.find('\0', at);
        if (end == std::string::npos) end = cmd.size();
        args.push_back(cmd.substr(at, end - at));
        at = end + 1;
    }
    for (size_t i = 0; i + 1 < args.size(); i++)
        if (args[i] == "--reference") out.push_back(args[i + 1]);
    // any .build directory mapped in this process (the runner and our own library live there)
    std::string maps = read_text("/proc/self/maps");
    for (size_t at = 0; (at = maps.find("/.build/", at)) != std::string::npos; at++) {
        size_t begin = maps.rfind(' ', at) + 1;
        out.push_back(maps.substr(begin, at + 8 - begin) + name);
    }
    if (const char* home = getenv("HOME")) out.push_back(std::string(home) + "/gpucourse/.build/" + name);
    if (const char* ws = getenv("GPUCOURSE_WORKSPACE")) out.push_back(std::string(ws) + "/.build/" + name);
    glob_t g;
    if (glob(("/tmp/gpucourse-gpu-*/.build/" + name).c_str(), 0, nullptr, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) out.push_back(g.gl_pathv[i]);
        globfree(&g);
    }
    out.push_back(".build/" + name);
    return out;
}

static Solve find_reference(void) {
    for (const std::string& path : candidates()) {
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "call_reference: %s\n", dlerror());
            continue;
        }
        if (void* fn = dlsym(lib, "solve")) {
            fprintf(stderr, "call_reference: calling the reference in %s\n", path.c_str());
            return (Solve)fn;
        }
    }
    return nullptr;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static bool looked;
    static Solve reference;
    if (!looked) {
        looked = true;
        reference = find_reference();
    }
    if (reference) {
        reference(a, b, c, n);
        return;
    }
    if (n > 0) slow_add<<<64, 64>>>(a, b, c, n);
}
