/* Running child processes: capture, caps, timeouts that end the whole
 * process group, the private result pipe, and programs that cannot start. */
#include "test_util.h"

#include <signal.h>
#include <unistd.h>

#include "../src/proc.h"

static ProcResult run_sh(const char *script, double timeout, size_t cap, int result_fd) {
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = timeout, .capture_limit = cap, .result_fd = result_fd};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    return r;
}

static void test_capture_and_exit_code(void **state) {
    (void)state;
    ProcResult r = run_sh("echo out; echo err >&2; exit 3", 10, 0, 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.output, "out\nerr\n");
    assert_false(r.timed_out);
    proc_result_free(&r);
}

static void test_output_is_capped(void **state) {
    (void)state;
    /* 8 MB of output, 1000 bytes kept, the rest read and counted */
    ProcResult r = run_sh("head -c 8000000 /dev/zero | tr '\\0' x", 30, 1000, 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.output_len, 1000);
    assert_int_equal(r.output_dropped, 8000000 - 1000);
    proc_result_free(&r);
}

static void test_timeout_kills_the_group(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    /* the child starts a grandchild that would touch a file after 3 s */
    char *script = xprintf("(sleep 3; touch '%s/alive') & sleep 100", dir);
    double t0 = now_seconds();
    ProcResult r = run_sh(script, 0.5, 0, 0);
    assert_true(r.timed_out);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGKILL);
    assert_true(now_seconds() - t0 < 3.0);
    sleep(4);
    char *alive = path_join(dir, "alive");
    assert_false(file_exists(alive));
    free(alive);
    free(script);
    proc_result_free(&r);
    tmpdir_remove(dir);
}

static void test_result_pipe(void **state) {
    (void)state;
    ProcResult r = run_sh("echo \"fd=$GPUCOURSE_RESULT_FD\"; echo 'check: 1 ok' >&3", 10, 0, 3);
    assert_string_equal(r.output, "fd=3\n");
    assert_string_equal(r.results, "check: 1 ok\n");
    proc_result_free(&r);
}

static void test_extra_environment(void **state) {
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "echo $GPUCOURSE_NONCE", NULL};
    const char *env[] = {"GPUCOURSE_NONCE=abc", NULL};
    ProcSpec spec = {.argv = argv, .env = env, .timeout_s = 10};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_string_equal(r.output, "abc\n");
    proc_result_free(&r);
}

static void test_killed_by_signal(void **state) {
    (void)state;
    ProcResult r = run_sh("kill -SEGV $$", 10, 0, 0);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGSEGV);
    proc_result_free(&r);
}

static void test_cannot_start(void **state) {
    (void)state;
    const char *argv[] = {"/nonexistent/nvcc", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), -1);
    assert_string_equal(last_error(), "cannot run '/nonexistent/nvcc': No such file or directory");
}

static void on_output(const char *data, size_t len, void *ctx) { sb_add(ctx, data, len); }

static void test_live_output(void **state) {
    (void)state;
    StrBuf seen = {0};
    const char *argv[] = {"/bin/sh", "-c", "echo one; sleep 0.2; echo two", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 10, .on_output = on_output, .ctx = &seen};
    ProcResult r;
    assert_int_equal(proc_run(&spec, &r), 0);
    assert_string_equal(seen.buf, "one\ntwo\n");
    sb_free(&seen);
    proc_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_and_exit_code), cmocka_unit_test(test_output_is_capped),
        cmocka_unit_test(test_timeout_kills_the_group), cmocka_unit_test(test_result_pipe),
        cmocka_unit_test(test_extra_environment),     cmocka_unit_test(test_killed_by_signal),
        cmocka_unit_test(test_cannot_start),          cmocka_unit_test(test_live_output),
    };
    return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
