/* Which libraries a compiled student library uses (grader/libscan.c): the
 * rules on names, files that are not ELF or are cut short, and libraries
 * built with nvcc at test time with the grader's flags (skipped without
 * nvcc): device-wide CUB, hidden or not, Thrust and cuBLAS are found;
 * block- and warp-level CUB and a plain kernel are not. */
#include "test_util.h"

#include <unistd.h>

#include "../grader/libscan.h"
#include "../src/course.h"
#include "../src/proc.h"

/* ------------------------------------------------------------ fixtures */

typedef struct {
    const char *name, *source;
} Fixture;

static const Fixture fixtures[] = {
    {"device_scan", /* (a) */
     "#include <cub/device/device_scan.cuh>\n"
     "extern \"C\" void solve(const int *in, int *out, int n) {\n"
     "    static void *temp; size_t bytes = 0;\n"
     "    cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n);\n"
     "    if (!temp) cudaMalloc(&temp, bytes);\n"
     "    cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);\n"
     "}\n"},
    {"hidden_scan", /* (b): nothing of CUB in the dynamic symbol table */
     "#include <cuda_runtime.h>\n#include <cassert>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
     "#include <dlfcn.h>\n#include <exception>\n#include <iostream>\n#include <new>\n#include <stdexcept>\n"
     "#pragma GCC visibility push(hidden)\n"
     "#include <cub/device/device_scan.cuh>\n"
     "static void *temp;\n"
     "#pragma GCC visibility pop\n"
     "extern \"C\" void solve(const int *in, int *out, int n) {\n"
     "    size_t bytes = 0;\n"
     "    cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n);\n"
     "    if (!temp) cudaMalloc(&temp, bytes);\n"
     "    cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);\n"
     "}\n"},
    {"block_scan", /* (c): building blocks, and Thrust's iterators */
     "#include <cub/block/block_scan.cuh>\n#include <cub/warp/warp_reduce.cuh>\n"
     "#include <thrust/execution_policy.h>\n#include <thrust/iterator/counting_iterator.h>\n"
     "#include <thrust/iterator/transform_iterator.h>\n"
     "struct Twice { __host__ __device__ int operator()(int x) const { return 2 * x; } };\n"
     "template <class It> __global__ void k(It in, int *out, int n) {\n"
     "    typedef cub::BlockScan<int, 256> BS;\n    typedef cub::WarpReduce<int> WR;\n"
     "    __shared__ typename BS::TempStorage ts;\n    __shared__ typename WR::TempStorage wt[8];\n"
     "    int i = blockIdx.x * 256 + threadIdx.x, s;\n"
     "    BS(ts).InclusiveSum(i < n ? in[i] : 0, s);\n"
     "    int w = WR(wt[threadIdx.x / 32]).Sum(s);\n"
     "    if (i < n) out[i] = s + (threadIdx.x % 32 == 0 ? w : 0);\n"
     "}\n"
     "extern \"C\" void solve(const int *in, int *out, int n) {\n"
     "    (void)in;\n"
     "    auto it = thrust::make_transform_iterator(thrust::make_counting_iterator(0), Twice{});\n"
     "    k<<<(n + 255) / 256, 256>>>(it, out, n);\n"
     "}\n"},
    {"thrust_reduce", /* (d) */
     "#include <thrust/execution_policy.h>\n#include <thrust/reduce.h>\n"
     "extern \"C\" void solve(const float *in, float *out, int n) {\n"
     "    float s = thrust::reduce(thrust::device, in, in + n, 0.0f);\n"
     "    cudaMemcpy(out, &s, sizeof s, cudaMemcpyHostToDevice);\n"
     "}\n"},
    {"cublas_dlopen", /* (e): the grader links no -lcublas, so by name */
     "#include <cublas_v2.h>\n#include <dlfcn.h>\n"
     "typedef cublasStatus_t (*create_t)(cublasHandle_t *);\n"
     "typedef cublasStatus_t (*sgemm_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,\n"
     "    const float *, const float *, int, const float *, int, const float *, float *, int);\n"
     "extern \"C\" void solve(const float *a, const float *b, float *c, int n) {\n"
     "    void *h = dlopen(\"libcublas.so.13\", RTLD_NOW);\n"
     "    cublasHandle_t hd;\n    ((create_t)dlsym(h, \"cublasCreate_v2\"))(&hd);\n"
     "    float one = 1, zero = 0;\n"
     "    ((sgemm_t)dlsym(h, \"cublasSgemm_v2\"))(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);\n"
     "}\n"},
    {"cublas_call", /* (e): called directly, left undefined for the loader */
     "#include <cublas_v2.h>\n"
     "extern \"C\" void solve(const float *a, const float *b, float *c, int n) {\n"
     "    cublasHandle_t hd;\n    cublasCreate(&hd);\n    float one = 1, zero = 0;\n"
     "    cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);\n"
     "}\n"},
    {"plain", /* (f) */
     "__global__ void add(const float *a, const float *b, float *c, int n) {\n"
     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n"
     "extern \"C\" void solve(const float *a, const float *b, float *c, int n) {\n"
     "    add<<<(n + 255) / 256, 256>>>(a, b, c, n);\n}\n"},
};

