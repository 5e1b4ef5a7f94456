/* gpucourse lesson [EX | CHAPTER | --chapter N]: a chapter's lesson as text,
 * through a pager when stdout is a terminal (less opens an exercise's lesson
 * at its section, as the app's l does). */
#define _GNU_SOURCE
#include "cli.h"

/* The chapter named by its directory (04-scans) or the name in it (scans);
 * NULL when none is. */
static const Chapter *chapter_named(const Course *c, const char *name) {
    for (int i = 0; i < c->nchapters; i++) {
        const char *dir = c->chapters[i].dir, *bare = dir + strspn(dir, "0123456789");
        if (*bare == '-') bare++;
        if (!strcmp(name, dir) || !strcmp(name, bare)) return &c->chapters[i];
    }
    return NULL;
}

/* less's pattern for a heading line: the text itself, its regex characters
 * escaped, the whole line */
static char *heading_pattern(const char *heading) {
    StrBuf sb = {0};
    sb_add(&sb, "+/^", 3);
    for (const char *c = heading; *c; c++) {
        if (strchr("\\^$.[]|()*+?{}/", *c)) sb_add(&sb, "\\", 1);
        sb_add(&sb, c, 1);
    }
    sb_add(&sb, "$", 1);
    return sb_take(&sb);
}

/* $PAGER split at blanks (no shell), else less -R, on a file of text; false
 * when no pager could run it (the caller prints it instead). less opens at
 * the heading `at` (an exercise's lesson section) where one is given; another
 * pager opens at the top. */
static bool page(const char *text, const char *at) {
    const char *pager = getenv("PAGER");
    char *less = NULL, *start = NULL;
    if (!pager || !*pager) {
        if (!(less = proc_find_in_path("less"))) return false;
        pager = "less -R";
        if (at) start = heading_pattern(at);
    }
    free(less);
    const char *tmp = getenv("TMPDIR");
    char *path = xprintf("%s/gpucourse-lesson-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    bool written = fd >= 0 && write_all(fd, text, strlen(text)) == 0;
    if (fd >= 0) close(fd);
    bool shown = false;
    if (written) {
        StrList argv = {0};
        strlist_add_words(&argv, pager);
        if (start) strlist_add(&argv, start);
        strlist_add(&argv, path);
        const char **args = strlist_argv(&argv);
        int code = 0;
        shown = proc_run_terminal(args, &code) == 0;
        if (!shown) fprintf(stderr, "gpucourse: the pager '%s' did not run: %s\n", pager, last_error());
        free(args);
        strlist_free(&argv);
    }
    if (fd >= 0) unlink(path);
    free(path);
    free(start);
    return shown;
}

int cmd_lesson(Session *s, const Options *o, const char *key) {
    const Chapter *ch = NULL;
    const char *section = NULL; /* an exercise's: where the pager opens */
    if (o->chapter) {
        int i = chapter_index(s->course, o->chapter);
        if (i < 0) return EXIT_USAGE;
        ch = &s->course->chapters[i];
    } else if (!(ch = key ? chapter_named(s->course, key) : NULL)) {
        Exercise *e = find_exercise(s, key);
        if (!e) return EXIT_USAGE;
        ch = &s->course->chapters[e->chapter];
        section = e->lesson_section;
    }
    char *markdown = read_file(ch->lesson_path, NULL);
    if (!markdown) return fail_setup();
    char *body = markdown_text(markdown, output_width(stdout));
    int number = (int)(ch - s->course->chapters) + 1;
    StrBuf text = {0};
    sb_printf(&text, "Chapter %d: ", number);
    sb_add_visible(&text, ch->title, strlen(ch->title));
    sb_printf(&text, "\n\n%s", body);
    fflush(stdout);
    if (!isatty(STDOUT_FILENO) || !page(text.buf, section)) fputs(text.buf, stdout);
    sb_free(&text);
    free(body);
    free(markdown);
    return 0;
}
