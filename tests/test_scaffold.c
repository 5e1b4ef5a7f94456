/* gpucourse new (src/scaffold.c): what it makes loads as a valid course,
 * the YAML is appended to as text (comments stay), nothing is overwritten,
 * and each refusal says why. */
#include "test_util.h"

#include "../src/course.h"
#include "../src/scaffold.h"

/* A kind file as harness/kinds/ has them, reduced to what is read. */
static const char kind_1d[] =
    "extern const KindDef kind = {\n"
    "    \"k\", \"void solve(const float* a, float* b, int n)\", 1, 2,\n"
    "    {{\"a\", ELEM_F32, ROLE_IN, dims_n, -1, 1, 0}}};\n";

static char *new_course(StrList *made) {
    char *dir = tmpdir_new();
    assert_int_equal(scaffold_course(dir, "My course", made), 0);
    put_file(dir, "harness/kinds/k.cu", kind_1d);
    return dir;
}

static Course *load(const char *dir) {
    StrList problems = {0};
    Course *c = course_load(dir, &problems);
    for (int i = 0; i < problems.count; i++) fprintf(stderr, "%s\n", problems.items[i]);
    strlist_free(&problems);
    return c;
}

static void test_kind_signature(void **state) {
    (void)state;
    char *sig = NULL;
    int ndims = 0;
    assert_int_equal(kind_signature(kind_1d, &sig, &ndims), 0);
    assert_string_equal(sig, "void solve(const float* a, float* b, int n)");
    assert_int_equal(ndims, 1);
    free(sig);
    /* as gemm_bf16.cu has it: the name, then the signature on a line of its own */
    assert_int_equal(kind_signature("{\n  \"g\",\n  \"void solve(float* C, int M, int N, int K)\",\n  3, 3,", &sig, &ndims), 0);
    assert_int_equal(ndims, 3);
    free(sig);
    assert_int_equal(kind_signature("\"void solve(int n)\", ndims", &sig, &ndims), -1);
    assert_non_null(strstr(last_error(), "number of size arguments"));
    assert_int_equal(kind_signature("\"void solve(int n)\", 4, 1", &sig, &ndims), -1);
    assert_int_equal(kind_signature("no kind here", &sig, &ndims), -1);
}

/* course, chapter, two exercises: the course loads, ids in order, the kind's
 * signature in the stub and the reference, sizes with the kind's arity. */