typedef struct {
    char *dir;   /* NULL: no nvcc, the fixture tests are skipped */
    char *log;   /* nvcc's output, shown when a fixture did not build */
} Built;

static Built built;

static char *find_nvcc(void) {
    char *nvcc = proc_find_in_path("nvcc");
    if (!nvcc && access("/usr/local/cuda/bin/nvcc", X_OK) == 0) nvcc = xstrdup("/usr/local/cuda/bin/nvcc");
    return nvcc;
}

/* Builds every fixture at once, a few nvcc at a time (each takes 2-15 s). */
static int build_fixtures(void **state) {
    (void)state;
    char *nvcc = find_nvcc();
    if (!nvcc) {
        printf("# nvcc not found (PATH, /usr/local/cuda/bin): the tests on nvcc-built libraries are skipped\n");
        return 0;
    }
    built.dir = tmpdir_new();
    StrBuf names = {0};
    for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
        char *file = xprintf("%s.cu", fixtures[i].name);
        put_file(built.dir, file, fixtures[i].source);
        sb_printf(&names, " %s", fixtures[i].name);
        free(file);
    }
    /* the grader's flags (grader/toolchain.c) */
    char *script = xprintf("cd \"$1\" && shift && for f in%s; do echo $f; done | xargs -P 2 -I@ sh -c '\"$0\" -O3 "
                           "-std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -cudart shared -shared "
                           "-Xcompiler -fPIC -o @.so @.cu >@.log 2>&1 || { echo \"@ did not build:\"; cat @.log; }' "
                           "\"$0\"",
                           names.buf);
    const char *argv[] = {"/bin/sh", "-c", script, nvcc, built.dir, NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 600, .capture_limit = 64 << 10};
    ProcResult r;
    if (proc_run(&spec, &r) == 0) {
        built.log = xstrdup(r.output);
        proc_result_free(&r);
    }
    free(script);
    sb_free(&names);
    free(nvcc);
    return 0;
}

static int remove_fixtures(void **state) {
    (void)state;
    if (built.dir) tmpdir_remove(built.dir);
    free(built.log);
    return 0;
}

/* Scans fixture `name` (skips the test without nvcc). */
static void scan_fixture(const char *name, LibScan *s) {
    if (!built.dir) skip();
    char *file = xprintf("%s/%s.so", built.dir, name);
    if (!file_exists(file)) fprintf(stderr, "%s\n", built.log ? built.log : "nvcc did not run");
    assert_true(file_exists(file));
    if (libscan_file(file, s) < 0) fprintf(stderr, "%s\n", last_error());
    free(file);
}

static const char *const all[] = {"cublas", "cudnn", "cub", "thrust", "cutlass"};

/* Asserts that exactly the libraries in `want` are found; returns the
 * evidence for want[0] (static). */
static const char *expect_libraries(const LibScan *s, const char *const *want, size_t nwant) {
    static char first[640];
    first[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        char evidence[640] = "";
        bool wanted = false;
        for (size_t k = 0; k < nwant; k++) wanted |= !strcmp(want[k], all[i]);
        bool found = libscan_uses(s, all[i], evidence, sizeof evidence);
        if (found != wanted) fprintf(stderr, "%s: %s (%s)\n", all[i], found ? "found" : "not found", evidence);
        assert_int_equal(found, wanted);
        if (nwant && !strcmp(all[i], want[0])) snprintf(first, sizeof first, "%s", evidence);
    }
    return first;
}

