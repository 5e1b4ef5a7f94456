/* The parts of the terminal app that need no terminal: the Doc and its
 * wrapping, the markdown rendering, the CUDA syntax colouring, which file
 * names watch mode ignores, the debounce, and the result card built from
 * recorded harness outputs (tests/data). Set SHOW_CARDS=1 to print the cards. */
#include "test_util.h"

#include "../tui/card.h"
#include "../tui/highlight.h"
#include "../tui/markdown.h"
#include "../tui/watch.h"

/* The Doc as plain text, a line each. */
static char *doc_text(const Doc *d) {
    StrBuf sb = {0};
    for (int i = 0; i < d->count; i++) {
        sb_add(&sb, d->lines[i].text ? d->lines[i].text : "", d->lines[i].len);
        sb_add(&sb, "\n", 1);
    }
    return sb_take(&sb);
}

static int max_width(const Doc *d) {
    int w = 0;
    for (int i = 0; i < d->count; i++) {
        int lw = text_width(d->lines[i].text ? d->lines[i].text : "", d->lines[i].len);
        if (lw > w) w = lw;
    }
    return w;
}

/* The style of the first byte of needle in the Doc, or -1. */
static int style_of(const Doc *d, const char *needle) {
    for (int i = 0; i < d->count; i++) {
        const char *hit = d->lines[i].text ? strstr(d->lines[i].text, needle) : NULL;
        if (hit) return d->lines[i].style[hit - d->lines[i].text];
    }
    return -1;
}

static void test_wrap(void **state) {
    (void)state;
    Doc d = {0};
    doc_wrap(&d, S_NORMAL, "one two three four five six seven eight nine ten eleven twelve", 4, 20);
    char *text = doc_text(&d);
    assert_string_equal(text, "one two three four\n    five six seven\n    eight nine ten\n    eleven twelve\n");
    free(text);
    doc_free(&d);
}

static void test_markdown(void **state) {
    (void)state;
    const char *md = "# The title\n\nSome *emphasis*, **strong** and `code` that wraps at the width given to it.\n\n"
                     "## A section\n\n- first item\n- second item\n\n1. one\n2. two\n\n"
                     "```\n block:   0   1\n index:   0 1 2 3   with a line far longer than the width\n```\n";
    Doc d = {0};
    md_render(&d, md, 40);
    char *text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_non_null(strstr(text, "The title\n=========\n"));
    assert_non_null(strstr(text, "* first item\n* second item\n"));
    assert_non_null(strstr(text, "1. one\n2. two\n"));
    /* code blocks: kept as they are, spaces included, indented; a line wider
     * than the text goes on below after the continuation marker */
    assert_non_null(strstr(text, "\n   block:   0   1\n   index:   0 1 2 3   with a line far\n"
                                 "> longer than the width\n"));
    assert_int_equal(style_of(&d, "> longer"), S_DIM);
    assert_int_equal(style_of(&d, "longer than"), S_CODEBLOCK);
    assert_null(strstr(text, "```"));
    assert_null(strstr(text, "*emphasis*"));
    assert_int_equal(style_of(&d, "The title"), S_H1);
    assert_int_equal(style_of(&d, "A section"), S_H2);
    assert_int_equal(style_of(&d, "emphasis"), S_EMPH);
    assert_int_equal(style_of(&d, "strong"), S_STRONG);
    assert_int_equal(style_of(&d, "code that"), S_CODE);
    assert_int_equal(style_of(&d, "block:"), S_CODEBLOCK);
    /* paragraphs and code wrapped at the width */
    assert_true(max_width(&d) <= 40);
    free(text);
    doc_free(&d);
    md_render(&d, "See <https://example.com/a> and [the docs](https://example.com/b).\n", 78);
    text = doc_text(&d); /* an autolink's URL once; a named link's after its text */
    assert_string_equal(text, "See https://example.com/a and the docs <https://example.com/b>.\n");
    free(text);
    doc_free(&d);
}

/* The style of every byte of code, as a string of one letter per byte:
 * k keyword, t type, b built-in, c comment, s string, n number, p
 * preprocessor, . the rest. */
static char *styles_of(const char *code) {
    static const char letters[S_COUNT] = {[S_SYN_KEYWORD] = 'k', [S_SYN_TYPE] = 't', [S_SYN_BUILTIN] = 'b',
                                          [S_SYN_COMMENT] = 'c', [S_SYN_STRING] = 's', [S_SYN_NUMBER] = 'n',
                                          [S_SYN_PREPROC] = 'p'};
    size_t n = strlen(code);
    unsigned char *style = xmalloc(n + 1);
    highlight_cuda(code, n, style);
    char *out = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) out[i] = letters[style[i]] ? letters[style[i]] : '.';
    out[n] = '\0';
    free(style);
    return out;
}

