// What the student's process must leave alone, checked after each of its
// calls: its inputs, the bytes past the end of every array, and the code it
// may map (only the runtime's libraries and its own).
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// Counts the bytes where got and want differ, and remembers the first.
__global__ void compare_bytes_kernel(const unsigned char *got, const unsigned char *want, size_t n,
                                     unsigned long long *count, unsigned long long *first) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        if (got[i] != want[i]) {
            atomicAdd(count, 1ull);
            atomicMin(first, (unsigned long long)i);
        }
}

// The first byte in p[0, n) that is not `value` (~0 when all are).
__global__ void find_byte_kernel(const unsigned char *p, size_t n, unsigned char value, unsigned long long *first) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        if (p[i] != value) atomicMin(first, (unsigned long long)i);
}

static unsigned long long *counters;  // device: [count, first]

static unsigned long long first_byte_not(const void *p, size_t n, unsigned char value) {
    unsigned long long init = ~0ull, out;
    if (n == 0) return ~0ull;
    CK(cudaMemcpy(counters + 1, &init, sizeof init, cudaMemcpyHostToDevice));
    find_byte_kernel<<<grid_for(n), 256>>>((const unsigned char *)p, n, value, counters + 1);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&out, counters + 1, sizeof out, cudaMemcpyDeviceToHost));
    return out;
}

// After a student call: its inputs as the master has them, and nothing
// written past the end of any array.
static void check_student_left_alone(Problem &p) {
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        SharedBuf &b = p.own[STUDENT][i];
        unsigned long long past = first_byte_not((char *)b.ptr + b.bytes, b.size - b.bytes, PAD_BYTE);
        if (past != ~0ull)
            violation("bounds", "your code wrote past the end of %s (%llu bytes after its last element)", a.name,
                      past);
        if (a.role != ROLE_IN || p.len[i] == 0) continue;
        unsigned long long init[2] = {0, ~0ull}, out[2];
        CK(cudaMemcpy(counters, init, sizeof init, cudaMemcpyHostToDevice));
        compare_bytes_kernel<<<grid_for(b.bytes), 256>>>((const unsigned char *)b.ptr,
                                                         (const unsigned char *)p.master[i], b.bytes, counters,
                                                         counters + 1);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out, counters, sizeof out, cudaMemcpyDeviceToHost));
        if (out[0]) {
            char where[96];
            coord_text(a, p.dims, (size_t)out[1] / elem_size(a.type), where, sizeof where);
            violation("input",
                      "your code changed its input %s (%llu bytes, the first in %s); inputs belong to the "
                      "grader and must be left as they are",
                      a.name, out[0], where);
        }
    }
}

// The student's runner must not have loaded a vendor library, the
// reference, or code from anywhere but the runtime's libraries (what the
// runner's sandbox lets it read, rules_maps_offender).
static char build_dir[4096];
static const char *allowed_in_build_dir[3];  // the runner and the student's library, as the kernel names them
static char **library_dirs;                  // the loader's directories: the runner's are the same (its
                                             // environment passes LD_LIBRARY_PATH; both have one run path)

static void check_student_maps(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)student_runner.pid);
    FILE *f = fopen(path, "re");
    if (!f) violation("library", "the harness cannot see what the process running your code has loaded");
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    fclose(f);
    char offender[4096];
    MapsAllowed ok = {allowed_in_build_dir, library_dirs, build_dir};
    if (rules_maps_offender(text.c_str(), &ok, offender, sizeof offender))
        violation("library", "your code loaded %s; only your own code may do the work", offender);
}
