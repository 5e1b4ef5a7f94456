/* The course loader: a valid course, and each kind of mistake an instructor
 * makes, reported as file:line:col: message. */
#include "test_util.h"

#include "../src/course.h"

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
    assert_int_equal(e->timing_size.count, 2);
    assert_int_equal(e->timing_size.d[1], 4095);
    assert_int_equal(e->timeout_s, 30);
    assert_int_equal(e->required_sass.count, 1);
    assert_true(e->floor_baseline == 0);
    assert_true(c->exercises[0].tol_rel == 1e-6);
    assert_ptr_equal(course_find(c, "ex02"), e);
    assert_ptr_equal(course_find(c, "2"), e);
    assert_ptr_equal(course_find(c, "flip"), e);
    assert_null(course_find(c, "ex03"));
    char buf[32];
    size_text(&e->timing_size, buf, sizeof buf);
    assert_string_equal(buf, "4096x4095");
    course_free(c);
    strlist_free(&problems);
    tmpdir_remove(dir);
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

static void test_unknown_key(void **state) {
    (void)state;
    expect_problem("    timeout: 30\n", "    timeuot: 30\n",
                   "course/01-one/chapter.yaml:26:5: unknown key 'timeuot' in an exercise (known: id, name, title, "
                   "kind, file, summary, task, sizes, tolerance, floors, timeout, hints, required_sass, "
                   "forbidden_symbols, forbidden_libraries) (in exercise 'ex02')");
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
        cmocka_unit_test(test_valid_course),     cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_missing_key),      cmocka_unit_test(test_duplicate_id),
        cmocka_unit_test(test_duplicate_name),   cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_floor_out_of_range), cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_duplicate_key),    cmocka_unit_test(test_size_arity),
        cmocka_unit_test(test_bad_size),         cmocka_unit_test(test_unknown_kind),
        cmocka_unit_test(test_bad_number),       cmocka_unit_test(test_missing_chapter),
        cmocka_unit_test(test_empty_course_file), cmocka_unit_test(test_shipped_course),
        cmocka_unit_test(test_forbidden_libraries), cmocka_unit_test(test_unknown_library),
    };
    return cmocka_run_group_tests_name("course", tests, NULL, NULL);
}
