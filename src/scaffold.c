#define _GNU_SOURCE
#include "scaffold.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "course.h"
#include "workspace.h"

/* "shared_memory" -> "Shared memory" */
static char *title_from(const char *name) {
    char *t = xstrdup(name);
    for (char *p = t; *p; p++)
        if (*p == '_' || *p == '-') *p = ' ';
    t[0] = (char)toupper((unsigned char)t[0]);
    return t;
}

/* A title is one line of text, said in lists, in the stub's first comment
 * and in the lesson's heading: not blank, valid UTF-8, no control
 * characters (a newline would end the comment; YAML's reader refuses DEL,
 * the C1 controls and U+FFFE/U+FFFF) nor line separators. -1 with error
 * set; the title itself is not repeated (it may hold escapes). */
static int check_title(const char *title) {
    if (!title[strspn(title, " ")]) return error("a title must not be empty or blank");
    for (size_t i = 0, len = strlen(title), n; i < len; i += n) {
        long cp = utf8_decode(title + i, len - i, &n);
        if (cp < 0) return error("a title must be UTF-8 text: byte %zu is not", i + 1);
        if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfffe || cp == 0xffff)
            return error("a title is one line of text without control characters: U+%04lX at byte %zu", cp, i + 1);
    }
    return 0;
}

/* A YAML double-quoted scalar: any title check_title takes reads back as
 * written (its " and \ escaped). */
static void yaml_quoted(StrBuf *sb, const char *s) {
    sb_puts(sb, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sb_printf(sb, "\\%c", *s);
        else sb_add(sb, s, 1);
    }
    sb_puts(sb, "\"");
}

/* Writes a file that must not exist yet (the check before is the caller's;
 * O_EXCL here closes the race). */
static int create_file(const char *root, const char *rel, const char *text, StrList *made) {
    char *path = path_join(root, rel);
    char *dir = path_dirname(path);
    int rc = make_dirs(dir) < 0 ? SCAFFOLD_FILES : 0;
    FILE *f = NULL;
    if (rc == 0 && !(f = fopen(path, "wx"))) {
        error("cannot create '%s': %m", rel);
        rc = SCAFFOLD_FILES;
    }
    if (f && (fputs(text, f) < 0) + (fclose(f) != 0)) { /* both run */
        error("cannot write '%s': %m", rel);
        rc = SCAFFOLD_FILES;
    }
    if (rc == 0) strlist_add(made, rel);
    free(dir);
    free(path);
    return rc;
}

static int refuse_existing(const char *root, const char *rel) {
    char *path = path_join(root, rel);
    bool there = access(path, F_OK) == 0;
    free(path);
    return there ? error("'%s' exists already; gpucourse new never overwrites a file", rel) : 0;
}

/* Undoes create_file back to made->count == from, keeping the error. */
static void remove_made(const char *root, StrList *made, int from) {
    char *why = xstrdup(last_error());
    for (int i = made->count - 1; i >= from; i--) {
        char *path = path_join(root, made->items[i]);
        unlink(path);
        free(path);
        free(made->items[i]);
    }
    made->count = from;
    error("%s", why);
    free(why);
}

/* The indentation of the last line in text that starts with `item` after
 * spaces ("- " for a list of names, "- id:" for exercises); fallback when
 * there is none. */
static int item_indent(const char *text, const char *item, int fallback) {
    int indent = fallback;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        int n = (int)strspn(line, " ");
        if (!strncmp(line + n, item, strlen(item))) indent = n;
    }
    return indent;
}

/* Appends to a YAML file as text: a newline first where it lacks one. */
static int append_text(const char *root, const char *rel, const char *old, const char *add) {
    char *path = path_join(root, rel);
    size_t len = strlen(old);
    char *text = xprintf("%s%s%s", old, len && old[len - 1] != '\n' ? "\n" : "", add);
    int rc = write_file_atomic(path, text, strlen(text));
    free(text);
    free(path);
    return rc;
}

