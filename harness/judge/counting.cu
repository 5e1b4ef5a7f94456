// The GPU's counters around the student's counted calls (--counters): the
// record of each, which the student's runner writes into memory the judge
// handed it and the judge decodes itself, and the lines that report it.
// Apart because what the grader's evidence rests on is read here.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// --counters: the metrics the student's runner collects around a few of
// its timed samples (counters.h), for the grader's evidence checks.
// `counting` turns false once a collection failed: the grading goes on
// without.
static const char *counters_list;
static bool counting;
// Where the student's runner leaves the record of a counted call, which the
// judge reads itself (counters_record_values): this process computes the
// values, not the one that ran the student's code.
static SharedBuf record_buf;
// How many of the student's calls are counted in a grading, at least (a
// collection costs about 0.2 s: the profiler enabled, the call replayed
// for counters of two passes, disabled again).
static const int COUNTED_CALLS = 3;
static const size_t RECORD_BYTES = 4 << 20;
// Why the judge cannot read the counters here ("" when it can, or has not
// tried yet).
static char reader_why[400];

// The host half of CUPTI, to read the records (no session on the GPU),
// loaded at the first record or failure, not while the judge starts.
static bool reader_ready(void) {
    static bool tried, ready;
    if (!tried && !(ready = counters_reader_open(counters_list, 0, reader_why, sizeof reader_why)) && !reader_why[0])
        snprintf(reader_why, sizeof reader_why, "CUPTI cannot read the counters here");
    tried = true;
    return ready;
}

// Whether this machine lets the student's runner read the GPU's counters,
// as the judge finds out itself (a runner's words are the student's): the
// judge's own reader, the driver's rule for profiling, and a collection of
// the judge's own (once the runner failed, its profiler is paused, so the
// GPU's one counter session is free; if the student's code holds it, that
// reads as unavailable, a setup error, never a pass).
static bool counters_here(char *why, size_t why_size) {
    if (!reader_ready()) {
        snprintf(why, why_size, "%s", reader_why);
        return false;
    }
    FILE *f = fopen("/proc/driver/nvidia/params", "r");
    char line[256];
    bool admin_only = false;
    while (f && fgets(line, sizeof line, f)) admin_only |= !strncmp(line, "RmProfilingAdminOnly: 1", 23);
    if (f) fclose(f);
    if (admin_only && geteuid() != 0) {
        snprintf(why, why_size, "the driver lets only administrators read the GPU's counters "
                 "(NVreg_RestrictProfilingToAdminUsers=1; gpucourse doctor says how to allow it)");
        return false;
    }
    bool opened = counters_open(counters_list, why, why_size);
    counters_close();
    return opened;
}

// The student's runner could not count (text: its words). "unavailable" is
// this machine's setup (the grader says what to do); "failed" happened in
// the student's process, and the requirement is not met.
static void counters_not_collected(const char *text) {
    char why[400];
    counting = false;
    if (!counters_here(why, sizeof why)) result("counters: unavailable: %s", why);
    else result("counters: failed: %s", text);
}

// The student's runner gets the record's buffer once it is ready, the
// first runner and the second alike (same_bits_in_a_new_runner).
static void bind_record(void) {
    if (!counting) return;
    Runner &r = student_runner;
    const char *doing = "while the counters' record was handed over";
    Msg m = msg_init(MSG_RECORD_BIND, ++r.seq);
    m.bytes[0] = record_buf.bytes;
    int fd = shared_export(record_buf);
    if (fd < 0) fail(EXIT_CUDA, "setup: cannot export the counters' record");
    thaw(r);
    expect_silence(r, doing);
    if (msg_send(r.sock, m, &fd, 1) < 0) await(r, m.seq, doing);
    close(fd);
    Msg a = await(r, m.seq, doing);
    freeze(r);
    if (a.type != MSG_DONE) counters_not_collected(!strncmp(a.text, "counters: ", 10) ? a.text + 10 : a.text);
}

// Reads the record of a counted call (`size` bytes, the runner says) and
// its values, in this process; false (said as a result line) when it holds
// anything but the one call.
static bool read_record(uint64_t size, std::vector<double> &counts) {
    char why[400] = "";
    if (size == 0 || size > record_buf.bytes) {
        snprintf(why, sizeof why, "a record of %llu bytes", (unsigned long long)size);
        counters_not_collected(why);
        return false;
    }
    std::vector<unsigned char> record(size);
    CK(cudaMemcpy(record.data(), record_buf.ptr, size, cudaMemcpyDeviceToHost));
    if (!reader_ready()) {
        counters_not_collected(reader_why);
        return false;
    }
    int ranges = counters_record_ranges(record.data(), size, why, sizeof why);
    double values[MAX_COUNTERS];
    if (ranges != 1 && !why[0]) snprintf(why, sizeof why, "the record holds %d calls, not the one counted", ranges);
    if (ranges != 1 || !counters_record_values(record.data(), size, 0, values, why, sizeof why)) {
        counters_not_collected(why);
        return false;
    }
    int n = 0;
    for (const char *name = counters_list; *name && n < MAX_COUNTERS; n++) {
        size_t len = strcspn(name, ",");
        name += len + (name[len] == ',');
    }
    counts.assign(values, values + n);
    return true;
}

// The lines of one counted call of the student's at size p: "counters: SIZE
// work IN OUT FLOPS ms MS" (the work any correct answer must do there: bytes
// of its inputs and outputs, FLOPs, which the grader's shares are taken of;
// the call's own time by the runner's events, which the grader compares
// with the timed calls'), then one "counter: NAME VALUE" per metric.
static void report_counters(const Problem &p, const std::vector<double> &counts, double event_ms) {
    double in = 0, out = 0;
    for (int i = 0; i < kind.narrays; i++) {
        double bytes = (double)bytes_of(kind.arrays[i], p.len[i]);
        ArrayRole role = kind.arrays[i].role;
        if (role == ROLE_IN || role == ROLE_INOUT) in += bytes;
        if (role == ROLE_OUT || role == ROLE_INOUT) out += bytes;
    }
    char size[64];
    dims_text(p.dims, size, sizeof size);
    double flops = kind.flops ? kind.flops(p.dims) : kind.product_flops ? kind.product_flops(p.dims) : 0.0;
    result("counters: %s work %.0f %.0f %.0f ms %.6f", size, in, out, flops, event_ms);
    const char *name = counters_list;
    for (size_t i = 0; i < counts.size() && *name; i++) {
        size_t n = strcspn(name, ",");
        result("counter: %.*s %.17g", (int)n, name, counts[i]);
        name += n + (name[n] == ',');
    }
}
