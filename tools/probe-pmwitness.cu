// What the judge's witness (harness/pmwitness.h) sees, measured on a GPU
// (issue 45). The parent is the judge's side: it samples the GPU with
// pm_begin/pm_end and has no kernels of its own. A child process, started
// before either touches CUDA, is the student's side: on the parent's word it
// runs one case for a known time, timing each kernel with CUDA events:
//
//   bf16   cuBLAS GemmEx 4096^3, BF16 in, FP32 out (wgmma on sm_90)
//   tf32   cuBLAS GemmEx 4096^3, FP32 with CUBLAS_COMPUTE_32F_FAST_TF32
//   ffma   a kernel of FP32 FMAs only (no tensor-core instruction)
//   idle   nothing: the child sleeps
//
// Each case runs twice, unsampled and then inside a window, so the table
// says what the window summed (per FLOP, for the tensor pipe's cycles),
// what pm_begin and pm_end cost, and whether the child's kernels ran slower
// while sampled. Then the one-session rule: while the child holds CUPTI's
// range profiler enabled (harness/counters.cu, as the student's runner does
// around a counted call) pm_begin must fail with CUPTI's HARDWARE_BUSY and
// work again once the child disables it; while a window is open the child
// must not be able to enable its profiler.
//
//   tools/probe-pmwitness.sh [METRICS [MS]]   builds this and runs it
//
// METRICS: comma-separated .sum counters, the first one the tensor pipe's
// (default sm__pipe_tensor_cycles_active.sum); MS: each case's time (500).
// Exits 0 when every expectation held, 1 when one did not, 2 when the
// witness could not be opened.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "counters.h"
#include "pmwitness.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// ---------------------------------------------------------------- the child (the student's side)

enum { GEMM_N = 4096, FFMA_CHAINS = 8, FFMA_ITERS = 16384 };

// FP32 FMAs only: FFMA_CHAINS independent chains per thread, the result
// written so that nothing is optimized away.
__global__ void ffma_kernel(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[0], b = in[1], x[FFMA_CHAINS];
    for (int c = 0; c < FFMA_CHAINS; c++) x[c] = i + c;
    for (int k = 0; k < FFMA_ITERS; k++)
#pragma unroll
        for (int c = 0; c < FFMA_CHAINS; c++) x[c] = fmaf(x[c], a, b);
    float s = 0;
    for (int c = 0; c < FFMA_CHAINS; c++) s += x[c];
    out[i] = s;
}

__global__ void fill_kernel(float *f, __nv_bfloat16 *h, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
        f[i] = v;
        h[i] = __float2bfloat16(v);
    }
}

struct Child {
    cublasHandle_t blas;
    float *af, *bf, *cf, *ffma_in, *ffma_out;
    __nv_bfloat16 *ah, *bh;
    int ffma_blocks;
    double per_launch_ms[3];  // calibrated: bf16, tf32, ffma
};

static double flops_of(int which, const Child &c) {
    if (which < 2) return 2.0 * GEMM_N * GEMM_N * (double)GEMM_N;
    return 2.0 * FFMA_CHAINS * (double)FFMA_ITERS * c.ffma_blocks * 256;
}

static void launch(int which, Child &c) {
    const float one = 1, zero = 0;
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    if (which == 0)
        s = cublasGemmEx(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_N, GEMM_N, GEMM_N, &one, c.ah, CUDA_R_16BF, GEMM_N,
                         c.bh, CUDA_R_16BF, GEMM_N, &zero, c.cf, CUDA_R_32F, GEMM_N, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
    else if (which == 1)
        s = cublasGemmEx(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_N, GEMM_N, GEMM_N, &one, c.af, CUDA_R_32F, GEMM_N,
                         c.bf, CUDA_R_32F, GEMM_N, &zero, c.cf, CUDA_R_32F, GEMM_N, CUBLAS_COMPUTE_32F_FAST_TF32,
                         CUBLAS_GEMM_DEFAULT);
    else ffma_kernel<<<c.ffma_blocks, 256>>>(c.ffma_in, c.ffma_out);
    if (s != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "child: cublasGemmEx failed (%d)\n", (int)s);
        exit(1);
    }
}

