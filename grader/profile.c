/* gpucourse why --profile (profile.h). */
#define _GNU_SOURCE
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/proc.h"
#include "gpulock.h"
#include "launcher.h"
#include "report.h"

enum { NCU_OUTPUT_LIMIT = 64 * 1024 };

/* The sections the report holds, and why each: what a GEMM or a memory-bound
 * kernel is judged on, without --set full (about 40 passes a kernel, most of
 * them on things no exercise is about: NVLink, PM sampling, the L2's
 * compression). These take about a dozen passes. */
static const char *const sections[] = {
    "SpeedOfLight",                  /* the first question: how close to the memory or the compute peak */
    "SpeedOfLight_RooflineChart",    /* where the kernel sits on the roofline */
    "LaunchStats",                   /* grid, block, registers, shared memory: what the launch asked for */
    "Occupancy",                     /* how many warps fit, and what limits them */
    "ComputeWorkloadAnalysis",       /* which pipes are busy: FMA, tensor cores, load/store */
    "MemoryWorkloadAnalysis",        /* bytes through DRAM, L2, L1 and shared memory */
    "MemoryWorkloadAnalysis_Tables", /* sectors per request, shared-memory bank conflicts */
    "SchedulerStats",                /* issue slots: how often a warp was ready */
    "WarpStateStats",                /* why warps waited: the stall reasons */
    "SourceCounters",                /* the same per line of source and instruction */
};

/* ------------------------------------------------------------ finding ncu */

char *profile_find_ncu(const Toolchain *t, char *looked, size_t len) {
    char *found = proc_find_in_path("ncu");
    if (found) return found;
    StrBuf where = {0};
    sb_puts(&where, "PATH");
    /* the toolkit's bin/ncu, else its nsight-compute-VERSION/ (the newest by name) */
    const char *homes[] = {t ? t->cuda_home : NULL, "/usr/local/cuda"};
    for (size_t i = 0; i < ARRAY_SIZE(homes) && !found; i++) {
        char *real0 = homes[0] ? realpath(homes[0], NULL) : NULL, *real1 = realpath(homes[1], NULL);
        bool same = i == 1 && real0 && real1 && !strcmp(real0, real1); /* /usr/local/cuda is a link to it */
        free(real0);
        free(real1);
        if (!homes[i] || same) continue;
        char *bin = xprintf("%s/bin/ncu", homes[i]);
        char *pattern = xprintf("%s/nsight-compute-*/ncu", homes[i]);
        sb_printf(&where, ", %s, %s", bin, pattern);
        glob_t g = {0};
        if (access(bin, X_OK) == 0) found = xstrdup(bin);
        else if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0 && access(g.gl_pathv[g.gl_pathc - 1], X_OK) == 0)
            found = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
        globfree(&g);
        free(bin);
        free(pattern);
    }
    if (!found) { /* NVIDIA's standalone installer */
        const char *pattern = "/opt/nvidia/nsight-compute/*/ncu";
        sb_printf(&where, ", %s", pattern);
        glob_t g = {0};
        if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0 && access(g.gl_pathv[g.gl_pathc - 1], X_OK) == 0)
            found = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
        globfree(&g);
    }
    if (looked) snprintf(looked, len, "%s", where.buf ? where.buf : "");
    sb_free(&where);
    return found;
}

bool profile_no_permission(const char *out) {
    return out && (strstr(out, "ERR_NVGPUCTRPERM") || strstr(out, "does not have permission to access NVIDIA GPU "
                                                                 "Performance Counters"));
}

/* ------------------------------------------------------------ under ncu */

/* The text of a line that came from the student's process (advice only):
 * visible characters, one line, at most size - 1 bytes. */
static void untrusted_line(char *out, size_t size, const char *text) {
    StrBuf sb = {0};
    size_t len = strcspn(text, "\n");
    sb_add_visible(&sb, text, len);
    snprintf(out, size, "%s", sb.buf ? sb.buf : "");
    sb_free(&sb);
}