static int restore_text(const char *root, const char *rel, const char *old) {
    char *path = path_join(root, rel);
    int rc = write_file_atomic(path, old, strlen(old));
    free(path);
    return rc;
}

/* The course's outline; -1 with the first problem as the error. */
static int read_outline(const char *root, CourseOutline *o) {
    StrList problems = {0};
    int rc = course_outline(root, o, &problems);
    if (rc < 0) {
        error("%s (run 'gpucourse check-course' for all problems)", problems.items[0]);
        course_outline_free(o);
    }
    strlist_free(&problems);
    return rc < 0 ? SCAFFOLD_FILES : 0;
}

/* The id names the course's workspace (workspace_default_root): the
 * bundled course's id, or one whose workspace another course holds
 * already (its .course-id says so), would mix two courses' progress and
 * files, as their exercises share ids and file names. Where workspaces
 * are named (GPUCOURSE_WORKSPACE), only the bundled course's id is refused. */
static int refuse_taken_id(const char *id) {
    if (!strcmp(id, COURSE_BUNDLED_ID))
        return error("a course's id is made from its directory's name, and '%s' is the id of the course that comes "
                     "with gpucourse (its workspace is ~/gpucourse): name the directory otherwise",
                     id);
    const char *named = getenv("GPUCOURSE_WORKSPACE"); /* workspaces named by hand: the user keeps them apart */
    if (named && *named) return 0;
    char *root = workspace_default_root(id);
    char *held_path = root ? path_join(root, ".course-id") : NULL;
    char *held = held_path && access(held_path, F_OK) == 0 ? read_file_max(held_path, 4096, NULL) : NULL;
    int rc = 0;
    if (held) held[strcspn(held, "\n")] = '\0';
    if (held && !strcmp(held, id))
        rc = error("a course's id is made from its directory's name, and a course with the id '%s' has its workspace "
                   "at %s already: name the directory otherwise (or remove that workspace, if its course is gone)",
                   id, root);
    free(held);
    free(held_path);
    free(root);
    return rc;
}

int scaffold_course(const char *dir, const char *title, StrList *made) {
    if (!*dir) return error("new course needs a directory's name (an empty one would be the current directory: give '.')");
    if (title && check_title(title) < 0) return -1;
    if (refuse_existing(dir, "course/course.yaml") < 0) return -1;
    char *base = NULL, *trimmed = xstrdup(dir);
    for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--) trimmed[n - 1] = '\0';
    const char *slash = strrchr(trimmed, '/');
    char *real = realpath(dir, NULL); /* "." names a directory too */
    const char *rslash = real ? strrchr(real, '/') : NULL;
    char *id = course_id_from(rslash && rslash[1] ? rslash + 1 : slash ? slash + 1 : trimmed);
    free(real);
    if (refuse_taken_id(id) < 0) {
        free(trimmed), free(id);
        return SCAFFOLD_REFUSED;
    }
    if (!title) { /* from the directory's name */
        base = title_from(slash ? slash + 1 : trimmed);
        if (check_title(base) < 0) {
            char *why = xstrdup(last_error());
            error("%s (made from the directory's name): give one with --title", why);
            free(why);
            free(base), free(trimmed), free(id);
            return -1;
        }
    }
    free(trimmed);
    StrBuf sb = {0};
    sb_printf(&sb, "# The course: chapters in order, each a directory under course/ with a\n"
                   "# chapter.yaml (docs/authoring.md). Add one: gpucourse new chapter NAME\n"
                   "# The id names its workspace, ~/gpucourse/courses/%s: keep it.\n"
                   "id: %s\n"
                   "title: ",
              id, id);
    free(id);
    yaml_quoted(&sb, title ? title : base);
    sb_puts(&sb, "\nchapters:\n");
    free(base);
    int rc = create_file(dir, "course/course.yaml", sb.buf, made);
    sb_free(&sb);
    static const char *const dirs[] = {"exercises", "solutions", "harness/kinds"};
    for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(dirs); i++) {
        char *path = path_join(dir, dirs[i]);
        rc = make_dirs(path) < 0 ? SCAFFOLD_FILES : 0;
        free(path);
    }
    return rc;
}

