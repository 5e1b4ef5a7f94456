/* The control for tests/runner_box.sh: loads the student's library as the
 * runner does (`load --student LIBRARY`, started by startup.c the same way),
 * but with no sandbox and no CUDA, so that every probe of hostile.c shows
 * what it gets where nothing stops it: a probe that is blocked in the runner
 * but not here was blocked by the sandbox. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "--student")) {
        fprintf(stderr, "usage: %s --student LIBRARY\n", argv[0]);
        return 2;
    }
    if (!dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "load: %s\n", dlerror());
        return 4;
    }
    return 0;
}