static void test_highlight(void **state) {
    (void)state;
    const struct {
        const char *code, *styles;
    } cases[] = {
        {"__global__ void k(float* out) {", "bbbbbbbbbb.tttt...ttttt........"},
        {"int i = blockIdx.x * blockDim.x + threadIdx.x;", "ttt.....bbbbbbbb.....bbbbbbbb.....bbbbbbbbb..."},
        {"__shared__ float tile[32][33];", "bbbbbbbbbb.ttttt......nn..nn.."},
        {"__syncthreads(); // one barrier", "bbbbbbbbbbbbb....cccccccccccccc"},
        {"if (n > 0) return 1.5e-3f;", "kk......n..kkkkkk.nnnnnnn."},
        {"x = 0x1fu + 0xffe+1;", "....nnnnn...nnnnn.n."},
        {"printf(\"%d\\n\", 'a');", ".......ssssss..sss.."},
        {"  #include <cuda.h>", "..pppppppp........."},
        {"a /* one\ntwo */ b", "..ccccccccccccc.."},
        {"atomicAdd(&s, v); cudaMalloc(&p, n); cuda::std::min(a, b);",
         "bbbbbbbbb.........bbbbbbbbbb.............................."},
        {"float4 v = reinterpret_cast<const float4*>(in)[i];", "tttttt.....kkkkkkkkkkkkkkkk.kkkkk.tttttt.........."},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *got = styles_of(cases[i].code);
        assert_string_equal(got, cases[i].styles);
        free(got);
    }
    assert_true(highlight_knows("cuda"));
    assert_true(highlight_knows("cuda continues"));
    assert_true(highlight_knows("c++"));
    assert_false(highlight_knows("text"));
    assert_false(highlight_knows(""));
    assert_false(highlight_knows(NULL));
}

/* GitHub's tables: columns as wide as their cells when they fit, a rule
 * under the header, alignment; narrowed and wrapped when they do not, with
 * rules between the rows; never raw pipes, never wider than the width. */
static void test_markdown_table(void **state) {
    (void)state;
    const char *md = "Before.\n\n| registers | row | columns |\n|---|:---:|--:|\n"
                     "| `d[4i]` | `16 * warp + lane / 4` | 8 |\n| d[4i+2] | the same | 16 |\n\nAfter.\n";
    Doc d = {0};
    md_render(&d, md, 78);
    char *text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_non_null(strstr(text, " registers |         row          | columns\n"
                                 "-----------+----------------------+--------\n"
                                 " d[4i]     | 16 * warp + lane / 4 |       8\n"
                                 " d[4i+2]   |       the same       |      16\n"));
    assert_int_equal(style_of(&d, "registers"), S_STRONG);
    assert_int_equal(style_of(&d, "16 * warp"), S_CODE);
    assert_null(strstr(text, "|---"));
    free(text);
    doc_free(&d);

    md_render(&d, md, 30); /* narrowed: the widest column wraps, rules between the rows */
    text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_true(max_width(&d) <= 30);
    assert_non_null(strstr(text, " registers |   row   | columns\n"));  /* words whole where they fit */
    assert_non_null(strstr(text, " d[4i]     |  16 *   |       8\n           | warp +  |        \n"));
    assert_non_null(strstr(text, "-----------+---------+--------\n d[4i+2]"));
    assert_null(strstr(text, "| row |"));
    free(text);
    doc_free(&d);

    /* only the header wraps: no rules between the body's one-line rows */
    md_render(&d, "| parts | 3072 x 3072 x 8192 (24 tiles left) | 4096^3 (116 left) |\n|---|---|---|\n"
                  "| 1 (ex33's waves) | 588 | 693 |\n| 2 | 664 | 631 |\n| 3 | 691 | 595 |\n", 50);
    text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_true(max_width(&d) <= 50);
    assert_non_null(strstr(text, "\n 1 (ex33's waves) | 588 "));
    assert_non_null(strstr(text, "| 693\n 2                | 664 "));
    assert_non_null(strstr(text, "| 631\n 3                | 691 "));
    free(text);
    doc_free(&d);

    /* a short cell (a label) kept on one line; the long one wraps */
    md_render(&d, "| argument | what it is |\n|---|---|\n| globalStrides[rank - 1] | the distance from one index "
                  "to the next of dimensions 1 and up, in bytes |\n| boxDim[rank] | the box |\n", 60);
    text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_non_null(strstr(text, "\n globalStrides[rank - 1] | the distance from one index to\n"
                                 "                         | the next of dimensions 1 and up,\n"));
    free(text);
    doc_free(&d);

    /* too narrow for its words: a list, an item a row, each cell after
     * its column's header, none cut at the edge */
    md_render(&d, "| rung | look at | metric |\n|---|---|---|\n| 1, 2 | sectors per request | "
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld / l1tex__t_requests |\n| 5 | registers | "
                  "Launch Statistics |\n", 50);
    text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_true(max_width(&d) <= 50);
    assert_non_null(strstr(text, "* rung: 1, 2\n  look at: sectors per request\n"
                                 "  metric:\n    l1tex__t_sectors_pipe_lsu_mem_global_op_ld /\n    l1tex__t_requests\n"
                                 "* rung: 5\n  look at: registers\n  metric: Launch Statistics\n"));
    assert_int_equal(style_of(&d, "1, 2"), S_STRONG);
    assert_null(strstr(text, "| "));
    free(text);
    doc_free(&d);
}

