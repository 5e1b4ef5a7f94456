/* The progress file: round trip, damage, versions, concurrent writers. */
#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include "../src/progress.h"

static void test_missing_file_is_empty(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 0);
    assert_null(p.notice);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

static void test_round_trip(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    Progress p = {0};
    ExProgress *a = progress_get(&p, "ex01", true);
    a->status = ST_PASSED;
    a->attempts = 3;
    a->hints_seen = 2;
    a->best_vs_reference = 0.9731;
    a->best_vs_baseline = 0.88;
    strcpy(a->last_verdict, "pass");
    strcpy(a->first_attempt, "2026-11-22T10:00:00+00:00");
    strcpy(a->last_attempt, "2026-11-22T11:00:00+00:00");
    strcpy(a->passed_at, "2026-11-22T11:00:00+00:00");
    ExProgress *b = progress_get(&p, "ex02", true);
    b->status = ST_COMPILES;
    b->attempts = 1;
    assert_int_equal(progress_save(path, &p), 0);
    progress_free(&p);

    Progress q;
    assert_int_equal(progress_load(path, &q), 0);
    assert_int_equal(q.count, 2);
    ExProgress *x = progress_get(&q, "ex01", false);
    assert_non_null(x);
    assert_int_equal(x->status, ST_PASSED);
    assert_int_equal(x->attempts, 3);
    assert_int_equal(x->hints_seen, 2);
    assert_true(x->best_vs_reference > 0.973 && x->best_vs_reference < 0.9732);
    assert_string_equal(x->last_verdict, "pass");
    assert_string_equal(x->passed_at, "2026-11-22T11:00:00+00:00");
    assert_int_equal(progress_get(&q, "ex02", false)->status, ST_COMPILES);
    assert_null(progress_get(&q, "ex03", false));
    progress_free(&q);
    free(path);
    tmpdir_remove(dir);
}

/* A damaged file is moved aside under a .damaged- name and reported. */
static void check_damaged(const char *text, const char *why) {
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", text);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 0);
    assert_non_null(p.notice);
    if (!strstr(p.notice, why)) fprintf(stderr, "notice: %s\n", p.notice);
    assert_non_null(strstr(p.notice, why));
    assert_false(file_exists(path));
    char *cmd = xprintf("ls '%s' | grep -q '^progress.yaml.damaged-'", dir);
    assert_int_equal(system(cmd), 0);
    /* the damaged contents are intact in the kept file */
    char *cat = xprintf("grep -qF -- '%.20s' '%s'/progress.yaml.damaged-*", text, dir);
    assert_int_equal(system(cat), 0);
    free(cat);
    free(cmd);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

static void test_damaged_syntax(void **state) {
    (void)state;
    check_damaged("version: 1\nexercises:\n  ex01: {status: passed\n", "4:1: did not find expected");
}

static void test_damaged_truncated(void **state) {
    (void)state;
    check_damaged("version: 1\nexercises:\n  ex01:\n    status: pas", "bad value in 'ex01'");
}

static void test_damaged_garbage(void **state) {
    (void)state;
    check_damaged("\x01\x02\x03 binary junk", "");
}

static void test_damaged_structure(void **state) {
    (void)state;
    check_damaged("- just\n- a list\n", "expected a mapping");
}

static void test_newer_version_is_left_alone(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", "version: 9\nexercises: {}\n");
    Progress p;
    assert_int_equal(progress_load(path, &p), -1);
    assert_non_null(strstr(last_error(), "newer than this gpucourse"));
    assert_true(file_exists(path));
    free(path);
    tmpdir_remove(dir);
}

static void add_attempt(Progress *p, void *ctx) {
    ExProgress *e = progress_get(p, ctx, true);
    e->attempts++;
}

/* Eight processes each record 25 attempts at once: none is lost. */
static void test_concurrent_writers(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    enum { WRITERS = 8, EACH = 25 };
    for (int w = 0; w < WRITERS; w++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            for (int k = 0; k < EACH; k++)
                if (progress_update(path, add_attempt, (void *)(w % 2 ? "ex01" : "ex02"), NULL) < 0) _exit(1);
            _exit(0);
        }
    }
    int failures = 0;
    for (int w = 0; w < WRITERS; w++) {
        int status;
        wait(&status);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(failures, 0);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_null(p.notice);
    assert_int_equal(progress_get(&p, "ex01", false)->attempts, WRITERS / 2 * EACH);
    assert_int_equal(progress_get(&p, "ex02", false)->attempts, WRITERS / 2 * EACH);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file_is_empty), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_damaged_syntax),        cmocka_unit_test(test_damaged_truncated),
        cmocka_unit_test(test_damaged_garbage),       cmocka_unit_test(test_damaged_structure),
        cmocka_unit_test(test_newer_version_is_left_alone), cmocka_unit_test(test_concurrent_writers),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
