// The witness (--witness): the judge's own counters while the student's
// timed calls run, read by CUPTI's PM sampling in this process
// (pmwitness.h), device-wide, out of the student's reach. The counted calls
// say what the student's code does when its own profiler is on; the
// witness says what it does when it is timed, and the grader compares the
// two (grader/evidence.c, evidence_witness). A kernel that takes the
// technique only while it is counted shows a different count here.
//
// The GPU has one counter session: a window is open over the timed
// samples of a size, closed around each of the student's counted calls
// (its runner's profiler needs the session) and opened again. A sample
// holds whatever ran on the GPU in its interval, so the judge leaves an
// interval of quiet before and after each of the student's timed calls
// and adds up the samples that overlap them.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

static const char *witness_list;  // --witness: the metrics, comma-separated
static bool witnessing;           // opened, and nothing failed yet
static bool window_open;
static bool recording;            // the student's timed calls are witnessed (a size's samples)
// The student's timed calls of the size being timed (CLOCK_REALTIME ns,
// from the request to an idle GPU), and the samples of its windows so far.
struct Span {
    unsigned long long from_ns, to_ns;
};
static std::vector<Span> witnessed_calls;
static std::vector<PmSample> witnessed_samples;

static unsigned long long realtime_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

// A size's first window opens on a thread of its own (CUPTI's configuration
// takes about 0.12 s on the H200) while the warm-up runs, which is neither
// timed nor witnessed; window_ready waits for it. A window opened again
// after a counted call is waited for at once (witness_reopen): the calls
// that follow are timed, and the opening would reconfigure the GPU's
// counters under them. Both openers run on the drain's CPUs, not the
// judge's pinned one (pm_enter_drain_cpus). (A pointer, as witness_opener
// below.)
static std::thread *window_opener;
static bool window_began;
static char window_why[512];

static void witness_failed(const char *why);

static void window_ready(void) {
    if (!window_opener) return;
    window_opener->join();
    delete window_opener;
    window_opener = NULL;
    if (!window_began) return witness_failed(window_why);
    window_open = true;
    PmWindow opened;
    pm_last(&opened);
    trace("the witness: a window opened (CUPTI %.0f ms)", opened.open_ms);
}

// Once the witness has failed, the grading goes on without it and the
// grader decides ("witness: failed: ..." reads as requirement not met:
// what the judge could not see is never a pass).
static void witness_failed(const char *why) {
    if (!witnessing) return;
    window_ready();  // nothing may be opening while the witness closes
    if (!witnessing) return;
    witnessing = false;
    window_open = false;
    pm_close();
    result("witness: failed: %s", why);
}

// At setup, once the runners are up (their profilers loaded and paused:
// the GPU's one session is free): CUPTI loaded, the metrics' configuration
// built; a window's own cost is paid at each pm_begin. On a thread of its
// own while the check sizes run (a few tenths of a second); witness_opened
// joins it and says what came of it.
// (A pointer, never destroyed at exit: the judge may end while it runs,
// and destroying a joinable std::thread aborts the process.)
static std::thread *witness_opener;
static char witness_open_why[512];
static void witness_open(void) {
    if (!witness_list) return;
    witness_opener = new std::thread([] {
        pm_enter_drain_cpus();  // not the judge's pinned CPU: what CUPTI starts here inherits it
        witnessing = pm_open(0, witness_list, witness_open_why, sizeof witness_open_why);
    });
}

static void witness_opened(void) {
    if (!witness_opener) return;
    witness_opener->join();
    delete witness_opener;
    witness_opener = NULL;
    if (!witnessing) result("witness: unavailable: %s", witness_open_why);
    else trace("the witness opened");
}

// Whether the student's call is witnessed: its timed calls while a size's
// samples are recorded, once the window is open. The bounds of a witnessed
// call: nothing else on the GPU for an interval before it (the judge's own
// copies, fills and L2 flush) and after it.
static bool witnessed(int c, bool timed) {
    if (!recording || c != STUDENT || !timed) return false;
    window_ready();
    return window_open;
}

static void quiet_interval(void) {
    struct timespec t = {0, 2 * PM_INTERVAL_NS};
    nanosleep(&t, NULL);
}

// Starts opening a window; its first sample reaches back before it, so the
// first call comes an interval later (quiet_interval before every
// witnessed call).
static void witness_begin(void) {
    if (!witnessing || window_open || window_opener) return;
    window_opener = new std::thread([] {
        pm_enter_drain_cpus();
        window_began = pm_begin(window_why, sizeof window_why);
    });
}

// After a counted call: open again before any timed call.
static void witness_reopen(void) {
    witness_begin();
    window_ready();
}

// Closes the window and keeps its samples.
static void witness_end(void) {
    window_ready();
    if (!window_open) return;
    window_open = false;
    const PmSample *samples;
    size_t count;
    char why[512];
    if (!pm_end(&samples, &count, why, sizeof why)) return witness_failed(why);
    witnessed_samples.insert(witnessed_samples.end(), samples, samples + count);
    trace("the witness: a window of %zu samples closed", count);
}

// A new timing of a size (the first, or one done again beside a neighbour):
// its samples are recorded from here (witness_done ends them).
static void witness_restart(void) {
    witnessed_calls.clear();
    witnessed_samples.clear();
    recording = true;
}

static void witness_done(void) {
    recording = false;
    witness_end();
}

// The timing of a size was shared with another process to the last retry:
// the samples hold that process's work too, so the witness cannot say what
// the student's calls did (and what it cannot see is never a pass).
static void witness_shared(const char *size, const char *neighbours) {
    if (!witnessing || witnessed_calls.empty()) return;
    char why[700];
    snprintf(why, sizeof why, "another process's work ran on the GPU during your timed calls at size %s (%.400s): "
             "what the judge read there is not yours alone", size, neighbours);
    witness_failed(why);
}

// Each metric over the student's timed calls of this size, per call: the
// samples that overlap a call, each once. A call outside every window's
// samples was not seen, and the witness fails rather than count it as zero.
static void witness_report(const char *size) {
    if (!witnessing || witnessed_calls.empty()) return;
    int m = pm_count();
    double sums[PM_MAX_METRICS] = {0};
    size_t used = 0;
    for (const Span &c : witnessed_calls) {
        // a window's samples are consecutive (pm_end fails on a gap), and
        // no call spans two windows
        bool starts = false, ends = false;
        for (const PmSample &s : witnessed_samples) {
            starts |= s.start_ns <= c.from_ns && s.end_ns > c.from_ns;
            ends |= s.start_ns < c.to_ns && s.end_ns >= c.to_ns;
        }
        if (!starts || !ends) {
            char why[160];
            snprintf(why, sizeof why, "a timed call of yours at size %s fell outside the sampled windows", size);
            return witness_failed(why);
        }
    }
    for (const PmSample &s : witnessed_samples) {
        bool overlaps = false;
        for (const Span &c : witnessed_calls) overlaps |= s.start_ns < c.to_ns && s.end_ns > c.from_ns;
        if (!overlaps) continue;
        used++;
        for (int i = 0; i < m; i++) sums[i] += s.values[i];
    }
    result("witness: %s calls %zu samples %zu", size, witnessed_calls.size(), used);
    const char *name = witness_list;
    for (int i = 0; i < m && *name; i++) {
        size_t n = strcspn(name, ",");
        result("witnessed: %.*s %.17g", (int)n, name, sums[i] / (double)witnessed_calls.size());
        name += n + (name[n] == ',');
    }
}
