/* libFuzzer: libscan (grader/libscan.h) on a file whose bytes are the input.
 * A student's library is bytes they choose (inline assembly places any),
 * and the grader reads it in its own process: every section table, symbol
 * table, string and mangled name it holds goes through libscan's reader,
 * then every library rule and the readable names run on what was found. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../grader/libscan.h"
#include "scratch.h"

static char *dir, *path;

static void cleanup(void) {
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_scratch(&dir, &path, "student.so", cleanup);
    if (write_file_atomic(path, (const char *)data, size) < 0) abort();
    LibScan s;
    if (libscan_file(path, &s) != 0) return 0;
    static const char *const libraries[] = {"cublas", "cudnn", "cub", "thrust", "cutlass"};
    char evidence[512], name[256];
    for (size_t i = 0; i < sizeof libraries / sizeof *libraries; i++) {
        libscan_uses(&s, libraries[i], evidence, sizeof evidence);
        libscan_title(libraries[i]);
    }
    libscan_mentions(&s, "cub::", evidence, sizeof evidence);
    for (size_t i = 0; i < s.symbols.count; i++) libscan_readable(s.symbols.items[i], name, sizeof name);
    for (size_t i = 0; i < s.strings.count; i++) libscan_readable(s.strings.items[i], name, sizeof name);
    libscan_free(&s);
    return 0;
}
