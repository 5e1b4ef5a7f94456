/* libFuzzer: the progress reader (progress_load) on a progress.yaml that is
 * the input, then what progress_save writes of it read again. A damaged file
 * is moved aside by progress_load; the asides are removed after each input so
 * the directory stays small. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/progress.h"
#include "scratch.h"

static char *dir, *path;

static void clear(void) {
    DIR *d = opendir(dir);
    if (!d) abort();
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        char *p = path_join(dir, de->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
}

static void cleanup(void) {
    clear();
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_scratch(&dir, &path, "progress.yaml", cleanup);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    Progress p;
    if (progress_load(path, &p) == 0) {
        for (int i = 0; i < p.count; i++)
            if (progress_get(&p, p.items[i].id, false) == NULL) abort();
        /* what gpucourse writes, unknown keys kept included, it reads back clean and the same */
        if (progress_save(path, &p) == 0) {
            Progress q;
            if (progress_load(path, &q) != 0 || q.notice || q.count != p.count) abort();
            progress_free(&q);
        }
    }
    progress_free(&p);
    clear();
    return 0;
}
