/* The judge's decisions that need no GPU (rules.h). */
#define _GNU_SOURCE
#include "rules.h"
#include "sandbox.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rules_median(double *values, int n) {
    if (n <= 0) return 0;
    qsort(values, (size_t)n, sizeof *values, cmp_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double rules_overhead_bound(const StepTime *trusted, int n) {
    if (n <= 0) return 0;
    double *o = malloc((size_t)n * sizeof *o);
    if (!o) return 0;
    for (int i = 0; i < n; i++) o[i] = trusted[i].wall_ms - trusted[i].event_ms;
    qsort(o, (size_t)n, sizeof *o, cmp_double);
    double bound = o[(int)(0.9 * (n - 1) + 0.5)];
    free(o);
    return bound > 0 ? bound : 0;
}

double rules_settle(StepTime s, double bound_ms, bool *used_wall) {
    double floor_ms = s.wall_ms - bound_ms;
    double t = s.event_ms;
    *used_wall = false;
    if (!(t >= floor_ms)) { /* also NaN: a runner's number is only a claim */
        t = floor_ms;
        *used_wall = true;
    }
    if (t > s.wall_ms) t = s.wall_ms;
    return t > 0 ? t : 0;
}

double rules_quick_probe_bound_us(double *idle_probe_us, int n) {
    double q = rules_median(idle_probe_us, n);
    /* Waiting for another process costs a context switch (~150 us on an
     * H100) or a whole time slice (~2 ms); a probe on an idle GPU costs
     * ~10-20 us. */
    double bound = 3 * q + 30;
    return bound < 120 ? bound : 120;
}

/* Libraries whose use is never the student's own work. */
static const char *const vendor_libraries[] = {
    "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnvrtc", "libnvJitLink",
    "libnvblas", "libcutensor", "libnccl",
};

static bool listed(const char *path, const char *const *allowed) {
    for (; allowed && *allowed; allowed++)
        if (!strcmp(path, *allowed)) return true;
    return false;
}

int rules_neighbours(const GpuUse *use, int n, const int *own, int n_own, GpuUse *out, int max) {
    int found = 0;
    for (int i = 0; i < n; i++) {
        bool ours = false;
        for (int k = 0; k < n_own && !ours; k++) ours = own[k] > 0 && (unsigned)own[k] == use[i].pid;
        if (ours || (use[i].sm_percent == 0 && use[i].memory_percent == 0)) continue;
        int j = 0;
        while (j < found && out[j].pid != use[i].pid) j++;
        if (j == found) {
            if (found == max) continue;
            out[found++] = (GpuUse){use[i].pid, 0, 0};
        }
        if (use[i].sm_percent > out[j].sm_percent) out[j].sm_percent = use[i].sm_percent;
        if (use[i].memory_percent > out[j].memory_percent) out[j].memory_percent = use[i].memory_percent;
    }
    for (int i = 1; i < found; i++) /* the busiest first: few entries, an insertion sort */
        for (int j = i; j > 0 && out[j].sm_percent > out[j - 1].sm_percent; j--) {
            GpuUse t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return found;
}

/* Reads `len` bytes at `off`; false past the end or on error. */
static bool read_at(FILE *f, long long off, void *buf, size_t len) {
    return off >= 0 && fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, len, f) == len;
}

bool rules_elf_soname(const char *path, char *soname, size_t size) {
    FILE *f = fopen(path, "rbe");
    if (!f) return false;
    bool found = false;
    Elf64_Ehdr eh;
    if (!read_at(f, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256) {
        fclose(f);
        return false;
    }
    Elf64_Phdr ph[256], dyn = {0};
    if (!read_at(f, (long long)eh.e_phoff, ph, eh.e_phnum * sizeof *ph)) eh.e_phnum = 0;
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) dyn = ph[i];
    /* DT_STRTAB is an address: the file offset is found through the PT_LOAD holding it */
    unsigned long long strtab = 0, name = 0;
    bool have_strtab = false, have_name = false;
    for (unsigned long long k = 0; dyn.p_filesz && k < dyn.p_filesz / sizeof(Elf64_Dyn) && k < 4096; k++) {
        Elf64_Dyn d;
        if (!read_at(f, (long long)(dyn.p_offset + k * sizeof d), &d, sizeof d) || d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr, have_strtab = true;
        if (d.d_tag == DT_SONAME) name = d.d_un.d_val, have_name = true;
    }
    for (int i = 0; have_strtab && have_name && i < eh.e_phnum && !found; i++) {
        if (ph[i].p_type != PT_LOAD || strtab < ph[i].p_vaddr || strtab - ph[i].p_vaddr >= ph[i].p_filesz) continue;
        long long off = (long long)(ph[i].p_offset + (strtab - ph[i].p_vaddr) + name);
        if (fseeko(f, (off_t)off, SEEK_SET) != 0 || !fgets(soname, (int)size, f)) break;
        soname[strnlen(soname, size - 1)] = '\0';
        found = soname[0] != '\0';
    }
    fclose(f);
    return found;
}

static bool is_vendor(const char *name) {
    for (size_t i = 0; i < sizeof vendor_libraries / sizeof *vendor_libraries; i++)
        if (!strncmp(name, vendor_libraries[i], strlen(vendor_libraries[i]))) return true;
    return false;
}

/* Executable code of the runtime: in one of the loader's directories, and named as the runtime's libraries. */
static bool runtime_code(const char *path, const char *const *lib_dirs) {
    const char *slash = strrchr(path, '/');
    if (!slash || !sandbox_runtime_library(slash + 1)) return false;
    for (; lib_dirs && *lib_dirs; lib_dirs++)
        if (strlen(*lib_dirs) == (size_t)(slash - path) && !strncmp(path, *lib_dirs, (size_t)(slash - path)))
            return true;
    return false;
}

/* The files (device and inode, as maps names them) whose SONAME was read
 * and named no vendor: the judge checks the maps after every student call,
 * and a file the runner cannot write does not change between calls. */
enum { SONAME_SEEN = 256 };
static struct {
    char id[64];
} soname_clean[SONAME_SEEN];
static int soname_clean_count;

static bool vendor_by_soname(const char *path, const char *id) {
    for (int i = 0; i < soname_clean_count; i++)
        if (!strcmp(soname_clean[i].id, id)) return false;
    char soname[256];
    if (rules_elf_soname(path, soname, sizeof soname) && is_vendor(soname)) return true;
    if (soname_clean_count < SONAME_SEEN) snprintf(soname_clean[soname_clean_count++].id, sizeof soname_clean->id, "%s", id);
    return false;
}

bool rules_maps_offender(const char *maps, const MapsAllowed *ok, char *offender, size_t size) {
    size_t dir_len = ok->build_dir ? strlen(ok->build_dir) : 0;
    char last[4096] = ""; /* a file's mappings follow one another: its SONAME is looked at once */
    for (const char *line = maps; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        /* "start-end perms offset dev inode   path": the path may contain spaces (" (deleted)") */
        const char *p = line, *perms = NULL, *dev = NULL;
        for (int field = 0; field < 5 && p < line + len; field++) {
            while (p < line + len && *p != ' ') p++;
            while (p < line + len && *p == ' ') p++;
            if (field == 0) perms = p;
            if (field == 2) dev = p; /* "dev inode": the file's identity */
        }
        char id[64] = "";
        if (dev) snprintf(id, sizeof id, "%.*s", (int)(p - dev), dev);
        bool exec = perms && perms + 2 < line + len && perms[2] == 'x';
        size_t plen = (size_t)(line + len - p);
        char path[4096];
        if (plen >= sizeof path) plen = sizeof path - 1;
        memcpy(path, p, plen);
        path[plen] = '\0';
        line = end ? end + 1 : NULL;
        /* the student's own library may have been rebuilt since it was loaded */
        char *deleted = strstr(path, " (deleted)");
        if (deleted && deleted[10] == '\0') *deleted = '\0';
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *why = NULL;
        if (path[0] != '/') {
            if (exec && strcmp(path, "[vdso]") && strcmp(path, "[vsyscall]") && strcmp(path, "[uprobes]"))
                why = "code in memory mapped from no file";
        } else if (!strncmp(path, "/memfd:", 7)) {
            why = "code from memory (memfd)";
        } else if (is_vendor(base)) {
            why = "a vendor library";
        } else if (dir_len && !strncmp(path, ok->build_dir, dir_len) && path[dir_len] == '/' && !listed(path, ok->files)) {
            why = "a file of the build directory";
        } else if (exec && !listed(path, ok->files) && !runtime_code(path, ok->lib_dirs)) {
            why = "code from outside the runtime's libraries";
        } else if (exec && strcmp(path, last) && vendor_by_soname(path, id)) {
            why = "a vendor library under another name";
        }
        if (exec) snprintf(last, sizeof last, "%s", path);
        if (why) {
            if (path[0]) snprintf(offender, size, "%s (%s)", path, why);
            else snprintf(offender, size, "%s", why);
            return true;
        }
    }
    return false;
}

/* Whether cpus[i] is the first of its physical core in the list. */
static bool first_of_core(const int *core, int i) {
    for (int k = 0; k < i; k++)
        if (core[k] == core[i]) return false;
    return true;
}

bool rules_pick_cpus(const int *cpus, const int *core, int n, unsigned slot, int *judge_cpu, int *runner_cpu) {
    int cores = 0;
    for (int i = 0; i < n; i++) cores += first_of_core(core, i);
    if (cores < 2) return false;
    /* by cores, each its first CPU: judge slot s takes cores 2s and 2s + 1, so that judges on one
     * host never share a core, nor a judge its runners' */
    const int judge = (int)((2ull * slot) % (unsigned)cores), runner = (int)((2ull * slot + 1) % (unsigned)cores);
    for (int i = 0, c = 0; i < n; i++) {
        if (!first_of_core(core, i)) continue;
        if (c == judge) *judge_cpu = cpus[i];
        if (c == runner) *runner_cpu = cpus[i];
        c++;
    }
    return true;
}

bool rules_watch_probe(CallEnd *end, bool quick, bool after_stop, double ended_at) {
    end->probes++;
    if (!quick) end->idle_from = 0;
    else if (!end->idle_from) {
        end->idle_from = end->probes;
        end->idle_at = ended_at;
    }
    return after_stop && end->idle_from;
}
