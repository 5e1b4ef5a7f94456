/* The course loader: a valid course, and each kind of mistake an instructor
 * makes, reported as file:line:col: message. */
#include "test_util.h"

#include <unistd.h>

#include "../src/course.h"
#include "../src/yamlguard.h"

static const char course_yaml[] = "title: Test course\nchapters:\n  - 01-one\n";

static const char good_chapter[] =
    "title: Chapter one\n"
    "lesson: lesson.md\n"
    "exercises:\n"
    "  - id: ex01\n"
    "    name: add\n"
    "    title: Add\n"
    "    kind: k\n"
    "    file: ex01_add.cu\n"
    "    task: Add two vectors.\n"
    "    sizes:\n"
    "      check: [[1], [1000]]\n"
    "      timing: [1048576]\n"
    "    tolerance: {rel: 1.0e-6, abs: 0}\n"
    "    floors: {reference: 0.8, baseline: 0.7}\n"
    "    hints:\n"
    "      - one\n"
    "      - two\n"
    "  - id: ex02\n"
    "    name: flip\n"
    "    title: Flip\n"
    "    kind: k\n"
    "    file: ex02_flip.cu\n"
    "    task: Flip.\n"
    "    sizes: {check: [[1, 1], [31, 33]], timing: [4096, 4095]}\n"
    "    floors: {reference: 0.8}\n"
    "    timeout: 30\n"
    "    hints: [one]\n"
    "    required_sass: [LDG.E.128]\n";

/* A course directory with every file the good chapter names. */
static char *make_course(const char *chapter) {
    char *dir = tmpdir_new();
    put_file(dir, "course/course.yaml", course_yaml);
    put_file(dir, "course/01-one/chapter.yaml", chapter);
    put_file(dir, "course/01-one/lesson.md", "# One\n");
    put_file(dir, "harness/kinds/k.cu", "// kind\n");
    put_file(dir, "exercises/ex01_add.cu", "// stub\n");
    put_file(dir, "solutions/ex01_add.cu", "// ref\n");
    put_file(dir, "exercises/ex02_flip.cu", "// stub\n");
    put_file(dir, "solutions/ex02_flip.cu", "// ref\n");
    return dir;
}

