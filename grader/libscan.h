/* Which libraries a compiled student library uses, read from the ELF file
 * itself (no nm, no external tool): its needed libraries, its undefined
 * dynamic symbols, its symbol names, and every NUL-terminated printable
 * string in the file. The strings are what hidden visibility cannot remove:
 * nvcc's host code registers every kernel by its mangled name
 * (__cudaRegisterFunction), so a device-wide CUB or Thrust kernel leaves
 * "_ZN3cub...DeviceScanKernel..." in .rodata, and a dlopen() of cuBLAS leaves
 * "libcublas.so.13". */
#ifndef GPUCOURSE_LIBSCAN_H
#define GPUCOURSE_LIBSCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Pointers into LibScan.data. */
typedef struct {
    const char **items;
    size_t count, cap;
} NameList;

typedef struct {
    char *data;          /* the whole file, NUL-terminated */
    size_t size;
    NameList needed;     /* DT_NEEDED: libcublas.so.13 */
    NameList undefined;  /* undefined dynamic symbols: cublasSgemm_v2 */
    NameList exported;   /* defined, global dynamic symbols of default visibility: what dlsym finds */
    NameList symbols;    /* every symbol name, .dynsym and .symtab */
    NameList strings;    /* every NUL-terminated run of >= 4 printable bytes */
} LibScan;

/* Reads and scans an ELF file. Returns -1 with error set when it cannot be
 * read, is not a 64-bit ELF file, or is truncated; LIBSCAN_TOO_LARGE, with
 * error set, when it is over LIBSCAN_SIZE_LIMIT bytes, which it reads
 * whole: a student's library is a few MB even with Thrust and CUB, and one
 * of hundreds of MB (a big initialized array) would take as much memory. */
enum { LIBSCAN_TOO_LARGE = -2, LIBSCAN_SIZE_LIMIT = 128 << 20 };
int libscan_file(const char *path, LibScan *out);
void libscan_free(LibScan *s);

/* Whether libscan has a rule for this library name (cublas, cudnn, cub,
 * thrust, cutlass); its name in messages ("CUB"), or NULL when it has none. */
const char *libscan_title(const char *library);

/* Whether the file shows that `library` is used. The rules:
 *   cublas, cudnn  a needed library or a string containing "libcublas"
 *                  ("libcudnn"), or a symbol or string that starts with
 *                  "cublas" ("cudnn") and an upper-case letter
 *   cub      a name in namespace cub (versioned inline namespaces too) with
 *            a part that starts with "Device" (DeviceScan, DeviceReduce,
 *            DeviceScanKernel; not DeviceCount), or a cub kernel other than
 *            EmptyKernel: the device-wide algorithms. Block- and warp-level
 *            CUB compiles into the student's own kernels and leaves no name.
 *   thrust   a name in namespace thrust that is a kernel, or that involves
 *            thrust's CUDA backend (cuda_cub) other than the execution
 *            policy objects every <thrust/execution_policy.h> defines; or
 *            an undefined symbol of thrust
 *   cutlass  a name in namespace cutlass with a part Kernel, Kernel2, ... or
 *            device_kernel: a device-level GEMM's kernel
 * When it is, evidence gets what showed it, like "the kernel
 * cub::detail::scan::DeviceScanKernel<...>" or "libcublas.so.13 (a needed
 * library)". */
bool libscan_uses(const LibScan *s, const char *library, char *evidence, size_t size);

/* Whether a needed library, symbol name or string contains `needle`
 * (case-insensitive), as it is in the file or, for a mangled C++ name, in
 * its readable form ("cub::detail::EmptyKernel<...>"), so that "cub::"
 * finds names in namespace cub. evidence as above. */
bool libscan_mentions(const LibScan *s, const char *needle, char *evidence, size_t size);

/* The readable form of a mangled nested name, without template arguments
 * and versioned inline namespaces: "_ZN3cub17CUB_300001_SM_9006detail4scan
 * 16DeviceScanKernelI..." -> "cub::detail::scan::DeviceScanKernel<...>".
 * Returns false (and leaves out alone) for anything else. */
bool libscan_readable(const char *mangled, char *out, size_t size);

#endif