/* Appends `add` to the YAML file rel as text, then reads the course's
 * outline back: `ok` must say it now reads as meant (the list was the
 * file's last thing, in block style). If not, the old text goes back. */
static int append_checked(const char *root, const char *rel, const char *add,
                          bool (*ok)(const CourseOutline *, const void *), const void *ctx, const char *by_hand) {
    char *path = path_join(root, rel);
    char *old = read_file(path, NULL);
    free(path);
    if (!old) return SCAFFOLD_FILES;
    int rc = append_text(root, rel, old, add) < 0 ? SCAFFOLD_FILES : 0;
    if (rc == 0) {
        CourseOutline o = {0};
        StrList problems = {0};
        bool good = course_outline(root, &o, &problems) == 0 && ok(&o, ctx);
        course_outline_free(&o);
        strlist_free(&problems);
        if (!good) {
            restore_text(root, rel, old);
            error("cannot append to %s: its list does not end the file in block style (\"- item\" lines); "
                  "left as it was: add %s by hand",
                  rel, by_hand);
            rc = SCAFFOLD_FILES;
        }
    }
    free(old);
    return rc;
}

static bool chapter_is_last(const CourseOutline *o, const void *dir) {
    return o->nchapters > 0 && !strcmp(o->chapters[o->nchapters - 1].dir, dir);
}

int scaffold_chapter(const char *root, const char *name, const char *title, StrList *made) {
    if (!course_plain_name(name, "_-"))
        return error("a chapter's name uses only a-z, 0-9, - and _, not '%s'", name);
    if (title && check_title(title) < 0) return -1;
    CourseOutline o;
    if (read_outline(root, &o) < 0) return SCAFFOLD_FILES;
    int number = o.nchapters + 1;
    /* NN-NAME, numbered in course order; a NAME that comes with its number
     * (2-fancy) must say its place, and is written NN- as the others are */
    bool numbered = isdigit((unsigned char)name[0]) && strchr(name, '-');
    if (numbered) {
        const char *dash = strchr(name, '-');
        char *end;
        long given = strtol(name, &end, 10);
        if (end != dash || given != number || !dash[1]) {
            course_outline_free(&o);
            return error("a new chapter is chapter %d of the course: name it %s%02d-%s (the number is its place in "
                         "course.yaml)",
                         number, end == dash && dash[1] ? "" : "NAME or ", number, end == dash && dash[1] ? dash + 1 : "NAME");
        }
    }
    const char *bare = numbered ? strchr(name, '-') + 1 : name; /* the name without its number */
    char *dir = xprintf("%02d-%s", number, bare);
    char *own_title = title ? xstrdup(title) : title_from(bare);
    char *rel = xprintf("course/%s", dir);
    char *yaml_rel = xprintf("%s/chapter.yaml", rel), *lesson_rel = xprintf("%s/lesson.md", rel);
    int before = made->count, rc = 0;
    for (int k = 0; k < o.nchapters && rc == 0; k++) {
        const char *d = o.chapters[k].dir, *dash = strchr(d, '-');
        if (!strcmp(d, dir) || (dash && isdigit((unsigned char)d[0]) && !strcmp(dash + 1, bare)))
            rc = error("chapter '%s' is already in course/course.yaml", d);
    }
    course_outline_free(&o);
    if (rc == 0) rc = refuse_existing(root, rel);
    if (rc == 0) {
        StrBuf sb = {0};
        sb_printf(&sb,
                  "# Chapter %d. Every key: docs/authoring.md. Add an exercise:\n"
                  "#   gpucourse new exercise %s NAME --kind KIND\n"
                  "title: ",
                  number, dir);
        yaml_quoted(&sb, own_title);
        sb_puts(&sb, "\nlesson: lesson.md\nexercises:\n");
        rc = create_file(root, yaml_rel, sb.buf, made);
        sb_free(&sb);
    }
    if (rc == 0) {
        char *lesson = xprintf("# %s\n\n" SCAFFOLD_LESSON_TODO " (docs/authoring.md: every cuda block "
                               "compiles).\n",
                               own_title);
        rc = create_file(root, lesson_rel, lesson, made);
        free(lesson);
    }
    if (rc == 0) {
        char *path = path_join(root, "course/course.yaml");
        char *text = read_file(path, NULL);
        free(path);
        char *add = text ? xprintf("%*s- %s\n", item_indent(text, "- ", 2), "", dir) : NULL;
        char *by_hand = xprintf("'- %s' to its chapters", dir);
        rc = text ? append_checked(root, "course/course.yaml", add, chapter_is_last, dir, by_hand) : SCAFFOLD_FILES;
        free(by_hand), free(add), free(text);
    }
    if (rc < 0 && made->count > before) { /* nothing half made: the directory was new too */
        remove_made(root, made, before);
        char *d = path_join(root, rel);
        rmdir(d);
        free(d);
    } else if (rc == 0) {
        strlist_add(made, "course/course.yaml");
    }
    free(own_title), free(rel), free(yaml_rel), free(lesson_rel), free(dir);
    return rc;
}