static void test_valid_course(void **state) {
    (void)state;
    char *dir = make_course(good_chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_non_null(c);
    assert_int_equal(c->nchapters, 1);
    assert_int_equal(c->nexercises, 2);
    assert_string_equal(c->title, "Test course");
    Exercise *e = &c->exercises[1];
    assert_string_equal(e->id, "ex02");
    assert_int_equal(e->ntiming_sizes, 1);
    assert_int_equal(e->timing_sizes[0].count, 2);
    assert_int_equal(e->timing_sizes[0].d[1], 4095);
    assert_int_equal(e->timeout_s, 30);
    assert_int_equal(e->required_sass.count, 1);
    assert_true(e->floor_baseline == 0);
    assert_true(c->exercises[0].tol_rel == 1e-6);
    assert_ptr_equal(course_find(c, "ex02"), e);
    assert_ptr_equal(course_find(c, "2"), e);
    assert_ptr_equal(course_find(c, "flip"), e);
    assert_null(course_find(c, "ex03"));
    char buf[32];
    size_text(&e->timing_sizes[0], buf, sizeof buf);
    assert_string_equal(buf, "4096x4095");
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
}

/* Exercise ids as people type them: the id or name in any case, the number
 * with or without "ex" and leading zeros; nothing odd; and for what names no
 * exercise, the message that helps (as the CLI prints it). */
static void test_find_forms(void **state) {
    (void)state;
    char *dir = make_course(good_chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    Exercise *flip = &c->exercises[1];
    static const char *const accepted[] = {"ex02", "EX02", "Ex2", "ex2", "ex002", "2", "02", "002", "flip", "FLIP"};
    for (size_t i = 0; i < ARRAY_SIZE(accepted); i++) {
        if (course_find(c, accepted[i]) != flip) fail_msg("'%s' does not find ex02", accepted[i]);
    }
    static const struct {
        const char *key, *message;
    } rejected[] = {
        {"+2", "no exercise '+2'"},
        {" 2", "no exercise ' 2'"},
        {"2 ", "no exercise '2 '"},
        {"2x", "no exercise '2x'"},
        {"-2", "no exercise '-2'"},
        {"0x2", "no exercise '0x2'"},
        {"", "no exercise ''"},
        {"ex", "no exercise 'ex'"},
        {"ex 2", "no exercise 'ex 2'; did you mean ex02 (flip)?"},
        {"ex3", "no exercise 'ex3': the course has ex01 to ex02"},
        {"ex03", "no exercise 'ex03': the course has ex01 to ex02"},
        {"0", "no exercise '0': the course has ex01 to ex02"},
        {"99999999999999999999999", "no exercise '99999999999999999999999': the course has ex01 to ex02"},
        {"flp", "no exercise 'flp'; did you mean ex02 (flip)?"},
        {"Flipp", "no exercise 'Flipp'; did you mean ex02 (flip)?"},
        {"lfip", "no exercise 'lfip'; did you mean ex02 (flip)?"}, /* two letters swapped: one typo */
        {"exx01", "no exercise 'exx01'; did you mean ex01 (add)?"},
        {"ad", "no exercise 'ad'; did you mean ex01 (add)?"},
        {"a", "no exercise 'a'"}, /* two letters off a name of three: no guess */
        {"multiply", "no exercise 'multiply'"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(rejected); i++) {
        if (course_find(c, rejected[i].key)) fail_msg("'%s' finds an exercise", rejected[i].key);
        assert_string_equal(last_error(), rejected[i].message);
    }
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
}

/* text with the first `from` in it replaced by `to` (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    assert_non_null(at);
    return xprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* Replaces the first occurrence of `from` in the good chapter with `to`,
 * loads it, and expects `count` problems, the first equal to `want`. */
static void expect_problems(const char *from, const char *to, int count, const char *want) {
    const char *at = strstr(good_chapter, from);
    assert_non_null(at);
    char *chapter = xprintf("%.*s%s%s", (int)(at - good_chapter), good_chapter, to, at + strlen(from));
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_null(c);
    if (problems.count != count || strcmp(problems.items[0], want)) {
        for (int i = 0; i < problems.count; i++) fprintf(stderr, "got:  %s\n", problems.items[i]);
        fprintf(stderr, "want: %s\n", want);
    }
    assert_int_equal(problems.count, count);
    assert_string_equal(problems.items[0], want);
    strlist_free(&problems);
    free(chapter);
    tmpdir_remove(dir);
}

static void expect_problem(const char *from, const char *to, const char *want) {
    expect_problems(from, to, 1, want);
}

static void test_syntax_error(void **state) {
    (void)state;
    expect_problem("    title: Add\n", "    title: [Add\n",
                   "course/01-one/chapter.yaml:7:9: did not find expected ',' or ']' while parsing a flow sequence");
}

static void test_missing_key(void **state) {
    (void)state;
    expect_problem("    task: Add two vectors.\n", "",
                   "course/01-one/chapter.yaml:4:5: missing key 'task' (in exercise 'ex01')");
}

static void test_duplicate_id(void **state) {
    (void)state;
    /* out of order, and a duplicate */
    expect_problems("  - id: ex02\n", "  - id: ex01\n", 2,
                   "course/01-one/chapter.yaml:18:9: id 'ex01' out of course order: this exercise must be 'ex02' "
                   "(in exercise 'ex01')");
}

static void test_duplicate_name(void **state) {
    (void)state;
    expect_problem("    name: flip\n", "    name: add\n",
                   "course/01-one/chapter.yaml:18:5: duplicate name 'add' (first at course/01-one/chapter.yaml:4:5)");
}

static void test_missing_file(void **state) {
    (void)state;
    /* the stub and the reference */
    expect_problems("    file: ex02_flip.cu\n", "    file: ex02_gone.cu\n", 2,
                   "course/01-one/chapter.yaml:22:11: missing file: exercises/ex02_gone.cu (the stub) "
                   "(in exercise 'ex02')");
}

static void test_floor_out_of_range(void **state) {
    (void)state;
    expect_problem("reference: 0.8, baseline: 0.7", "reference: 3, baseline: 0.7",
                   "course/01-one/chapter.yaml:14:25: 'reference' is 3, out of range [0.05, 1.5] (in exercise 'ex01')");
}

/* tolerance.deterministic: true asks for the same bits twice; anything but
 * true or false is the instructor's mistake, said where it is. */
static void test_deterministic(void **state) {
    (void)state;
    expect_problem("abs: 0}", "abs: 0, deterministic: yes}",
                   "course/01-one/chapter.yaml:13:53: 'deterministic' must be true or false, not 'yes' (in exercise 'ex01')");
    char *with = xprintf("%s", good_chapter);
    char *at = strstr(with, "abs: 0}");
    char *chapter = xprintf("%.*sabs: 0, deterministic: true}%s", (int)(at - with), with, at + strlen("abs: 0}"));
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_int_equal(problems.count, 0);
    assert_true(c->exercises[0].deterministic);
    assert_false(c->exercises[1].deterministic); /* the default */
    char *rule = exercise_pass_rule(&c->exercises[0]);
    assert_string_equal(rule, "correct at every size (the same bits on every call), and at least 0.80x the reference's "
                              "throughput and 0.70x the copy bandwidth of the same run");
    free(rule);
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
    free(chapter);
    free(with);
}

/* A library floor needs a kind that times a library; the pass rule states
 * every floor, the library by the name its kind gives it. */
static void test_library_floor_and_pass_rule(void **state) {
    (void)state;
    expect_problem("reference: 0.8, baseline: 0.7", "reference: 0.8, baseline: 0.7, library: 0.6",
                   "course/01-one/chapter.yaml:14:54: a library floor, but kind 'k' times no library (in exercise 'ex01')");
    char *with = xprintf("%s", good_chapter);
    char *at = strstr(with, "baseline: 0.7}");
    char *chapter = xprintf("%.*sbaseline: 0.7, library: 0.6}%s", (int)(at - with), with, at + strlen("baseline: 0.7}"));
    char *dir = make_course(chapter);
    put_file(dir, "harness/kinds/k.cu", "extern const KindDef kind = {\"k\", \"sig\", 1, 1, {}, b, c, r,\n"
                                        "    KIND_LIBRARY(\"CUB DeviceReduce::Sum\", library)};\n");
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_int_equal(problems.count, 0);
    assert_string_equal(c->exercises[0].library, "CUB DeviceReduce::Sum");
    char *rule = exercise_pass_rule(&c->exercises[0]);
    assert_string_equal(rule, "correct at every size, and at least 0.80x the reference's throughput, 0.70x the copy "
                              "bandwidth of the same run and 0.60x CUB DeviceReduce::Sum's");
    free(rule);
    rule = exercise_pass_rule(&c->exercises[1]); /* an instruction required */
    assert_string_equal(rule, "correct at every size, and at least 0.80x the reference's throughput; and the technique "
                              "it teaches, seen in its machine code");
    free(rule);
    c->exercises[1].ntiming_sizes = 2;
    rule = exercise_pass_rule(&c->exercises[1]);
    assert_non_null(strstr(rule, "throughput, at each of its 2 timed sizes; and"));
    free(rule);
    c->exercises[0].floor_baseline = 0;
    rule = exercise_pass_rule(&c->exercises[0]);
    assert_string_equal(rule, "correct at every size, and at least 0.80x the reference's throughput and 0.60x CUB "
                              "DeviceReduce::Sum's");
    free(rule);
    course_free(c);
    strlist_free(&problems);
    free(chapter);
    free(with);
    free(dir);
}

static void test_unknown_key(void **state) {
    (void)state;
    expect_problem("    timeout: 30\n", "    timeuot: 30\n",
                   "course/01-one/chapter.yaml:26:5: unknown key 'timeuot' in an exercise (known: id, name, title, "
                   "kind, file, summary, task, sizes, tolerance, floors, floors_why, timeout, timeout_hint, hints, "
                   "required_sass, forbidden_sass, required_sass_around, evidence, forbidden_symbols, "
                   "forbidden_libraries, ladder, diagnose, lesson_section) (in exercise 'ex02')");
}

/* diagnose: entries of a chapter (for all its exercises) and of an
 * exercise (first), and what is wrong with bad ones. */
static void test_diagnose_entries(void **state) {
    (void)state;
    const char *from = "    required_sass: [LDG.E.128]\n";
    const char *at = strstr(good_chapter, from);
    const char *lesson = strstr(good_chapter, "lesson: lesson.md\n") + strlen("lesson: lesson.md\n");
    char *chapter = xprintf("%.*sdiagnose:\n  - finding: race\n    message: a race\n    section: One\n"
                            "%.*s    diagnose:\n      - measure: sectors_per_request\n        above_reference: 1.5\n"
                            "        message: not coalesced\n        section: One\n%s",
                            (int)(lesson - good_chapter), good_chapter, (int)(at - lesson), lesson, at);
    char *root = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(root, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_non_null(c);
    Exercise *e1 = course_find(c, "ex01"), *e2 = course_find(c, "ex02");
    assert_int_equal(e1->ndiagnose, 1);
    assert_string_equal(e1->diagnose[0].finding, "race");
    assert_int_equal(e2->ndiagnose, 2);
    assert_string_equal(e2->diagnose[0].measure, "sectors_per_request");
    assert_int_equal(e2->diagnose[0].compare, DIAG_ABOVE_REFERENCE);
    assert_true(e2->diagnose[0].value > 1.49 && e2->diagnose[0].value < 1.51);
    assert_string_equal(e2->diagnose[0].section, "One");
    assert_string_equal(e2->diagnose[1].finding, "race");
    assert_string_equal(e2->diagnose[1].message, "a race");
    course_free(c);
    tmpdir_remove(root);
    free(chapter);
    strlist_free(&problems);
    const char *entry = "    diagnose:\n      - %s\n        message: m\n        section: %s\n";
    char *bad = xprintf(entry, "finding: races", "One");
    expect_problem(from, bad,
                   "course/01-one/chapter.yaml:29:18: unknown finding 'races' (known: out_of_bounds, misaligned, race, "
                   "barrier, uninitialized, launch_error, tile_pattern, tail) (in exercise 'ex02')");
    free(bad);
    bad = xprintf(entry, "measure: sectors", "One");
    expect_problem(from, bad,
                   "course/01-one/chapter.yaml:29:18: unknown measure 'sectors' (known: sectors_per_request, "
                   "store_sectors_per_request, bank_conflicts, occupancy, dram_bytes, local_bytes, issue_active, "
                   "tensor_active, tma_load_share, registers, spill_bytes, shared_bytes, wgmma_serialized) (in exercise "
                   "'ex02')");
    free(bad);
    bad = xprintf(entry, "measure: occupancy", "One");
    expect_problem(from, bad,
                   "course/01-one/chapter.yaml:29:9: measure 'occupancy' needs one of above_reference, "
                   "below_reference, above, below (in exercise 'ex02')");
    free(bad);
    bad = xprintf(entry, "finding: race", "Coalescing");
    expect_problem(from, bad,
                   "course/01-one/chapter.yaml:31:18: section 'Coalescing' is not a heading of "
                   "course/01-one/lesson.md (in exercise 'ex02')");
    free(bad);
    bad = xprintf(entry, "finding: race\n        measure: occupancy\n        above: 1", "One");
    expect_problem(from, bad,
                   "course/01-one/chapter.yaml:29:9: a diagnose entry names either a 'finding' or a 'measure' (in "
                   "exercise 'ex02')");
    free(bad);
    /* lesson_section: the heading where the app opens the lesson for it */
    expect_problem(from, "    lesson_section: Coalescing\n",
                   "course/01-one/chapter.yaml:28:21: lesson_section 'Coalescing' is not a heading of "
                   "course/01-one/lesson.md (in exercise 'ex02')");
    expect_problem(from, "    diagnose: {finding: race}\n",
                   "course/01-one/chapter.yaml:28:15: 'diagnose' must be a list of entries, each with 'finding' or "
                   "'measure' (in exercise 'ex02')");
}

/* The rung below an exercise: its ladder's last entry, else the nearest
 * earlier exercise of its chapter with its kind. */
static void test_rung_below(void **state) {
    (void)state;
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    assert_non_null(c);
    const struct {
        const char *ex, *below;
    } want[] = {{"ex41", "ex40"}, {"ex28", "ex26"}, {"ex33", "ex32"}, {"ex17", "ex16"}, {"ex01", NULL},
                {"ex25", NULL}, {"ex42", NULL}, {"ex26", NULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const Exercise *b = course_rung_below(c, course_find(c, want[i].ex));
        if (want[i].below) assert_string_equal(b ? b->id : "(none)", want[i].below);
        else assert_null(b);
    }
    course_free(c);
    strlist_free(&problems);
}

/* evidence: requirements on the counters, each known, once, with a value of its kind. */
static void test_evidence_keys(void **state) {
    (void)state;
    const char *from = "    required_sass: [LDG.E.128]\n";
    const char *at = strstr(good_chapter, from);
    char *chapter = xprintf("%.*s%s%s", (int)(at - good_chapter), good_chapter,
                            "    required_sass: [LDG.E.128]\n    forbidden_sass: [HMMA, HGMMA.TF32]\n"
                            "    evidence: {gmma_type: tf32, tma_load_share: 0.9}\n",
                            at + strlen(from));
    char *root = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(root, &problems);
    assert_non_null(c);
    Exercise *e = course_find(c, "ex02");
    assert_int_equal(e->nevidence, 2);
    assert_string_equal(e->evidence[0].key->key, "gmma_type");
    assert_string_equal(e->evidence[0].word, "tf32");
    assert_true(e->evidence[1].number > 0.89 && e->evidence[1].number < 0.91);
    assert_int_equal(e->forbidden_sass.count, 2);
    course_free(c);
    tmpdir_remove(root);
    free(chapter);
    strlist_free(&problems);
    expect_problem(from, "    evidence: {tma_share: 0.9}\n",
                   "course/01-one/chapter.yaml:28:16: unknown evidence key 'tma_share' (known: tma_load_share, "
                   "tma_store_share, tma_multicast_share, mma_type, gmma_type, ldsm_share, ldgsts_share, bank_conflicts_max, "
                   "load_sectors_min, store_sectors_min, tensor_cores, partial_sums_min) (in exercise 'ex02')");
    expect_problem(from, "    evidence: {gmma_type: fp8}\n",
                   "course/01-one/chapter.yaml:28:27: evidence 'gmma_type' must be one of: bf16 f16 tf32 e4m3 (in exercise "
                   "'ex02')");
    expect_problem(from, "    evidence: {tma_load_share: 1.5}\n",
                   "course/01-one/chapter.yaml:28:32: evidence 'tma_load_share' must be a number from 0.01 to 1 (in "
                   "exercise 'ex02')");
    expect_problem(from, "    evidence: {ldsm_share: 0.8, ldsm_share: 0.9}\n",
                   "course/01-one/chapter.yaml:28:33: evidence key 'ldsm_share' is given twice (in exercise 'ex02')");
    expect_problem(from, "    evidence: [tensor_cores]\n",
                   "course/01-one/chapter.yaml:28:15: 'evidence' must be a map of requirements (tma_load_share, "
                   "tma_store_share, tma_multicast_share, mma_type, gmma_type, ldsm_share, ldgsts_share, bank_conflicts_max, "
                   "load_sectors_min, store_sectors_min, tensor_cores, partial_sums_min) (in exercise 'ex02')");
    expect_problem(from, "    forbidden_sass: [hmma]\n",
                   "course/01-one/chapter.yaml:28:21: 'forbidden_sass' entry 'hmma' is not an instruction pattern: an "
                   "opcode in capitals and modifiers joined by dots, e.g. HGMMA.TF32 or LDG.E.128 (in exercise 'ex02')");
    expect_problem(from, "    required_sass: [LDG..128]\n",
                   "course/01-one/chapter.yaml:28:20: 'required_sass' entry 'LDG..128' is not an instruction pattern: an "
                   "opcode in capitals and modifiers joined by dots, e.g. HGMMA.TF32 or LDG.E.128 (in exercise 'ex02')");
    /* required_sass_around: its three keys, patterns on both lists, a why */
    expect_problem(from, "    required_sass_around: {inside: [UTMALDG], each_side: [UCGABAR_wait], why: x}\n",
                   "course/01-one/chapter.yaml:28:58: 'each_side' entry 'UCGABAR_wait' is not an instruction pattern: "
                   "an opcode in capitals and modifiers joined by dots, e.g. HGMMA.TF32 or LDG.E.128 (in exercise "
                   "'ex02')");
    expect_problem(from, "    required_sass_around: {inside: [UTMALDG], each_side: [UCGABAR_WAIT]}\n",
                   "course/01-one/chapter.yaml:28:27: missing key 'why' (in exercise 'ex02')");
    expect_problem(from, "    required_sass_around: {inside: [UTMALDG], why: x}\n",
                   "course/01-one/chapter.yaml:28:27: missing key 'each_side' (in exercise 'ex02')");
    expect_problem(from, "    required_sass_around: {inside: [UTMALDG], each_side: [BAR], why: x, around: [EXIT]}\n",
                   "course/01-one/chapter.yaml:28:73: unknown key 'around' in required_sass_around (known: inside, "
                   "each_side, why) (in exercise 'ex02')");
    expect_problem(from, "    required_sass_around: [UTMALDG]\n",
                   "course/01-one/chapter.yaml:28:27: required_sass_around must be a mapping of keys to values (in "
                   "exercise 'ex02')");
}

/* ladder: earlier exercises only, each once */
static void test_ladder(void **state) {
    (void)state;
    const char *at = strstr(good_chapter, "    timeout: 30\n");
    assert_non_null(at);
    char *chapter = xprintf("%.*s    ladder: [ex01]\n%s", (int)(at - good_chapter), good_chapter, at);
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_int_equal(c->exercises[0].ladder.count, 0);
    assert_int_equal(c->exercises[1].ladder.count, 1);
    assert_string_equal(c->exercises[1].ladder.items[0], "ex01");
    course_free(c);
    strlist_free(&problems);
    free(chapter);
    tmpdir_remove(dir);

    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: [ex02]\n",
                   "course/01-one/chapter.yaml:27:13: ladder entry 'ex02' is not an earlier exercise's id (ex01 to "
                   "ex01) (in exercise 'ex02')");
    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: [first]\n",
                   "course/01-one/chapter.yaml:27:13: ladder entry 'first' is not an earlier exercise's id (ex01 to "
                   "ex01) (in exercise 'ex02')");
    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: [ex01, ex01]\n",
                   "course/01-one/chapter.yaml:27:13: ladder entry 'ex01' is given twice (in exercise 'ex02')");
    /* each repeated entry once, with its count: not n(n-1)/2 problems */
    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: [ex01, ex01, ex01, ex01, ex01]\n",
                   "course/01-one/chapter.yaml:27:13: ladder entry 'ex01' is given 5 times (in exercise 'ex02')");
    expect_problems("    timeout: 30\n", "    timeout: 30\n    ladder: [x, ex01, x, x]\n", 2,
                    "course/01-one/chapter.yaml:27:13: ladder entry 'x' is not an earlier exercise's id (ex01 to ex01) "
                    "(in exercise 'ex02')");
    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: [ex1]\n",
                   "course/01-one/chapter.yaml:27:13: ladder entry 'ex1' is not an earlier exercise's id (ex01 to "
                   "ex01) (in exercise 'ex02')");
    expect_problem("    timeout: 30\n", "    timeout: 30\n    ladder: ex01\n",
                   "course/01-one/chapter.yaml:27:13: 'ladder' must be a list (in exercise 'ex02')");
}