int profile_runs_main(int argc, char **argv) {
    /* RUNNER LOCK_DIR SIZE SEED TIMEOUT_S NAME=LIB... */
    unsigned long long timeout;
    if (argc < 6 || argv[1][0] != '/' || sscanf(argv[4], "%llu", &timeout) != 1 || timeout == 0) {
        fprintf(stderr, "usage: gpucourse %s RUNNER LOCK_DIR SIZE SEED TIMEOUT_S NAME=LIBRARY... "
                        "(started by ncu for gpucourse why --profile)\n", PROFILE_RUNS_ARG);
        return EXIT_USAGE;
    }
    for (int i = 5; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!eq) return EXIT_USAGE;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
        const char *run_argv[] = {argv[0], "--student", eq + 1, "--diagnose", argv[2], "--seed", argv[3],
                                  "--profile", argv[1], NULL};
        ProcSpec spec = {.argv = run_argv, .timeout_s = (double)timeout, .capture_limit = 16 * 1024,
                         .result_fd = RESULT_FD};
        ProcResult res;
        char how[300];
        if (proc_run(&spec, &res) < 0) {
            printf("gpucourse-profile: %s: could not start: %s\n", name, last_error());
            fflush(stdout);
            continue;
        }
        const char *err = res.results ? strstr(res.results, "error: ") : NULL;
        const char *cuda = res.results ? strstr(res.results, "call: cuda: ") : NULL;
        if (res.interrupted) snprintf(how, sizeof how, "interrupted");
        else if (res.timed_out) snprintf(how, sizeof how, "did not finish in %llu s", timeout);
        else if (err) untrusted_line(how, sizeof how, err);
        else if (cuda) untrusted_line(how, sizeof how, cuda + 6);
        else if (res.results && strstr(res.results, "call: ok")) snprintf(how, sizeof how, "ok");
        else if (!res.exited) snprintf(how, sizeof how, "ended by signal %d", res.signal);
        else snprintf(how, sizeof how, "ended (exit status %d) before its call", res.exit_code);
        printf("gpucourse-profile: %s: %s\n", name, how);
        fflush(stdout);
        bool stop = res.interrupted;
        proc_result_free(&res);
        if (stop) break;
    }
    return 0;
}

/* nftw's callback: everything below the run's TMPDIR (ncu's lock files,
 * whatever the runner made there). */
static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* "gpucourse-profile: NAME: HOW" from the runs' output into dst. */
static void run_line(const char *output, const char *name, char *dst, size_t size) {
    char key[64];
    snprintf(key, sizeof key, "gpucourse-profile: %s: ", name);
    const char *at = output ? strstr(output, key) : NULL;
    if (at) untrusted_line(dst, size, at + strlen(key));
}

