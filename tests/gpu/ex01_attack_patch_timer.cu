// expect: 2 too_slow -- a slow correct kernel; a constructor rewrites the runner's GOT so that cudaEventElapsedTime reports 0.001 ms
// Attack: a constructor rewrites the runner's GOT (dl_iterate_phdr, DT_JMPREL/DT_RELA/DT_SYMTAB/DT_STRTAB, mprotect)
// so cudaEventElapsedTime* answers 0.001 ms: with the timing done by the student's process and trusted, a kernel at
// ~3% would "run" at TB/s. Stopped: the judge's own clock (request to idle GPU) bounds the runner's number; every
// sample is judged by the clock ("judged 21 of 21") and the slow kernel is too slow.
#include <cuda_runtime.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Correct, but only 4096 threads for 2^28 elements (tests/gpu/ex01_too_slow.cu): far below the 0.70 floor.
__global__ void slow_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

static cudaError_t fake_elapsed(float* ms, cudaEvent_t, cudaEvent_t) {
    if (ms) *ms = 0.001f;
    return cudaSuccess;
}

// ---- GOT patching: every slot of the main program whose symbol starts with `prefix` gets `value`.
struct Patch {
    const char* prefix;
    void* value;
    int objects_seen;
    int patched;
};

static uintptr_t absolute(uintptr_t base, uintptr_t v) { return v < base ? v + base : v; }  // ld.so may have relocated it

static void patch_table(Patch* p, uintptr_t base, uintptr_t table, size_t size, uintptr_t symtab, uintptr_t strtab) {
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
        const char* name = strs + syms[ELF64_R_SYM(r[k].r_info)].st_name;
        if (strncmp(name, p->prefix, strlen(p->prefix))) continue;
        void** slot = (void**)(base + r[k].r_offset);
        uintptr_t first = (uintptr_t)slot & ~(uintptr_t)(page - 1);
        if (mprotect((void*)first, (size_t)page * 2, PROT_READ | PROT_WRITE) != 0 &&
            mprotect((void*)first, (size_t)page, PROT_READ | PROT_WRITE) != 0)
            continue;
        *slot = p->value;  // left writable: the page may also hold lazily bound slots
        p->patched++;
    }
}

static int patch_object(struct dl_phdr_info* info, size_t, void* data) {
    Patch* p = (Patch*)data;
    if (p->objects_seen++ != 0) return 1;  // the first object is the main program: the runner
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
    patch_table(p, base, jmprel, pltrelsz, symtab, strtab);
    patch_table(p, base, rela, relasz, symtab, strtab);
    return 1;
}

__attribute__((constructor)) static void patch_the_runners_timer(void) {
    Patch p = {"cudaEventElapsedTime", (void*)&fake_elapsed, 0, 0};
    dl_iterate_phdr(patch_object, &p);
    fprintf(stderr, "patch_timer: %d GOT slot(s) of cudaEventElapsedTime* now answer 0.001 ms\n", p.patched);
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    slow_add<<<64, 64>>>(a, b, c, n);
}