/* timeout_hint: kept as written, absent means NULL, empty or too long is a problem */
static void test_timeout_hint(void **state) {
    (void)state;
    const char *at = strstr(good_chapter, "    timeout: 30\n");
    assert_non_null(at);
    char *chapter = xprintf("%.*s    timeout: 30\n    timeout_hint: \"expect_tx differs from the bytes the copy delivers\"\n%s",
                            (int)(at - good_chapter), good_chapter, at + strlen("    timeout: 30\n"));
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_null(c->exercises[0].timeout_hint);
    assert_string_equal(c->exercises[1].timeout_hint, "expect_tx differs from the bytes the copy delivers");
    course_free(c);
    strlist_free(&problems);
    free(chapter);
    tmpdir_remove(dir);

    expect_problem("    timeout: 30\n", "    timeout: 30\n    timeout_hint: \"\"\n",
                   "course/01-one/chapter.yaml:27:19: 'timeout_hint' must be 1 to 600 characters, not 0 "
                   "(in exercise 'ex02')");
    char *long_hint = xprintf("    timeout: 30\n    timeout_hint: %0*d\n", 601, 0);
    expect_problem("    timeout: 30\n", long_hint,
                   "course/01-one/chapter.yaml:27:19: 'timeout_hint' must be 1 to 600 characters, not 601 "
                   "(in exercise 'ex02')");
    free(long_hint);
}