void profile_run(const ProfileRun *run, Profile *p) {
    double start = now_seconds();
    const char *tmp = getenv("TMPDIR");
    char *dir = xprintf("%s/gpucourse-ncu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *lock_dir = NULL;
    if (!mkdtemp(dir)) {
        snprintf(p->not_done, sizeof p->not_done, "cannot make a directory for ncu under %s: %s",
                 tmp && *tmp ? tmp : "/tmp", strerror(errno));
        goto out;
    }
    /* ncu's part in the runner makes its lock files here, and may not make
     * the directory itself (the sandbox refuses mkdir) */
    lock_dir = xprintf("%s/nvidia/nsight_compute", dir);
    if (make_dirs(lock_dir) < 0) {
        snprintf(p->not_done, sizeof p->not_done, "%s", last_error());
        goto out;
    }
    char seed[32], timeout[32];
    snprintf(seed, sizeof seed, "%llu", run->seed ? run->seed : 1);
    snprintf(timeout, sizeof timeout, "%.0f", run->call_timeout_s);
    char *yours = xprintf("yours=%s", run->student), *theirs = xprintf("reference=%s", run->reference);
    StrList args = {0};
    strlist_add(&args, run->ncu);
    /* the runners alone (not this program, which starts them), and in them
     * the call between cudaProfilerStart and Stop */
    strlist_add(&args, "--target-processes");
    strlist_add(&args, "all");
    strlist_add(&args, "--target-processes-filter");
    strlist_add(&args, "regex:runner-");
    strlist_add(&args, "--profile-from-start");
    strlist_add(&args, "off");
    for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
        strlist_add(&args, "--section");
        strlist_add(&args, sections[i]);
    }
    strlist_add(&args, "--export");
    strlist_add(&args, run->report);
    strlist_add(&args, run->self);
    strlist_add(&args, PROFILE_RUNS_ARG);
    strlist_add(&args, run->runner);
    strlist_add(&args, lock_dir);
    strlist_add(&args, run->size);
    strlist_add(&args, seed);
    strlist_add(&args, timeout);
    strlist_add(&args, yours);
    strlist_add(&args, theirs);
    free(yours);
    free(theirs);
    char *tmpdir_env = xprintf("TMPDIR=%s", dir);
    const char *env[] = {tmpdir_env, run->gpu_env, NULL};
    const char **argv = strlist_argv(&args);
    double limit = 2 * run->call_timeout_s + PROFILE_NCU_SLACK_S;
    ProcSpec spec = {.argv = argv, .env = env, .timeout_s = limit, .capture_limit = NCU_OUTPUT_LIMIT};
    ProcResult res;
    int started = proc_run(&spec, &res);
    free(argv);
    strlist_free(&args);
    free(tmpdir_env);
    if (started < 0) {
        snprintf(p->not_done, sizeof p->not_done, "ncu (%s) could not start: %s", run->ncu, last_error());
        goto out;
    }
    run_line(res.output, "yours", p->yours, sizeof p->yours);
    run_line(res.output, "reference", p->reference, sizeof p->reference);
    bool written = file_exists(run->report);
    if (written) snprintf(p->report, sizeof p->report, "%s", run->report);
    /* what is missing, most telling first */
    const char *ncu_error = res.output ? strstr(res.output, "==ERROR== ") : NULL;
    char ncu_said[300] = "";
    if (ncu_error) untrusted_line(ncu_said, sizeof ncu_said, ncu_error + 10);
    if (res.interrupted) snprintf(p->not_done, sizeof p->not_done, "interrupted");
    else if (profile_no_permission(res.output))
        snprintf(p->not_done, sizeof p->not_done,
                 "the driver lets only administrators read the GPU's counters (ERR_NVGPUCTRPERM, "
                 "NVreg_RestrictProfilingToAdminUsers=1): as root, echo 'options nvidia "
                 "NVreg_RestrictProfilingToAdminUsers=0' > /etc/modprobe.d/gpucourse-profiling.conf and reboot "
                 "(gpucourse doctor, line counters)");
    else if (res.timed_out)
        snprintf(p->not_done, sizeof p->not_done, "ncu did not finish in %.0f s%s", limit,
                 written ? ": the report may lack kernels" : "");
    else if (!p->yours[0] && !p->reference[0])
        snprintf(p->not_done, sizeof p->not_done, "ncu ran nothing (exit %d)%s%s", res.exited ? res.exit_code : -1,
                 ncu_said[0] ? ": " : "", ncu_said);
    else if (strcmp(p->yours, "ok") || strcmp(p->reference, "ok"))
        snprintf(p->not_done, sizeof p->not_done, "%s%s%s%s%s", strcmp(p->yours, "ok") ? "your call: " : "",
                 strcmp(p->yours, "ok") ? (p->yours[0] ? p->yours : "no word from its runner") : "",
                 strcmp(p->yours, "ok") && strcmp(p->reference, "ok") ? "; " : "",
                 strcmp(p->reference, "ok") ? "the reference's: " : "",
                 strcmp(p->reference, "ok") ? (p->reference[0] ? p->reference : "no word from its runner") : "");
    else if (!written)
        snprintf(p->not_done, sizeof p->not_done, "ncu wrote no report (exit %d)%s%s", res.exited ? res.exit_code : -1,
                 ncu_said[0] ? ": " : "", ncu_said);
    if (!written && !p->not_done[0]) snprintf(p->not_done, sizeof p->not_done, "ncu wrote no report");
    proc_result_free(&res);
out:
    if (lock_dir) nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    else rmdir(dir);
    free(lock_dir);
    free(dir);
    p->wall_s = now_seconds() - start;
}

