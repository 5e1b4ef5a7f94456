/* libFuzzer: the course loader on a chapter.yaml that is the input, in a
 * scratch course with the other files a chapter names (kind k, ex01_add.cu,
 * ex02_flip.cu). Built by make fuzz, run by fuzz/run.sh. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/course.h"

static char *root, *chapter;

static void put(const char *rel, const char *text) {
    char *path = path_join(root, rel), *dir = path_dirname(path);
    if (make_dirs(dir) < 0 || write_file_atomic(path, text, strlen(text)) < 0) abort();
    free(dir);
    free(path);
}

static void cleanup(void) {
    char *cmd = xprintf("rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", root);
    free(cmd);
}

static void setup(void) {
    const char *base = getenv("TMPDIR");
    root = xprintf("%s/gpucourse-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(root)) abort();
    atexit(cleanup);
    put("course/course.yaml", "title: Fuzz\nchapters:\n  - 01-one\n");
    put("course/01-one/lesson.md", "# One\n");
    put("harness/kinds/k.cu", "// kind\n");
    put("exercises/ex01_add.cu", "// stub\n");
    put("solutions/ex01_add.cu", "// ref\n");
    put("exercises/ex02_flip.cu", "// stub\n");
    put("solutions/ex02_flip.cu", "// ref\n");
    chapter = path_join(root, "course/01-one/chapter.yaml");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) setup();
    FILE *f = fopen(chapter, "wb"); /* not write_file_atomic: no fsync per input */
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    StrList problems = {0};
    Course *c = course_load(root, &problems);
    /* The loader's promise: NULL exactly when a problem was reported. */
    if (!c != (problems.count > 0)) abort();
    for (int i = 0; c && i < c->nexercises; i++) {
        char buf[64];
        for (int k = 0; k < c->exercises[i].ntiming_sizes; k++) size_text(&c->exercises[i].timing_sizes[k], buf, sizeof buf);
        if (!course_find(c, c->exercises[i].id)) abort();
    }
    course_free(c);
    strlist_free(&problems);
    return 0;
}