/* floors_why: kept as written, absent means NULL, empty or too long is a problem */
static void test_floors_why(void **state) {
    (void)state;
    const char *at = strstr(good_chapter, "    timeout: 30\n");
    assert_non_null(at);
    char *chapter = xprintf("%.*s    floors_why: \"a naive kernel, slow by nature\"\n%s", (int)(at - good_chapter),
                            good_chapter, at);
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_null(c->exercises[0].floors_why);
    assert_string_equal(c->exercises[1].floors_why, "a naive kernel, slow by nature");
    course_free(c);
    strlist_free(&problems);
    free(chapter);
    tmpdir_remove(dir);

    char *long_why = xprintf("    timeout: 30\n    floors_why: %0*d\n", 301, 0);
    expect_problem("    timeout: 30\n", long_why,
                   "course/01-one/chapter.yaml:27:17: 'floors_why' must be 1 to 300 characters, not 301 "
                   "(in exercise 'ex02')");
    free(long_why);
}

/* floors_why, timeout_hint and a diagnose message are said inside a sentence:
 * one line; a block scalar's final newline is none. */
static void test_one_line_texts(void **state) {
    (void)state;
    const char *from = "    timeout: 30\n";
    expect_problem(from, "    timeout: 30\n    floors_why: \"slow\\nby nature\"\n",
                   "course/01-one/chapter.yaml:27:17: 'floors_why' must be one line (in exercise 'ex02')");
    expect_problem(from, "    timeout: 30\n    timeout_hint: |\n      a wait\n      that never ends\n",
                   "course/01-one/chapter.yaml:27:19: 'timeout_hint' must be one line (in exercise 'ex02')");
    expect_problem(from, "    timeout: 30\n    timeout_hint: \"a wait\\r that never ends\"\n",
                   "course/01-one/chapter.yaml:27:19: 'timeout_hint' must be one line (in exercise 'ex02')");
    expect_problem(from, "    timeout: 30\n    timeout_hint: |\n\n\n",
                   "course/01-one/chapter.yaml:27:19: 'timeout_hint' must be 1 to 600 characters, not 0 "
                   "(in exercise 'ex02')");
    const char *at = strstr(good_chapter, from);
    char *chapter = xprintf("%.*s    timeout_hint: >\n      a wait that\n      never ends\n%s", (int)(at - good_chapter),
                            good_chapter, at);
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_string_equal(c->exercises[1].timeout_hint, "a wait that never ends");
    course_free(c);
    strlist_free(&problems);
    free(chapter);
    tmpdir_remove(dir);
}

