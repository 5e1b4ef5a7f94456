// CHECK_REL_NORM: the student's output against exact values the kind
// computes in float64 on the GPU, in the Frobenius norm and element by
// element against each element's own rounding bound. Its kernels and its
// bound are apart from the other checks, which compare with a reference.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// CHECK_REL_NORM, pass 1: sums[0] += (got - exact)^2 and sums[1] += exact^2
// over the finite outputs; counts[0] += outputs that are NaN or infinite.
__global__ void norm_sums_kernel(const float *got, const double *exact, size_t n, double *sums,
                                 unsigned long long *counts) {
    double e2 = 0, r2 = 0;
    unsigned long long bad = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i], w = exact[i];
        r2 += w * w;
        if (!isfinite(g)) bad++;
        else e2 += (g - w) * (g - w);
    }
    for (int o = 16; o > 0; o >>= 1) {
        e2 += __shfl_down_sync(~0u, e2, o);
        r2 += __shfl_down_sync(~0u, r2, o);
        bad += __shfl_down_sync(~0u, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], e2);
        atomicAdd(&sums[1], r2);
        if (bad) atomicAdd(&counts[0], bad);
    }
}

// The largest key of the warp, to its lane 0. Every thread of the warp
// calls it (after its loop): the worst element goes to memory once a warp,
// since one atomicMax per element on one address serialised the check of a
// GEMM's output (67M elements at 8192^3: some 35 ms a kernel on an H100).
__device__ unsigned long long warp_max(unsigned long long key) {
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long other = __shfl_down_sync(~0u, key, o);
        key = other > key ? other : key;
    }
    return key;
}

// Pass 2: counts[1] = outputs off by more than `limit` (or not finite),
// counts[2] = the worst one as (error's float bits << 32 | index), and the
// first few such indices in `some` (counts[3] of them, at most max_some).
__global__ void norm_worst_kernel(const float *got, const double *exact, size_t n, double limit,
                                  unsigned long long *counts, unsigned long long *some, int max_some) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long worst = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i];
        float err = isfinite(g) ? (float)fabs(g - exact[i]) : INFINITY;
        unsigned long long key = ((unsigned long long)__float_as_uint(err) << 32) | (unsigned)min(i, (size_t)0xffffffffu);
        worst = key > worst ? key : worst;
        if (err > limit) {
            atomicAdd(&counts[1], 1ull);
            unsigned long long k = atomicAdd(&counts[3], 1ull);
            if (k < (unsigned long long)max_some) some[k] = i;
        }
    }
    worst = warp_max(worst);
    if ((threadIdx.x & 31) == 0) atomicMax(&counts[2], worst);
}

// Elements off by more than their own bound, factor * magnitude (what
// rounding can do in any order of summation): counts[0] such elements (or
// not finite), counts[1] the worst as (error over bound, float bits << 32 |
// index).
__global__ void element_bound_kernel(const float *got, const double *exact, const double *magnitude, size_t n,
                                     double factor, unsigned long long *counts, MapLayout map) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long worst = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        double g = got[i];
        float ratio = isfinite(g) ? (float)(fabs(g - exact[i]) / (factor * magnitude[i] + 1e-300)) : INFINITY;
        unsigned long long key = ((unsigned long long)__float_as_uint(ratio) << 32) | (unsigned)min(i, (size_t)0xffffffffu);
        worst = key > worst ? key : worst;
        if (!(ratio <= 1)) {
            atomicAdd(&counts[0], 1ull);
            map_mark(map, i);
        }
    }
    worst = warp_max(worst);
    if ((threadIdx.x & 31) == 0) atomicMax(&counts[1], worst);
}

// The verdict of a norm check, as result lines: "norm: SIZE ERROR BOUND"
// and up to 5 mismatch lines (the worst first). `off` counts the elements
// off by more than the bound times the RMS of the exact values, the
// non-finite ones included. Returns the number of elements it counts as
// wrong: 0 when the check passes, else at least 1.
static size_t norm_verdict(const ArraySpec &a, const Dims &d, const char *dtext, double e2, double r2,
                           unsigned long long nonfinite, unsigned long long off, const float *got,
                           const double *exact, const size_t *which, int nwhich, char lines[5][256], int *shown) {
    double err = r2 > 0 ? sqrt(e2 / r2) : sqrt(e2);
    result("norm: %s %.3e %.3e", dtext, err, tol_rel);
    bool ok = nonfinite == 0 && err <= tol_rel;
    for (int k = 0; !ok && k < nwhich && *shown < 5; k++) {
        char where[96], g[40];
        coord_text(a, d, which[k], where, sizeof where);
        value_text(ELEM_F32, got, (size_t)k, g, sizeof g);
        snprintf(lines[(*shown)++], 256, "mismatch: %s got %s want %.9g%s", where, g, exact[k], k == 0 ? " (the worst)" : "");
    }
    if (ok) return 0;
    return (size_t)std::max<unsigned long long>(off, 1);  // off counts the non-finite ones too
}