int kind_signature(const char *source, char **signature, int *ndims) {
    const char *start = strstr(source, "\"void solve(");
    const char *end = start ? strchr(start + 1, '"') : NULL;
    char *rest = NULL;
    long n = 0;
    if (end) {
        const char *p = end + 1;
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        n = strtol(p, &rest, 10);
    }
    if (!end || rest == end + 1 || n < 1 || n > MAX_SIZE_ARGS)
        return error("no \"void solve(...)\" string followed by the number of size arguments (1 to %d): "
                     "a KindDef starts {\"NAME\", \"void solve(...)\", NDIMS, ...}",
                     MAX_SIZE_ARGS);
    *signature = xstrndup(start + 1, (size_t)(end - start - 1));
    *ndims = (int)n;
    return 0;
}

/* The chapter that `key` names: its directory, its number, or its name
 * without the number ("tma" for 08-tma). -1 when none. */
static int find_chapter(const CourseOutline *o, const char *key) {
    for (int k = 0; k < o->nchapters; k++) {
        const char *dir = o->chapters[k].dir, *dash = strchr(dir, '-');
        if (!strcmp(dir, key) || (dash && isdigit((unsigned char)dir[0]) && !strcmp(dash + 1, key))) return k;
    }
    char *end;
    long n = strtol(key, &end, 10);
    return isdigit((unsigned char)key[0]) && !*end && n >= 1 && n <= o->nchapters ? (int)n - 1 : -1;
}

typedef struct {
    int chapter;
    const char *id;
} ExerciseAt;

static bool exercise_is_last(const CourseOutline *o, const void *ctx) {
    const ExerciseAt *at = ctx;
    const StrList *ids = &o->chapters[at->chapter].ids;
    return at->chapter < o->nchapters && ids->count > 0 && !strcmp(ids->items[ids->count - 1], at->id);
}

/* Sizes that follow docs/authoring.md: small and odd check sizes (tails),
 * a timing size far above the 50 MB L2. */
static const char *const sizes_by_ndims[] = {
    NULL,
    "  check: [[1], [31], [1000], [65537], [1000003]]\n"
    "  timing: [268435456]\n",
    "  check: [[1, 1], [31, 33], [1, 1000], [1000, 1], [257, 1000]]\n"
    "  timing: [16384, 16383]\n",
    "  check: [[1, 1, 1], [31, 33, 35], [128, 256, 64], [257, 129, 300]]\n"
    "  timing: [4096, 4096, 4096]\n",
};