/* The lesson is a path inside the course: not absolute, no .. out of it,
 * no link to a file elsewhere; .. that stays inside is fine. */
static void test_lesson_inside_course(void **state) {
    (void)state;
    expect_problem("lesson: lesson.md\n", "lesson: ../../../etc/passwd\n",
                   "course/01-one/chapter.yaml:2:9: lesson '../../../etc/passwd' leads outside the course directory");
    expect_problem("lesson: lesson.md\n", "lesson: /etc/passwd\n",
                   "course/01-one/chapter.yaml:2:9: lesson '/etc/passwd' must be a path relative to chapter.yaml, not "
                   "an absolute one");
    expect_problem("lesson: lesson.md\n", "lesson: a/../../../../x.md\n",
                   "course/01-one/chapter.yaml:2:9: lesson 'a/../../../../x.md' leads outside the course directory");
    const char *at = strstr(good_chapter, "lesson: lesson.md");
    char *chapter = xprintf("%.*slesson: ./../../shared.md%s", (int)(at - good_chapter), good_chapter,
                            at + strlen("lesson: lesson.md"));
    char *dir = make_course(chapter);
    put_file(dir, "shared.md", "# Shared\n");
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    course_free(c);
    char *outside = tmpdir_new();
    put_file(outside, "lesson.md", "# Outside\n");
    char *link = path_join(dir, "course/01-one/lesson.md"), *target = path_join(outside, "lesson.md");
    char *shared = path_join(dir, "course/01-one/shared.md");
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("../../shared.md", shared), 0); /* a link inside the course */
    assert_int_equal(symlink(target, link), 0);
    put_file(dir, "course/01-one/chapter.yaml", good_chapter);
    assert_null(course_load(dir, &problems));
    assert_int_equal(problems.count, 1);
    assert_string_equal(problems.items[0], "course/01-one/chapter.yaml:2:9: lesson 'lesson.md' leads outside the "
                                           "course directory (through a link)");
    strlist_free(&problems);
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("shared.md", link), 0);
    c = course_load(dir, &problems);
    assert_non_null(c);
    course_free(c);
    strlist_free(&problems);
    free(link), free(target), free(shared), free(chapter);
    tmpdir_remove(outside);
    tmpdir_remove(dir);
}

static void test_duplicate_key(void **state) {
    (void)state;
    expect_problem("    timeout: 30\n", "    timeout: 30\n    timeout: 40\n",
                   "course/01-one/chapter.yaml:27:5: key 'timeout' given twice in an exercise (in exercise 'ex02')");
}

static void test_size_arity(void **state) {
    (void)state;
    expect_problem("timing: [4096, 4095]", "timing: [4096]",
                   "course/01-one/chapter.yaml:24:48: the timing size has 1 arguments, the check sizes 2 "
                   "(in exercise 'ex02')");
}