// Runs `which` n times, each launch between two events; the median launch
// time and the time from the first start to the last stop, in ms.
static void run_timed(int which, int n, Child &c, double *median, double *total) {
    std::vector<cudaEvent_t> ev(2 * n);
    for (auto &e : ev) cudaEventCreate(&e);
    for (int i = 0; i < n; i++) {
        cudaEventRecord(ev[2 * i]);
        launch(which, c);
        cudaEventRecord(ev[2 * i + 1]);
    }
    cudaDeviceSynchronize();
    std::vector<float> t(n);
    for (int i = 0; i < n; i++) cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]);
    float all = 0;
    cudaEventElapsedTime(&all, ev[0], ev[2 * n - 1]);
    for (auto &e : ev) cudaEventDestroy(e);
    std::sort(t.begin(), t.end());
    *median = t[n / 2];
    *total = all;
}

static int child_main(FILE *in, FILE *out) {
    Child c = {};
    size_t n = (size_t)GEMM_N * GEMM_N;
    cudaSetDevice(0);
    if (cudaMalloc(&c.af, n * 4) || cudaMalloc(&c.bf, n * 4) || cudaMalloc(&c.cf, n * 4) ||
        cudaMalloc(&c.ah, n * 2) || cudaMalloc(&c.bh, n * 2) || cudaMalloc(&c.ffma_in, 8) ||
        cudaMalloc(&c.ffma_out, 132 * 8 * 256 * 4 * 4)) {
        fprintf(out, "fail cudaMalloc: %s\n", cudaGetErrorString(cudaGetLastError()));
        fflush(out);
        return 1;
    }
    fill_kernel<<<1024, 256>>>(c.af, c.ah, n);
    fill_kernel<<<1024, 256>>>(c.bf, c.bh, n);
    float ab[2] = {0.999f, 0.001f};
    cudaMemcpy(c.ffma_in, ab, sizeof ab, cudaMemcpyHostToDevice);
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    c.ffma_blocks = std::min(sms, 132) * 8;
    if (cublasCreate(&c.blas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(out, "fail cublasCreate\n");
        fflush(out);
        return 1;
    }
    // Warm up (clocks, cuBLAS's kernels loaded) and calibrate each case.
    for (int which = 0; which < 3; which++) {
        double med, total;
        run_timed(which, 5, c, &med, &total);
        double until = now_ms() + 200;
        while (now_ms() < until) run_timed(which, 10, c, &med, &total);
        c.per_launch_ms[which] = med;
    }
    fprintf(out, "ready %.4f %.4f %.4f\n", c.per_launch_ms[0], c.per_launch_ms[1], c.per_launch_ms[2]);
    fflush(out);

    char line[256], what[32];
    bool opened = false;
    while (fgets(line, sizeof line, in)) {
        double ms = 0;
        char why[512] = "";
        if (sscanf(line, "run %31s %lf", what, &ms) == 2) {
            int which = !strcmp(what, "bf16") ? 0 : !strcmp(what, "tf32") ? 1 : !strcmp(what, "ffma") ? 2 : 3;
            if (which == 3) {  // idle: no GPU work at all
                struct timespec t = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
                nanosleep(&t, NULL);
                fprintf(out, "done 0 %.4f 0 0\n", ms);
            } else {
                int launches = std::max(3, (int)(ms / c.per_launch_ms[which]));
                double med, total;
                run_timed(which, launches, c, &med, &total);
                fprintf(out, "done %d %.4f %.5f %.6g\n", launches, total, med, launches * flops_of(which, c));
            }
        } else if (!strncmp(line, "hold", 4)) {
            // the student's runner around a counted call: its range profiler enabled
            bool ok = opened ? counters_resume(why, sizeof why)
                             : counters_open("smsp__inst_executed_op_ldsm.sum", why, sizeof why);
            if (ok) opened = true;
            if (ok) fprintf(out, "held\n");
            else fprintf(out, "fail %s\n", why);
        } else if (!strncmp(line, "release", 7)) {
            if (counters_pause(why, sizeof why)) fprintf(out, "released\n");
            else fprintf(out, "fail %s\n", why);
        } else if (!strncmp(line, "try", 3)) {
            // enabling the profiler while the parent samples: expected to fail
            bool ok = opened ? counters_resume(why, sizeof why)
                             : counters_open("smsp__inst_executed_op_ldsm.sum", why, sizeof why);
            if (ok) {
                opened = true;
                counters_pause(why, sizeof why);
                fprintf(out, "held\n");
            } else {
                fprintf(out, "fail %s\n", why);
            }
        } else if (!strncmp(line, "quit", 4)) {
            break;
        }
        fflush(out);
    }
    counters_close();
    return 0;
}

// ---------------------------------------------------------------- the parent (the judge's side)

static FILE *to_child, *from_child;
static pid_t child;
static int failures;

static void check(bool ok, const char *what) {
    printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

// Sends a command; the child's one-line answer in `answer`.
static bool ask(const char *command, char *answer, size_t size) {
    fprintf(to_child, "%s\n", command);
    fflush(to_child);
    if (!fgets(answer, (int)size, from_child)) {
        fprintf(stderr, "probe-pmwitness: the child ended (after \"%s\")\n", command);
        return false;
    }
    answer[strcspn(answer, "\n")] = 0;
    return true;
}

// Ends the window and sums each metric over its samples.
static bool end_sum(double *values, char *why, size_t why_size) {
    const PmSample *samples;
    size_t count;
    if (!pm_end(&samples, &count, why, why_size)) return false;
    for (int m = 0; m < pm_count(); m++) values[m] = 0;
    for (size_t i = 0; i < count; i++)
        for (int m = 0; m < pm_count(); m++) values[m] += samples[i].values[m];
    return true;
}

static void finish(void) {
    if (to_child) {
        fprintf(to_child, "quit\n");
        fflush(to_child);
        fclose(to_child);
        to_child = NULL;
    }
    if (child > 0) waitpid(child, NULL, 0);
    pm_close();
}

int main(int argc, char **argv) {
    const char *metrics = argc > 1 ? argv[1] : "sm__pipe_tensor_cycles_active.sum";
    double case_ms = argc > 2 ? atof(argv[2]) : 500;
    if (case_ms <= 0) {
        fprintf(stderr, "probe-pmwitness: MS must be a positive number of milliseconds, not \"%s\"\n", argv[2]);
        return 2;
    }
    int down[2], up[2];
    if (pipe(down) || pipe(up)) return perror("pipe"), 2;
    child = fork();
    if (child < 0) return perror("fork"), 2;
    if (child == 0) {  // before any CUDA in either process
        close(down[1]);
        close(up[0]);
        return child_main(fdopen(down[0], "r"), fdopen(up[1], "w"));
    }
    close(down[0]);
    close(up[1]);
    to_child = fdopen(down[1], "w");
    from_child = fdopen(up[0], "r");
    signal(SIGPIPE, SIG_IGN);

    char answer[1024], why[512];
    if (!fgets(answer, sizeof answer, from_child) || strncmp(answer, "ready", 5)) {
        fprintf(stderr, "probe-pmwitness: the child did not start: %s", answer);
        finish();
        return 2;
    }
    printf("child ready; one launch (ms, unsampled): bf16 tf32 ffma = %s", answer + 6);
    double t0 = now_ms();
    if (!pm_open(0, metrics, why, sizeof why)) {
        printf("pm_open failed: %s\n", why);
        finish();
        return 2;
    }
    printf("pm_open(0, \"%s\"): %.1f ms; interval %.1f us\n\n", metrics, now_ms() - t0, PM_INTERVAL_NS / 1e3);
    int m = pm_count();

    // ---- the cases
    printf("%-5s %9s %8s %9s %9s", "case", "window_ms", "samples", "span_ms", "max_gap_us");
    printf(" %10s", "kernels_ms");
    for (int i = 0; i < m; i++) printf(" %14s", i == 0 ? "metric0" : "metric");
    printf(" %13s %9s %8s %11s %11s %8s\n", "m0_per_FLOP", "begin_ms", "end_ms", "launch_ms", "sampled_ms",
           "slower");
    const char *cases[] = {"bf16", "tf32", "ffma", "idle"};
    double per_kernel_ms[4] = {0}, per_flop[4] = {0};
    for (int k = 0; k < 4; k++) {
        char command[64];
        snprintf(command, sizeof command, "run %s %g", cases[k], case_ms);
        double med_plain = 0, med_sampled = 0, total = 0, flops = 0;
        int launches = 0;
        if (!ask(command, answer, sizeof answer)) return finish(), 1;
        sscanf(answer, "done %d %lf %lf %lf", &launches, &total, &med_plain, &flops);
        double b0 = now_ms();
        if (!pm_begin(why, sizeof why)) {
            printf("%-5s pm_begin failed: %s\n", cases[k], why);
            failures++;
            continue;
        }
        double b1 = now_ms();
        if (!ask(command, answer, sizeof answer)) return finish(), 1;
        double e0 = now_ms();
        double values[PM_MAX_METRICS] = {0};
        bool ok = end_sum(values, why, sizeof why);
        double e1 = now_ms();
        sscanf(answer, "done %d %lf %lf %lf", &launches, &total, &med_sampled, &flops);
        if (!ok) {
            printf("%-5s pm_end failed: %s\n", cases[k], why);
            failures++;
            continue;
        }
        PmWindow w;
        pm_last(&w);
        printf("%-5s %9.2f %8ld %9.2f %9.2f %10.2f", cases[k], w.host_ms, w.samples, w.span_ns / 1e6,
               w.max_gap_ns / 1e3, total);
        for (int i = 0; i < m; i++) printf(" %14.6g", values[i]);
        if (flops > 0) printf(" %13.4g", values[0] / flops);
        else printf(" %13s", "-");
        printf(" %9.2f %8.2f", b1 - b0, e1 - e0);
        if (launches > 0) printf(" %11.4f %11.4f %7.3fx\n", med_plain, med_sampled, med_sampled / med_plain);
        else printf(" %11s %11s %8s\n", "-", "-", "-");
        per_kernel_ms[k] = total > 0 ? values[0] / total : values[0] / case_ms;
        per_flop[k] = flops > 0 ? values[0] / flops : 0;
    }
    printf("\nmetric0 per ms of the case: bf16 %.4g, tf32 %.4g, ffma %.4g, idle %.4g\n", per_kernel_ms[0],
           per_kernel_ms[1], per_kernel_ms[2], per_kernel_ms[3]);
    check(per_flop[0] > 0 && per_flop[1] > 0, "the tensor-core GEMMs show metric0");
    check(per_kernel_ms[2] < 0.01 * per_kernel_ms[0], "the FFMA kernel shows under 1% of bf16's metric0 per ms");
    check(per_kernel_ms[3] < 0.01 * per_kernel_ms[0], "an idle GPU shows under 1% of bf16's metric0 per ms");

    // ---- what a window costs, on an idle GPU
    std::vector<double> begins, ends;
    for (int i = 0; i < 7; i++) {
        double values[PM_MAX_METRICS];
        double a = now_ms();
        if (!pm_begin(why, sizeof why)) {
            printf("empty window: pm_begin failed: %s\n", why);
            failures++;
            break;
        }
        double b = now_ms();
        bool ok = end_sum(values, why, sizeof why);
        double c = now_ms();
        if (!ok) printf("empty window: pm_end failed: %s\n", why);
        begins.push_back(b - a);
        ends.push_back(c - b);
    }
    if (!begins.empty()) {
        std::sort(begins.begin(), begins.end());
        std::sort(ends.begin(), ends.end());
        printf("an empty window, median of %zu: pm_begin %.3f ms, pm_end %.3f ms (min %.3f / %.3f, max %.3f / %.3f)\n",
               begins.size(), begins[begins.size() / 2], ends[ends.size() / 2], begins.front(), ends.front(),
               begins.back(), ends.back());
    }

    // ---- one counter session per GPU
    printf("\n");
    if (!ask("hold", answer, sizeof answer)) return finish(), 1;
    printf("child enables its range profiler: %s\n", answer);
    if (!strcmp(answer, "held")) {
        bool began = pm_begin(why, sizeof why);
        printf("pm_begin while the child's profiler is enabled: %s\n", began ? "succeeded" : why);
        check(!began && strstr(why, "CUPTI error 26"), "pm_begin fails with HARDWARE_BUSY (26) and says why");
        if (began) {
            double values[PM_MAX_METRICS];
            end_sum(values, why, sizeof why);
        }
        if (!ask("release", answer, sizeof answer)) return finish(), 1;
        printf("child disables its range profiler: %s\n", answer);
        began = pm_begin(why, sizeof why);
        double values[PM_MAX_METRICS];
        bool ended = began && end_sum(values, why, sizeof why);
        check(began && ended, began ? (ended ? "pm_begin and pm_end work again after the child disabled it"
                                             : "pm_end after the child disabled its profiler")
                                    : "pm_begin after the child disabled its profiler");
        if (!ended) printf("     %s\n", why);
    } else {
        check(false, "the child could enable a range profiler (no window open)");
    }
    if (pm_begin(why, sizeof why)) {
        if (!ask("try", answer, sizeof answer)) return finish(), 1;
        printf("child enables its range profiler while a window is open: %s\n", answer);
        double values[PM_MAX_METRICS];
        bool ended = end_sum(values, why, sizeof why);
        check(!strncmp(answer, "fail", 4), "the child cannot enable its profiler while the judge samples");
        if (!ended) printf("     pm_end: %s\n", why);
    } else {
        printf("pm_begin: %s\n", why);
        failures++;
    }
    finish();
    printf("\n%s\n", failures ? "some expectations did not hold" : "every expectation held");
    return failures ? 1 : 0;
}