/* The includes a signature's types need. */
static void add_includes(StrBuf *sb, const char *signature) {
    sb_puts(sb, "#include <cuda_runtime.h>\n");
    if (strstr(signature, "bfloat16")) sb_puts(sb, "#include <cuda_bf16.h>\n");
    if (strstr(signature, "half")) sb_puts(sb, "#include <cuda_fp16.h>\n");
    sb_puts(sb, "#include <cstddef>\n\n");
}

static char *stub_text(const char *id, const char *name, const char *title, const char *kind, const char *signature) {
    StrBuf sb = {0};
    sb_printf(&sb,
              "// %s %s: %s\n"
              "//\n"
              "// What this exercise teaches\n"
              "//   " SCAFFOLD_STUB_IDEA_TODO ", in two or three lines.\n"
              "//\n"
              "// What to fill in (the TODOs below)\n"
              "//   1. " SCAFFOLD_STUB_FILL_TODO "\n"
              "//   2. In solve(): launch enough blocks to cover the whole problem.\n"
              "//\n"
              "// How it is graded\n"
              "//   gpucourse grade %s\n"
              "//   The outputs are filled with NaN before every run, so every element\n"
              "//   must be written. Checked at small and odd sizes, then timed against\n"
              "//   the reference.\n"
              "//   As shipped this file compiles but fails with \"wrong answer\".\n",
              id, name, title, id);
    add_includes(&sb, signature);
    sb_printf(&sb,
              "// The problem (harness kind %s):\n"
              "//   %s\n"
              "__global__ void %s_kernel()\n"
              "{\n"
              "    // TODO: the work of one thread. Give the kernel the arrays and sizes it needs.\n"
              "}\n"
              "\n"
              "extern \"C\" %s\n"
              "{\n"
              "    // TODO: launch %s_kernel with enough blocks for the whole problem.\n"
              "}\n",
              kind, signature, name, signature, name);
    return sb_take(&sb);
}

static char *reference_text(const char *id, const char *name, const char *kind, const char *signature) {
    StrBuf sb = {0};
    sb_printf(&sb,
              "// %s %s -- reference solution\n"
              "//\n"
              "// " SCAFFOLD_REFERENCE_TODO ". The reference sets the\n"
              "// floors: measure it against the same-run ceilings (gpucourse bench) and\n"
              "// set the floors from gpucourse check-course --calibrate %s on the GPU.\n",
              id, name, id);
    add_includes(&sb, signature);
    sb_printf(&sb,
              "namespace {\n"
              "\n"
              "// The problem (harness kind %s):\n"
              "//   %s\n"
              "__global__ void %s_kernel()\n"
              "{\n"
              "    // " SCAFFOLD_REFERENCE_KERNEL_TODO "\n"
              "}\n"
              "\n"
              "}  // namespace\n"
              "\n"
              "extern \"C\" %s\n"
              "{\n"
              "    // TODO: launch %s_kernel on the default stream.\n"
              "}\n",
              kind, signature, name, signature, name);
    return sb_take(&sb);
}