/* A GEMM is timed at several sizes: timing is then a list of sizes. */
static void test_several_timing_sizes(void **state) {
    (void)state;
    const char *from = "timing: [4096, 4095]";
    const char *at = strstr(good_chapter, from);
    char *chapter = xprintf("%.*s%s%s", (int)(at - good_chapter), good_chapter, "timing: [[4096, 4095], [100, 3]]",
                            at + strlen(from));
    char *dir = make_course(chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_int_equal(problems.count, 0);
    const Exercise *e = &c->exercises[1];
    assert_int_equal(e->ntiming_sizes, 2);
    char buf[32];
    size_text(&e->timing_sizes[1], buf, sizeof buf);
    assert_string_equal(buf, "100x3");
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
    free(chapter);
    expect_problem("timing: [4096, 4095]", "timing: [[4096, 4095], [7]]",
                   "course/01-one/chapter.yaml:24:63: the timing size has 1 arguments, the check sizes 2 "
                   "(in exercise 'ex02')");
    expect_problem("timing: [4096, 4095]", "timing: [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]",
                   "course/01-one/chapter.yaml:24:48: 'timing' has at most 4 sizes (in exercise 'ex02')");
}

static void test_bad_size(void **state) {
    (void)state;
    expect_problem("[[1], [1000]]", "[[1], [-5]]",
                   "course/01-one/chapter.yaml:11:21: size '-5' must be a positive integer (in exercise 'ex01')");
}

static void test_unknown_kind(void **state) {
    (void)state;
    expect_problem("    kind: k\n    file: ex01", "    kind: nope\n    file: ex01",
                   "course/01-one/chapter.yaml:7:11: unknown kind 'nope': no harness/kinds/nope.cu (in exercise 'ex01')");
}

static void test_bad_number(void **state) {
    (void)state;
    expect_problem("    timeout: 30\n", "    timeout: soon\n",
                   "course/01-one/chapter.yaml:26:14: 'timeout' must be a number, not 'soon' (in exercise 'ex02')");
}

/* forbidden_libraries: absent means every library; a list replaces that; [] allows all. */
static void test_forbidden_libraries(void **state) {
    (void)state;
    const char *from = "    required_sass: [LDG.E.128]\n";
    const char *at = strstr(good_chapter, from);
    assert_non_null(at);
    char *chapter = xprintf("%.*s    forbidden_libraries: [cub, thrust]\n%s", (int)(at - good_chapter), good_chapter, at);
    /* and [] for ex01 */
    char *both = NULL;
    const char *hints = strstr(chapter, "    hints:\n      - one\n");
    assert_non_null(hints);
    both = xprintf("%.*s    forbidden_libraries: []\n%s", (int)(hints - chapter), chapter, hints);
    char *dir = make_course(both);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_non_null(c);
    assert_int_equal(c->exercises[0].forbidden_libraries.count, 0);
    const StrList *l = &c->exercises[1].forbidden_libraries;
    assert_int_equal(l->count, 2);
    assert_string_equal(l->items[0], "cub");
    assert_string_equal(l->items[1], "thrust");
    course_free(c);
    tmpdir_remove(dir);

    /* the default */
    dir = make_course(good_chapter);
    c = course_load(dir, &problems);
    assert_non_null(c);
    l = &c->exercises[1].forbidden_libraries;
    assert_int_equal(l->count, 5);
    for (int i = 0; i < 5; i++) assert_string_equal(l->items[i], course_libraries[i]);
    assert_null(course_libraries[5]);
    course_free(c);
    tmpdir_remove(dir);
    strlist_free(&problems);
    free(both);
    free(chapter);
}

static void test_unknown_library(void **state) {
    (void)state;
    expect_problem("    required_sass: [LDG.E.128]\n",
                   "    required_sass: [LDG.E.128]\n    forbidden_libraries: [cub, curand]\n",
                   "course/01-one/chapter.yaml:29:32: unknown library 'curand' (known: cublas, cudnn, cub, thrust, "
                   "cutlass) (in exercise 'ex02')");
    expect_problem("    required_sass: [LDG.E.128]\n", "    required_sass: [LDG.E.128]\n    forbidden_libraries: cub\n",
                   "course/01-one/chapter.yaml:29:26: 'forbidden_libraries' must be a list (in exercise 'ex02')");
}

static void test_missing_chapter(void **state) {
    (void)state;
    char *dir = make_course(good_chapter);
    put_file(dir, "course/course.yaml", "title: T\nchapters:\n  - 01-one\n  - 02-two\n");
    StrList problems = {0};
    assert_null(course_load(dir, &problems));
    assert_int_equal(problems.count, 1);
    assert_string_equal(problems.items[0], "course/course.yaml:4:5: missing file: course/02-two/chapter.yaml");
    strlist_free(&problems);
    tmpdir_remove(dir);
}

static void test_empty_course_file(void **state) {
    (void)state;
    char *dir = make_course(good_chapter);
    put_file(dir, "course/course.yaml", "");
    StrList problems = {0};
    assert_null(course_load(dir, &problems));
    assert_int_equal(problems.count, 1);
    assert_string_equal(problems.items[0], "course/course.yaml:1:1: the file is empty");
    strlist_free(&problems);
    tmpdir_remove(dir);
}

/* Loads the course in dir and expects exactly one problem, `want`. */
static void expect_one_problem(char *dir, const char *want) {
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    if (problems.count != 1 || strcmp(problems.items[0], want)) {
        for (int i = 0; i < problems.count; i++) fprintf(stderr, "got:  %s\n", problems.items[i]);
        fprintf(stderr, "want: %s\n", want);
    }
    assert_null(c);
    assert_int_equal(problems.count, 1);
    assert_string_equal(problems.items[0], want);
    strlist_free(&problems);
    tmpdir_remove(dir);
}

/* Billion laughs: 10 levels of 10 aliases each, 10^10 nodes once expanded.
 * Rejected at the alias that passes the node limit, before any tree is built. */
static void test_billion_laughs(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_puts(&sb, "a0: &a0 [lol]\n");
    for (int level = 1; level < 10; level++) {
        sb_printf(&sb, "a%d: &a%d [", level, level);
        for (int k = 0; k < 10; k++) sb_printf(&sb, "%s*a%d", k ? ", " : "", level - 1);
        sb_puts(&sb, "]\n");
    }
    double t0 = now_seconds();
    expect_one_problem(make_course(sb.buf),
                       "course/01-one/chapter.yaml:6:25: more than 100000 nodes once aliases are expanded");
    assert_true(now_seconds() - t0 < 1.0);
    sb_free(&sb);
}

/* One large string, repeated by aliases in a list the loader copies: 6 MiB. */
static void test_repeated_string(void **state) {
    (void)state;
    StrBuf hints = {0};
    sb_puts(&hints, "    hints:\n      - &big ");
    for (int k = 0; k < 65536; k++) sb_puts(&hints, "x");
    sb_puts(&hints, "\n");
    for (int k = 0; k < 100; k++) sb_puts(&hints, "      - *big\n");
    expect_problem("    hints:\n      - one\n      - two\n", hints.buf,
                   "course/01-one/chapter.yaml:79:9: more than 4 MiB of text once aliases are expanded");
    sb_free(&hints);
}

/* 100000 nested lists: libyaml's scanner alone takes quadratic time (over
 * 20 s); the guard stops at level 65. */
static void test_deep_nesting(void **state) {
    (void)state;
    enum { LEVELS = 100000 };
    char *text = xmalloc(2 * LEVELS + 1);
    memset(text, '[', LEVELS);
    memset(text + LEVELS, ']', LEVELS);
    text[2 * LEVELS] = '\0';
    double t0 = now_seconds();
    expect_one_problem(make_course(text), "course/01-one/chapter.yaml:1:65: nested deeper than 64 levels");
    assert_true(now_seconds() - t0 < 0.5);
    free(text);
}

/* The guard's API, as the progress reader uses it: no path, each limit. */
static void test_yaml_guard(void **state) {
    (void)state;
    char err[256];
    const char *fine = "a: &x {b: [1, 2]}\nc: *x\nd: *x\n";
    assert_int_equal(yaml_guard_check(fine, strlen(fine), "f.yaml", err, sizeof err), 0);
    const char *bad_syntax = "a: [1\n"; /* left to the parser */
    assert_int_equal(yaml_guard_check(bad_syntax, strlen(bad_syntax), NULL, err, sizeof err), 0);
    const char *twice = "a: &x 1\nb: &x 2\n";
    assert_int_equal(yaml_guard_check(twice, strlen(twice), NULL, err, sizeof err), -1);
    assert_string_equal(err, "2:4: anchor '&x' is defined twice (first at 1:4)");
    const char *cycle = "a: &x [1, *x]\n";
    assert_int_equal(yaml_guard_check(cycle, strlen(cycle), NULL, err, sizeof err), -1);
    assert_string_equal(err, "1:11: alias '*x' is inside the node it names");
    assert_string_equal(last_error(), err);
    size_t len = YAML_GUARD_MAX_BYTES + 1;
    char *big = xmalloc(len);
    memset(big, '#', len); /* one long comment */
    assert_int_equal(yaml_guard_check(big, len, "p.yaml", err, sizeof err), -1);
    assert_string_equal(err, "p.yaml:1:1: the file has 4194305 bytes, more than the limit of 4 MiB");
    assert_int_equal(yaml_guard_check(big, len - 1, "p.yaml", err, sizeof err), 0);
    free(big);
    /* only the first document is read, as yaml_parser_load does */
    const char *second = "a: 1\n---\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n";
    assert_int_equal(yaml_guard_check(second, strlen(second), NULL, err, sizeof err), 0);
}

/* NaN passed every range check (every comparison with it is false). */
static void test_not_finite(void **state) {
    (void)state;
    expect_problem("reference: 0.8, baseline: 0.7", "reference: nan, baseline: 0.7",
                   "course/01-one/chapter.yaml:14:25: 'reference' must be a finite number, not 'nan' "
                   "(in exercise 'ex01')");
    expect_problem("    timeout: 30\n", "    timeout: NaN\n",
                   "course/01-one/chapter.yaml:26:14: 'timeout' must be a finite number, not 'NaN' "
                   "(in exercise 'ex02')");
    expect_problems("{rel: 1.0e-6, abs: 0}", "{rel: nan, abs: -inf}", 2,
                    "course/01-one/chapter.yaml:13:22: 'rel' must be a finite number, not 'nan' (in exercise 'ex01')");
}

/* Invalid UTF-8 and control characters: at their own line and column (libyaml
 * gives only a byte offset for them). */
static void test_encoding_error(void **state) {
    (void)state;
    expect_problem("    title: Add\n", "    title: A\xff" "dd\n",
                   "course/01-one/chapter.yaml:6:13: invalid leading UTF-8 octet");
    expect_problem("    title: Flip\n", "    title: \xc3\xa9\xc3\xa9\x01\n",
                   "course/01-one/chapter.yaml:20:14: control characters are not allowed");
}

static const char second_chapter[] =
    "title: Chapter two\n"
    "lesson: lesson.md\n"
    "exercises:\n"
    "  - id: ex03\n"
    "    name: third\n"
    "    title: Third\n"
    "    kind: k\n"
    "    file: ex03_third.cu\n"
    "    task: Three.\n"
    "    sizes: {check: [[1]], timing: [1048576]}\n"
    "    floors: {reference: 0.8}\n"
    "    hints: [one]\n";

/* Two chapters; the first one's text given. */
static char *make_two_chapters(const char *first) {
    char *dir = make_course(first);
    put_file(dir, "course/course.yaml", "title: T\nchapters:\n  - 01-one\n  - 02-two\n");
    put_file(dir, "course/02-two/chapter.yaml", second_chapter);
    put_file(dir, "course/02-two/lesson.md", "# Two\n");
    put_file(dir, "exercises/ex03_third.cu", "// stub\n");
    put_file(dir, "solutions/ex03_third.cu", "// ref\n");
    return dir;
}

/* A chapter that cannot be read says so once: the chapters after it are not
 * checked for course order against the exercises it may have had. */
static void test_broken_chapter_once(void **state) {
    (void)state;
    char *dir = make_two_chapters(good_chapter);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_non_null(c);
    assert_int_equal(c->nexercises, 3);
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);

    char *broken = xprintf("%s  - [\n", good_chapter);
    expect_one_problem(make_two_chapters(broken),
                       "course/01-one/chapter.yaml:30:1: did not find expected node content while parsing a "
                       "flow node");
    free(broken);
    expect_one_problem(make_two_chapters("- a list\n"),
                       "course/01-one/chapter.yaml:1:1: a chapter must be a mapping of keys to values");
    expect_one_problem(make_two_chapters("title: One\nlesson: lesson.md\nexercises: none\n"),
                       "course/01-one/chapter.yaml:3:12: 'exercises' must be a non-empty list (add one: gpucourse new exercise "
                       "01-one NAME --kind KIND)");
    dir = make_two_chapters(good_chapter);
    put_file(dir, "course/course.yaml", "title: T\nchapters:\n  - 00-gone\n  - 01-one\n  - 02-two\n");
    expect_one_problem(dir, "course/course.yaml:3:5: missing file: course/00-gone/chapter.yaml");
}

