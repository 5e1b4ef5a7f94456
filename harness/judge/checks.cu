// The checks of the student's values: at a check size against the kind's
// CPU reference (check_against_cpu), at a timed size against the
// reference's outputs (check_against_reference); CHECK_REL_NORM kinds
// against the judge's exact values (norm.cu).
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

__host__ __device__ static inline double tol_factor(int scale, size_t i, long long length) {
    if (scale == TOL_SQRT_INDEX) return sqrt((double)i + 1.0);
    if (scale == TOL_SQRT_LENGTH) return sqrt((double)(length > 0 ? length : 1));
    return 1.0;
}

// Counts elements where `got` differs from `want` beyond the tolerance and
// remembers the first such index.
__global__ void compare_kernel(const void *got, const void *want, size_t n, int is_int, float rel,
                               float abs_tol, int scale, long long length, unsigned long long *count,
                               unsigned long long *first, MapLayout map) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        bool bad;
        if (is_int) {
            bad = ((const int *)got)[i] != ((const int *)want)[i];
        } else {
            float g = ((const float *)got)[i], w = ((const float *)want)[i];
            float tol = abs_tol * (float)tol_factor(scale, i, length) + rel * fabsf(w);
            bad = !(fabsf(g - w) <= tol);  // NaN is bad
        }
        if (bad) {
            atomicAdd(count, 1ull);
            atomicMin(first, (unsigned long long)i);
            map_mark(map, i);
        }
    }
}

// got[k] against want[k], which is element `index` of the array (for the tolerance).
static bool values_match(const ArraySpec &a, const Dims &d, const void *got, const void *want, size_t k,
                         size_t index, double rel, double abs_tol) {
    if (a.type == ELEM_I32) return ((const int *)got)[k] == ((const int *)want)[k];
    double g = ((const float *)got)[k], w = ((const float *)want)[k];
    return fabs(g - w) <= abs_tol * tol_factor(a.tol_scale, index, d.d[0]) + rel * fabs(w);  // false for NaN
}

// A check size's values: the student's outputs against the kind's CPU
// reference, or (CHECK_REL_NORM) against exact values the judge computes.
static bool check_values(Problem &p, const Scalars &s, const Dims &dims, const char *dtext) {
    size_t bad = 0;
    int shown = 0;
    char lines[5][256];
    if (kind.check == CHECK_REL_NORM) {  // against the judge's exact values, on the GPU
        for (int i = 0; i < kind.narrays; i++)
            if (kind.arrays[i].role == ROLE_OUT || kind.arrays[i].role == ROLE_INOUT)
                bad += norm_check_device(p, s, i, dtext, lines, &shown);
        if (bad == 0) result("check: %s ok", dtext);
        else result("check: %s fail %zu", dtext, bad);
        for (int k = 0; k < shown; k++) result("%s", lines[k]);
        trace("check %s: exact values and compare (GPU)", dtext);
        return bad == 0;
    }

    std::vector<std::vector<char>> host(kind.narrays), got(kind.narrays);
    void *host_ptr[MAX_ARRAYS];
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        size_t bytes = bytes_of(a, p.len[i]);
        host[i].resize(std::max<size_t>(bytes, 4));
        host_ptr[i] = host[i].data();
        if (a.role == ROLE_IN || a.role == ROLE_INOUT)
            CK(cudaMemcpy(host_ptr[i], p.master[i], bytes, cudaMemcpyDeviceToHost));
        if (a.role == ROLE_OUT || a.role == ROLE_INOUT) {
            got[i].resize(std::max<size_t>(bytes, 4));
            CK(cudaMemcpy(got[i].data(), p.own[STUDENT][i].ptr, bytes, cudaMemcpyDeviceToHost));
        }
        if (a.role == ROLE_OUT || a.role == ROLE_SCRATCH) memset(host_ptr[i], 0xFF, bytes);
    }
    trace("check %s: copies to the host", dtext);
    kind.reference(host_ptr, dims, s);
    trace("check %s: CPU reference", dtext);

    int mapped = -1;  // the first output with wrong elements gets the picture
    std::vector<unsigned long long> cells(MAP_CELLS);
    MapLayout map = {};
    WrongRuns runs;
    unsigned long long map_wrong = 0;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role == ROLE_IN || a.role == ROLE_SCRATCH) continue;
        for (size_t k = 0; k < p.len[i]; k++) {
            if (values_match(a, dims, got[i].data(), host_ptr[i], k, k, tol_rel, tol_abs)) continue;
            if (mapped < 0) {
                mapped = i;
                map = map_layout(a, dims, p.len[i], cells.data());
            }
            if (mapped == i) {
                map_mark(map, k);
                runs.add((long long)k);
                map_wrong++;
            }
            if (shown < 5) {
                char where[96], g[40], w[40];
                coord_text(a, dims, k, where, sizeof where);
                value_text(a.type, got[i].data(), k, g, sizeof g);
                value_text(a.type, host_ptr[i], k, w, sizeof w);
                snprintf(lines[shown++], sizeof lines[0], "mismatch: %s got %s want %s", where, g, w);
            }
            bad++;
        }
    }
    if (bad == 0) result("check: %s ok", dtext);
    else result("check: %s fail %zu", dtext, bad);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    if (mapped >= 0) report_map(kind.arrays[mapped], dtext, map, cells.data(), map_wrong, map.fold ? NULL : &runs);
    trace("check %s: compare", dtext);
    return bad == 0;
}

