// One problem instance: the judge's master copy of the inputs and each
// contestant's own arrays, shared with its runner (bind), refilled and
// poisoned before every call (problem_prepare).
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// One problem instance. The judge keeps the inputs' master copy, which no
// runner can reach; every contestant gets its own copy of all arrays,
// shared with its runner, refilled from the master before every call.
struct Problem {
    Dims dims;
    size_t len[MAX_ARRAYS];
    void *master[MAX_ARRAYS];  // ROLE_IN data, and the first value of ROLE_INOUT
    bool has[CONTESTANTS];
    int slot[CONTESTANTS];
    int narrays[CONTESTANTS];
    SharedBuf own[CONTESTANTS][MAX_ARRAYS];  // COPY: [0] source, [1] destination
};

static size_t bytes_of(const ArraySpec &a, size_t n) { return n * elem_size(a.type); }

static int next_slot;

static void bind(Problem &p, int c) {
    Runner &r = runner_for(c);
    Msg m = msg_init(MSG_BIND, ++r.seq);
    m.slot = p.slot[c] = next_slot++ % 64;
    m.narrays = p.narrays[c];
    int fds[MAX_ARRAYS];
    for (int i = 0; i < p.narrays[c]; i++) {
        m.bytes[i] = p.own[c][i].bytes;
        fds[i] = shared_export(p.own[c][i]);
        if (fds[i] < 0) fail(EXIT_CUDA, "setup: cannot export device memory for the %s", contestant_name[c]);
    }
    thaw(r);
    expect_silence(r, "before its arrays were handed over");
    if (msg_send(r.sock, m, fds, p.narrays[c]) < 0) await(r, m.seq, "while its arrays were handed over");
    for (int i = 0; i < p.narrays[c]; i++) close(fds[i]);
    Msg a = await(r, m.seq, "while its arrays were handed over");
    freeze(r);
    if (a.type == MSG_FAIL) fail(EXIT_CUDA, "runner: %s", a.text);  // never a verdict the runner picks
}

static void alloc_shared(SharedBuf *b, size_t bytes, const char *what) {
    char why[256];
    if (!shared_alloc(b, bytes, why, sizeof why))
        fail(EXIT_CUDA, "cuda: %s: cannot allocate %zu bytes for %s: %s", phase, bytes, what, why);
}

static void problem_alloc(Problem &p, const Dims &dims, const bool *contestants, size_t copy_bytes) {
    memset(&p, 0, sizeof p);
    p.dims = dims;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        p.len[i] = a.length(dims);
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMalloc(&p.master[i], std::max<size_t>(bytes_of(a, p.len[i]), 4)));
    }
    for (int c = 0; c < CONTESTANTS; c++) {
        if (!contestants[c]) continue;
        p.has[c] = true;
        if (c == COPY) {
            p.narrays[c] = 2;
            alloc_shared(&p.own[c][0], copy_bytes, "the copy's source");
            alloc_shared(&p.own[c][1], copy_bytes, "the copy's destination");
            CK(cudaMemset(p.own[c][0].ptr, 0x3c, copy_bytes));
        } else {
            p.narrays[c] = kind.narrays;
            for (int i = 0; i < kind.narrays; i++)
                alloc_shared(&p.own[c][i], bytes_of(kind.arrays[i], p.len[i]), kind.arrays[i].name);
        }
        bind(p, c);
    }
}

static void problem_free(Problem &p) {
    for (int c = 0; c < CONTESTANTS; c++) {
        if (!p.has[c]) continue;
        Runner &r = runner_for(c);
        Msg m = msg_init(MSG_UNBIND, ++r.seq);
        m.slot = p.slot[c];
        msg_send(r.sock, m, NULL, 0);  // no answer: a runner that keeps the mapping only keeps memory
        for (int i = 0; i < p.narrays[c]; i++) shared_free(&p.own[c][i]);
    }
    for (int i = 0; i < kind.narrays; i++) cudaFree(p.master[i]);
}

// Fresh random inputs in the master copy: each (seed, array) pair is its own stream.
static void problem_fill(Problem &p, uint64_t seed) {
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (!p.master[i] || p.len[i] == 0) continue;
        fill_array(p.master[i], a, i, p.len[i], seed);
        CK(cudaGetLastError());
    }
}

// Before every call: the contestant's inputs copied from the master, outputs
// poisoned (all bytes 0xFF: NaN for floats, -1 for ints), and every array's
// bytes past its end set to PAD_BYTE.
static void problem_prepare(Problem &p, int c) {
    if (c == COPY) return;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        SharedBuf &b = p.own[c][i];
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMemcpyAsync(b.ptr, p.master[i], b.bytes, cudaMemcpyDeviceToDevice));
        else CK(cudaMemsetAsync(b.ptr, 0xFF, b.bytes));
        CK(cudaMemsetAsync((char *)b.ptr + b.bytes, PAD_BYTE, b.size - b.bytes));
    }
}