static void test_device_scan(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("device_scan", &s);
    const char *cub[] = {"cub"};
    assert_string_equal(expect_libraries(&s, cub, 1), "the kernel cub::detail::scan::DeviceScanKernel<...>");
    libscan_free(&s);
}

static void test_hidden_device_scan(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("hidden_scan", &s);
    /* nothing of CUB is imported, and `nm -DC` shows no cub:: (what the grader used to look at) */
    for (size_t i = 0; i < s.undefined.count; i++) assert_null(strcasestr(s.undefined.items[i], "cub"));
    const char *cub[] = {"cub"};
    assert_string_equal(expect_libraries(&s, cub, 1), "the kernel cub::detail::scan::DeviceScanKernel<...>");
    libscan_free(&s);
}

static void test_block_level_cub_is_allowed(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("block_scan", &s);
    expect_libraries(&s, NULL, 0);
    /* an exercise's forbidden_symbols "thrust::" still finds what it found with nm -DC */
    char evidence[640];
    assert_true(libscan_mentions(&s, "thrust::", evidence, sizeof evidence));
    libscan_free(&s);
}

static void test_thrust(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("thrust_reduce", &s);
    /* Thrust's reduce is CUB's DeviceReduce: both show; the grader names thrust */
    const char *libs[] = {"thrust", "cub"};
    const char *evidence = expect_libraries(&s, libs, 2);
    assert_non_null(strstr(evidence, "thrust::"));
    libscan_free(&s);
}

static void test_cublas_by_name(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("cublas_dlopen", &s);
    const char *cublas[] = {"cublas"};
    assert_string_equal(expect_libraries(&s, cublas, 1),
                        "\"libcublas.so.13\" (a library name, as dlopen() takes it)");
    libscan_free(&s);
}

static void test_cublas_imported(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("cublas_call", &s);
    const char *cublas[] = {"cublas"};
    const char *evidence = expect_libraries(&s, cublas, 1);
    assert_non_null(strstr(evidence, "(a function it imports)"));
    libscan_free(&s);
}

static void test_plain_kernel(void **state) {
    (void)state;
    LibScan s;
    scan_fixture("plain", &s);
    expect_libraries(&s, NULL, 0);
    char evidence[640];
    assert_false(libscan_mentions(&s, "cub::", evidence, sizeof evidence));
    assert_true(libscan_mentions(&s, "SOLVE", evidence, sizeof evidence)); /* case-insensitive */
    assert_string_equal(evidence, "solve");
    libscan_free(&s);
}

/* ------------------------------------------------------------ no nvcc needed */

/* A LibScan of the given strings and undefined symbols, without a file. */
static LibScan of_names(const char **strings, size_t nstrings, const char **undefined, size_t nundefined) {
    LibScan s = {0};
    s.strings = (NameList){strings, nstrings, nstrings};
    s.undefined = (NameList){undefined, nundefined, nundefined};
    return s;
}

static bool uses(const char *library, const char *string, char *evidence) {
    const char *strings[] = {string};
    LibScan s = of_names(strings, 1, NULL, 0);
    return libscan_uses(&s, library, evidence, 640);
}

