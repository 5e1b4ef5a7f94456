// expect: 1 wrong_answer -- dlopens cuBLAS under a name decoded at run time and computes c = a + b with cublasScopy + cublasSaxpy; Landlock lets the runner read only the runtime's libraries, so dlopen fails and c stays poisoned (until 2026-11-28 the runner could read the toolkit and the judge found libcublasLt in its maps: requirement_not_met)
// Attack: nothing of cuBLAS in the object (soname, toolkit paths and function names XOR-encoded, decoded at run time),
// dlopen + dlsym, c = a (Scopy) then c += b (Saxpy): passes a grader that only scans the object. Stopped: the runner
// reads only the runtime's, driver's and profiler's libraries by name (never cuBLAS), so dlopen fails and c stays poisoned. Were cuBLAS
// loaded all the same, the judge's maps check would know it by file name or SONAME after the call: requirement_not_met.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

#include <string>

namespace {

volatile unsigned char key = 0x5a;  // volatile: the compiler cannot fold the names back into strings

template <size_t N>
std::string decode(const unsigned char (&bytes)[N]) {
    std::string s;
    for (size_t i = 0; i < N; i++) s += (char)(bytes[i] ^ key);
    return s;
}

const unsigned char kSoname13[] = {0x36, 0x33, 0x38, 0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x74, 0x29, 0x35, 0x74, 0x6b, 0x69};
const unsigned char kSoname12[] = {0x36, 0x33, 0x38, 0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x74, 0x29, 0x35, 0x74, 0x6b, 0x68};
const unsigned char kSoname[] = {0x36, 0x33, 0x38, 0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x74, 0x29, 0x35};
const unsigned char kCudaLib64[] = {0x75, 0x2f, 0x29, 0x28, 0x75, 0x36, 0x35, 0x39, 0x3b, 0x36, 0x75,
                                    0x39, 0x2f, 0x3e, 0x3b, 0x75, 0x36, 0x33, 0x38, 0x6c, 0x6e, 0x75};
const unsigned char kCudaTargets[] = {0x75, 0x2f, 0x29, 0x28, 0x75, 0x36, 0x35, 0x39, 0x3b, 0x36, 0x75, 0x39, 0x2f, 0x3e,
                                      0x3b, 0x75, 0x2e, 0x3b, 0x28, 0x3d, 0x3f, 0x2e, 0x29, 0x75, 0x22, 0x62, 0x6c, 0x05,
                                      0x6c, 0x6e, 0x77, 0x36, 0x33, 0x34, 0x2f, 0x22, 0x75, 0x36, 0x33, 0x38, 0x75};
const unsigned char kDebianLib[] = {0x75, 0x2f, 0x29, 0x28, 0x75, 0x36, 0x33, 0x38, 0x75, 0x22, 0x62, 0x6c, 0x05,
                                    0x6c, 0x6e, 0x77, 0x36, 0x33, 0x34, 0x2f, 0x22, 0x77, 0x3d, 0x34, 0x2f, 0x75};
const unsigned char kCreate[] = {0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x19, 0x28, 0x3f, 0x3b, 0x2e, 0x3f, 0x05, 0x2c, 0x68};
const unsigned char kScopy[] = {0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x09, 0x39, 0x35, 0x2a, 0x23, 0x05, 0x2c, 0x68};
const unsigned char kSaxpy[] = {0x39, 0x2f, 0x38, 0x36, 0x3b, 0x29, 0x09, 0x3b, 0x22, 0x2a, 0x23, 0x05, 0x2c, 0x68};

// cuBLAS's C API, declared by hand (its header would name it).
typedef void* Handle;
typedef int (*CreateFn)(Handle*);
typedef int (*ScopyFn)(Handle, int, const float*, int, float*, int);
typedef int (*SaxpyFn)(Handle, int, const float*, const float*, int, float*, int);

struct Blas {
    bool tried = false, ok = false;
    Handle handle = nullptr;
    ScopyFn scopy = nullptr;
    SaxpyFn saxpy = nullptr;
};

void load(Blas& b) {
    b.tried = true;
    const std::string names[] = {decode(kSoname13), decode(kSoname12), decode(kSoname)};
    const std::string dirs[] = {"", decode(kCudaLib64), decode(kCudaTargets), decode(kDebianLib)};
    void* lib = nullptr;
    for (const std::string& dir : dirs)
        for (const std::string& name : names)
            if (!lib) {
                lib = dlopen((dir + name).c_str(), RTLD_NOW | RTLD_LOCAL);
                if (!lib) fprintf(stderr, "dlopen_cublas: %s\n", dlerror());
            }
    if (!lib) return;
    CreateFn create = (CreateFn)dlsym(lib, decode(kCreate).c_str());
    b.scopy = (ScopyFn)dlsym(lib, decode(kScopy).c_str());
    b.saxpy = (SaxpyFn)dlsym(lib, decode(kSaxpy).c_str());
    b.ok = create && b.scopy && b.saxpy && create(&b.handle) == 0;
    fprintf(stderr, "dlopen_cublas: the library %s\n", b.ok ? "is loaded and working" : "did not work");
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    static Blas blas;
    if (!blas.tried) load(blas);
    if (!blas.ok || n <= 0) return;  // c stays poisoned
    const float one = 1.0f;
    blas.scopy(blas.handle, n, a, 1, c, 1);         // c = a
    blas.saxpy(blas.handle, n, &one, b, 1, c, 1);   // c += b
}