/* A chapter listed twice is reported at course.yaml, once, not as a duplicate
 * of every exercise in it. */
static void test_chapter_listed_twice(void **state) {
    (void)state;
    char *dir = make_two_chapters(good_chapter);
    put_file(dir, "course/course.yaml", "title: T\nchapters:\n  - 01-one\n  - 02-two\n  - 01-one\n");
    expect_one_problem(dir, "course/course.yaml:5:5: chapter '01-one' is listed twice (first at course/course.yaml:3:5)");
    dir = make_two_chapters(good_chapter);
    put_file(dir, "course/course.yaml", "title: T\nchapters: [01-one, 01-one, 02-two]\n");
    expect_one_problem(dir, "course/course.yaml:2:20: chapter '01-one' is listed twice (first at course/course.yaml:2:12)");
}

/* 50000 anchors: libyaml's loader checks each against all before it (18 s
 * for 99000); the guard stops at the 1001st. */
static void test_many_anchors(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_puts(&sb, "title: T\nlesson: lesson.md\nexercises:\n");
    for (int k = 0; k < 50000; k++) sb_printf(&sb, "  - &a%d x\n", k);
    double t0 = now_seconds();
    expect_one_problem(make_course(sb.buf), "course/01-one/chapter.yaml:1004:5: more than 1000 anchors");
    assert_true(now_seconds() - t0 < 1.0);
    sb_free(&sb);
}

