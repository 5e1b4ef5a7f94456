// The judge's clock on a call: when the GPU is idle again after a runner
// answered, seen by launching an empty kernel (the probe) until one comes
// back quickly (rules_watch_probe). Apart because every call ends here.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

__global__ void probe_kernel() {}


static double quick_probe_us = 120;

static double probe_us(void) {
    double t = now_us();
    probe_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    return now_us() - t;
}

// Watches the GPU from a runner's answer until the runner is frozen and the
// GPU idle for good (rules_watch_probe says when the call ended).
struct IdleWatch {
    Runner *runner;
    double asked;      // the judge's clock when the stop was asked
    bool frozen;
    double frozen_at;  // when the stop was seen
    CallEnd end;
};

// Watches for at most limit_s more; false when the GPU did not go idle for good meanwhile.
static bool watch_until_idle(IdleWatch &w, double limit_s) {
    double start = now_us();
    for (;;) {
        if (!w.frozen && (w.frozen = freeze_seen(*w.runner, w.asked))) w.frozen_at = now_us();
        bool after_stop = w.frozen;
        bool quick = probe_us() < quick_probe_us;
        if (rules_watch_probe(&w.end, quick, after_stop, now_us())) return true;
        if (now_us() - start > limit_s * 1e6) return false;
        if (!w.frozen && now_us() - w.asked > 1000) usleep(10);  // a slow stop: /proc is read between probes
    }
}

static void calibrate_idle_probe(void) {
    double t[41];
    for (int i = 0; i < 10; i++) probe_us();
    for (int i = 0; i < 41; i++) t[i] = probe_us();
    quick_probe_us = rules_quick_probe_bound_us(t, 41);
    result("idle: probe %.1f us, quick below %.1f us", t[20], quick_probe_us);
}
