#define _GNU_SOURCE
#include "libscan.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/util.h"

/* ------------------------------------------------------------ reading */

static void names_add(NameList *l, const char *name) {
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->items = xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = name;
}

/* The NUL-terminated string at `offset` of a string table, or NULL when it
 * is out of bounds or not terminated inside the table. */
static const char *table_string(const LibScan *s, const Elf64_Shdr *table, uint64_t offset) {
    if (table->sh_type != SHT_STRTAB || offset >= table->sh_size) return NULL;
    const char *p = s->data + table->sh_offset + offset;
    return memchr(p, '\0', table->sh_size - offset) ? p : NULL;
}

static void read_symbols(LibScan *s, const Elf64_Shdr *sh, const Elf64_Shdr *table, bool dynamic) {
    if (sh->sh_entsize != sizeof(Elf64_Sym)) return;
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh->sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        memcpy(&sym, s->data + sh->sh_offset + off, sizeof sym);
        const char *name = table_string(s, table, sym.st_name);
        if (!name || !*name) continue;
        names_add(&s->symbols, name);
        if (dynamic && sym.st_shndx == SHN_UNDEF) names_add(&s->undefined, name);
        else if (dynamic && ELF64_ST_BIND(sym.st_info) != STB_LOCAL &&
                 ELF64_ST_VISIBILITY(sym.st_other) == STV_DEFAULT)
            names_add(&s->exported, name);
    }
}

static void read_needed(LibScan *s, const Elf64_Shdr *sh, const Elf64_Shdr *table) {
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= sh->sh_size; off += sizeof(Elf64_Dyn)) {
        Elf64_Dyn dyn;
        memcpy(&dyn, s->data + sh->sh_offset + off, sizeof dyn);
        if (dyn.d_tag == DT_NULL) break;
        const char *name = dyn.d_tag == DT_NEEDED ? table_string(s, table, dyn.d_un.d_val) : NULL;
        if (name && *name) names_add(&s->needed, name);
    }
}

/* Every NUL-terminated run of at least 4 printable ASCII bytes: in .rodata
 * (kernel names registered by nvcc's host code, dlopen() paths), in the
 * string tables, in an uncompressed fatbin. */
static void read_strings(LibScan *s) {
    size_t run = 0;
    for (size_t i = 0; i < s->size; i++) {
        unsigned char c = (unsigned char)s->data[i];
        if (c >= 0x20 && c < 0x7f) {
            run++;
            continue;
        }
        if (c == '\0' && run >= 4) names_add(&s->strings, s->data + i - run);
        run = 0;
    }
}

static int scan(const char *path, LibScan *s) {
    const unsigned char *d = (const unsigned char *)s->data;
    if (s->size < SELFMAG || memcmp(d, ELFMAG, SELFMAG)) return error("'%s' is not an ELF file", path);
    Elf64_Ehdr eh;
    if (s->size < sizeof eh) return error("'%s' is truncated: %zu bytes, not even an ELF header", path, s->size);
    if (d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
        return error("'%s' is not a 64-bit little-endian ELF file", path);
    memcpy(&eh, d, sizeof eh);
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr))
        return error("'%s' has no section headers that can be read", path);
    if (eh.e_shoff > s->size || (s->size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return error("'%s' is truncated: its section headers end past its %zu bytes", path, s->size);
    Elf64_Shdr *sh = xcalloc(eh.e_shnum, sizeof *sh);
    memcpy(sh, d + eh.e_shoff, eh.e_shnum * sizeof *sh);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type == SHT_NOBITS) continue;
        if (sh[i].sh_offset > s->size || s->size - sh[i].sh_offset < sh[i].sh_size) {
            free(sh);
            return error("'%s' is truncated: section %u ends past its %zu bytes", path, i, s->size);
        }
    }
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        bool symbols = sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM;
        if ((!symbols && sh[i].sh_type != SHT_DYNAMIC) || sh[i].sh_link >= eh.e_shnum) continue;
        const Elf64_Shdr *table = &sh[sh[i].sh_link];
        if (symbols) read_symbols(s, &sh[i], table, sh[i].sh_type == SHT_DYNSYM);
        else read_needed(s, &sh[i], table);
    }
    free(sh);
    read_strings(s);
    return 0;
}