static char *entry_text(int indent, bool first, const char *id, const char *name, const char *title, const char *kind,
                        const char *file, const char *signature, int ndims, bool compute_bound) {
    StrBuf sb = {0};
    if (!first) sb_puts(&sb, "\n"); /* a blank line between exercises */
    sb_printf(&sb, "- id: %s\nname: %s\ntitle: ", id, name);
    yaml_quoted(&sb, title);
    sb_printf(&sb,
              "\nkind: %s\n"
              "file: %s\n"
              "summary: \"TODO: one line for lists\"\n"
              "task: |\n"
              "  TODO: what to write, in markdown. Implement\n"
              "  `%s`.\n"
              "  The pointers are device pointers; `solve` launches the kernel(s)\n"
              "  and returns.\n"
              "sizes:  # TODO: sizes for this problem (docs/authoring.md)\n"
              "%s"
              "tolerance: {rel: 1.0e-5, abs: 1.0e-5}\n"
              "floors: {reference: 0.70%s}  # TODO: gpucourse check-course --calibrate %s on the GPU\n"
              "timeout: 60\n"
              "hints:\n"
              "  - \"TODO: a first nudge\"\n",
              kind, file, signature, sizes_by_ndims[ndims], compute_bound ? "" : ", baseline: 0.60", id);
    /* indent every line: "- " at `indent`, the keys under it two further */
    StrBuf out = {0};
    for (const char *line = sb.buf; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len) sb_printf(&out, "%*s", line[0] == '-' ? indent : indent + 2, "");
        sb_add(&out, line, len);
        sb_puts(&out, "\n");
        line += len + (nl != NULL);
    }
    sb_free(&sb);
    return sb_take(&out);
}

/* The stems of the *.cu files in dir/harness/kinds/ or dir/kinds/ (which
 * is given), added to kinds. */
static void add_kinds(const char *dir, StrList *kinds) {
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *f; d && (f = readdir(d));) {
        size_t len = strlen(f->d_name);
        char *stem = len > 3 && !strcmp(f->d_name + len - 3, ".cu") ? xstrndup(f->d_name, len - 3) : NULL;
        if (stem && course_plain_name(stem, "_")) strlist_add(kinds, stem);
        free(stem);
    }
    if (d) closedir(d);
}