/* ------------------------------------------------------------ the exercise */

/* WORKSPACE/profiles/EX-YYYYMMDD-HHMMSS.ncu-rep, one that is not there yet. */
static char *report_path(const Workspace *w, const Exercise *e) {
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char *dir = path_join(w->root, "profiles");
    char *path = NULL;
    for (int n = 1; n < 100; n++) {
        free(path);
        path = n == 1 ? xprintf("%s/%s-%s.ncu-rep", dir, e->id, stamp) : xprintf("%s/%s-%s-%d.ncu-rep", dir, e->id, stamp, n);
        if (!file_exists(path)) break;
    }
    free(dir);
    return path;
}

void profile_exercise(const Course *c, const Workspace *w, const Exercise *e, const GradeResult *r,
                      void (*on_phase)(const char *what, void *ctx), void *ctx, Profile *p) {
    memset(p, 0, sizeof *p);
    p->asked = true;
    double start = now_seconds();
    Toolchain t = {0};
    CourseParts parts = {0};
    GpuLock lock = {-1};
    char *on_gpu = NULL, *ncu = NULL, *self = NULL, *report = NULL;
    char *lib = xprintf("%s/student-%s.so", w->build, e->id);
    if (r->verdict == V_COMPILE_ERROR)
        snprintf(p->not_done, sizeof p->not_done, "your file did not compile: there are no kernels to profile");
    else if (r->verdict == V_SKIPPED)
        snprintf(p->not_done, sizeof p->not_done, "no GPU: a profile runs your kernels on the GPU (the grade "
                 "above says why there is none)");
    else if (r->verdict == V_GPU_BUSY)
        snprintf(p->not_done, sizeof p->not_done, "%s", GPU_BUSY_NOT_JUDGED);
    else if (r->verdict == V_INTERRUPTED) snprintf(p->not_done, sizeof p->not_done, "interrupted");
    else if (!r->device[0] || r->nchecks == 0)
        snprintf(p->not_done, sizeof p->not_done, "nothing of yours ran (%s)", verdict_title(r->verdict));
    else if (!r->timed || r->nsizes == 0)
        snprintf(p->not_done, sizeof p->not_done, "the grading timed nothing (%s stops it before the timing), "
                 "and a profile is taken at the size that decided the speed: fix what why says first",
                 verdict_title(r->verdict));
    else if (!file_exists(lib))
        snprintf(p->not_done, sizeof p->not_done, "your compiled library %s is gone: grade again first", lib);
    if (p->not_done[0]) goto out;
    snprintf(p->size, sizeof p->size, "%s", r->sizes[r->decisive].size);
    char looked[1024], *log = NULL;
    bool toolkit = toolchain_find(&t) == 0;
    ncu = profile_find_ncu(toolkit ? &t : NULL, looked, sizeof looked);
    self = realpath("/proc/self/exe", NULL);
    if (!toolkit) snprintf(p->not_done, sizeof p->not_done, "%s", last_error());
    else if (!ncu)
        snprintf(p->not_done, sizeof p->not_done, "Nsight Compute (ncu) not found (looked in %.600s)", looked);
    else if (!self) snprintf(p->not_done, sizeof p->not_done, "cannot find this program: %s", strerror(errno));
    else if (grade_build_course_parts(&t, c, w, e, &parts, &log) < 0)
        snprintf(p->not_done, sizeof p->not_done, "%s", last_error());
    free(log);
    if (p->not_done[0]) goto out;
    /* its runs use the GPU: not beside another grading's timing */
    const char *gpus[] = {r->gpu_id};
    GpuLockRequest want = {.gpus = gpus, .ngpus = 1, .what = e->id, .on_wait = on_phase, .ctx = ctx};
    GpuLockResult locked = r->gpu_id[0] ? gpu_lock(&want, &lock) : GPU_LOCK_FAILED;
    if (locked == GPU_LOCK_INTERRUPTED || locked == GPU_LOCK_TIMED_OUT) {
        snprintf(p->not_done, sizeof p->not_done, "%s", locked == GPU_LOCK_INTERRUPTED ? "interrupted" : last_error());
        goto out;
    }
    report = report_path(w, e);
    char *dir = path_dirname(report);
    int made = make_dirs(dir);
    free(dir);
    if (made < 0) {
        snprintf(p->not_done, sizeof p->not_done, "%s", last_error());
        goto out;
    }
    on_gpu = grade_gpu_env(r);
    if (on_phase) {
        char what[128];
        snprintf(what, sizeof what, "ncu: your call and the reference's at %s", p->size);
        on_phase(what, ctx);
    }
    ProfileRun run = {.ncu = ncu, .self = self, .runner = parts.runner, .student = lib, .reference = parts.reference,
                      .size = p->size, .seed = r->seed, .report = report, .gpu_env = on_gpu,
                      .call_timeout_s = PROFILE_CALL_TIMEOUT_S};
    profile_run(&run, p);
out:
    gpu_unlock(&lock);
    free(on_gpu);
    free(ncu);
    free(self);
    free(report);
    free(lib);
    course_parts_free(&parts);
    toolchain_free(&t);
    p->wall_s = now_seconds() - start;
}