/* The whole file, NUL-terminated, when it is at most LIBSCAN_SIZE_LIMIT
 * bytes: its size is asked before anything is read. */
static int read_library(const char *path, LibScan *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int rc = error("cannot open '%s': %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return rc;
    }
    if (st.st_size > LIBSCAN_SIZE_LIMIT) {
        close(fd);
        error("'%s' is %lld MiB, and the limit is %d MiB", path, (long long)st.st_size >> 20, LIBSCAN_SIZE_LIMIT >> 20);
        return LIBSCAN_TOO_LARGE;
    }
    out->data = xmalloc((size_t)st.st_size + 1);
    int rc = 0;
    while (rc == 0 && out->size < (size_t)st.st_size) { /* what it holds now, if it shrank meanwhile */
        ssize_t n = read(fd, out->data + out->size, (size_t)st.st_size - out->size);
        if (n < 0 && errno != EINTR) rc = error("cannot read '%s': %s", path, strerror(errno));
        if (n == 0) break;
        if (n > 0) out->size += (size_t)n;
    }
    close(fd);
    out->data[out->size] = '\0';
    return rc;
}

int libscan_file(const char *path, LibScan *out) {
    memset(out, 0, sizeof *out);
    int rc = read_library(path, out);
    if (rc < 0) {
        libscan_free(out);
        return rc;
    }
    if (scan(path, out) < 0) {
        libscan_free(out);
        return -1;
    }
    return 0;
}