static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The kinds a new exercise can take, the course's and the shared harness's,
 * sorted, each once: "affine, col_scale, ..." (malloc'd). */
static char *kinds_known(const char *root, const char *harness) {
    StrList kinds = {0};
    char *own = path_join(root, "harness/kinds"), *shared = harness ? path_join(harness, "kinds") : NULL;
    add_kinds(own, &kinds);
    add_kinds(shared, &kinds);
    if (kinds.count) qsort(kinds.items, (size_t)kinds.count, sizeof *kinds.items, compare_strings);
    StrBuf sb = {0};
    for (int i = 0; i < kinds.count; i++)
        if (i == 0 || strcmp(kinds.items[i], kinds.items[i - 1]))
            sb_printf(&sb, "%s%s", sb.len ? ", " : "", kinds.items[i]);
    free(own), free(shared);
    strlist_free(&kinds);
    return sb.len ? sb_take(&sb) : xstrdup("none yet");
}

/* The error for a kind that is not there, naming those that are. */
static int unknown_kind(const char *root, const char *harness, const char *kind) {
    char *known = kinds_known(root, harness);
    if (course_plain_name(kind, "_"))
        error("no kind '%s': no harness/kinds/%s.cu in the course%s (known: %s; a new kind of problem: "
              "docs/authoring.md)",
              kind, kind, harness ? " nor in gpucourse's harness" : "", known);
    else
        error("no kind '%s': a kind is named like harness/kinds/KIND.cu (known: %s)", kind, known);
    free(known);
    return SCAFFOLD_REFUSED;
}

int scaffold_exercise(const char *root, const char *chapter, const char *name, const char *kind,
                      const char *title, StrList *made) {
    if (!course_plain_name(name, "_")) return error("an exercise's name uses only a-z, 0-9 and _, not '%s'", name);
    if (title && check_title(title) < 0) return -1;
    char *harness = course_harness_dir(root);
    if (!course_plain_name(kind, "_")) {
        int rc = unknown_kind(root, harness, kind);
        free(harness);
        return rc;
    }
    CourseOutline o;
    if (read_outline(root, &o) < 0) {
        free(harness);
        return SCAFFOLD_FILES;
    }
    int k = find_chapter(&o, chapter), rc = 0, number = 0;
    char *kind_file = course_kind_file(root, harness, kind);
    char *source = NULL, *signature = NULL, *id = NULL, *file = NULL, *own_title = NULL;
    int ndims = 0;
    if (k < 0) {
        StrBuf dirs = {0};
        for (int i = 0; i < o.nchapters; i++) sb_printf(&dirs, "%s%s", i ? ", " : "", o.chapters[i].dir);
        rc = error("no chapter '%s' in course/course.yaml (%s%s)", chapter, o.nchapters ? "it has " : "it has none",
                   dirs.buf ? dirs.buf : "");
        sb_free(&dirs);
        goto out;
    }
    /* ids are ex01, ex02, ... in course order: the next one, unless chapters
     * after this one have exercises that it would renumber */
    for (int i = 0; i <= k; i++) number += o.chapters[i].ids.count;
    for (int i = k + 1; i < o.nchapters; i++)
        if (o.chapters[i].ids.count) {
            rc = error("chapter '%s' comes before '%s', which has exercises (%s, ...): ids are in course order, so "
                       "a new exercise in '%s' would renumber them; add it to the last chapter with exercises, or "
                       "renumber by hand",
                       o.chapters[k].dir, o.chapters[i].dir, o.chapters[i].ids.items[0], o.chapters[k].dir);
            goto out;
        }
    for (int i = 0; i < o.nchapters; i++)
        for (int j = 0; j < o.chapters[i].names.count; j++)
            if (!strcmp(o.chapters[i].names.items[j], name)) {
                rc = error("an exercise named '%s' exists already (%s in %s)", name, o.chapters[i].ids.items[j],
                           o.chapters[i].dir);
                goto out;
            }
    if (!(source = read_file(kind_file, NULL))) {
        rc = unknown_kind(root, harness, kind);
        goto out;
    }
    if (kind_signature(source, &signature, &ndims) < 0) {
        rc = error("cannot read kind '%s' (%s): %s", kind, kind_file, last_error());
        goto out;
    }
    id = xprintf("ex%02d", number + 1);
    file = xprintf("%s_%s.cu", id, name);
    own_title = title ? xstrdup(title) : title_from(name);
    char *stub_rel = xprintf("exercises/%s", file), *ref_rel = xprintf("solutions/%s", file);
    rc = refuse_existing(root, stub_rel);
    if (rc == 0) rc = refuse_existing(root, ref_rel);
    int before = made->count;
    if (rc == 0) {
        char *text = stub_text(id, name, own_title, kind, signature);
        rc = create_file(root, stub_rel, text, made);
        free(text);
    }
    if (rc == 0) {
        char *text = reference_text(id, name, kind, signature);
        rc = create_file(root, ref_rel, text, made);
        free(text);
    }
    if (rc == 0) {
        char *yaml_rel = xprintf("course/%s/chapter.yaml", o.chapters[k].dir);
        char *path = path_join(root, yaml_rel);
        char *text = read_file(path, NULL);
        bool compute_bound = strstr(source, "PEAK_FP32") || strstr(source, "_TENSOR");
        char *add = text ? entry_text(item_indent(text, "- id:", 2), o.chapters[k].ids.count == 0, id, name, own_title, kind, file, signature,
                                      ndims, compute_bound)
                         : NULL;
        ExerciseAt at = {k, id};
        char *by_hand = xprintf("the entry of %s to its exercises", id);
        rc = text ? append_checked(root, yaml_rel, add, exercise_is_last, &at, by_hand) : SCAFFOLD_FILES;
        if (rc == 0) strlist_add(made, yaml_rel);
        free(by_hand), free(add), free(text), free(path), free(yaml_rel);
    }
    if (rc < 0 && made->count > before) remove_made(root, made, before);
    free(stub_rel), free(ref_rel);
out:
    course_outline_free(&o);
    free(harness), free(kind_file), free(source), free(signature), free(id), free(file), free(own_title);
    return rc;
}