/* ------------------------------------------------------------ reports */

/* path as a shell word: as it is when it needs no quoting, else in single
 * quotes (a workspace with blanks in its name). */
static char *shell_word(const char *path) {
    if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-+,:=@%") == strlen(path))
        return xstrdup(path);
    StrBuf sb = {0};
    sb_puts(&sb, "'");
    for (const char *s = path; *s; s++) {
        if (*s == '\'') sb_puts(&sb, "'\\''");
        else sb_add(&sb, s, 1);
    }
    sb_puts(&sb, "'");
    return sb_take(&sb);
}

/* "  WORDS PATH", or where that is wider than 80 columns, the path on a
 * line of its own after a backslash: either way a command that pastes into
 * a shell as it is. */
static void print_command(FILE *out, const char *words, const char *path) {
    if (2 + strlen(words) + 1 + strlen(path) <= 80) fprintf_visible(out, "  %s %s\n", words, path);
    else fprintf_visible(out, "  %s \\\n      %s\n", words, path);
}

void profile_report_text(FILE *out, const Exercise *e, const Profile *p) {
    if (!p->report[0]) {
        fprintf_visible(out, "profile %s: no report: %s\n", e->id, p->not_done);
        return;
    }
    char *word = shell_word(p->report);
    fprintf(out, "profile %s: your kernels and the reference's at %s under Nsight Compute (%.1f s), saved in\n",
            e->id, p->size, p->wall_s);
    fprintf_visible(out, "  %s\n", p->report);
    if (p->not_done[0]) fprintf_visible(out, "  (incomplete: %s)\n", p->not_done);
    fputs("Open it in Nsight Compute:\n", out);
    print_command(out, "ncu-ui", word);
    fputs("or read it in a terminal:\n", out);
    print_command(out, "ncu --page details --import", word);
    free(word);
}

void json_profile(FILE *out, const Profile *p) {
    if (!p || !p->asked) {
        fputs("null", out);
        return;
    }
    fputs("{\"report\": ", out);
    if (p->report[0]) json_string(out, p->report);
    else fputs("null", out);
    fputs(", \"size\": ", out);
    json_string(out, p->size);
    fputs(", \"not_done\": ", out);
    json_string(out, p->not_done);
    fputs(", \"yours\": ", out);
    json_string(out, p->yours);
    fputs(", \"reference\": ", out);
    json_string(out, p->reference);
    fputs(", \"open\": ", out);
    char *word = p->report[0] ? shell_word(p->report) : NULL;
    char *open = word ? xprintf("ncu-ui %s", word) : NULL, *terminal = word ? xprintf("ncu --page details --import %s", word) : NULL;
    if (open) json_string(out, open);
    else fputs("null", out);
    fputs(", \"terminal\": ", out);
    if (terminal) json_string(out, terminal);
    else fputs("null", out);
    fputs(", \"seconds\": ", out);
    json_number(out, p->wall_s);
    fputc('}', out);
    free(word);
    free(open);
    free(terminal);
}
