// --deterministic: the check sizes called again in a new student runner
// and compared bit for bit with the first run (same_bits_in_a_new_runner).
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// The student's outputs as they are now, on the host (inputs: empty).
static std::vector<std::vector<char>> student_outputs(const Problem &p) {
    std::vector<std::vector<char>> out(kind.narrays);
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role != ROLE_OUT && a.role != ROLE_INOUT) continue;
        out[i].resize(bytes_of(a, p.len[i]));
        CK(cudaMemcpy(out[i].data(), p.own[STUDENT][i].ptr, out[i].size(), cudaMemcpyDeviceToHost));
    }
    return out;
}

// --deterministic: each check size's inputs (its seed) and the student's
// first outputs, kept for the second run (check sizes are small).
struct FirstRun {
    Dims dims;
    uint64_t seed;
    std::vector<std::vector<char>> outputs;
};
static std::vector<FirstRun> first_runs;

// The outputs of the second run at one check size against the first's, bit
// for bit. A sum whose order changes between runs (partial sums added with
// atomicAdd) gives other bits: a failed check "(second run)" with the first
// elements that changed.
static bool same_bits(Problem &p, const char *dtext, const std::vector<std::vector<char>> &first) {
    std::vector<std::vector<char>> again = student_outputs(p);
    size_t changed = 0;
    int shown = 0;
    char lines[5][256];
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role != ROLE_OUT && a.role != ROLE_INOUT) continue;
        const size_t size = elem_size(a.type);
        for (size_t k = 0; k < p.len[i]; k++) {
            if (!memcmp(first[i].data() + k * size, again[i].data() + k * size, size)) continue;
            if (changed++ >= 5) continue;
            char where[96], v1[40], v2[40];
            coord_text(a, p.dims, k, where, sizeof where);
            value_text(a.type, first[i].data(), k, v1, sizeof v1);
            value_text(a.type, again[i].data(), k, v2, sizeof v2);
            snprintf(lines[shown++], sizeof lines[0], "mismatch: %s first run %s, second run %s", where, v1, v2);
        }
    }
    trace("check %s: a second call, compared bit for bit", dtext);
    if (changed == 0) return true;
    result("check: %s fail %zu (second run)", dtext, changed);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    return false;
}

// --deterministic, once every check size's values were right: the second
// run. The student's runner is started again, so nothing of the first calls
// can answer for the second (a copy of the first outputs kept in the
// process or on the GPU goes with the process; the sandbox lets it write no
// file), then each check size is called on the same inputs (the same seed)
// and its outputs compared bit for bit with the first call's.
static bool same_bits_in_a_new_runner(const char *runner, const char *student) {
    collect_student_modules();  // the first runner's, before it goes
    retired_student_runner = student_runner.pid;
    kill(student_runner.pid, SIGKILL);
    waitpid(student_runner.pid, NULL, 0);
    close(student_runner.sock);
    student_runner = {-1, -1, 0, false};
    spawn_student_runner(runner, student);
    load_student_library();
    await_student_runner();  // sandboxed as the first was: its line is said once
    if (runners_pinned) pin_runner(student_runner, &runner_cpus);
    trace("your runner started again for the second run");
    bool who[CONTESTANTS] = {true, false, false, false};
    for (const FirstRun &f : first_runs) {
        Problem p;
        snprintf(phase, sizeof phase, "setting up the second run");
        problem_alloc(p, f.dims, who, 0);
        problem_fill(p, f.seed);
        char dtext[64];
        dims_text(f.dims, dtext, sizeof dtext);
        call(p, STUDENT, scalars_for(f.seed), false);
        bool same = same_bits(p, dtext, f.outputs);
        problem_free(p);
        if (!same) return false;
    }
    return true;
}