/* 2000 exercises with one id: each repeat reported once, against the first,
 * not against every earlier one (two million messages); and at most
 * MAX_FILE_PROBLEMS of them, then how many more. The other problems of the
 * file (each exercise lacks every other key) are capped the same. */
static void test_repeated_id(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_puts(&sb, "title: T\nlesson: lesson.md\nexercises:\n");
    for (int k = 0; k < 2000; k++) sb_puts(&sb, "  - {id: ex01}\n");
    char *dir = make_course(sb.buf);
    StrList problems = {0};
    assert_null(course_load(dir, &problems));
    int repeats = 0;
    for (int i = 0; i < problems.count; i++)
        repeats += strstr(problems.items[i], "duplicate id 'ex01'") != NULL;
    assert_int_equal(repeats, MAX_FILE_PROBLEMS);
    assert_int_equal(problems.count, 2 * (MAX_FILE_PROBLEMS + 1));
    /* ex01 lacks 8 keys, each after it also its place in course order: the
     * first past the 100 shown is the 3rd of ex12's 9, at line 15 */
    assert_string_equal(problems.items[MAX_FILE_PROBLEMS],
                        "course/01-one/chapter.yaml:15:5: ... and 17899 more problems in this file");
    assert_string_equal(problems.items[problems.count - 2],
                        "course/01-one/chapter.yaml:104:5: duplicate id 'ex01' (first at course/01-one/chapter.yaml:4:5)");
    assert_string_equal(problems.items[problems.count - 1],
                        "course/01-one/chapter.yaml:105:5: ... and 1899 more ids, names or files used twice in this file");
    strlist_free(&problems);
    tmpdir_remove(dir);
    sb_free(&sb);
}

/* A duplicate anchor: libyaml's own words came out garbled ("second
 * occurrence found duplicate anchor; first occurrence"). */
static void test_duplicate_anchor(void **state) {
    (void)state;
    expect_problem("    title: Add\n    kind: k\n", "    title: &t Add\n    kind: &t k\n",
                   "course/01-one/chapter.yaml:7:11: anchor '&t' is defined twice (first at "
                   "course/01-one/chapter.yaml:6:12)");
}

/* check-course's look at the content: the placeholders gpucourse new writes
 * (a line that starts TODO:) load, and each exercise with some is one
 * problem there, at the first; the stub's TODOs named in prose are none. */
static void test_placeholders(void **state) {
    (void)state;
    char *summary = replaced(good_chapter, "    task: Add two vectors.\n",
                             "    summary: \"TODO: one line for lists\"\n    task: |\n      Fill in the TODO 1.\n"
                             "      TODO: the rest\n");
    char *with_hint = replaced(summary, "      - two\n", "      - 'TODO: x'\n");
    char *dir = make_course(with_hint);
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    assert_non_null(c);
    assert_int_equal(problems.count, 0);
    course_check_content(c, &problems);
    assert_int_equal(problems.count, 1);
    assert_string_equal(problems.items[0], "course/01-one/chapter.yaml:9:14: the summary, the task and hint 2 are still "
                                           "gpucourse new's placeholders (a line that starts TODO:): write them (in "
                                           "exercise 'ex01')");
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
    dir = make_course(good_chapter); /* and the shipped course says "TODO 1, ..." in hints: no placeholder */
    c = course_load(dir, &problems);
    course_check_content(c, &problems);
    assert_int_equal(problems.count, 0);
    course_free(c);
    c = course_load(".", &problems);
    assert_non_null(c);
    course_check_content(c, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_int_equal(problems.count, 0);
    course_free(c);
    tmpdir_remove(dir);
    free(summary), free(with_hint);
}

/* The course shipped in this repository loads without a problem. */
static void test_shipped_course(void **state) {
    (void)state;
    StrList problems = {0};
    Course *c = course_load(".", &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    assert_non_null(c);
    assert_true(c->nchapters >= 2);
    assert_true(c->nexercises >= 7);
    for (int i = 0; i < c->nexercises; i++) {
        assert_true(c->exercises[i].hints.count >= 1);
        assert_true(c->exercises[i].floor_reference > 0);
    }
    course_free(c);
    strlist_free(&problems);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_course),     cmocka_unit_test(test_find_forms),
        cmocka_unit_test(test_several_timing_sizes), cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_missing_key),      cmocka_unit_test(test_duplicate_id),
        cmocka_unit_test(test_duplicate_name),   cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_floor_out_of_range), cmocka_unit_test(test_deterministic), cmocka_unit_test(test_library_floor_and_pass_rule), cmocka_unit_test(test_unknown_key), cmocka_unit_test(test_evidence_keys), cmocka_unit_test(test_diagnose_entries), cmocka_unit_test(test_rung_below),
        cmocka_unit_test(test_timeout_hint), cmocka_unit_test(test_ladder), cmocka_unit_test(test_floors_why), cmocka_unit_test(test_duplicate_key),    cmocka_unit_test(test_size_arity),
        cmocka_unit_test(test_bad_size),         cmocka_unit_test(test_unknown_kind),
        cmocka_unit_test(test_bad_number),       cmocka_unit_test(test_missing_chapter),
        cmocka_unit_test(test_empty_course_file), cmocka_unit_test(test_shipped_course),
        cmocka_unit_test(test_forbidden_libraries), cmocka_unit_test(test_unknown_library),
        cmocka_unit_test(test_billion_laughs),   cmocka_unit_test(test_repeated_string),
        cmocka_unit_test(test_deep_nesting),     cmocka_unit_test(test_yaml_guard),
        cmocka_unit_test(test_not_finite),       cmocka_unit_test(test_encoding_error),
        cmocka_unit_test(test_broken_chapter_once), cmocka_unit_test(test_chapter_listed_twice),
        cmocka_unit_test(test_repeated_id),      cmocka_unit_test(test_many_anchors),
        cmocka_unit_test(test_one_line_texts),   cmocka_unit_test(test_lesson_inside_course),
        cmocka_unit_test(test_duplicate_anchor), cmocka_unit_test(test_placeholders),
    };
    return cmocka_run_group_tests_name("course", tests, NULL, NULL);
}
