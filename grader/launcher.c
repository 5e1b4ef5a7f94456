#include "launcher.h"

#include <stdlib.h>
#include <string.h>

bool launcher_from_env(Launcher *l) {
    memset(l, 0, sizeof *l);
    const char *set = getenv("GPUCOURSE_LAUNCHER");
    if (!set) return false;
    strlist_add_words(&l->words, set);
    if (l->words.count == 0) return false;
    l->text = xstrdup(set);
    return true;
}

void launcher_free(Launcher *l) {
    strlist_free(&l->words);
    free(l->text);
    memset(l, 0, sizeof *l);
}