// The element bound's factor: an element of a sum of K products, computed
// in float32 in any order (tensor cores included), is off by at most about
// (K + 4) u times its magnitude (u = 2^-24; the 4: alpha, beta and the
// final roundings); TF32 inputs are cut to 10 mantissa bits first (2^-10
// each, both operands). Twice that, so that an honest kernel never meets it
// (the course's references stay far below: `elements:` prints the worst
// ratio) while an element that is simply wrong does.
//
// FP8 (PEAK_FP8_TENSOR, block scales): the tensor cores add the products of
// a 128-wide block of K in less than float32's precision, and the blocks'
// sums are added in float32 (K / 128 of them). On the H100 the worst
// element of ex45's reference and of cuBLASLt's block-scaled GEMM alike was
// off by 1.3e-4 of its magnitude (about 2^-13); the bound is 2^-12 per block,
// and the float32 additions of the blocks, twice.
static double element_factor(const Dims &d) {
    double k = d.count >= 3 ? (double)d.d[2] : 1, u = ldexp(1.0, -24);
    if (kind.peak == PEAK_FP8_TENSOR) return 2 * (ldexp(1.0, -12) + (k / 128 + 4) * u);
    double inputs = kind.peak == PEAK_TF32_TENSOR ? 2 * ldexp(1.0, -10) : 0;
    return 2 * ((k + 4) * u + inputs);
}

// The student's output against exact values the kind computes in float64
// on the GPU from the master inputs, at every size: the relative error in
// the Frobenius norm within tol_rel, and every element within its own bound.
static size_t norm_check_device(Problem &p, const Scalars &s, int out, const char *dtext, char lines[5][256],
                                int *shown) {
    const ArraySpec &a = kind.arrays[out];
    size_t n = p.len[out];
    static double *exact, *magnitude, *sums;
    static size_t exact_len;
    static unsigned long long *counts, *some, *elems;
    enum { MAX_SOME = 4 };
    if (exact_len < n) {
        cudaFree(exact);
        cudaFree(magnitude);
        CK(cudaMalloc(&exact, n * sizeof *exact));
        CK(cudaMalloc(&magnitude, n * sizeof *magnitude));
        exact_len = n;
    }
    if (!sums) {
        CK(cudaMalloc(&sums, 2 * sizeof *sums));
        CK(cudaMalloc(&counts, 4 * sizeof *counts));
        CK(cudaMalloc(&some, MAX_SOME * sizeof *some));
        CK(cudaMalloc(&elems, 2 * sizeof *elems));
    }
    kind.exact(p.master, out, exact, magnitude, p.dims, s);
    CK(cudaGetLastError());
    const float *got = (const float *)p.own[STUDENT][out].ptr;
    CK(cudaMemset(sums, 0, 2 * sizeof *sums));
    CK(cudaMemset(counts, 0, 4 * sizeof *counts));
    CK(cudaMemset(elems, 0, 2 * sizeof *elems));
    norm_sums_kernel<<<grid_for(n), 256>>>(got, exact, n, sums, counts);
    CK(cudaGetLastError());
    double hs[2];
    CK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    double limit = tol_rel * sqrt(hs[1] / (double)std::max<size_t>(n, 1));
    norm_worst_kernel<<<grid_for(n), 256>>>(got, exact, n, limit, counts, some, MAX_SOME);
    CK(cudaGetLastError());
    MapLayout map = map_layout(a, p.dims, n, map_cells);
    element_bound_kernel<<<grid_for(n), 256>>>(got, exact, magnitude, n, element_factor(p.dims), elems, map);
    CK(cudaGetLastError());
    unsigned long long hc[4], hsome[MAX_SOME], he[2];
    CK(cudaMemcpy(hc, counts, sizeof hc, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hsome, some, sizeof hsome, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(he, elems, sizeof he, cudaMemcpyDeviceToHost));
    size_t which[1 + MAX_SOME];
    int nwhich = 0;
    which[nwhich++] = (size_t)(hc[2] & 0xffffffffu);
    for (int k = 0; k < (int)std::min<unsigned long long>(hc[3], MAX_SOME); k++)
        if (hsome[k] != which[0]) which[nwhich++] = (size_t)hsome[k];
    float g[1 + MAX_SOME];
    double w[1 + MAX_SOME];
    for (int k = 0; k < nwhich; k++) {
        CK(cudaMemcpy(&g[k], got + which[k], sizeof g[k], cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&w[k], exact + which[k], sizeof w[k], cudaMemcpyDeviceToHost));
    }
    size_t bad = norm_verdict(a, p.dims, dtext, hs[0], hs[1], hc[0], hc[1], g, w, which, nwhich, lines, shown);
    // elements: SIZE WORST BAD: the worst error over its own bound, and how many exceed theirs
    uint32_t ratio_bits = (uint32_t)(he[1] >> 32);
    float worst;
    memcpy(&worst, &ratio_bits, sizeof worst);
    result("elements: %s %.3e %llu", dtext, (double)worst, he[0]);
    if (he[0] == 0) return bad;
    report_map(a, dtext, map, map_fetch().data(), he[0], NULL);
    if (bad == 0 && *shown < 5) {  // the norm passed: show the element that did not
        size_t i = (size_t)(he[1] & 0xffffffffu);
        float gi;
        double wi, mi;
        CK(cudaMemcpy(&gi, got + i, sizeof gi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&wi, exact + i, sizeof wi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&mi, magnitude + i, sizeof mi, cudaMemcpyDeviceToHost));
        char where[96], gt[40];
        coord_text(a, p.dims, i, where, sizeof where);
        value_text(ELEM_F32, &gi, 0, gt, sizeof gt);
        snprintf(lines[(*shown)++], 256, "mismatch: %s got %s want %.9g (off by %.3g, its bound %.3g)", where, gt, wi,
                 fabs((double)gi - wi), element_factor(p.dims) * mi);
    }
    return std::max<size_t>(bad, (size_t)he[0]);
}