/* Every lesson of the course at 80 and at 60 columns: no line wider than
 * that (a code line is continued, a table narrowed), no table left as raw
 * pipes. */
static void test_every_lesson_fits(void **state) {
    (void)state;
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    assert_non_null(c);
    const int widths[] = {80, 60};
    for (int i = 0; i < c->nchapters; i++) {
        char *md = read_file(c->chapters[i].lesson_path, NULL);
        assert_non_null(md);
        for (size_t k = 0; k < ARRAY_SIZE(widths); k++) {
            Doc d = {0};
            md_render(&d, md, widths[k]);
            for (int l = 0; l < d.count; l++) {
                const DocLine *line = &d.lines[l];
                int w = text_width(line->text ? line->text : "", line->len);
                if (w > widths[k]) fail_msg("%s at %d columns: line %d is %d wide", c->chapters[i].lesson_path, widths[k], l, w);
                if (line->len && strstr(line->text, "|---")) /* a table's delimiter row, left as markdown */
                    fail_msg("%s: a table left as pipes: %.*s", c->chapters[i].lesson_path, (int)line->len, line->text);
            }
            doc_free(&d);
        }
        free(md);
    }
    course_free(c);
    strlist_free(&problems);
}

/* A lesson's cuda block is coloured; a block without a language (a diagram)
 * is not; the reference solution goes through the same code. */
static void test_markdown_code_colour(void **state) {
    (void)state;
    const char *md = "```cuda\n__global__ void k(int* out) { out[threadIdx.x] = 42; }  // a comment\n```\n\n"
                     "```\nint x; // a diagram, not code\n```\n";
    Doc d = {0};
    md_render(&d, md, 78);
    assert_int_equal(style_of(&d, "__global__"), S_SYN_BUILTIN);
    assert_int_equal(style_of(&d, "void"), S_SYN_TYPE);
    assert_int_equal(style_of(&d, "threadIdx"), S_SYN_BUILTIN);
    assert_int_equal(style_of(&d, "42"), S_SYN_NUMBER);
    assert_int_equal(style_of(&d, "// a comment"), S_SYN_COMMENT);
    assert_int_equal(style_of(&d, "k(int"), S_NORMAL);
    assert_int_equal(style_of(&d, "int x;"), S_CODEBLOCK);
    assert_int_equal(style_of(&d, "// a diagram"), S_CODEBLOCK);
    doc_free(&d);
    md_code(&d, "return 0; /* a long comment, wider than the width: the rest goes below */\n", "cuda", 40);
    char *text = doc_text(&d);
    assert_string_equal(text, "return 0; /* a long comment, wider than\n> the width: the rest goes below */\n");
    assert_int_equal(style_of(&d, "the width"), S_SYN_COMMENT);
    free(text);
    doc_free(&d);
}

static void test_watch_ignored(void **state) {
    (void)state;
    const char *ignored[] = {".ex01_vector_add.cu.swp", ".ex01_vector_add.cu.swx", "ex01_vector_add.cu~", "4913",
                             ".#ex01_vector_add.cu", "#ex01_vector_add.cu#", "ex01_vector_add.cu.orig"};
    for (size_t i = 0; i < ARRAY_SIZE(ignored); i++) assert_true(watch_ignored(ignored[i]));
    assert_false(watch_ignored("ex01_vector_add.cu"));
    assert_false(watch_ignored("ex13_scan.cu"));
}

static void test_debounce(void **state) {
    (void)state;
    Debounce b = {0};
    int what = -1;
    assert_int_equal(debounce_wait_ms(&b, 10.0), -1);
    const double half = WATCH_DEBOUNCE_S / 2;
    debounce_poke(&b, 3, 10.0, false);
    debounce_poke(&b, 3, 10.0 + half, false); /* a second event of the same save */
    assert_false(debounce_take(&b, 10.0 + 2 * half + half / 2, &what)); /* quiet for less than the debounce */
    assert_true(debounce_wait_ms(&b, 10.0 + 2 * half + half / 2) > 0);
    assert_true(debounce_take(&b, 10.0 + half + WATCH_DEBOUNCE_S + 1e-6, &what));
    assert_int_equal(what, 3);
    assert_false(debounce_take(&b, 20.0, &what));

    /* a write that ended (closed, or renamed into place) settles sooner */
    assert_true(WATCH_SETTLE_S < WATCH_DEBOUNCE_S);
    debounce_poke(&b, 4, 30.0, false);
    debounce_poke(&b, 4, 30.0 + half, true);
    assert_false(debounce_take(&b, 30.0 + half + WATCH_SETTLE_S / 2, &what));
    assert_true(debounce_take(&b, 30.0 + half + WATCH_SETTLE_S + 1e-6, &what));
    assert_int_equal(what, 4);
    /* ... unless the file is written again: the whole debounce from then */
    debounce_poke(&b, 5, 40.0, true);
    debounce_poke(&b, 5, 40.0 + WATCH_SETTLE_S / 2, false);
    assert_false(debounce_take(&b, 40.0 + WATCH_SETTLE_S + 1e-6, &what));
    assert_true(debounce_take(&b, 40.0 + WATCH_SETTLE_S / 2 + WATCH_DEBOUNCE_S + 1e-6, &what));
    assert_int_equal(what, 5);
}

