/* gpucourse doctor: what is installed, what is missing, how to fix it. */
#define _GNU_SOURCE
#include "cli.h"

/* doctor --format json: each line a member of "checks" (README.md,
 * "progress and doctor as JSON"); how many so far. */
static bool doctor_json;
static int doctor_checks;

static void doctor_line(bool ok, const char *what, const char *detail, const char *fix) {
    if (doctor_json) {
        fputs(doctor_checks++ ? ",\n    {\"check\": " : "\n    {\"check\": ", stdout);
        json_string(stdout, what);
        printf(", \"ok\": %s, \"detail\": ", ok ? "true" : "false");
        json_string(stdout, detail);
        fputs(", \"fix\": ", stdout);
        if (!ok && fix) json_string(stdout, fix);
        else fputs("null", stdout);
        fputc('}', stdout);
        return;
    }
    /* a long detail or fix goes on under itself */
    fprintf_wrapped(stdout, 22, "%-8s %-12s %s\n", ok ? "ok" : "MISSING", what, detail);
    if (!ok && fix) fprintf_wrapped(stdout, 27, "%-8s %-12s fix: %s\n", "", "", fix);
}

int cmd_doctor(const Options *o) {
    int code = 0;
    doctor_json = o->format == FORMAT_JSON;
    if (doctor_json) fputs("{\n  \"checks\": [", stdout);
    Toolchain t;
    if (toolchain_find(&t) == 0) {
        char *d = xprintf("%s (CUDA %s)", t.nvcc, t.version ? t.version : "unknown version");
        doctor_line(true, "nvcc", d, NULL);
        free(d);
    } else {
        doctor_line(false, "nvcc", "not found", "install the CUDA Toolkit and export PATH=/usr/local/cuda/bin:$PATH");
        code = EXIT_SETUP;
    }
    GpuInfo g;
    gpu_probe(&g);
    char detail[512];
    if (g.driver) snprintf(detail, sizeof detail, "CUDA driver API %d.%d", g.driver_version / 1000, g.driver_version % 1000 / 10);
    doctor_line(g.driver, "driver", g.driver ? detail : g.why,
                "install the NVIDIA driver (nvidia-smi should list your GPU)");
    if (g.count > 0) {
        snprintf(detail, sizeof detail, "%s, sm_%d%d, %d SMs, %d MHz max", g.name, g.cc_major, g.cc_minor, g.sm_count,
                 g.clock_mhz);
        doctor_line(true, "gpu", detail, NULL);
        if (g.count > 1) {
            snprintf(detail, sizeof detail, "%d: a grading takes whichever is free; grade and class grade with several "
                     "exercises or students use them all at once (--gpus N sets how many)", g.count);
            doctor_line(true, "gpus", detail, NULL);
        }
        /* one timed grading per GPU: every user's gpucourse must reach the same locks, which nobody else can
         * take away (grader/gpulock.h); /tmp serves, and says so */
        const char *lock_dir = gpu_lock_dir();
        bool fallback = !strcmp(lock_dir, "/tmp") && !getenv("GPUCOURSE_LOCK_DIR");
        for (int i = 0; i < g.count; i++) {
            GpuLock lock;
            const char *one[] = {g.uuids[i]};
            GpuLockRequest probe = {.gpus = one, .ngpus = 1, .what = "doctor", .timeout_s = 0.01};
            GpuLockResult locked = gpu_lock(&probe, &lock);
            char *path = gpu_lock_path(g.uuids[i]);
            if (locked == GPU_LOCK_FAILED)
                snprintf(detail, sizeof detail, "cannot be used, gradings are timed unlocked: %s", last_error());
            else if (lock.why[0])
                snprintf(detail, sizeof detail, "%s: the whole directory, one grading on the machine at a time (%s)%s",
                         lock_dir, lock.why, locked == GPU_LOCK_TIMED_OUT ? " (a grading holds it now)" : "");
            else
                snprintf(detail, sizeof detail, "%s%s%s%s%s", path, locked == GPU_LOCK_TIMED_OUT ? " (a grading holds it now)" : "",
                         fallback ? " (no shared lock directory: make install makes " : "",
                         fallback ? gpu_lock_shared_dir : "", fallback ? ")" : "");
            doctor_line(locked != GPU_LOCK_FAILED, "gpu lock", detail,
                        "point GPUCOURSE_LOCK_DIR at a directory only root (or you) can change, mode 1777 if shared, "
                        "as make install makes (docs/classroom.md)");
            gpu_unlock(&lock);
            free(path);
        }
        if (g.count > 1) { /* a witnessed grading has the machine to itself (grader/gpulock.h) */
            GpuLock lock;
            const char *first[] = {g.uuids[0]};
            GpuLockRequest probe = {.gpus = first, .ngpus = 1, .alone = true, .what = "doctor", .timeout_s = 0.01};
            GpuLockResult locked = gpu_lock(&probe, &lock);
            char *path = gpu_machine_lock_path();
            if (locked == GPU_LOCK_FAILED) snprintf(detail, sizeof detail, "cannot be used: %s", last_error());
            else
                snprintf(detail, sizeof detail, "%s%s: a grading of a witnessed exercise (chapters 7-11's tensor cores "
                         "and multicast) waits for every other and runs alone%s",
                         lock.machine_why[0] ? lock.machine_why : path,
                         lock.machine_why[0] ? " (others are not kept out while it waits)" : "",
                         locked == GPU_LOCK_TIMED_OUT ? " (a grading runs now)" : "");
            doctor_line(locked != GPU_LOCK_FAILED, "machine lock", detail, NULL);
            gpu_unlock(&lock);
            free(path);
        }
        if (g.cc_major != 9 && doctor_json)
            doctor_line(false, "hopper", "the course targets Hopper (sm_90a); this GPU cannot run its code", NULL);
        else if (g.cc_major != 9)
            fprintf_wrapped(stdout, 22, "%-8s %-12s the course targets Hopper (sm_90a); this GPU cannot run its code\n",
                            "WARNING", "");
    } else {
        doctor_line(false, "gpu", g.why, "grading needs an NVIDIA Hopper GPU (H100/H200); without one, grade compiles and skips");
        if (code == 0) code = EXIT_SKIPPED;
    }
    char *cublas = t.cuda_home ? xprintf("%s/lib64/libcublas.so", t.cuda_home) : NULL;
    bool have_cublas = cublas && access(cublas, F_OK) == 0;
    doctor_line(have_cublas, "cuBLAS", have_cublas ? cublas : "not found in the toolkit",
                "install the toolkit's cuBLAS (libcublas-dev or the full CUDA Toolkit)");
    free(cublas);
    /* ex45's baseline, cuBLASLt's block scale modes (harness/kinds/gemm_fp8_blockscaled.cu) */
    int fp8_scales = toolchain_at_least(&t, TOOLKIT_FP8_SCALES_MAJOR, TOOLKIT_FP8_SCALES_MINOR);
    if (t.nvcc)
        doctor_line(fp8_scales > 0, "FP8 scales",
                    fp8_scales > 0 ? "CUDA 12.9 or later: ex45's cuBLASLt baseline"
                                   : "ex45's cuBLASLt baseline needs CUDA 12.9 or later",
                    "install CUDA Toolkit 12.9 or later; until then ex45 is a setup error (the rest needs 12.0)");
    /* the judge's witness (harness/pmwitness.cu): CUPTI's PM sampling */
    int pm_sampling = toolchain_at_least(&t, TOOLKIT_PM_SAMPLING_MAJOR, TOOLKIT_PM_SAMPLING_MINOR);
    if (t.nvcc)
        doctor_line(pm_sampling > 0, "witness",
                    pm_sampling > 0 ? "CUDA 12.6 or later: the judge's own counters (PM sampling)"
                                    : "the judge's own counters (PM sampling) need CUDA 12.6 or later",
                    "install CUDA Toolkit 12.6 or later; until then the exercises whose evidence is the tensor "
                    "cores (chapters 7 and 9-11) are a setup error");
    char *cuobjdump = toolchain_tool(&t, "cuobjdump");
    doctor_line(cuobjdump != NULL, "cuobjdump", cuobjdump ? cuobjdump : "not found",
                "the exercises that require instructions (required_sass, forbidden_sass) cannot pass without it: it "
                "ships with the full CUDA Toolkit (package cuda-cuobjdump-X-Y)");
    free(cuobjdump);
    /* gpucourse why runs the student's code under it (grader/diagnose.h) */
    char *sanitizer = toolchain_tool(&t, "compute-sanitizer");
    char sanitizer_detail[300] = "not found";
    bool sanitizer_ok = false;
    if (sanitizer) {
        const char *argv[] = {sanitizer, "--version", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 30, .capture_limit = 4096};
        ProcResult res;
        if (proc_run(&spec, &res) == 0) {
            sanitizer_ok = res.exited && res.exit_code == 0;
            const char *v = strstr(res.output, "Version ");
            snprintf(sanitizer_detail, sizeof sanitizer_detail, "%s%s%.*s", sanitizer, v ? ", " : "",
                     v ? (int)strcspn(v, "\n") : 0, v ? v : "");
            if (!sanitizer_ok) snprintf(sanitizer_detail, sizeof sanitizer_detail, "%s does not run", sanitizer);
            proc_result_free(&res);
        }
    }
    doctor_line(sanitizer_ok, "sanitizer", sanitizer_detail,
                "gpucourse why cannot look for races and faults in your code without it: it ships with the CUDA "
                "Toolkit (package cuda-sanitizer-X-Y)");
    free(sanitizer);
    /* the GPU's counters: the evidence that ex06, ex18, ex21 and chapters 7-11 pass on */
    char *cupti = toolchain_cupti(&t);
    doctor_line(cupti != NULL, "CUPTI", cupti ? cupti : "not found",
                "the exercises that require evidence from the GPU's counters (ex06, ex18, ex21, chapters 7-11) "
                "cannot pass without it: "
                "it ships with the CUDA Toolkit (package cuda-cupti-X-Y)");
    free(cupti);
    int admin_only = gpu_profiling_admin_only("/proc/driver/nvidia/params");
    if (admin_only >= 0)
        doctor_line(admin_only == 0 || geteuid() == 0, "counters",
                    admin_only == 0 ? "readable by every user"
                    : geteuid() == 0 ? "readable by administrators only; you run as root"
                                     : "the driver lets only administrators read the GPU's counters (RmProfilingAdminOnly: 1)",
                    "the exercises that require evidence (ex06, ex18, ex21, chapters 7-11) are not graded, and gpucourse why shows no counters, "
                    "until they are readable: as root, "
                    "echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' > /etc/modprobe.d/gpucourse-profiling.conf "
                    "and reboot (or reload the nvidia module)");
    SandboxStatus sb;
    sandbox_probe(&sb);
    snprintf(detail, sizeof detail, "Landlock ABI %d, seccomp %s%s%s", sb.landlock_abi, sb.seccomp ? "on" : "off",
             sb.note[0] ? "; " : "", sb.note);
    doctor_line(sb.landlock && sb.seccomp, "sandbox", detail,
                "student code still runs in its own process, but confined less (docs/harness.md); a Linux kernel "
                "with Landlock and seccomp filters (5.13 or later) confines it fully");
    char *smi = proc_find_in_path("nvidia-smi");
    if (smi && g.count > 0) {
        const char *argv[] = {smi, "--query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,"
                                   "clocks_throttle_reasons.active",
                              "--format=csv,noheader", NULL};
        ProcSpec spec = {.argv = argv, .timeout_s = 20, .capture_limit = 4096};
        ProcResult res;
        if (proc_run(&spec, &res) == 0) {
            res.output[strcspn(res.output, "\n")] = '\0';
            snprintf(detail, sizeof detail, "sm, max sm, mem, temp, power, throttle: %s", res.output);
            doctor_line(res.exited && res.exit_code == 0, "clocks", detail, NULL);
            proc_result_free(&res);
        }
    }
    free(smi);
    char *root = course_locate(o->course_dir);
    if (root) {
        StrList problems = {0};
        Course *c = course_load(root, &problems);
        snprintf(detail, sizeof detail, "%s (%s)", root, c ? "valid" : "has problems: run gpucourse check-course");
        doctor_line(c != NULL, "course", detail, NULL);
        if (!c) code = EXIT_SETUP;
        course_free(c);
        strlist_free(&problems);
        free(root);
    } else {
        doctor_line(false, "course", last_error(), "run gpucourse where the course is, give --course DIR, or make install");
        code = EXIT_SETUP;
    }
    toolchain_free(&t);
    if (doctor_json)
        printf("%s],\n  \"ok\": %s,\n  \"exit_code\": %d,\n  \"error\": null\n}\n", doctor_checks ? "\n  " : "",
               code == 0 ? "true" : "false", code);
    return code;
}