static void test_rules(void **state) {
    (void)state;
    char ev[640];
    /* CUB: device-wide, not the building blocks' leftovers */
    assert_true(uses("cub", "_ZN3cub17CUB_300001_SM_90010DeviceScan12InclusiveSumIPKiPiiEE9cudaErrorPvRmT_T0_T1_P11CUstream_st",
                     ev));
    assert_string_equal(ev, "cub::DeviceScan::InclusiveSum<...>");
    assert_true(uses("cub", "_ZN3cub6detail8for_each13static_kernelIiEEvv", ev));
    assert_false(uses("cub", "_ZN3cub17CUB_300001_SM_9006detailL11EmptyKernelIvEEvv", ev));
    assert_false(uses("cub", "_ZN3cub17CUB_300001_SM_90011DeviceCountEv", ev));
    assert_false(uses("cub", "_ZN3cub17CUB_300001_SM_90023PerDeviceAttributeCacheC2Ev", ev));
    assert_false(uses("cub", "_Z1kIN3cub9BlockScanIiLi256EEEEvPi", ev)); /* the student's own kernel */
    /* Thrust: its CUDA backend, not the policy objects its header defines */
    assert_false(uses("thrust", "_ZN6thrust23THRUST_300001_SM_900_NS8cuda_cub3parE", ev));
    assert_false(uses("thrust", "_ZN6thrust23THRUST_300001_SM_900_NS8cuda_cub10par_nosyncE", ev));
    assert_false(uses("thrust", "_ZN6thrust23THRUST_300001_SM_900_NS6system6detail10sequential3seqE", ev));
    assert_true(uses("thrust", "_ZN6thrust23THRUST_300001_SM_900_NS9transformINS0_8cuda_cub5par_tEPKfPf5TwiceEET1_"
                               "RKNS0_6detail21execution_policy_baseIT_EET0_SF_S8_T2_",
                     ev));
    assert_string_equal(ev, "thrust::transform<...>");
    /* CUTLASS: a device-level GEMM's kernel, not cute or the helpers */
    assert_true(uses("cutlass", "_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE", ev));
    assert_string_equal(ev, "the kernel cutlass::Kernel<...>");
    assert_true(uses("cutlass", "_ZN7cutlass13device_kernelIiEEvv", ev));
    assert_false(uses("cutlass", "_ZN7cutlass18KernelHardwareInfo33query_device_multiprocessor_countEi", ev));
    assert_false(uses("cutlass", "_ZN4cuteL7productE", ev));
    /* renamed away (#define cub mylib): the -lineinfo file table still names the sources */
    assert_true(uses("cub", "/usr/local/cuda-13.0/include/cccl/cub/agent", ev));
    assert_string_equal(ev, "code compiled from its cub/agent");
    assert_true(uses("cub", "/usr/local/cuda/include/cccl/cub/device/dispatch", ev));
    assert_true(uses("thrust", "/usr/local/cuda/include/cccl/thrust/system/cuda/detail", ev));
    assert_false(uses("cub", "/usr/local/cuda-13.0/include/cccl/cub/block", ev));
    assert_false(uses("cub", "/usr/local/cuda-13.0/include/cccl/cub/agents", ev));
    /* the vendor libraries, by library name or by function name */
    assert_true(uses("cudnn", "/usr/lib/libcudnn.so.9", ev));
    assert_true(uses("cudnn", "cudnnCreate", ev));
    assert_false(uses("cudnn", "cudnn", ev));
    assert_true(uses("cublas", "cublasLtMatmul", ev));
    const char *imports[] = {"cudnnConvolutionForward"};
    LibScan s = of_names(NULL, 0, imports, 1);
    assert_true(libscan_uses(&s, "cudnn", ev, sizeof ev));
    assert_string_equal(ev, "cudnnConvolutionForward (a function it imports)");
    assert_false(libscan_uses(&s, "cublas", ev, sizeof ev));
    assert_false(libscan_uses(&s, "nosuch", ev, sizeof ev));
}

/* Every library a course can forbid has a rule. */
static void test_course_libraries_have_rules(void **state) {
    (void)state;
    int n = 0;
    for (const char *const *l = course_libraries; *l; l++, n++) assert_non_null(libscan_title(*l));
    assert_int_equal(n, 5);
    assert_string_equal(libscan_title("cub"), "CUB");
    assert_null(libscan_title("curand"));
}