static Exercise exercise(void) {
    Exercise e = {0};
    e.id = "ex01";
    e.name = "vector_add";
    e.title = "Add two vectors";
    e.kind = "vector_add";
    e.floor_reference = 0.8;
    e.floor_baseline = 0.75;
    static SizeSpec timing = {1, {268435456}};
    e.timing_sizes = &timing, e.ntiming_sizes = 1;
    return e;
}

static char *card_of_width(const char *data, Exercise *e, GradeResult *r, Doc *d, int width) {
    char *path = xprintf("tests/data/%s.txt", data);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    RunStatus st = {.exited = true, .timeout_s = 60};
    memset(r, 0, sizeof *r);
    grade_decide(r, e, &st, text, "N1");
    memset(d, 0, sizeof *d);
    card_build(d, NULL, NULL, e, r, width);
    char *out = doc_text(d);
    if (getenv("SHOW_CARDS")) fprintf(stderr, "---- %s\n%s", data, out);
    free(text);
    free(path);
    return out;
}

static char *card_of(const char *data, Exercise *e, GradeResult *r, Doc *d) {
    return card_of_width(data, e, r, d, 78);
}

static void test_card_checks_wrap(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r;
    Doc d;
    char *text = card_of_width("pass", &e, &r, &d, 30);
    /* "Checks   " + "1 ok 1000 ok 65537 ok" is 30 columns; the next pair goes under the first */
    assert_non_null(strstr(text, "\nChecks   1 ok 1000 ok 65537 ok\n         268435456 ok\n"));
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

static void test_card_pass(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r;
    Doc d;
    char *text = card_of("pass", &e, &r, &d);
    assert_non_null(strstr(text, " PASS "));
    assert_non_null(strstr(text, "Checks   1 ok 1000 ok 65537 ok 268435456 ok"));
    /* the bars: you, the reference and the copy, GB/s, the floors pointed at */
    assert_non_null(strstr(text, "  you        "));
    assert_non_null(strstr(text, " 3445 GB/s  1.00x ref"));
    assert_non_null(strstr(text, "  copy       "));
    assert_non_null(strstr(text, " floors\n"));
    assert_non_null(strstr(text, "floors: 0.80x the reference = 2755 GB/s, 0.75x the copy = 3173 GB/s"));
    assert_int_equal(style_of(&d, "floors"), S_FLOOR);
    /* the roofline: the ceilings, where the kernel sits */
    assert_non_null(strstr(text, "Roofline"));
    assert_non_null(strstr(text, "memory 4.23 TB/s (the copy in the same run)"));
    assert_non_null(strstr(text, "compute 66.9 TFLOP/s"));
    /* each size against its ceiling: the copy bounds a vector add */
    assert_non_null(strstr(text, "\nCeilings (each size: the bound that applies, your share of it)\n"));
    assert_non_null(strstr(text, "\n  timed            memory  ###############... "
                                 " 81% of 4231 GB/s\n"));
    assert_non_null(strstr(text, "you: 0.0833 flop/B, 287 GFLOP/s, 81% of the memory roof"));
    assert_true(max_width(&d) <= 78);
    int points = 0;
    for (int i = 0; i < d.count; i++)
        for (size_t k = 0; k < d.lines[i].len; k++) points += d.lines[i].style[k] == S_POINT && d.lines[i].text[k] == 'o';
    assert_int_equal(points, 2); /* the kernel in the chart, and the same mark before its legend */
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

static void test_card_wrong(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r;
    Doc d;
    char *text = card_of("wrong", &e, &r, &d);
    assert_non_null(strstr(text, " WRONG ANSWER "));
    assert_non_null(strstr(text, "First mismatches\n  out[0][32] got nan want 0.25\n"));
    assert_non_null(strstr(text, "WRONG"));
    assert_null(strstr(text, "Roofline"));
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

static void test_card_no_gpu(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r;
    Doc d;
    char *text = card_of("nogpu", &e, &r, &d);
    assert_int_equal(r.verdict, V_SKIPPED);
    assert_non_null(strstr(text, " SKIPPED: no GPU "));
    assert_non_null(strstr(text, "this is not a failure"));
    assert_int_equal(card_verdict_style(V_SKIPPED), S_SKIP);
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* A GEMM's card: TFLOP/s against the reference and cuBLAS, no copy, the
 * error of the norm check, and the roofline's compute roof. */
static void test_card_gemm(void **state) {
    (void)state;
    Exercise e = exercise();
    e.kind = "gemm_bf16";
    e.floor_library = 0.35;
    static SizeSpec timing = {3, {4096, 4096, 4096}};
    e.timing_sizes = &timing, e.ntiming_sizes = 1;
    GradeResult r;
    Doc d;
    char *text = card_of("gemm_h100", &e, &r, &d);
    assert_non_null(strstr(text, " PASS "));
    assert_non_null(strstr(text, "Error    4.03e-06 relative (Frobenius norm), bound 1e-04"));
    assert_non_null(strstr(text, "137.4 GFLOP per run"));
    assert_non_null(strstr(text, "  library    "));
    assert_non_null(strstr(text, "  308 TFLOP/s  1.01x ref"));
    assert_null(strstr(text, "  copy       "));
    assert_non_null(strstr(text, "floors: 0.80x ref = 245, 0.35x cuBLAS GemmEx BF16 = 210 TFLOP/s"));
    assert_non_null(strstr(text, "peak  1071 TFLOP/s")); /* 132 x 4096 x 1980 MHz, at its highest clock */
    assert_non_null(strstr(text, "compute-bound: 683 floating-point operations per byte"));
    assert_true(max_width(&d) <= 78);
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* A GEMM timed at two sizes, with the clock it ran at (smclock:): each
 * size's bar against the BF16 peak at its own clock, the roofline's peak
 * at the deciding size's, within the card's width. */
static void test_card_ceilings(void **state) {
    (void)state;
    Exercise e = exercise();
    e.kind = "gemm_bf16";
    e.floor_library = 0.45;
    static SizeSpec timing[2] = {{3, {4096, 4096, 4096}}, {3, {8192, 8192, 8192}}};
    e.timing_sizes = timing, e.ntiming_sizes = 2;
    GradeResult r;
    Doc d;
    char *text = card_of("ceilings_gemm", &e, &r, &d);
    assert_non_null(strstr(text, "\n  4096x4096x4096   compute ##########........ "
                                 " 58% of 949 TFLOP/s, 1755 MHz\n"));
    assert_non_null(strstr(text, "\n  8192x8192x8192   compute ##########........ "
                                 " 54% of 892 TFLOP/s, 1650 MHz\n"));
    assert_non_null(strstr(text, "compute: the dense BF16 peak at the clock\n  it ran at (read after your timed calls)"));
    assert_non_null(strstr(text, "peak   892 TFLOP/s"));
    assert_non_null(strstr(text, "(the"));
    assert_true(max_width(&d) <= 78);
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* A GEMM timed at two sizes: a line for each, the bars of the deciding one. */
static void test_card_gemm_sizes(void **state) {
    (void)state;
    Exercise e = exercise();
    e.kind = "gemm_bf16";
    e.floor_library = 0.6;
    static SizeSpec timing[2] = {{3, {4096, 4096, 4096}}, {3, {8192, 8192, 8192}}};
    e.timing_sizes = timing, e.ntiming_sizes = 2;
    GradeResult r;
    Doc d;
    char *text = card_of("gemm_sizes", &e, &r, &d);
    assert_non_null(strstr(text, "Each size"));
    assert_non_null(strstr(text, "  4096x4096x4096   you   550 TFLOP/s  you/ref 1.04  you/lib 0.76\n"));
    assert_non_null(strstr(text, "  8192x8192x8192   you   478 TFLOP/s  you/ref 0.87  you/lib 0.65  (below)"));
    assert_non_null(strstr(text, "Throughput at size 8192x8192x8192, 1099.5 GFLOP per run"));
    assert_true(max_width(&d) <= 78);
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* The last rung's card: each earlier rung's best from the progress file,
 * this run last, and the library of this run. */
static void test_card_ladder(void **state) {
    (void)state;
    Exercise ex[3] = {exercise(), exercise(), exercise()};
    ex[0].id = "ex01", ex[0].name = "naive";
    ex[1].id = "ex02", ex[1].name = "tiled";
    ex[2].id = "ex03", ex[2].name = "fast";
    Exercise *e = &ex[2];
    e->kind = "gemm_bf16";
    e->floor_baseline = 0;
    e->floor_library = 0.35;
    static SizeSpec timing = {3, {4096, 4096, 4096}};
    e->timing_sizes = &timing, e->ntiming_sizes = 1;
    strlist_add(&e->ladder, "ex01");
    strlist_add(&e->ladder, "ex02");
    Course c = {0};
    c.exercises = ex, c.nexercises = 3;
    Progress p = {0};
    ExProgress *x = progress_get(&p, "ex01", true);
    x->best_tflops = 5.25, x->best_vs_library = 0.017;
    progress_get(&p, "ex02", true)->attempts = 1; /* tried, never timed */

    char *text = read_file("tests/data/gemm_h100.txt", NULL);
    assert_non_null(text);
    RunStatus st = {.exited = true, .timeout_s = 60};
    GradeResult r = {0};
    grade_decide(&r, e, &st, text, "N1");
    Doc d = {0};
    card_build(&d, &c, &p, e, &r, 78);
    char *out = doc_text(&d);
    if (getenv("SHOW_CARDS")) fprintf(stderr, "---- ladder\n%s", out);
    assert_non_null(strstr(out, "Your ladder\nEach rung's best TFLOP/s at 4096x4096x4096"));
    assert_non_null(strstr(out, "  ex01 naive "));
    assert_non_null(strstr(out, "   5.2 TFLOP/s 0.02x\n"));
    assert_non_null(strstr(out, "  ex02 tiled not timed yet\n"));
    assert_non_null(strstr(out, "  ex03 fast  "));
    assert_non_null(strstr(out, " 308.4 TFLOP/s 0.51x\n"));
    assert_non_null(strstr(out, "  library   "));
    assert_true(max_width(&d) <= 78);

    /* without the course (the CLI), no ladder */
    doc_free(&d);
    memset(&d, 0, sizeof d);
    card_build(&d, NULL, NULL, e, &r, 78);
    char *plain = doc_text(&d);
    assert_null(strstr(plain, "Your ladder"));
    free(plain);
    free(out);
    free(text);
    doc_free(&d);
    grade_result_free(&r);
    progress_free(&p);
    strlist_free(&e->ladder);
}


/* Compiler and program output on the card: escapes shown, not obeyed (a
 * student's #error or printf cannot clear the screen or retitle the window),
 * bytes that are not UTF-8 as U+FFFD, accents and CJK intact. */
static void test_card_hostile_output(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r;
    Doc d;
    char *text = card_of("wrong", &e, &r, &d);
    free(text);
    doc_free(&d);
    const char *evil = "t.cu:1:2: error: #error \x1b]0;pwned\x07\x1b[2J caf\xc3\xa9 \xe6\xbc\xa2 \xff\x80 \x7f\r\n"
                       "cut \xe2\x82";
    r.verdict = V_COMPILE_ERROR;
    snprintf(r.reason, sizeof r.reason, "reason \x1b]0;pwned\x07 \xff");
    r.compile_log = xstrdup(evil);
    r.compile_log_dropped = 10;
    r.program_output = xstrdup(evil);
    strlist_add(&r.notes, evil);
    memset(&d, 0, sizeof d);
    card_build(&d, NULL, NULL, &e, &r, 78);
    text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fprintf(stderr, "---- hostile\n%s", text);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        assert_true(*p >= 0x20 || *p == '\n' || *p == '\t');
    assert_null(strchr(text, 0x7f));
    assert_null(strchr(text, 0xff));
    assert_non_null(strstr(text, "\n  t.cu:1:2: error: #error ^[]0;pwned^G^[[2J caf\xc3\xa9 \xe6\xbc\xa2 "
                                 "\xef\xbf\xbd\xef\xbf\xbd ^?\n"));
    assert_int_equal(style_of(&d, "#error ^["), S_ERROR);
    assert_non_null(strstr(text, "reason ^[]0;pwned^G \xef\xbf\xbd\n"));
    /* the compile log was capped inside a character: it ends before it, the program output (not capped) in U+FFFD */
    assert_non_null(strstr(text, "\n  cut \n  ... and 12 bytes more (capped)\n"));
    assert_non_null(strstr(text, "\n  cut \xef\xbf\xbd\n"));
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* nvcc's first error is read to its end at 80 columns: a long line goes on
 * below, marked as continued, and the caret under the source line keeps its
 * column; a long note is wrapped too. */
static void test_card_compile_error_wraps(void **state) {
    (void)state;
    Exercise e = exercise();
    GradeResult r = {0};
    r.verdict = V_COMPILE_ERROR;
    snprintf(r.reason, sizeof r.reason, "nvcc could not compile ex01_vector_add.cu");
    r.compile_log = xstrdup("exercises/ex01_vector_add.cu(12): error: a value of type \"const float *\" cannot be "
                            "used to initialize an entity of type \"float *\"\n"
                            "      float* r = q;\n"
                            "                 ^\n\n"
                            "1 error detected in the compilation of \"ex01_vector_add.cu\".\n");
    strlist_add(&r.notes, "the time your runner reported disagreed with the harness's clock; the clock decided");
    Doc d = {0};
    card_build(&d, NULL, NULL, &e, &r, 78);
    char *text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fprintf(stderr, "---- compile error\n%s", text);
    assert_true(max_width(&d) <= 78);
    assert_non_null(strstr(text, "\n  exercises/ex01_vector_add.cu(12): error: a value of type \"const float *\"\n"
                                 "> cannot be used to initialize an entity of type \"float *\"\n"
                                 "        float* r = q;\n"
                                 "                   ^\n"));
    assert_int_equal(style_of(&d, "cannot be used"), S_ERROR);
    assert_non_null(strstr(text, "Note     the time your runner reported disagreed with the harness's clock; the\n"
                                 "         clock decided\n"));
    free(text);
    doc_free(&d);
    /* timed without the GPU's lock (issue 44): said on the card, not only in the JSON */
    snprintf(r.unlocked, sizeof r.unlocked, "/tmp is writable by others without the sticky bit");
    memset(&d, 0, sizeof d);
    card_build(&d, NULL, NULL, &e, &r, 78);
    text = doc_text(&d);
    assert_true(max_width(&d) <= 78);
    assert_non_null(strstr(text, "Unlocked timed without the GPU's lock, so another grading may have run beside\n"));
    assert_non_null(strstr(text, "the sticky bit"));
    free(text);
    doc_free(&d);
    grade_result_free(&r);
}

/* A line that keeps its spaces, cut after a space where it can be, else
 * inside a word wider than the line; a paragraph's word wider than the line
 * broken where it must. */
static void test_wrap_verbatim(void **state) {
    (void)state;
    Doc d = {0};
    DocLine line = {0}, first = {0}, cont = {0};
    line_addn(&first, S_NORMAL, "  ", 2);
    line_addn(&cont, S_DIM, "> ", 2);
    const char *code = "    x = a  +  b;  // a comment  that runs on";
    line_addn(&line, S_CODEBLOCK, code, strlen(code));
    doc_wrap_verbatim(&d, &line, &first, &cont, 20);
    line_free(&line);
    line_addn(&line, S_CODEBLOCK, "/a/path/without/any/space/in/it", 31);
    doc_wrap_verbatim(&d, &line, &first, &cont, 20);
    char *text = doc_text(&d);
    assert_string_equal(text, "      x = a  +  b;\n> // a comment  that\n> runs on\n"
                              "  /a/path/without/an\n> y/space/in/it\n");
    free(text);
    doc_free(&d);
    doc_wrap(&d, S_NORMAL, "see /a/very/long/path/that/does/not/fit", 2, 16);
    text = doc_text(&d);
    assert_string_equal(text, "see\n  /a/very/long/p\n  ath/that/does/\n  not/fit\n");
    free(text);
    doc_free(&d);
    line_free(&line);
    line_free(&first);
    line_free(&cont);
}

/* Text cut to a width: whole words and an ellipsis, or inside the first
 * word when it alone is too wide. */
static void test_clip(void **state) {
    (void)state;
    Doc d = {0};
    doc_add_clipped(&d, S_DIM, "a tree of partial sums", 14);
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "a tree of partial sums", 22);
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "a tree of partial sums", 21);
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "__syncthreads(), a tree", 8);
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "__syncthreads(), a tree", 20);
    doc_newline(&d);
    char *text = doc_text(&d);
    assert_string_equal(text, "a tree of...\na tree of partial sums\na tree of partial...\n__syn...\n"
                              "__syncthreads()...\n");
    assert_int_equal(style_of(&d, "..."), S_DIM);
    free(text);
    doc_free(&d);
}

/* Text from a course file with escapes: a Doc holds what the terminal is to
 * show (ESC as ^[, a C1 control as \u009b), and clips and wraps it by the
 * columns that takes; line breaks in a clipped row are spaces. */
static void test_doc_escapes(void **state) {
    (void)state;
    Doc d = {0};
    doc_add(&d, S_NORMAL, "a \x1b[9mtitle\x1b]2;pwned\x07 \xc2\x9b" "9m\x7f");
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "one\x1b[9m two\x1b[9m three", 16);
    doc_newline(&d);
    doc_add_clipped(&d, S_DIM, "one\ntwo", 16);
    doc_newline(&d);
    doc_wrap(&d, S_NORMAL, "\x1b[9m\x1b[9m\x1b[9m\x1b[9m words after", 0, 20);
    char *text = doc_text(&d);
    assert_string_equal(text, "a ^[[9mtitle^[]2;pwned^G \\u009b9m^?\none^[[9m...\none two\n"
                              "^[[9m^[[9m^[[9m^[[9m\nwords after\n");
    assert_null(strchr(text, '\x1b'));
    free(text);
    doc_free(&d);
}

/* The exercise view reads the verdict recorded as a key, and says it in
 * words. */
static void test_verdict_words(void **state) {
    (void)state;
    for (Verdict v = 0; v < V_COUNT; v++) {
        assert_int_equal(verdict_from_key(verdict_key(v)), v);
        assert_string_not_equal(card_verdict_phrase(v), "?");
        assert_null(strchr(card_verdict_phrase(v), '_'));
    }
    assert_int_equal(verdict_from_key("no_such_verdict"), V_COUNT);
    assert_int_equal(verdict_from_key(""), V_COUNT);
    assert_string_equal(card_verdict_phrase(verdict_from_key("compile_error")), "did not compile");
    assert_true(verdict_status(V_COMPILE_ERROR) < ST_COMPILES);
}

/* The live grading log goes through the same helper, line by line. */
static void test_log_visible(void **state) {
    (void)state;
    const char *log = "\x9b\xa2 tail of a cut character\n\x1b]2;title\x07ok\n";
    StrBuf sb = {0};
    sb_add_visible(&sb, log, strlen(log));
    assert_string_equal(sb.buf, "\xef\xbf\xbd\xef\xbf\xbd tail of a cut character\n^[]2;title^Gok\n");
    sb_free(&sb);
}

/* Inline code is not broken at its spaces where it fits a line (the
 * newcomer audit's "(n + block -" / "1) / block"); code longer than a line
 * still wraps. A small heading gets a dotted rule, so that it reads as one
 * where bold does not show. */
static void test_markdown_code_spans(void **state) {
    (void)state;
    Doc d = {0};
    md_render(&d, "Round the grid up: `(n + block - 1) / block` blocks, and `if (warp % 2 == 0)` picks half.\n", 40);
    char *text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fputs(text, stderr);
    assert_non_null(strstr(text, "(n + block - 1) / block"));
    assert_non_null(strstr(text, "if (warp % 2 == 0)"));
    assert_true(max_width(&d) <= 40);
    free(text);
    doc_free(&d);
    md_render(&d, "A `very long piece of code that cannot fit on one line of twenty` here.\n", 20);
    assert_true(max_width(&d) <= 20);
    doc_free(&d);
    md_render(&d, "## Big\n\n### The tile, and its two blocks of B\n\nText.\n", 60);
    text = doc_text(&d);
    assert_non_null(strstr(text, "The tile, and its two blocks of B\n.................................\n"));
    assert_int_equal(d.nheads, 2);
    assert_string_equal(d.heads[1].text, "The tile, and its two blocks of B");
    assert_int_equal(d.heads[1].level, 3);
    assert_true(strstr(d.lines[d.heads[1].line].text, "The tile") != NULL);
    assert_int_equal(doc_find_heading(&d, "The tile, and its two blocks of B"), 1);
    assert_int_equal(doc_find_heading(&d, "`Big`"), 0);
    assert_int_equal(doc_find_heading(&d, "Bi"), -1);
    free(text);
    doc_free(&d);
}

/* y's report on the card: a hint line wider than the card goes on below
 * after the continuation mark, so that the lesson's section it names (at its
 * end) is read at 80 columns. */
static void test_card_why_wraps(void **state) {
    (void)state;
    Exercise e = exercise();
    static GradeResult r;
    static Diagnosis g;
    r.verdict = V_SLOW;
    g.kind = DIAG_COUNTERS;
    snprintf(g.size, sizeof g.size, "1000003");
    g.nhints = 1;
    snprintf(g.hints[0].text, sizeof g.hints[0].text,
             "neighbouring threads do not read neighbouring elements, so each warp's load touches more 32-byte "
             "sectors than it uses");
    snprintf(g.hints[0].section, sizeof g.hints[0].section, "Two dimensions");
    g.hints[0].chapter = -1;
    Doc d = {0};
    card_report_lines(&d, S_NORMAL, &r, NULL, &e, &g, 78);
    char *text = doc_text(&d);
    if (getenv("SHOW_CARDS")) fprintf(stderr, "---- why\n%s", text);
    assert_true(max_width(&d) <= 78);
    assert_non_null(strstr(text, "\n> warp's load touches more 32-byte sectors than it uses: see 'Two dimensions'\n"
                                 "> in the lesson\n"));
    free(text);
    doc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap),          cmocka_unit_test(test_markdown), cmocka_unit_test(test_markdown_table), cmocka_unit_test(test_every_lesson_fits),
        cmocka_unit_test(test_highlight),     cmocka_unit_test(test_markdown_code_colour),
        cmocka_unit_test(test_watch_ignored), cmocka_unit_test(test_debounce),
        cmocka_unit_test(test_card_pass),     cmocka_unit_test(test_card_gemm_sizes), cmocka_unit_test(test_card_ceilings), cmocka_unit_test(test_card_ladder),     cmocka_unit_test(test_card_checks_wrap),
        cmocka_unit_test(test_card_wrong),    cmocka_unit_test(test_card_no_gpu),
        cmocka_unit_test(test_card_gemm),
        cmocka_unit_test(test_card_hostile_output), cmocka_unit_test(test_log_visible),
        cmocka_unit_test(test_card_compile_error_wraps), cmocka_unit_test(test_card_why_wraps), cmocka_unit_test(test_markdown_code_spans), cmocka_unit_test(test_wrap_verbatim),
        cmocka_unit_test(test_clip),          cmocka_unit_test(test_verdict_words), cmocka_unit_test(test_doc_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
