/* Shared by the C tests: cmocka, temporary directories, writing files. */
#ifndef GPUCOURSE_TEST_UTIL_H
#define GPUCOURSE_TEST_UTIL_H

#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "../src/util.h"

/* A fresh directory under $TMPDIR, removed by tmpdir_remove. */
static inline char *tmpdir_new(void) {
    const char *base = getenv("TMPDIR");
    char *tmpl = xprintf("%s/gpucourse-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpl)) abort();
    return tmpl;
}

static inline void tmpdir_remove(char *dir) {
    char *cmd = xprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    free(cmd);
    free(dir);
}

/* Writes text to dir/rel, creating directories. */
static inline void put_file(const char *dir, const char *rel, const char *text) {
    char *path = path_join(dir, rel);
    char *parent = path_dirname(path);
    assert_int_equal(make_dirs(parent), 0);
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    free(parent);
    free(path);
}

/* In a child of the test: a session of its own whose controlling terminal
 * is a new pseudo-terminal, as a shell's is; the terminal's descriptor, or
 * -1. */
static inline int take_a_terminal_as_ours(void) {
    setsid();
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) return -1;
    return open(ptsname(master), O_RDWR); /* without O_NOCTTY: the session's terminal from here */
}

#endif