static void test_readable_names(void **state) {
    (void)state;
    char out[128] = "untouched";
    assert_true(libscan_readable("_ZN3cub17CUB_300001_SM_9006detail4scan16DeviceScanKernelINS2_10policy_hubIiEEEEvv",
                                 out, sizeof out));
    assert_string_equal(out, "cub::detail::scan::DeviceScanKernel<...>");
    assert_true(libscan_readable("_ZNK6thrust23THRUST_300001_SM_900_NS6system12system_error4whatEv", out, sizeof out));
    assert_string_equal(out, "thrust::system::system_error::what");
    assert_true(libscan_readable("_ZN4cuda3std3__44plusIvEE", out, sizeof out));
    assert_string_equal(out, "cuda::std::plus<...>");
    assert_false(libscan_readable("_Z3addPKfS0_Pfi", out, sizeof out));
    assert_false(libscan_readable("_ZN99short", out, sizeof out)); /* a length past the end */
    assert_string_equal(out, "cuda::std::plus<...>");
    char tiny[8];
    assert_true(libscan_readable("_ZN3cub10DeviceScanE", tiny, sizeof tiny));
    assert_string_equal(tiny, "cub::De");
}

static void test_not_elf(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    put_file(dir, "x.so", "#include <cub/cub.cuh>\n");
    char *path = path_join(dir, "x.so");
    LibScan s;
    assert_int_equal(libscan_file(path, &s), -1);
    char *want = xprintf("'%s' is not an ELF file", path);
    assert_string_equal(last_error(), want);
    free(want);
    free(path);
    path = path_join(dir, "missing.so");
    assert_int_equal(libscan_file(path, &s), -1);
    assert_non_null(strstr(last_error(), "cannot open"));
    free(path);
    tmpdir_remove(dir);
}

/* Cut short anywhere: an error that says so, and no read past the end. */
static void test_truncated_elf(void **state) {
    (void)state;
    size_t len = 0;
    char *self = read_file("/proc/self/exe", &len);
    assert_non_null(self);
    assert_true(len > 4096);
    char *dir = tmpdir_new();
    char *path = path_join(dir, "cut.so");
    const size_t cuts[] = {5, 40, 100, len / 2, len - 1};
    for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
        assert_int_equal(write_file_atomic(path, self, cuts[i]), 0);
        LibScan s;
        assert_int_equal(libscan_file(path, &s), -1);
        assert_non_null(strstr(last_error(), "truncated"));
    }
    free(path);
    free(self);
    tmpdir_remove(dir);
}

/* A file over the limit is refused by its size, before anything is read:
 * one byte over, sparse (no disk, and no memory if it were read). */
static void test_too_large(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "huge.so");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)LIBSCAN_SIZE_LIMIT + 1), 0);
    fclose(f);
    LibScan s;
    assert_int_equal(libscan_file(path, &s), LIBSCAN_TOO_LARGE);
    char *want = xprintf("'%s' is %d MiB, and the limit is %d MiB", path, LIBSCAN_SIZE_LIMIT >> 20,
                         LIBSCAN_SIZE_LIMIT >> 20);
    assert_string_equal(last_error(), want);
    assert_null(s.data);
    free(want);
    free(path);
    tmpdir_remove(dir);
}

/* The test program itself: a real ELF file without nvcc. */
static void test_own_binary(void **state) {
    (void)state;
    LibScan s;
    assert_int_equal(libscan_file("/proc/self/exe", &s), 0);
    bool cmocka = false, libc = false, run_tests = false;
    for (size_t i = 0; i < s.needed.count; i++) {
        cmocka |= strstr(s.needed.items[i], "libcmocka") != NULL;
        libc |= strstr(s.needed.items[i], "libc.so") != NULL;
    }
    for (size_t i = 0; i < s.undefined.count; i++) run_tests |= !strcmp(s.undefined.items[i], "_cmocka_run_group_tests");
    assert_true(cmocka && libc && run_tests);
    assert_true(s.symbols.count > 10 && s.strings.count > 10);
    libscan_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),           cmocka_unit_test(test_course_libraries_have_rules),
        cmocka_unit_test(test_readable_names),  cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_truncated_elf),   cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_own_binary),
        cmocka_unit_test(test_device_scan),     cmocka_unit_test(test_hidden_device_scan),
        cmocka_unit_test(test_block_level_cub_is_allowed), cmocka_unit_test(test_thrust),
        cmocka_unit_test(test_cublas_by_name),  cmocka_unit_test(test_cublas_imported),
        cmocka_unit_test(test_plain_kernel),
    };
    return cmocka_run_group_tests_name("libscan", tests, build_fixtures, remove_fixtures);
}