void libscan_free(LibScan *s) {
    free(s->data);
    free(s->needed.items);
    free(s->undefined.items);
    free(s->exported.items);
    free(s->symbols.items);
    free(s->strings.items);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ mangled names */

enum { MAX_PARTS = 16 };

typedef struct {
    const char *at;
    int len;
} Part;

/* The parts of a mangled nested name: "_ZN3cub17CUB_300001_SM_9006detail4scan
 * 16DeviceScanKernelI..." -> cub, CUB_300001_SM_900, detail, scan,
 * DeviceScanKernel, and *templated (template arguments follow). 0 for a name
 * that is not nested (_Z3addPfS_i: the student's own kernel). */
static int name_parts(const char *m, Part *parts, bool *templated) {
    if (strncmp(m, "_ZN", 3)) return 0;
    const char *p = m + 3;
    if (*p == 'K') p++; /* a const member function */
    int n = 0;
    while (n < MAX_PARTS) {
        if (*p == 'L') p++; /* internal linkage */
        if (!isdigit((unsigned char)*p)) break;
        char *end;
        long len = strtol(p, &end, 10);
        if (len <= 0 || len > 4096 || strnlen(end, (size_t)len) < (size_t)len) break;
        parts[n++] = (Part){end, (int)len};
        p = end + len;
    }
    *templated = *p == 'I';
    return n;
}

static bool part_is(Part p, const char *s) { return (int)strlen(s) == p.len && !memcmp(p.at, s, (size_t)p.len); }

static bool part_starts(Part p, const char *s) {
    size_t n = strlen(s);
    return (size_t)p.len >= n && !memcmp(p.at, s, n);
}

static bool part_has(Part p, const char *s) { return memmem(p.at, (size_t)p.len, s, strlen(s)) != NULL; }

static bool part_is_kernel(Part p) { return part_has(p, "Kernel") || part_has(p, "kernel"); }

/* CCCL's versioned inline namespaces (CUB_300001_SM_900,
 * THRUST_300001_SM_900_NS) and libcu++'s (__4): left out of readable names. */
static bool part_is_version(Part p) {
    bool digit = false;
    for (int i = 0; i < p.len; i++) {
        char c = p.at[i];
        if (!(isupper((unsigned char)c) || isdigit((unsigned char)c) || c == '_')) return false;
        digit |= isdigit((unsigned char)c) != 0;
    }
    return digit;
}

bool libscan_readable(const char *mangled, char *out, size_t size) {
    Part parts[MAX_PARTS];
    bool templated;
    int n = name_parts(mangled, parts, &templated);
    if (n == 0 || size == 0) return false;
    StrBuf sb = {0};
    for (int i = 0; i < n; i++) {
        if (part_is_version(parts[i])) continue;
        if (sb.len) sb_puts(&sb, "::");
        sb_add(&sb, parts[i].at, (size_t)parts[i].len);
    }
    if (templated) sb_puts(&sb, "<...>");
    snprintf(out, size, "%s", sb.buf ? sb.buf : "");
    sb_free(&sb);
    return true;
}

/* ------------------------------------------------------------ rules */

/* A name in namespace `ns` (parts[0]) that the rule accepts. */
typedef bool NameRule(const char *name, const Part *parts, int n, bool templated);

static bool cub_device_wide(const char *name, const Part *parts, int n, bool templated) {
    (void)name, (void)templated;
    for (int i = 1; i < n; i++)
        if (part_starts(parts[i], "Device") && !part_starts(parts[i], "DeviceCount")) return true;
    /* every cub kernel is a device-wide algorithm's, but the one util_device.cuh defines */
    return part_is_kernel(parts[n - 1]) && !part_is(parts[n - 1], "EmptyKernel");
}

static bool thrust_device(const char *name, const Part *parts, int n, bool templated) {
    for (int i = 1; i < n; i++)
        if (part_is_kernel(parts[i])) return true;
    if (!strstr(name, "cuda_cub")) return false;
    /* thrust::cuda_cub::par and par_nosync: defined by including the header */
    bool policy = !templated && n >= 2 && part_is(parts[n - 2], "cuda_cub") &&
                  (part_is(parts[n - 1], "par") || part_is(parts[n - 1], "par_nosync"));
    return !policy;
}

static bool cutlass_device(const char *name, const Part *parts, int n, bool templated) {
    (void)name, (void)templated;
    for (int i = 1; i < n; i++) {
        if (part_is(parts[i], "device_kernel")) return true;
        if (part_starts(parts[i], "Kernel")) {
            int k = 6;
            while (k < parts[i].len && isdigit((unsigned char)parts[i].at[k])) k++;
            if (k == parts[i].len) return true; /* Kernel, Kernel2 */
        }
    }
    return false;
}

/* Looks for a name in namespace ns that `rule` accepts, among the symbols
 * and strings. The best evidence is a kernel, then an instantiated template
 * (an algorithm called with the student's types), then any. */
static bool find_name(const LibScan *s, const char *ns, NameRule *rule, char *evidence, size_t size) {
    const NameList *lists[] = {&s->symbols, &s->strings};
    const char *found = NULL;
    int best = -1;
    for (size_t l = 0; l < ARRAY_SIZE(lists) && best < 2; l++)
        for (size_t i = 0; i < lists[l]->count && best < 2; i++) {
            const char *name = lists[l]->items[i];
            Part parts[MAX_PARTS];
            bool templated;
            int n = name_parts(name, parts, &templated);
            if (n < 2 || !part_is(parts[0], ns) || !rule(name, parts, n, templated)) continue;
            int score = part_is_kernel(parts[n - 1]) ? 2 : templated;
            if (score > best) found = name, best = score;
        }
    if (!found) return false;
    char readable[512];
    libscan_readable(found, readable, sizeof readable);
    snprintf(evidence, size, "%s%s%s", best == 2 ? "the kernel " : "", readable,
             best == 0 && strstr(found, "cuda_cub") ? " (Thrust's CUDA backend)" : "");
    return true;
}

/* "cublas" followed by an upper-case letter: cublasSgemm_v2, cublasLtMatmul */
static bool vendor_name(const char *name, const char *prefix) {
    size_t n = strlen(prefix);
    return !strncmp(name, prefix, n) && isupper((unsigned char)name[n]);
}

/* cuBLAS or cuDNN: linked, imported, or loaded by name. */
static bool vendor_library(const LibScan *s, const char *prefix, char *evidence, size_t size) {
    char lib[32];
    snprintf(lib, sizeof lib, "lib%s", prefix);
    for (size_t i = 0; i < s->needed.count; i++)
        if (strstr(s->needed.items[i], lib)) {
            snprintf(evidence, size, "%s (a needed library)", s->needed.items[i]);
            return true;
        }
    for (size_t i = 0; i < s->undefined.count; i++)
        if (vendor_name(s->undefined.items[i], prefix)) {
            snprintf(evidence, size, "%s (a function it imports)", s->undefined.items[i]);
            return true;
        }
    for (size_t i = 0; i < s->strings.count; i++)
        if (strstr(s->strings.items[i], lib)) {
            snprintf(evidence, size, "\"%.80s\" (a library name, as dlopen() takes it)", s->strings.items[i]);
            return true;
        }
    for (size_t i = 0; i < s->strings.count; i++)
        if (vendor_name(s->strings.items[i], prefix)) {
            snprintf(evidence, size, "\"%.80s\" (a function name, as dlsym() takes it)", s->strings.items[i]);
            return true;
        }
    return false;
}

static const struct {
    const char *name, *title, *ns;
    NameRule *rule;
} libraries[] = {
    {"cublas", "cuBLAS", NULL, NULL},
    {"cudnn", "cuDNN", NULL, NULL},
    {"cub", "CUB", "cub", cub_device_wide},
    {"thrust", "Thrust", "thrust", thrust_device},
    {"cutlass", "CUTLASS", "cutlass", cutlass_device},
};

const char *libscan_title(const char *library) {
    for (size_t i = 0; i < ARRAY_SIZE(libraries); i++)
        if (!strcmp(libraries[i].name, library)) return libraries[i].title;
    return NULL;
}

/* Names can be renamed away (#define cub mylib); the source files the code
 * was compiled from cannot: -lineinfo keeps their paths. The agents and
 * dispatchers of CUB's device-wide algorithms, and Thrust's CUDA backend,
 * are device-wide code whatever their namespace is called; block- and
 * warp-level CUB (cub/block, cub/warp) is not. */
static bool source_of_device_wide(const LibScan *s, const char *library, char *evidence, size_t size) {
    static const struct {
        const char *library, *path;
    } sources[] = {
        {"cub", "/cub/agent"},
        {"cub", "/cub/device"},
        {"thrust", "/thrust/system/cuda/detail"},
    };
    for (size_t k = 0; k < ARRAY_SIZE(sources); k++) {
        if (strcmp(sources[k].library, library)) continue;
        for (size_t i = 0; i < s->strings.count; i++) {
            /* the line table names directories and files apart: ".../cccl/cub/agent" */
            const char *at = strstr(s->strings.items[i], sources[k].path);
            if (!at) continue;
            char after = at[strlen(sources[k].path)];
            if (after != '\0' && after != '/') continue;
            snprintf(evidence, size, "code compiled from its %s", at + 1);
            return true;
        }
    }
    return false;
}

bool libscan_uses(const LibScan *s, const char *library, char *evidence, size_t size) {
    for (size_t i = 0; i < ARRAY_SIZE(libraries); i++) {
        if (strcmp(libraries[i].name, library)) continue;
        if (!libraries[i].rule) return vendor_library(s, library, evidence, size);
        if (find_name(s, libraries[i].ns, libraries[i].rule, evidence, size)) return true;
        if (source_of_device_wide(s, library, evidence, size)) return true;
        /* these are header-only: an undefined symbol of theirs is a library built from them */
        for (size_t k = 0; k < s->undefined.count; k++) {
            Part parts[MAX_PARTS];
            bool templated;
            if (name_parts(s->undefined.items[k], parts, &templated) && part_is(parts[0], libraries[i].ns)) {
                char readable[512];
                libscan_readable(s->undefined.items[k], readable, sizeof readable);
                snprintf(evidence, size, "%s (a function it imports)", readable);
                return true;
            }
        }
        return false;
    }
    return false;
}

bool libscan_mentions(const LibScan *s, const char *needle, char *evidence, size_t size) {
    const NameList *lists[] = {&s->needed, &s->symbols, &s->strings};
    for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
        for (size_t i = 0; i < lists[l]->count; i++) {
            const char *name = lists[l]->items[i];
            char readable[512];
            bool mangled = libscan_readable(name, readable, sizeof readable);
            if (mangled && strcasestr(readable, needle)) {
                snprintf(evidence, size, "%s", readable);
                return true;
            }
            if (strcasestr(name, needle)) {
                snprintf(evidence, size, "%.100s%s", name, strlen(name) > 100 ? "..." : "");
                return true;
            }
        }
    return false;
}
