// A timed size: its first calls checked, the warm-up, the samples (the
// student's counted calls among them, picked at random), every sample's
// output checked, the times and counters reported, and a timing that shared
// the GPU with another process done again. Apart so that what is timed and
// what is counted can be read, and changed, in one place.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// A seed nobody can predict: the timed samples' inputs cannot be computed
// ahead from the run's seed.
static uint64_t unpredictable_seed(void) {
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) s = (uint64_t)now_us() * 0x9e3779b97f4a7c15ull;
    return s;
}

// The copy is the ceiling of memory-bound kinds; a GEMM's is arithmetic.
// (Timing the copy beside GEMMs too, for the roofline's memory ceiling, is
// not yet run on a GPU: until it is, a GEMM's rounds stay as measured.)
static bool takes_part(int c) { return c == LIBRARY ? kind.library != NULL : c == COPY ? !kind.flops : true; }

// The medians of what the verdict uses, and how the two clocks agreed.
static void report_times(int c, const std::vector<Call> &calls, double bound_ms) {
    std::vector<double> t, ev, wall;
    int used_wall = 0;
    for (const Call &k : calls) {
        bool wall_decided;
        t.push_back(rules_settle(k.t, bound_ms, &wall_decided));
        used_wall += wall_decided;
        ev.push_back(k.t.event_ms);
        wall.push_back(k.t.wall_ms);
    }
    int n = (int)t.size();
    double lo = *std::min_element(t.begin(), t.end()), hi = *std::max_element(t.begin(), t.end());
    double med = rules_median(t.data(), n);
    result("time: %s %.6f %.6f %.6f %d", contestant_name[c], med, lo, hi, n);
    result("clock: %s event %.6f wall %.6f judged %d of %d", contestant_name[c], rules_median(ev.data(), n),
           rules_median(wall.data(), n), used_wall, n);
}

// GPUCOURSE_CALL_LOG=FILE: every timed call as the clock rule saw it, one
// line each (size, warm-up or sample, contestant, event and wall ms, idle
// probes, whether it measured the bound, then ms from the request to the
// answer and to the runner frozen), for tools/clock-report.py.
static FILE *call_log;

static void log_call(const char *size, const char *when, int c, const Call &k, bool measures_bound) {
    if (!call_log) return;
    fprintf(call_log, "%s %s %s %.6f %.6f %d %d %.6f %.6f\n", size, when, contestant_name[c], k.t.event_ms,
            k.t.wall_ms, k.probes, (int)measures_bound, k.answered_ms, k.frozen_ms);
}

// How a timed size ended: timed, wrong, or timed only beside other work.
enum TimedEnd { TIMED_FAIR, TIMED_WRONG, TIMED_BUSY };

// The counted calls of the timing being made (their counters, as read).
static std::vector<Call> counted_calls;

