// The machine code the student's process loaded at run time, collected
// from its runner (modules.h) and written beside the student's library for
// the grader, which compares it with the compiled code (grader/loaded.c).
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// Where counters are asked, the modules the student's process loaded
// (modules.h), asked for after its calls: each written beside the student's
// library as PREFIX.module-N.cubin (numbered on across the runners of one
// grading), and said in result lines for the grader, which compares them
// with the compiled code: "modules: LOADED", then "module: N BYTES PATH"
// ("-": the runner kept no bytes), or "modules: failed: why".
static char modules_prefix[4200];
static int modules_written;

static void collect_student_modules(void) {
    Runner &r = student_runner;
    if (!counters_list || r.pid <= 0) return;
    if (modules_written == 0)  // what an earlier grading left is not this one's
        for (int k = 1; k <= 2 * MODULES_KEPT; k++) {
            char old[4300];
            snprintf(old, sizeof old, "%s.module-%d.cubin", modules_prefix, k);
            unlink(old);
        }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) fail(EXIT_CUDA, "setup: pipe: %s", strerror(errno));
    const char *doing = "while reading the record of the modules your process loaded";
    Msg m = msg_init(MSG_MODULES, ++r.seq);
    thaw(r);
    expect_silence(r, doing);
    bool sent = msg_send(r.sock, m, &fds[1], 1) == 0;
    close(fds[1]);  // the runner's copy is the only writer: its end ends the stream
    uint64_t loaded = 0;
    std::vector<ModuleSeen> seen;
    char why[400] = "";
    int got = sent ? modules_receive(fds[0], modules_prefix, modules_written + 1, 30, &loaded, &seen, why, sizeof why)
                   : 0;
    close(fds[0]);
    if (got == -2) fail(EXIT_CUDA, "setup: %s", why);
    if (got == -1) violation("protocol", "the record of the machine code your process loaded came back broken (%s)", why);
    Msg a = await(r, m.seq, doing);
    freeze(r);
    if (got == 0 || a.type != MSG_DONE) {
        result("modules: failed: %s", a.type == MSG_FAIL && !strncmp(a.text, "modules: ", 9) ? a.text + 9
                                      : "the runner sent no record of the modules its process loaded");
        return;
    }
    result("modules: %llu", (unsigned long long)loaded);
    for (const ModuleSeen &s : seen)
        result("module: %d %llu %s", ++modules_written, (unsigned long long)s.bytes,
               s.path.empty() ? "-" : s.path.c_str());
}
