// How the judge shows a wrong output: an element's coordinates and value in
// words, and the picture of where the wrong elements are (wrongmap: lines),
// the same for every check.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// Where an output is wrong, for the student's picture (wrongmap: lines):
// wrong elements counted per cell of a grid of at most MAP_ROWS x MAP_COLS
// cells over the output (one row for 1D outputs), and, for 2D outputs, per
// position in a FOLD x FOLD tile (a mistake repeated in every tile, like
// one wrong fragment position, shows there).
enum { MAP_ROWS = 16, MAP_COLS = 64, FOLD = 16, MAP_CELLS = MAP_ROWS * MAP_COLS + FOLD * FOLD };

struct MapLayout {
    unsigned long long *cells;  // device or host: MAP_CELLS counts; null: no map
    long long rows, cols;       // rows = 1 for 1D
    int gr, gc;                 // grid cells used
    int fold;                   // 2D: count per tile position too
};

__host__ __device__ static inline void map_mark(const MapLayout &m, size_t i) {
    if (!m.cells) return;
    long long r = (long long)(i / (size_t)m.cols), c = (long long)(i % (size_t)m.cols);
    int cell = (int)(r * m.gr / m.rows) * m.gc + (int)(c * m.gc / m.cols);
    int pos = MAP_ROWS * MAP_COLS + (int)(r % FOLD) * FOLD + (int)(c % FOLD);
#ifdef __CUDA_ARCH__
    atomicAdd(&m.cells[cell], 1ull);
    if (m.fold) atomicAdd(&m.cells[pos], 1ull);
#else
    m.cells[cell]++;
    if (m.fold) m.cells[pos]++;
#endif
}

// The length of a row of array a at sizes d; 0 for a 1D array.
static size_t row_length(const ArraySpec &a, const Dims &d) {
    if (!a.row_major_2d || d.count < 2) return 0;
    long long cols = a.row_major_2d == COLS_ROWS ? d.d[0] : d.d[1];
    return cols > 0 ? (size_t)cols : 0;
}

static void coord_text(const ArraySpec &a, const Dims &d, size_t i, char *buf, size_t size) {
    if (size_t cols = row_length(a, d))
        snprintf(buf, size, "%s[%zu][%zu]", a.name, i / cols, i % cols);
    else
        snprintf(buf, size, "%s[%zu]", a.name, i);
}

static void value_text(ElemType t, const void *base, size_t i, char *buf, size_t size) {
    if (t == ELEM_I32) snprintf(buf, size, "%d", ((const int *)base)[i]);
    else if (t == ELEM_BF16) snprintf(buf, size, "%.4g", (double)__bfloat162float(((const __nv_bfloat16 *)base)[i]));
    else if (t == ELEM_F16) snprintf(buf, size, "%.5g", (double)__half2float(((const __half *)base)[i]));
    else if (t == ELEM_E4M3) snprintf(buf, size, "%.4g", (double)(float)((const __nv_fp8_e4m3 *)base)[i]);
    else snprintf(buf, size, "%.9g", (double)((const float *)base)[i]);
}

// device: MAP_CELLS counts, zero except between a check that found wrong
// elements and its map_fetch (so a passing check, every timed sample's,
// costs no clearing)
static unsigned long long *map_cells;

// The grid over output a at sizes d; cells (device or host) must hold MAP_CELLS zeros.
static MapLayout map_layout(const ArraySpec &a, const Dims &d, size_t len, unsigned long long *cells) {
    MapLayout m;
    m.cells = len ? cells : nullptr;
    size_t row = row_length(a, d);
    bool two_d = row > 0 && len % row == 0;
    m.cols = two_d ? (long long)row : (long long)std::max<size_t>(len, 1);
    m.rows = two_d ? (long long)(len / row) : 1;
    m.gr = (int)std::min<long long>(std::max<long long>(m.rows, 1), MAP_ROWS);
    m.gc = (int)std::min<long long>(m.cols, MAP_COLS);
    m.fold = two_d && m.rows >= 2 * FOLD && m.cols >= 2 * FOLD;
    return m;
}

// Runs of consecutive wrong indices, in increasing order, the first few kept.
struct WrongRuns {
    enum { KEEP = 8 };
    long long from[KEEP], to[KEEP];
    int kept = 0;
    long long total = 0, last = -2;
    void add(long long i) {
        if (i == last + 1 && total > 0) {
            if (total <= KEEP) to[total - 1] = i;
        } else {
            if (total < KEEP) from[total] = to[total] = i;
            total++;
        }
        last = i;
        kept = (int)std::min<long long>(total, KEEP);
    }
};

// The picture's lines: "wrongmap: SIZE NAME ROWS COLS GR GC WRONG", one
// "wrongrow:" per grid row ('.' no element wrong, '+' some, '#' all), for
// 2D outputs FOLD "wrongfold:" lines (the same per position in a tile, over
// all tiles), and for 1D ones "wrongruns:" (the first runs of wrong indices
// seen, and how many runs there were).
static void report_map(const ArraySpec &a, const char *dtext, const MapLayout &m, const unsigned long long *cells,
                       unsigned long long wrong, const WrongRuns *runs) {
    result("wrongmap: %s %s %lld %lld %d %d %llu", dtext, a.name, m.rows, m.cols, m.gr, m.gc, wrong);
    auto span = [](long long n, int g, int k) {  // elements of n that fall in cell k of g
        return (k + 1) * n / g + ((k + 1) * n % g != 0) - (k * n / g + (k * n % g != 0));
    };
    for (int R = 0; R < m.gr; R++) {
        char row[MAP_COLS + 1];
        for (int C = 0; C < m.gc; C++) {
            unsigned long long n = cells[R * m.gc + C];
            unsigned long long all = (unsigned long long)span(m.rows, m.gr, R) * (unsigned long long)span(m.cols, m.gc, C);
            row[C] = n == 0 ? '.' : n >= all ? '#' : '+';
        }
        row[m.gc] = '\0';
        result("wrongrow: %s", row);
    }
    if (m.fold) {
        for (int r = 0; r < FOLD; r++) {
            char row[FOLD + 1];
            for (int c = 0; c < FOLD; c++) {
                unsigned long long n = cells[MAP_ROWS * MAP_COLS + r * FOLD + c];
                unsigned long long tiles = (unsigned long long)((m.rows - r + FOLD - 1) / FOLD) * ((m.cols - c + FOLD - 1) / FOLD);
                row[c] = n == 0 ? '.' : n >= tiles ? '#' : '+';
            }
            row[FOLD] = '\0';
            result("wrongfold: %s", row);
        }
    }
    if (runs && runs->total) {
        char text[400];
        int n = 0;
        for (int k = 0; k < runs->kept && n < (int)sizeof text - 48; k++)
            n += runs->from[k] == runs->to[k]
                     ? snprintf(text + n, sizeof text - (size_t)n, " %lld", runs->from[k])
                     : snprintf(text + n, sizeof text - (size_t)n, " %lld-%lld", runs->from[k], runs->to[k]);
        result("wrongruns: %lld%s", runs->total, text);
    }
}

// The device map's counts, for report_map; the map is cleared for the next.
static std::vector<unsigned long long> map_fetch(void) {
    std::vector<unsigned long long> h(MAP_CELLS);
    CK(cudaMemcpy(h.data(), map_cells, MAP_CELLS * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    CK(cudaMemset(map_cells, 0, MAP_CELLS * sizeof *map_cells));
    return h;
}
