// expect: 1 wrong_answer -- computes c = a + b only if its constructor could write into the runner's memory through /proc/self/task/TID/mem (Landlock lets the runner write beneath /proc/self/task, where the driver names its threads); the filter refuses every seek and write at 4 GiB and above, so c stays poisoned
// Attack: a write through `mem` goes through any page's protection (FOLL_FORCE): the runner's read-only CUPTI
// table, its code, the runtime's code. Tried here on a read-only page of this library, which lies where the
// runner's and the runtime's do (above 4 GiB): pwrite and pwritev at its address, lseek there at once and in
// steps of 4 GiB - 1, then write; splice. What got through is printed (the result's output).
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static const char kept[4096] __attribute__((aligned(4096))) = "read-only, as the runner's table is";
static int writes;

static void tried(const char *what, bool worked) {
    if (worked) writes++;
    printf("proc_mem: %s: %s\n", what, worked ? "GOT THROUGH" : strerror(errno));
}

__attribute__((constructor)) static void write_own_memory(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/mem", (long)syscall(SYS_gettid));
    int mem = open(path, O_RDWR | O_CLOEXEC);
    tried("open mem for writing", mem >= 0);
    if (mem < 0) return;
    writes = 0;  // opening is not writing
    off_t at = (off_t)(uintptr_t)kept;
    tried("pwrite at the page", pwrite(mem, "FORGED", 6, at) == 6);
    struct iovec v = {(void *)"FORGED", 6};
    tried("pwritev at the page", pwritev(mem, &v, 1, at) == 6);
    tried("lseek to the page, write", lseek(mem, at, SEEK_SET) == at && write(mem, "FORGED", 6) == 6);
    off_t pos = 0;
    while (pos >= 0 && pos + 0xffffffffL <= at) pos = lseek(mem, 0xffffffffL, SEEK_CUR);
    tried("lseek in steps", pos >= 0 && lseek(mem, at - pos, SEEK_CUR) == at && write(mem, "FORGED", 6) == 6);
    const volatile char *page = kept;  // read from memory, not from what the compiler knows of it
    tried("the page changed", page[0] == 'F');
    fflush(stdout);
}

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float *a, const float *b, float *c, int n) {
    if (writes == 0 || n <= 0) return;  // no write got through: c stays poisoned
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