// A check size: the student's call and its values (with --deterministic,
// its outputs kept for the second run).
static bool check_against_cpu(const Dims &dims, uint64_t seed) {
    Problem p;
    bool who[CONTESTANTS] = {true, false, false, false};
    snprintf(phase, sizeof phase, "setting up size checks");
    problem_alloc(p, dims, who, 0);
    problem_fill(p, seed);
    Scalars s = scalars_for(seed);
    char dtext[64];
    dims_text(dims, dtext, sizeof dtext);
    trace("check %s: inputs", dtext);
    call(p, STUDENT, s, false);
    trace("check %s: your call", dtext);
    std::vector<std::vector<char>> first;
    if (deterministic) first = student_outputs(p);
    bool ok = check_values(p, s, dims, dtext);
    if (ok && deterministic) first_runs.push_back({dims, seed, std::move(first)});
    problem_free(p);
    return ok;
}

// Timed size: the student's outputs against the reference's on the same
// inputs, or (CHECK_REL_NORM) against exact values computed by the judge.
static bool check_against_reference(Problem &p, const Scalars &s, const char *label) {
    char dtext[64];
    dims_text(p.dims, dtext, sizeof dtext);
    size_t bad = 0;
    int shown = 0;
    char lines[5][256];
    int mapped = -1;  // the first output with wrong elements gets the picture
    std::vector<unsigned long long> cells;
    MapLayout mapped_layout = {};
    unsigned long long mapped_wrong = 0;
    WrongRuns runs;  // 1D: those in the window shown
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        if (a.role == ROLE_IN || a.role == ROLE_SCRATCH || p.len[i] == 0) continue;
        if (kind.check == CHECK_REL_NORM) {
            bad += norm_check_device(p, s, i, dtext, lines, &shown);
            continue;
        }
        const void *got = p.own[STUDENT][i].ptr, *want = p.own[REFERENCE][i].ptr;
        unsigned long long init[2] = {0, ~0ull}, out[2];
        CK(cudaMemcpy(counters, init, sizeof init, cudaMemcpyHostToDevice));
        MapLayout map = map_layout(a, p.dims, p.len[i], bad ? nullptr : map_cells);  // the first wrong output's
        compare_kernel<<<grid_for(p.len[i]), 256>>>(got, want, p.len[i], a.type == ELEM_I32, (float)tol_rel,
                                                   (float)tol_abs, (int)a.tol_scale, p.dims.d[0], counters,
                                                   counters + 1, map);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out, counters, sizeof out, cudaMemcpyDeviceToHost));
        if (out[0] == 0) continue;
        if (bad == 0) {
            mapped = i;
            mapped_layout = map;
            mapped_wrong = out[0];
            cells = map_fetch();
        }
        bad += out[0];
        // Show the first few mismatches from a window starting at the first.
        size_t start = (size_t)out[1], count = std::min<size_t>(p.len[i] - start, 1 << 16);
        std::vector<char> g(count * 4), w(count * 4);
        CK(cudaMemcpy(g.data(), (const char *)got + start * 4, count * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(w.data(), (const char *)want + start * 4, count * 4, cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < count; k++) {
            if (values_match(a, p.dims, g.data(), w.data(), k, start + k, tol_rel, tol_abs)) continue;
            if (mapped == i) runs.add((long long)(start + k));
            if (shown >= 5) continue;
            char where[96], gt[40], wt[40];
            coord_text(a, p.dims, start + k, where, sizeof where);
            value_text(a.type, g.data(), k, gt, sizeof gt);
            value_text(a.type, w.data(), k, wt, sizeof wt);
            snprintf(lines[shown++], sizeof lines[0], "mismatch: %s got %s want %s", where, gt, wt);
        }
    }
    if (bad == 0) result("check: %s ok%s", dtext, label);
    else result("check: %s fail %zu%s", dtext, bad, label);
    for (int k = 0; k < shown; k++) result("%s", lines[k]);
    if (mapped >= 0)
        report_map(kind.arrays[mapped], dtext, mapped_layout, cells.data(), mapped_wrong,
                   mapped_layout.fold ? NULL : &runs);
    return bad == 0;
}
