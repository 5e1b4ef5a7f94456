/* phases_script (grader/phases.h) on nvcc 13.0's recorded dry run of a
 * library (tests/data/nvcc_dryrun_ex01.txt): the two front ends at once,
 * the module id written before both, cudafe++ no longer making it, the
 * device chain's log shown after the host chain, nvcc's quoted notation
 * left out; and NULL (nvcc as it is) for every shape it does not know. */
#include "test_util.h"

#include "../grader/phases.h"

static char *recorded(void) {
    size_t len = 0;
    char *d = read_file("tests/data/nvcc_dryrun_ex01.txt", &len);
    assert_non_null(d);
    return d;
}

static void test_known_shape(void **state) {
    (void)state;
    char *dry = recorded(), *s = phases_script(dry, "_0123456789abcdef");
    assert_non_null(s);
    const char *id = strstr(s, "printf '%s' '_0123456789abcdef' | cat >\""), *host = strstr(s, "\n{ gcc "),
               *device = strstr(s, "device_log=$( { gcc "), *waited = strstr(s, "wait $host || exit 1"),
               *shown = strstr(s, "printf '%s\\n' \"$device_log\""), *link = strstr(s, "\ng++ ");
    assert_non_null(id), assert_non_null(device), assert_non_null(host), assert_non_null(waited);
    assert_non_null(shown), assert_non_null(link);
    /* the id first; the host chain, then the device's held; the device's log after the host has ended; the link last */
    assert_true(id < host && host < device && device < waited && waited < shown && shown < link);
    assert_null(strstr(s, "device.log"));                      /* nothing of the log on the disk */
    assert_null(strstr(s, "--gen_module_id_file"));           /* cudafe++ reads the id it is given */
    assert_non_null(strstr(s, "export PATH='"));               /* nvcc's environment, quoted */
    assert_null(strstr(s, "INCLUDES="));                       /* its notation, expanded in the commands */
    assert_non_null(strstr(s, "rm -f "));                      /* removals of files that may not exist */
    assert_non_null(strstr(s, "\"$CICC_PATH/cicc\""));
    free(s);
    free(dry);
}

/* Each change of shape: nvcc as it is. */
static void test_unknown_shapes(void **state) {
    (void)state;
    char *dry = recorded();
    assert_null(phases_script("", "_0123456789abcdef"));
    assert_null(phases_script("#$ gcc -E x.cu\n", "_0123456789abcdef"));
    assert_null(phases_script(dry, "_a b"));                   /* an id the script could not quote */
    char *edited = xstrdup(dry), *at = strstr(edited, " --gen_module_id_file");
    memcpy(at, " --gen_module_id_fil_", 21);                    /* cudafe++ that makes no id */
    assert_null(phases_script(edited, "_0123456789abcdef"));
    free(edited);
    edited = xstrdup(dry), at = strstr(edited, "#$ ptxas");
    memcpy(at, "#$ other", 8);                                   /* a program it does not know in the chain */
    assert_null(phases_script(edited, "_0123456789abcdef"));
    free(edited);
    free(dry);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_known_shape), cmocka_unit_test(test_unknown_shapes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