static TimedEnd timed_run(const Dims &dims, uint64_t seed, int samples, double warmup_ms, bool with_counters,
                          int counted) {
    char size[64];
    dims_text(dims, size, sizeof size);
    result("timed: %s", size);  // the lines up to the next "timed:" are this size's
    double bytes = kind.bytes(dims);
    result("bytes: %.0f", bytes);
    if (kind.flops) result("flops: %.0f", kind.flops(dims));
    size_t copy_bytes = std::max<size_t>((size_t)(bytes / 2) / 256 * 256, 256);
    bool who[CONTESTANTS];
    for (int c = 0; c < CONTESTANTS; c++) who[c] = takes_part(c);
    snprintf(phase, sizeof phase, "setting up the timed size");
    Problem p;
    problem_alloc(p, dims, who, copy_bytes);
    trace("timed %s: buffers", size);

    // Correctness at the timed size comes first: a wrong answer is not timed.
    problem_fill(p, seed);
    Scalars s = scalars_for(seed);
    trace("timed %s: inputs", size);
    call(p, REFERENCE, s, false);
    trace("timed %s: the reference's first call", size);
    call(p, STUDENT, s, false);
    trace("timed %s: your first call", size);
    if (kind.library) call(p, LIBRARY, s, false);
    if (kind.library) trace("timed %s: the library's first call", size);
    bool first_ok = check_against_reference(p, s, "");
    trace("timed %s: first outputs compared", size);
    if (!first_ok) {
        problem_free(p);
        return TIMED_WRONG;
    }

    // Warm up by time: module loading, clock ramp and first touch stay out.
    // A timing that another process shared the GPU with is done again
    // (NEIGHBOUR_RETRIES).
    //
    // The honest overhead of a call (the bound of the clock rule) is
    // measured on the trusted calls that were made as the student's always
    // are: in a sample, first or after another runner's call. A call right
    // after one of its own runner's skips part of a context switch (about
    // 80 us less on an H100), and the warm-up's back-to-back calls about
    // 45 us less than the samples'; with those counted, the student's calls
    // were judged by the wall clock three times as often as the reference's
    // (ex33 graded as the student's at 0.84x itself).
    std::vector<StepTime> trusted;
    std::vector<Call> t[CONTESTANTS];
    std::vector<int> mhz;  // the SM clock right after each of the student's timed calls
    int busy = 0, busy_trusted = 0, trusted_calls = 0;
    bool ok = true, fair = false;
    char neighbours[512] = "";
    for (int attempt = 0; ok && !fair; attempt++) {
        unsigned long long since = neighbours_clock_us();
        bool strangers = watching_neighbours && strangers_now();
        neighbours[0] = '\0';
        trusted.clear();
        mhz.clear();
        for (int c = 0; c < CONTESTANTS; c++) t[c].clear();
        busy = busy_trusted = trusted_calls = 0;
        // the witness's window opens while the warm-up runs (witness.cu)
        if (with_counters) witness_begin();
        double t0 = now_us();
        for (int round = 0;; round++) {
            for (int c = 0; c < CONTESTANTS; c++) {
                if (!takes_part(c)) continue;
                log_call(size, "warmup", c, call(p, c, s, true), false);
            }
            if (round >= 2 && (now_us() - t0) / 1000 >= warmup_ms) break;
        }
        trace("timed %s: warm-up", size);
        // With --counters, `counted` more rounds, picked at random among
        // them, count the student's call instead of timing it (its time is
        // set aside: the profiler slows a call): every timed size has calls
        // counted, none the student can pick out by its place.
        std::vector<bool> counted_round(samples + (with_counters ? counted : 0), false);
        for (int picked = 0; with_counters && picked < counted;) {
            size_t k = unpredictable_seed() % counted_round.size();
            if (!counted_round[k]) counted_round[k] = true, picked++;
        }
        counted_calls.clear();
        // The witness's windows cover every timed sample of the student's;
        // each counted call (its runner's profiler takes the GPU's one
        // counter session) is made between two windows.
        witness_restart();
        // where the rounds' time goes besides the calls, for --trace (s): the next cut of a
        // witnessed grade (docs/benchmarks.md, "A grade of a built file, part by part")
        double in_fill = 0, in_calls = 0, in_clock = 0, in_check = 0, mark = 0;
        for (int k = 0; k < (int)counted_round.size() && ok; k++) {
            uint64_t sample_seed = unpredictable_seed();
            mark = now_us();
            problem_fill(p, sample_seed);  // fresh inputs: a cached answer is a wrong answer
            in_fill += (now_us() - mark) / 1e6;
            s = scalars_for(sample_seed);
            const Runner *last = NULL;
            for (int j = 0; j < CONTESTANTS; j++) {
                int c = (j + k) % CONTESTANTS;  // rotate who goes first
                if (!takes_part(c)) continue;
                bool count = c == STUDENT && counted_round[k] && counting;
                if (count) witness_end();
                mark = now_us();
                Call one = call(p, c, s, true, count);
                if (!count) in_calls += (now_us() - mark) / 1e6;
                if (count) trace("timed %s: a counted call, the runner checked", size);
                if (count) witness_reopen();
                if (count) {
                    if (!one.counts.empty()) counted_calls.push_back(one);
                    last = &runner_for(c);
                    continue;  // a counted call is not a timed one
                }
                t[c].push_back(one);
                bool as_student_calls = &runner_for(c) != last;
                last = &runner_for(c);
                log_call(size, "sample", c, one, c != STUDENT && as_student_calls);
                // an honest call needs two probes: a context switch, then a quick one
                if (c == STUDENT) {
                    busy += one.probes > 3;
                    mark = now_us();
                    int now_mhz = neighbours_sm_clock_mhz();  // outside the call: NVML, not the GPU
                    in_clock += (now_us() - mark) / 1e6;
                    if (now_mhz > 0) mhz.push_back(now_mhz);
                } else {
                    if (as_student_calls) trusted.push_back(one.t);
                    busy_trusted += one.probes > 3;
                    trusted_calls++;
                }
            }
            mark = now_us();
            ok = check_against_reference(p, s, " (timed sample)");  // every sample's output is checked
            in_check += (now_us() - mark) / 1e6;
        }
        witness_done();
        // (the grader keeps 95 characters of a step's name)
        trace("timed %s: %d samples checked; calls %.2f, inputs %.2f, checks %.2f, NVML %.2f s", size, samples,
              in_calls, in_fill, in_check, in_clock);
        if (call_log) fflush(call_log);
        // NVML names the neighbours; without it, trusted calls that had to
        // wait for the GPU (a quarter of them: more than chance) show them
        strangers = strangers || (watching_neighbours && strangers_now());  // at the start or now
        bool named = ok && neighbours_since(since, strangers, neighbours, sizeof neighbours);
        if (ok && !named && busy_trusted * 4 > trusted_calls)
            snprintf(neighbours, sizeof neighbours, "%d of %d calls of the reference and the baselines waited for "
                     "another process's work", busy_trusted, trusted_calls);
        fair = ok && !neighbours[0];
        // the counts of a wrong sample mean nothing; those of a timing done again go with it
        if (ok && (fair || attempt == NEIGHBOUR_RETRIES)) {
            for (const Call &k : counted_calls) report_counters(p, k.counts, k.t.event_ms);
            if (fair) witness_report(size);
            else witness_shared(size, neighbours);
        }
        // another process's context (idle, NVML said) may still have made a call wait: not the student's doing
        if (fair && strangers) busy = 0;
        if (!ok || fair) break;
        result("neighbours: %s: %s", size, neighbours);
        if (attempt == NEIGHBOUR_RETRIES) break;
        wait_for_quiet_gpu();
    }
    if (ok && !fair) result("gpubusy: %s: %s", size, neighbours);
    if (ok && fair) {
        double bound = rules_overhead_bound(trusted.data(), (int)trusted.size());
        result("overhead: %.6f", bound);
        report_times(STUDENT, t[STUDENT], bound);
        report_times(REFERENCE, t[REFERENCE], bound);
        if (takes_part(COPY)) report_times(COPY, t[COPY], bound);
        if (kind.library) {
            result("library: %s", kind.library_name);
            report_times(LIBRARY, t[LIBRARY], bound);
        } else if (kind.library_name) {
            result("nolibrary: %s", kind.library_name);  // KIND_NO_LIBRARY: the grader will not pass a library floor
        }
        if (busy) result("busy: %d %d", busy, busy_trusted);
        // the clock it ran at, for the peak the grader holds it to (the
        // highest clock, in "sm:", is not the one a GEMM keeps under load)
        if (!mhz.empty()) {
            std::sort(mhz.begin(), mhz.end());
            result("smclock: %d %d %d %d", mhz[mhz.size() / 2], mhz.front(), mhz.back(), (int)mhz.size());
        }
    }
    problem_free(p);
    trace("timed %s: freed", size);
    return !ok ? TIMED_WRONG : fair ? TIMED_FAIR : TIMED_BUSY;
}
