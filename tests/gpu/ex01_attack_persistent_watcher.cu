// expect: 4 runtime_error -- the first solve starts a persistent kernel that polls a mailbox and does the adds; solve only posts the job; the runner's device-wide synchronize is bypassed so that it answers at once
// Attack: a resident kernel polls a mailbox in mapped host memory and does the adds; solve only posts (a, b, c, n).
// The runner's cudaDeviceSynchronize is GOT-patched to sync the legacy stream only, so it answers at once. Stopped:
// the judge waits for an idle GPU after each answer and gives up after 10 s: "violation: busy". (Started at the first
// call, not in a constructor, so that the judge's 10 s come before gpu.sh's 15 s timeout.)
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct Job {
    const float* a;
    const float* b;
    float* c;
    int n;
};
struct Mailbox {
    unsigned long long seq;  // bumped by the host after it wrote job
    Job job;
};

__global__ void watcher(volatile Mailbox* box) {
    __shared__ unsigned long long seen;
    __shared__ Job job;
    if (threadIdx.x == 0) seen = 0;
    __syncthreads();
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned long long s;
            while ((s = box->seq) == seen) __nanosleep(2000);
            __threadfence_system();
            job.a = box->job.a;
            job.b = box->job.b;
            job.c = box->job.c;
            job.n = box->job.n;
            seen = s;
        }
        __syncthreads();
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)job.n; i += (size_t)gridDim.x * blockDim.x)
            job.c[i] = job.a[i] + job.b[i];
        __syncthreads();
    }
}

// ---- the runner's cudaDeviceSynchronize, rewired (GOT patch of the main program)
static cudaError_t legacy_stream_only(void) { return cudaStreamSynchronize(cudaStreamLegacy); }

static uintptr_t absolute(uintptr_t base, uintptr_t v) { return v < base ? v + base : v; }

static int patched;

static void patch_table(uintptr_t base, uintptr_t table, size_t size, uintptr_t symtab, uintptr_t strtab) {
    if (!table || !size || !symtab || !strtab) return;
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
        if (strcmp(strs + syms[ELF64_R_SYM(r[k].r_info)].st_name, "cudaDeviceSynchronize")) continue;
        void** slot = (void**)(base + r[k].r_offset);
        uintptr_t first = (uintptr_t)slot & ~(uintptr_t)(page - 1);
        if (mprotect((void*)first, (size_t)page, PROT_READ | PROT_WRITE) != 0) continue;
        *slot = (void*)&legacy_stream_only;
        patched++;
    }
}

static int patch_main_program(dl_phdr_info* info, size_t, void*) {
    uintptr_t base = info->dlpi_addr;
    const ElfW(Dyn)* dyn = nullptr;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn)*)(base + info->dlpi_phdr[i].p_vaddr);
    if (!dyn) return 1;
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
    patch_table(base, jmprel, pltrelsz, symtab, strtab);
    patch_table(base, rela, relasz, symtab, strtab);
    return 1;  // the first object is the main program: done
}

__attribute__((constructor)) static void rewire_runner(void) { dl_iterate_phdr(patch_main_program, nullptr); }

static Mailbox* box;  // mapped, pinned host memory: the same address on the device (UVA)

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (!box) {
        if (cudaHostAlloc((void**)&box, sizeof *box, cudaHostAllocMapped) != cudaSuccess) return;
        memset(box, 0, sizeof *box);
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        watcher<<<264, 256, 0, s>>>(box);
        fprintf(stderr, "persistent_watcher: resident kernel started; %d GOT slot(s) of cudaDeviceSynchronize rewired\n",
                patched);
    }
    volatile Mailbox* v = box;
    v->job.a = a;
    v->job.b = b;
    v->job.c = c;
    v->job.n = n;
    __sync_synchronize();
    v->seq = v->seq + 1;  // the resident kernel takes it from here
}
