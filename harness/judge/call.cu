// One call of one contestant as the judge makes and clocks it: its arrays
// prepared, its runner woken and asked, the GPU watched until idle, the
// runner frozen again, the student's process checked. Every check and every
// timed sample is one of these.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

static void *flush_buf;
static size_t flush_bytes;

// One call of one contestant, as the judge saw it.
struct Call {
    StepTime t;
    int probes;  // probes until the GPU was idle for good (two when honest: a context switch, then a quick one)
    double answered_ms, frozen_ms;  // the judge's clock when the answer came, and when the runner was frozen
    std::vector<double> counts;     // a counted call's counters (--counters), as the judge read its record
};

// Calls contestant c on p: prepares its arrays (and flushes L2 when timed),
// wakes its runner, asks, waits for the answer and then for an idle GPU,
// freezes the runner again. A fault becomes an error line naming the call.
static Call call(Problem &p, int c, const Scalars &s, bool timed, bool with_counters = false) {
    char dims[64];
    dims_text(p.dims, dims, sizeof dims);
    snprintf(phase, sizeof phase, "preparing the %s's call at size %s", contestant_name[c], dims);
    problem_prepare(p, c);
    if (timed) CK(cudaMemsetAsync(flush_buf, c, flush_bytes));  // evict what the last call left in L2
    CK(cudaDeviceSynchronize());
    snprintf(phase, sizeof phase, "%s solve at size %s%s", contestant_name[c], dims, timed ? " (timed)" : "");

    Runner &r = runner_for(c);
    Msg m = msg_init(MSG_RUN, ++r.seq);
    m.who = c;
    m.slot = p.slot[c];
    m.dims = p.dims;
    m.scalars = s;
    if (with_counters && counting) m.flags = RUN_COUNTERS;
    thaw(r);
    char doing[320];
    snprintf(doing, sizeof doing, "during the %s", phase);
    expect_silence(r, doing);
    bool seen = witnessed(c, timed) && !with_counters;
    if (seen) quiet_interval();
    unsigned long long from_ns = realtime_ns();
    double t0 = now_us();
    if (msg_send(r.sock, m, NULL, 0) < 0) await(r, m.seq, doing);
    Msg a = await(r, m.seq, doing);
    double answered = now_us();
    freeze_begin(r);
    if (m.flags & RUN_COUNTERS) trace("timed %s: the runner's counted call (its profiler on, the passes, off)", dims);
    // Not idle for a while: another process's work (said as soon as NVML
    // shows it), or the student's, left running.
    IdleWatch w = {&r, answered, false, 0, {0, 0, 0}};
    bool idle = watch_until_idle(w, NEIGHBOUR_LOOK_S);
    char neighbours[512];
    unsigned long long since = idle ? 0 : neighbours_clock_us() - (unsigned long long)(now_us() - t0);
    if (!idle && neighbours_since(since, true, neighbours, sizeof neighbours)) {
        result("gpubusy: %s: %s", dims, neighbours);
        result("done: busy");
        finish(EXIT_DONE);
    }
    if (!idle) idle = watch_until_idle(w, IDLE_LIMIT_S - NEIGHBOUR_LOOK_S);
    if (seen) {
        witnessed_calls.push_back({from_ns, realtime_ns()});
        quiet_interval();
    }
    if (!idle) {
        if (c == STUDENT)
            violation("busy", "the GPU was still busy %.0f s after your solve returned at size %s: work left "
                      "running (a thread or stream that solve did not wait for)",
                      IDLE_LIMIT_S, dims);
        fail(EXIT_CUDA, "cuda: %s: the GPU stayed busy after the call", phase);
    }
    if (a.type == MSG_FAIL && (m.flags & RUN_COUNTERS) && !strncmp(a.text, "counters: ", 10)) {
        counters_not_collected(a.text + 10);
        return call(p, c, s, timed);  // the sample without counters
    }
    std::vector<double> counts;
    if (a.type == MSG_DONE && (m.flags & RUN_COUNTERS) && !read_record(a.bytes[0], counts)) return call(p, c, s, timed);
    if (a.type == MSG_DONE && (m.flags & RUN_COUNTERS)) trace("timed %s: its record read by the judge", dims);
    if (a.type == MSG_FAIL) {
        const char *text = a.text;
        if (!strncmp(text, "cuda: ", 6)) text += 6;
        fail(EXIT_CUDA, "cuda: %s: %s", phase, text);
    }
    if (c == STUDENT) {
        check_student_maps();
        check_student_left_alone(p);
    }
    snprintf(phase, sizeof phase, "harness");
    Call out;
    out.t.event_ms = a.event_ms;
    out.t.wall_ms = (w.end.idle_at - t0) / 1000.0;
    out.probes = w.end.idle_from;
    out.answered_ms = (answered - t0) / 1000.0;
    out.frozen_ms = (w.frozen_at - t0) / 1000.0;
    out.counts = counts;
    return out;
}