static void test_scaffolded_course_loads(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    assert_int_equal(scaffold_chapter(dir, "basics", NULL, &made), 0);
    StrList problems = {0}; /* a chapter without exercises is not a course yet */
    assert_null(course_load(dir, &problems));
    assert_int_equal(problems.count, 1);
    strlist_free(&problems);
    assert_int_equal(scaffold_exercise(dir, "basics", "add", "k", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "1", "add_more", "k", "Add: \"more\"", &made), 0);
    Course *c = load(dir);
    assert_non_null(c);
    assert_string_equal(c->title, "My course");
    assert_string_equal(c->chapters[0].dir, "01-basics");
    assert_string_equal(c->chapters[0].title, "Basics");
    assert_int_equal(c->nexercises, 2);
    assert_string_equal(c->exercises[1].id, "ex02");
    assert_string_equal(c->exercises[1].file, "ex02_add_more.cu");
    assert_string_equal(c->exercises[1].title, "Add: \"more\"");
    assert_int_equal(c->exercises[1].check_sizes[0].count, 1);
    assert_true(c->exercises[1].floor_baseline > 0);
    char *stub = course_stub_path(c, &c->exercises[0]);
    char *text = read_file(stub, NULL);
    assert_non_null(strstr(text, "// ex01 add: Add\n//\n// What this exercise teaches\n"));
    assert_non_null(strstr(text, "TODO"));
    assert_non_null(strstr(text, "extern \"C\" void solve(const float* a, float* b, int n)\n{"));
    free(text), free(stub);
    char *ref = course_solution_path(c, &c->exercises[0]);
    text = read_file(ref, NULL);
    assert_non_null(strstr(text, "// ex01 add -- reference solution"));
    free(text), free(ref);
    course_free(c);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* A chapter named with its number gets the NN- of the others (2-fancy as
 * chapter 2: 02-fancy); a number that is not its place is refused. */
static void test_numbered_chapter(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    assert_int_equal(scaffold_chapter(dir, "2-fancy", NULL, &made), SCAFFOLD_REFUSED);
    assert_string_equal(last_error(), "a new chapter is chapter 1 of the course: name it 01-fancy (the number is its "
                                      "place in course.yaml)");
    assert_int_equal(scaffold_chapter(dir, "1-basics", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "basics", "add", "k", NULL, &made), 0);
    assert_int_equal(scaffold_chapter(dir, "2-fancy", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "fancy", "sub", "k", NULL, &made), 0);
    Course *c = load(dir);
    assert_non_null(c);
    assert_string_equal(c->chapters[0].dir, "01-basics");
    assert_string_equal(c->chapters[1].dir, "02-fancy");
    assert_string_equal(c->chapters[1].title, "Fancy");
    course_free(c);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* check-course finds what gpucourse new left for the instructor to write,
 * at its file:line:col: the lesson, the stub's header, the reference; once
 * written, nothing (the stub's kernel keeps the student's TODOs). */
static void test_scaffold_placeholders_found(void **state) {
    (void)state;
    StrList made = {0}, problems = {0};
    char *dir = new_course(&made);
    assert_int_equal(scaffold_chapter(dir, "basics", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "basics", "add", "k", NULL, &made), 0);
    Course *c = load(dir);
    assert_non_null(c);
    course_check_content(c, &problems);
    assert_int_equal(problems.count, 4);
    assert_string_equal(problems.items[0], "course/01-basics/lesson.md:3:1: the lesson is still gpucourse new's "
                                           "placeholder: write it (students read it in the app)");
    assert_non_null(strstr(problems.items[1], "course/01-basics/chapter.yaml:"));
    assert_non_null(strstr(problems.items[2], "exercises/ex01_add.cu:4:6: the stub's header is still"));
    assert_non_null(strstr(problems.items[3], "solutions/ex01_add.cu:3:4: the reference still has"));
    course_free(c);
    strlist_free(&problems);
    put_file(dir, "course/01-basics/lesson.md", "# Basics\n\nThreads add.\n");
    put_file(dir, "solutions/ex01_add.cu", "// ex01 add -- one thread per element\n");
    char *stub = path_join(dir, "exercises/ex01_add.cu");
    char *text = read_file(stub, NULL);
    char *idea = strstr(text, SCAFFOLD_STUB_IDEA_TODO), *fill = strstr(text, SCAFFOLD_STUB_FILL_TODO);
    assert_non_null(idea), assert_non_null(fill);
    memcpy(idea, "Adding", 6), memcpy(fill, "In the kernel: add", 18);
    put_file(dir, "exercises/ex01_add.cu", text);
    c = load(dir);
    course_check_content(c, &problems);
    assert_int_equal(problems.count, 1); /* the YAML entry's, not written here */
    assert_non_null(strstr(problems.items[0], "course/01-basics/chapter.yaml:"));
    course_free(c);
    free(text), free(stub);
    strlist_free(&problems);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* The instructor's text stays as written: comments, other keys, layout. */
static void test_appends_as_text(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    static const char course_yaml[] = "# my notes\ntitle: T   # the title\nchapters:\n- 01-one  # at column 0\n";
    static const char chapter[] = "title: One\nlesson: lesson.md\n# before the list\nexercises:\n"
                                  "    - id: ex01\n      name: first\n      title: First\n      kind: k\n"
                                  "      file: ex01_first.cu\n      task: t\n      sizes: {check: [[1]], timing: [1]}\n"
                                  "      floors: {reference: 0.5}\n      hints: [h]   # one hint";
    put_file(dir, "course/course.yaml", course_yaml);
    put_file(dir, "course/01-one/chapter.yaml", chapter);
    put_file(dir, "course/01-one/lesson.md", "# One\n");
    put_file(dir, "exercises/ex01_first.cu", "//\n");
    put_file(dir, "solutions/ex01_first.cu", "//\n");
    assert_int_equal(scaffold_exercise(dir, "one", "second", "k", NULL, &made), 0);
    assert_int_equal(scaffold_chapter(dir, "two", "Two: the sequel", &made), 0);
    char *path = path_join(dir, "course/course.yaml");
    char *text = read_file(path, NULL);
    assert_string_equal(text, "# my notes\ntitle: T   # the title\nchapters:\n- 01-one  # at column 0\n- 02-two\n");
    free(text), free(path);
    path = path_join(dir, "course/01-one/chapter.yaml");
    text = read_file(path, NULL);
    assert_memory_equal(text, chapter, strlen(chapter));
    assert_non_null(strstr(text, "# one hint\n\n    - id: ex02\n      name: second\n"));
    free(text), free(path);
    assert_int_equal(scaffold_exercise(dir, "02-two", "third", "k", NULL, &made), 0);
    Course *c = load(dir);
    assert_non_null(c);
    assert_string_equal(c->exercises[2].id, "ex03");
    assert_string_equal(c->chapters[1].title, "Two: the sequel");
    course_free(c);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* Each refusal: the message, and nothing made or changed. */
static void test_refusals(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    assert_int_equal(scaffold_course(dir, NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "'course/course.yaml' exists already; gpucourse new never overwrites"));
    assert_int_equal(scaffold_chapter(dir, "Bad Name", NULL, &made), SCAFFOLD_REFUSED);
    assert_int_equal(scaffold_chapter(dir, "one", NULL, &made), 0);
    assert_int_equal(scaffold_chapter(dir, "one", NULL, &made), SCAFFOLD_REFUSED);
    assert_string_equal(last_error(), "chapter '01-one' is already in course/course.yaml");
    assert_int_equal(scaffold_chapter(dir, "two", NULL, &made), 0);
    int before = made.count;
    assert_int_equal(scaffold_exercise(dir, "three", "x", "k", NULL, &made), SCAFFOLD_REFUSED);
    assert_string_equal(last_error(), "no chapter 'three' in course/course.yaml (it has 01-one, 02-two)");
    assert_int_equal(scaffold_exercise(dir, "one", "x", "nope", NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "no kind 'nope': no harness/kinds/nope.cu"));
    assert_int_equal(scaffold_exercise(dir, "two", "x", "k", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "one", "y", "k", NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "would renumber them"));
    assert_int_equal(scaffold_exercise(dir, "two", "x", "k", NULL, &made), SCAFFOLD_REFUSED);
    assert_string_equal(last_error(), "an exercise named 'x' exists already (ex01 in 02-two)");
    put_file(dir, "solutions/ex02_y.cu", "// mine\n");
    assert_int_equal(scaffold_exercise(dir, "two", "y", "k", NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "'solutions/ex02_y.cu' exists already"));
    char *stub = path_join(dir, "exercises/ex02_y.cu");
    assert_false(file_exists(stub)); /* nothing half made */
    free(stub);
    assert_int_equal(made.count, before + 3);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* A list that does not end the file, or is in flow style, cannot be
 * appended to: the file is left as it was, and the error says what to add. */
static void test_unappendable_list(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    static const char flow[] = "chapters: []\ntitle: Flow\n";
    put_file(dir, "course/course.yaml", flow);
    assert_int_equal(scaffold_chapter(dir, "one", NULL, &made), SCAFFOLD_FILES);
    assert_non_null(strstr(last_error(), "cannot append to course/course.yaml"));
    assert_non_null(strstr(last_error(), "add '- 01-one' to its chapters by hand"));
    char *path = path_join(dir, "course/course.yaml");
    char *text = read_file(path, NULL);
    assert_string_equal(text, flow);
    free(text), free(path);
    path = path_join(dir, "course/01-one");
    assert_false(dir_exists(path)); /* its files went again */
    free(path);
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* Titles that YAML would read as something else unquoted (a mapping, a
 * comment, an alias, a tag, a list, a boolean, a number, null) or that need
 * escapes: each loads back as given, in course.yaml, chapter.yaml and the
 * exercise's entry. */
static void test_odd_titles(void **state) {
    (void)state;
    char long_title[5000];
    memset(long_title, 'x', sizeof long_title - 1);
    long_title[sizeof long_title - 1] = '\0';
    const char *const titles[] = {"Colon: here", "# not a comment", "\"double\" quotes", "'single' quotes", "- dash",
                                  "--dashes", "* star", "& ampersand", "! bang", "% percent", "@ at", "`backquote`",
                                  "{braces}", "[brackets]", "| pipe", "> more", "? question", "back\\slash \\n",
                                  "  spaced  ", "ünïcødé ✓ 日本語",
                                  "yes", "null", "~", "1e3", "\xef\xbb\xbf bom", long_title};
    for (size_t i = 0; i < ARRAY_SIZE(titles); i++) {
        StrList made = {0};
        char *dir = tmpdir_new();
        assert_int_equal(scaffold_course(dir, titles[i], &made), 0);
        put_file(dir, "harness/kinds/k.cu", kind_1d);
        assert_int_equal(scaffold_chapter(dir, "one", titles[i], &made), 0);
        assert_int_equal(scaffold_exercise(dir, "one", "add", "k", titles[i], &made), 0);
        Course *c = load(dir);
        if (!c) fail_msg("title '%s' does not load", titles[i]);
        assert_string_equal(c->title, titles[i]);
        assert_string_equal(c->chapters[0].title, titles[i]);
        assert_string_equal(c->exercises[0].title, titles[i]);
        course_free(c);
        strlist_free(&made);
        tmpdir_remove(dir);
    }
}

/* What a title cannot be (not one line of text), and a course without a
 * directory's name: refused, nothing made. */
static void test_bad_titles(void **state) {
    (void)state;
    const char *const titles[] = {"", "   ", "two\nlines", "tab\there", "cr\r", "del\x7f", "c1 \xc2\x80",
                                  "nel \xc2\x85", "ls \xe2\x80\xa8", "\xef\xbf\xbe", "not utf-8 \xff",
                                  "cut \xe6\x97"};
    StrList made = {0};
    char *dir = new_course(&made);
    for (size_t i = 0; i < ARRAY_SIZE(titles); i++) {
        char *sub = path_join(dir, "sub");
        if (scaffold_course(sub, titles[i], &made) != SCAFFOLD_REFUSED) fail_msg("title %zu is taken", i);
        assert_non_null(strstr(last_error(), "title"));
        assert_false(dir_exists(sub));
        assert_int_equal(scaffold_chapter(dir, "one", titles[i], &made), SCAFFOLD_REFUSED);
        assert_int_equal(scaffold_exercise(dir, "one", "add", "k", titles[i], &made), SCAFFOLD_REFUSED);
        free(sub);
    }
    assert_string_equal(last_error(), "a title must be UTF-8 text: byte 5 is not");
    assert_int_equal(scaffold_course(dir, "two\nlines", &made), SCAFFOLD_REFUSED);
    assert_string_equal(last_error(), "a title is one line of text without control characters: U+000A at byte 4");
    assert_int_equal(made.count, 1); /* new_course's course.yaml */
    assert_int_equal(scaffold_course("", NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "new course needs a directory's name"));
    assert_int_equal(scaffold_course("/", NULL, &made), SCAFFOLD_REFUSED); /* no name to make a title of */
    assert_non_null(strstr(last_error(), "give one with --title"));
    strlist_free(&made);
    tmpdir_remove(dir);
}

/* An unknown kind: the error names the kinds there are, the course's own
 * and the shared harness's (here: the course's only). */
static void test_unknown_kind_lists_kinds(void **state) {
    (void)state;
    StrList made = {0};
    char *dir = new_course(&made);
    put_file(dir, "harness/kinds/another_one.cu", kind_1d);
    put_file(dir, "harness/kinds/notes.txt", "not a kind\n");
    assert_int_equal(scaffold_chapter(dir, "one", NULL, &made), 0);
    assert_int_equal(scaffold_exercise(dir, "one", "x", "nope", NULL, &made), SCAFFOLD_REFUSED);
    char *harness = course_harness_dir(dir);
    const char *known = harness ? "known: " : "known: another_one, k;"; /* the shared one's when built */
    assert_non_null(strstr(last_error(), "no kind 'nope': no harness/kinds/nope.cu"));
    assert_non_null(strstr(last_error(), known));
    assert_non_null(strstr(last_error(), "another_one"));
    assert_int_equal(scaffold_exercise(dir, "one", "x", "Bad Kind", NULL, &made), SCAFFOLD_REFUSED);
    assert_non_null(strstr(last_error(), "no kind 'Bad Kind': a kind is named like harness/kinds/KIND.cu (known: "));
    assert_non_null(strstr(last_error(), "another_one"));
    free(harness);
    strlist_free(&made);
    tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_signature),    cmocka_unit_test(test_scaffolded_course_loads),
        cmocka_unit_test(test_appends_as_text),   cmocka_unit_test(test_refusals), cmocka_unit_test(test_numbered_chapter),
        cmocka_unit_test(test_scaffold_placeholders_found),
        cmocka_unit_test(test_unappendable_list), cmocka_unit_test(test_odd_titles),
        cmocka_unit_test(test_bad_titles),        cmocka_unit_test(test_unknown_kind_lists_kinds),
    };
    return cmocka_run_group_tests_name("scaffold", tests, NULL, NULL);
}
