#define _GNU_SOURCE
#include "classroom.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/progress.h"
#include "../src/proc.h"
#include "grader.h"
#include "report.h"
#include "toolchain.h"

/* A ratio this many times the reference's is worth a look (the references
 * sit at the memory ceiling or near cuBLAS), and so is one this many times
 * the class's median for the exercise. */
#define FAR_ABOVE_REFERENCE 1.5
#define FAR_ABOVE_CLASS 2.0
/* Sources this alike are called near-identical. */
#define NEAR_IDENTICAL 0.9

/* ------------------------------------------------------------ the roster */

/* The first line of a frozen roster (class_freeze_roster): then one line
 * per student, FILE TAB NAME TAB PATH, taken as written. */
static const char frozen_magic[] = "# gpucourse frozen roster 1";

static bool good_name(const char *s) {
    if (!*s || *s == '.') return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' && *s != '_') return false;
    return true;
}

/* The name as shown and written to the gradebook: valid UTF-8, no control
 * characters (a directory's name may hold any byte but '/'). */
static char *display_name(const char *s) {
    StrBuf sb = {0};
    sb_add_visible(&sb, s, strlen(s));
    char *d = sb_take(&sb);
    for (char *c = d; *c; c++)
        if (*c == '\n' || *c == '\t') *c = '?';
    return d;
}

/* The name that names the student's files under OUT: the name itself where
 * it is letters, digits, '.', '-', '_' (not first '.'); else those kept,
 * the rest '_', and a hash of the whole name after it, so that `zoë` and
 * `zoé` stay apart (zo_-1a2b3c4d). */
static char *file_name(const char *name) {
    if (good_name(name) && strlen(name) <= 100) return xstrdup(name);
    StrBuf sb = {0};
    for (const char *c = name; *c && sb.len < 64; c++)
        sb_add(&sb, isalnum((unsigned char)*c) || *c == '-' || *c == '_' || (*c == '.' && c != name) ? c : "_", 1);
    sb_printf(&sb, "-%08llx", (unsigned long long)(hash_str(HASH_INIT, name) & 0xffffffffu));
    return sb_take(&sb);
}

static void add_student(Roster *r, const char *name, const char *file, const char *path) {
    r->students = xrealloc(r->students, (size_t)(r->count + 1) * sizeof *r->students);
    r->students[r->count++] = (Student){xstrdup(name), xstrdup(path), xstrdup(file)};
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const Student *)a)->name, ((const Student *)b)->name);
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory: each subdirectory with an exercises/ directory is a student;
 * every other entry is skipped with its reason in r->skipped. */
static int load_directory(const char *path, Roster *r) {
    DIR *d = opendir(path);
    if (!d) return error("cannot read the roster directory '%s'", path);
    StrList entries = {0};
    for (struct dirent *de; (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) strlist_add(&entries, de->d_name);
    closedir(d);
    qsort(entries.items, (size_t)entries.count, sizeof *entries.items, compare_strings);
    for (int i = 0; i < entries.count; i++) {
        const char *entry = entries.items[i];
        char *dir = path_join(path, entry), *ex = path_join(dir, "exercises");
        char *shown = display_name(entry);
        if (!dir_exists(dir) || !dir_exists(ex)) {
            char *why = xprintf("%s: %s", shown, !dir_exists(dir) ? "not a directory" : "no exercises/ directory in it");
            strlist_add(&r->skipped, why);
            free(why);
        } else {
            char *file = file_name(entry);
            add_student(r, shown, file, dir);
            free(file);
        }
        free(shown);
        free(dir);
        free(ex);
    }
    strlist_free(&entries);
    qsort(r->students, (size_t)r->count, sizeof *r->students, by_name);
    if (r->count == 0) return error("%s: no student workspaces (subdirectories with an exercises/ directory)", path);
    return 0;
}

/* The line's first word, then the rest (trailing blanks cut): NAME PATH,
 * where PATH may hold spaces. Cut at a '#' that starts the line or follows
 * a blank: a comment; a '#' inside a word is part of it. */
static void split_line(char *line, char **name, char **rest) {
    for (char *c = line; *c; c++)
        if (*c == '#' && (c == line || c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            break;
        }
    size_t end = strlen(line);
    while (end && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r')) line[--end] = '\0';
    char *p = line + strspn(line, " \t");
    *name = p;
    p += strcspn(p, " \t");
    if (*p) *p++ = '\0';
    *rest = p + strspn(p, " \t");
}

/* Whether a control character (other than tab) is in s. */
static bool has_control(const char *s) {
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f) return true;
    return false;
}

static int load_file(const char *path, Roster *r) {
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return -1;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int at = 1;
        for (const char *c = text; c < nul; c++) at += *c == '\n';
        free(text);
        return error("%s:%d: a NUL byte: a roster is a text file of NAME PATH lines", path, at);
    }
    bool frozen = !strncmp(text, frozen_magic, sizeof frozen_magic - 1) && text[sizeof frozen_magic - 1] == '\n';
    char *base = path_dirname(path);
    int line_no = 0, rc = 0;
    StrBuf bad = {0}; /* every bad line of a roster a person wrote, said at once */
    for (char *line = text, *next; line && rc == 0; line = next) {
        line_no++;
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (frozen) {
            if (line_no == 1 || !*line) continue;
            if (line_no == 2 && !strncmp(line, "# run ", 6)) {
                free(r->run);
                r->run = xstrdup(line + 6);
                continue;
            }
            char *name = strchr(line, '\t'), *where = name ? strchr(name + 1, '\t') : NULL;
            if (!where) {
                rc = error("%s:%d: a frozen roster's line is FILE, NAME and PATH, tab-separated", path, line_no);
                break;
            }
            *name++ = '\0', *where++ = '\0';
            if (!good_name(line)) rc = error("%s:%d: '%s' is not a file name of gpucourse's", path, line_no, line);
            else add_student(r, name, line, where);
            continue;
        }
        size_t end = strlen(line);
        if (end && line[end - 1] == '\r') line[end - 1] = '\0'; /* a file written on Windows */
        bool control = has_control(line);
        char *name, *where;
        split_line(line, &name, &where);
        char *ex = NULL, *dir = NULL;
        if (!*name) continue;
        if (control)
            rc = error("%s:%d: a control character: a roster is a text file of NAME PATH lines", path, line_no);
        else if (!*where) rc = error("%s:%d: a line is NAME PATH (a name, then the workspace's directory)", path, line_no);
        else {
            dir = where[0] == '/' ? xstrdup(where) : path_join(base, where);
            ex = path_join(dir, "exercises");
            for (int k = 0; k < r->count && rc == 0; k++)
                if (!strcmp(r->students[k].name, name)) rc = error("%s:%d: '%s' is listed twice", path, line_no, name);
            if (rc == 0 && !dir_exists(ex))
                rc = error("%s:%d: %s has no exercises/ directory: not a gpucourse workspace", path, line_no, dir);
        }
        if (rc == 0 && dir) {
            char *file = file_name(name), *shown = display_name(name);
            add_student(r, shown, file, dir);
            free(file);
            free(shown);
        }
        if (rc < 0) { /* said with the others, after the last line */
            sb_printf(&bad, "%s%s", bad.len ? "\n" : "", last_error());
            rc = 0;
        }
        free(ex);
        free(dir);
    }
    free(base);
    free(text);
    if (bad.len) rc = error("%s", bad.buf);
    sb_free(&bad);
    if (rc == 0 && r->count == 0) rc = error("%s: no students listed", path);
    return rc;
}

int roster_load(const char *path, Roster *r) {
    memset(r, 0, sizeof *r);
    int rc = dir_exists(path) ? load_directory(path, r) : load_file(path, r);
    /* two names that come to one file name (only a name made to match another's hash can) */
    for (int i = 0; rc == 0 && i < r->count; i++)
        for (int j = i + 1; rc == 0 && j < r->count; j++)
            if (!strcmp(r->students[i].file, r->students[j].file))
                rc = error("%s: '%s' and '%s' would share the file name %s under the output directory", path,
                           r->students[i].name, r->students[j].name, r->students[i].file);
    if (rc) roster_free(r);
    return rc;
}

void roster_free(Roster *r) {
    for (int i = 0; i < r->count; i++) free(r->students[i].name), free(r->students[i].path), free(r->students[i].file);
    free(r->students);
    strlist_free(&r->skipped);
    free(r->run);
    memset(r, 0, sizeof *r);
}

char *class_run_id(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return xprintf("%lld-%ld-%09ld", (long long)ts.tv_sec, (long)getpid(), ts.tv_nsec);
}

int class_freeze_roster(const Roster *r, const char *run, const char *path) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s\n# run %s\n", frozen_magic, run);
    int rc = 0;
    for (int i = 0; i < r->count && rc == 0; i++) {
        const Student *s = &r->students[i];
        char *abs = realpath(s->path, NULL);
        if (!abs) rc = error("cannot resolve %s's workspace %s: %s", s->name, s->path, strerror(errno));
        else if (strpbrk(abs, "\t\n") || strpbrk(s->name, "\t\n"))
            rc = error("%s's workspace %s has a tab or a line break in its path: it cannot be written in a roster",
                       s->name, abs);
        else sb_printf(&sb, "%s\t%s\t%s\n", s->file, s->name, abs);
        free(abs);
    }
    if (rc == 0) rc = write_file_atomic(path, sb.buf, sb.len);
    sb_free(&sb);
    return rc;
}

/* ------------------------------------------------------------ sources as compiled */

/* The student's file as it is, read on the grading user's account, only
 * where the compiler's box would read it: a regular file in its exercise
 * directory (or below it), or a link to one there. A link elsewhere (a key of the
 * grading user's) is not read; a pipe would keep the preprocessor waiting
 * for the compile's bound, 300 s a student and exercise. NULL otherwise. */
static char *exercise_text(const char *source) {
    char *dir = path_dirname(source), *real = realpath(source, NULL);
    char *text = real && path_within(real, dir) ? read_regular_file(real, FILE_SIZE_LIMIT, NULL) : NULL;
    free(dir), free(real);
    return text;
}

/* What the similarity of two sources is computed on: the source as the
 * compiler read it (nvcc -E, in the compiler's box), less the toolkit's and
 * the system's headers (toolchain_own_text), so that what an #include
 * brings in (a classmate's file copied beside it) counts as the student's.
 * The file as it is when it does not preprocess (an #include the box
 * refused, a broken directive: it does not compile either), or where nvcc
 * is missing. Kept in `keep` (written, or removed when there is no file);
 * NULL: no file, or none the compiler's box would read (exercise_text). */
static char *compiled_text(const Toolchain *t, const char *source, const char *keep) {
    char *text = exercise_text(source);
    if (!text) {
        unlink(keep);
        return NULL;
    }
    char *full = xprintf("%s.i", keep), *dir = path_dirname(keep);
    const char *src[] = {source, NULL};
    ProcResult res;
    if (t && make_dirs(dir) == 0 && toolchain_compile(t, BUILD_PREPROCESSED, src, full, NULL, 0, &res, NULL, NULL) == 0) {
        char *pre = res.exited && res.exit_code == 0 ? read_file(full, NULL) : NULL;
        if (pre) free(text), text = toolchain_own_text(t, pre);
        free(pre);
        proc_result_free(&res);
    }
    unlink(full);
    write_file_atomic(keep, text, strlen(text)); /* a cache: the collection makes it again when it is missing */
    free(full);
    free(dir);
    return text;
}

/* Where a student's source as compiled is kept: OUT/build/compiled/FILE-EX (FILE the student's safe file name)
 * (the course's in compiled/course/, which no student's name reaches). */
static char *compiled_keep(const ClassOptions *o, const char *name, const Exercise *e) {
    return xprintf("%s/build/compiled/%s-%s", o->out, name, e->id);
}

/* ------------------------------------------------------------ grading one student */

static char *out_file(const ClassOptions *o, const Student *s, const char *ext) {
    return xprintf("%s/%s.%s", o->out, s->file, ext);
}

/* The student's library in the class's build directory: "student-" before
 * the file name, a prefix that nothing of the course's (reference-EX.so,
 * harness-KIND, runner-KIND, harness-obj/) starts with, so that no name
 * can take the reference's path. */
static char *build_label(const Student *s) {
    return xprintf("student-%s", s->file);
}

int class_clear_outputs(const ClassOptions *o, const Student *s) {
    static const char *const exts[] = {"tsv", "json", "xml"};
    int rc = 0;
    for (size_t i = 0; i < ARRAY_SIZE(exts) && rc == 0; i++) {
        char *path = out_file(o, s, exts[i]);
        if (unlink(path) < 0 && errno != ENOENT)
            rc = error("cannot remove %s's earlier results %s: %s", s->name, path, strerror(errno));
        free(path);
    }
    return rc;
}

int class_clear_others(const ClassOptions *o, const Roster *r) {
    DIR *d = opendir(o->out);
    if (!d) return 0;
    StrList stems = {0};
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len > 4 && !strcmp(de->d_name + len - 4, ".tsv")) strlist_add(&stems, de->d_name);
    }
    closedir(d);
    int rc = 0;
    for (int i = 0; i < stems.count && rc == 0; i++) {
        stems.items[i][strlen(stems.items[i]) - 4] = '\0';
        bool listed = false;
        for (int k = 0; k < r->count && !listed; k++) listed = !strcmp(r->students[k].file, stems.items[i]);
        char *tsv = xprintf("%s/%s.tsv", o->out, stems.items[i]);
        char *head = listed ? NULL : read_file_max(tsv, 1 << 20, NULL);
        free(tsv);
        if (!head || strncmp(head, "# run ", 6)) { /* a student of this roster, or no results of ours */
            free(head);
            continue;
        }
        free(head);
        Student other = {.name = stems.items[i], .file = stems.items[i]};
        rc = class_clear_outputs(o, &other);
    }
    strlist_free(&stems);
    return rc;
}

/* The student's attempts, read from a copy of their progress file: a
 * damaged one is moved aside and rewritten by progress_load, which must
 * happen to the copy, never to the student's. Only a regular file of
 * theirs is copied (read_regular_file): a link to a file of the TA's
 * would be read on the TA's account and kept in OUT. */
static void read_attempts(const ClassOptions *o, const Student *s, const Exercise *const *es, int n, int *attempts) {
    char *progress = path_join(s->path, "progress.yaml"), *label = build_label(s);
    char *copy = xprintf("%s/build/%s-progress.yaml", o->out, label);
    size_t len = 0;
    char *text = read_regular_file(progress, FILE_SIZE_LIMIT, &len);
    Progress p;
    if (text && write_file_atomic(copy, text, len) == 0 && progress_load(copy, &p) == 0) {
        for (int i = 0; i < n; i++) {
            const ExProgress *x = progress_find(&p, es[i]->id);
            attempts[i] = x ? x->attempts : 0;
        }
        progress_free(&p);
    }
    free(text);
    free(progress);
    free(label);
    free(copy);
}

int class_grade_student(const Course *c, const Roster *r, int i, const ClassOptions *o) {
    const Student *s = &r->students[i];
    /* last run's results go first: a grading that dies leaves none, and
     * the gradebook says "not graded", never what an earlier run found */
    if (class_clear_outputs(o, s) < 0) return -1;
    /* one build directory for the class: the harness and the references are
     * built once; each student's library is named after them (the label) */
    Workspace w = {.root = xstrdup(s->path), .progress = NULL, .build = xprintf("%s/build", o->out)};
    int rc = make_dirs(w.build);
    GradeResult *rs = xcalloc((size_t)o->nexercises, sizeof *rs);
    int *attempts = xcalloc((size_t)o->nexercises, sizeof *attempts);
    bool *missing = xcalloc((size_t)o->nexercises, sizeof *missing);
    char *label = build_label(s);
    int graded = 0;
    Toolchain t;
    bool have_nvcc = toolchain_find(&t) == 0; /* without it grading says why; here the files are compared as they are */
    for (int k = 0; rc == 0 && k < o->nexercises; k++) {
        const Exercise *e = o->exercises[k];
        char *phase = xprintf("%s %s", s->name, e->id);
        if (o->on_phase) o->on_phase(phase, NULL);
        free(phase);
        /* no file: not submitted (the gradebook's `missing`), not a setup error of the TA's */
        char *mine = xprintf("%s/exercises/%s", s->path, e->file);
        struct stat st;
        missing[k] = lstat(mine, &st) < 0 && errno == ENOENT;
        free(mine);
        GradeOptions go = {.seed = o->seed, .timeout_s = o->timeout_s, .label = label};
        grade_exercise(c, &w, e, &go, &rs[k]); /* never recorded: the progress is the student's */
        graded++;
        /* the source as compiled, beside the grading (in each array task): the collection compares them */
        char *source = xprintf("%s/exercises/%s", s->path, e->file), *keep = compiled_keep(o, s->file, e);
        /* a grading that ran into its bound (an #include of a pipe keeps nvcc waiting) is not
         * preprocessed again, for as long: its text as it is */
        free(compiled_text(have_nvcc && rs[k].verdict != V_TIMEOUT ? &t : NULL, source, keep));
        free(source), free(keep);
        if (rs[k].verdict == V_INTERRUPTED) rc = EXIT_INTERRUPTED;
    }
    if (rc == 0) {
        read_attempts(o, s, o->exercises, graded, attempts);
        char *json = out_file(o, s, "json"), *xml = out_file(o, s, "xml"), *tsv = out_file(o, s, "tsv");
        FILE *f = fopen(json, "w");
        bool json_ok = f && (report_json(f, o->exercises, rs, graded), fclose(f) == 0);
        FILE *g = fopen(xml, "w");
        bool xml_ok = g && (report_junit(g, o->exercises, rs, graded), fclose(g) == 0);
        /* a line per exercise; the last field, marks, is for what a grading
         * must carry into the flags ("-": none) */
        StrBuf rows = {0};
        sb_printf(&rows, "# run %s\n", o->run ? o->run : "-");
        for (int k = 0; k < graded; k++)
            sb_printf(&rows, "%s\t%s\t%.4f\t%.4f\t%.4f\t%d\t%.1f\t%s\n", o->exercises[k]->id,
                      missing[k] ? "missing" : verdict_key(rs[k].verdict),
                      rs[k].timed ? rs[k].vs_reference : 0, rs[k].timed ? rs[k].vs_baseline : 0,
                      rs[k].timed ? rs[k].vs_library : 0, attempts[k], rs[k].wall_s,
                      rs[k].unlocked[0] ? "unlocked" : "-");
        /* written last, whole: its presence says this student was graded */
        if (!json_ok || !xml_ok || write_file_atomic(tsv, rows.buf ? rows.buf : "", rows.len) < 0)
            rc = error("cannot write %s's results under %s", s->name, o->out);
        sb_free(&rows);
        free(json), free(xml), free(tsv);
    }
    for (int k = 0; k < graded; k++) grade_result_free(&rs[k]);
    if (have_nvcc) toolchain_free(&t);
    free(rs);
    free(attempts);
    free(missing);
    free(label);
    free(w.root);
    free(w.build);
    return rc;
}

/* ------------------------------------------------------------ similarity */

/* The source's tokens as 64-bit hashes (identifiers, numbers, each
 * punctuation character), comments and spacing left out. */
static int tokens(const char *s, unsigned long long **out) {
    int n = 0, cap = 0;
    unsigned long long *t = NULL;
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n') s++;
            continue;
        }
        if (s[0] == '/' && s[1] == '*') {
            const char *end = strstr(s + 2, "*/");
            s = end ? end + 2 : s + strlen(s);
            continue;
        }
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        size_t len = 1;
        if (isalnum((unsigned char)*s) || *s == '_')
            while (isalnum((unsigned char)s[len]) || s[len] == '_' || s[len] == '.') len++;
        unsigned long long h = 1469598103934665603ull; /* FNV-1a */
        for (size_t k = 0; k < len; k++) h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
        if (n == cap) t = xrealloc(t, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *t);
        t[n++] = h;
        s += len;
    }
    *out = t;
    return n;
}

static int cmp_u64(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* The sorted, distinct 4-grams of a token list (a short file: its tokens). */
static int grams(const char *src, unsigned long long **out) {
    unsigned long long *t;
    int n = tokens(src, &t), m = n < 4 ? (n > 0) : n - 3;
    unsigned long long *g = xcalloc((size_t)(m ? m : 1), sizeof *g);
    for (int i = 0; i < m; i++) {
        unsigned long long h = 0;
        for (int k = 0; k < 4 && i + k < n; k++) h = h * 0x9E3779B97F4A7C15ull + t[i + k];
        g[i] = h;
    }
    free(t);
    qsort(g, (size_t)m, sizeof *g, cmp_u64);
    int d = 0;
    for (int i = 0; i < m; i++)
        if (d == 0 || g[d - 1] != g[i]) g[d++] = g[i];
    *out = g;
    return d;
}

static double jaccard(const unsigned long long *a, int na, const unsigned long long *b, int nb) {
    if (na == 0 && nb == 0) return 1;
    int i = 0, j = 0, both = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) both++, i++, j++;
        else if (a[i] < b[j]) i++;
        else j++;
    }
    return (double)both / (double)(na + nb - both);
}

double class_similarity(const char *a, const char *b) {
    unsigned long long *ga, *gb;
    int na = grams(a, &ga), nb = grams(b, &gb);
    double s = jaccard(ga, na, gb, nb);
    free(ga);
    free(gb);
    return s;
}

/* ------------------------------------------------------------ collecting */

typedef struct {
    char verdict[32];
    double vs_reference, vs_baseline, vs_library, wall_s;
    int attempts;
    bool graded;
} Cell;

/* What a mark of a row says in the gradebook's flags ("%s": the student's
 * file name); a mark not listed is shown as it is. */
static const struct {
    const char *mark, *says;
} mark_texts[] = {
    {"unlocked", "timed without the GPU's lock (%s.json says why)"}, /* its times may include another grading's */
};

static char *mark_flag(const char *ex, const char *mark, const Student *s) {
    for (size_t i = 0; i < ARRAY_SIZE(mark_texts); i++)
        if (!strcmp(mark, mark_texts[i].mark)) {
            char *says = xprintf(mark_texts[i].says, s->file), *flag = xprintf("%s: %s", ex, says);
            free(says);
            return flag;
        }
    return xprintf("%s: %s", ex, mark);
}

/* Student s's rows (NAME.tsv) into cells; each mark of a row (its last
 * field, comma-separated, "-": none) a flag (mark_flag). */
static void read_rows(const ClassOptions *o, const Student *s, Cell *cells, bool *present, StrList *flags) {
    char *tsv = out_file(o, s, "tsv");
    char *text = read_file(tsv, NULL);
    /* this run's results only: a file an earlier run left (one that could
     * not be removed) is no grading of this one */
    char *want = xprintf("# run %s\n", o->run ? o->run : "-");
    if (text && strncmp(text, want, strlen(want))) free(text), text = NULL;
    free(want);
    *present = text != NULL;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char id[64], marks[512] = "-";
        Cell c = {.graded = true};
        int n = sscanf(line, "%63s %31s %lf %lf %lf %d %lf %511s", id, c.verdict, &c.vs_reference, &c.vs_baseline,
                       &c.vs_library, &c.attempts, &c.wall_s, marks);
        if (line[0] == '#' || n < 7) continue;
        for (int k = 0; k < o->nexercises; k++) {
            if (strcmp(o->exercises[k]->id, id)) continue;
            cells[k] = c;
            char *save_mark = NULL;
            for (char *m = strcmp(marks, "-") ? strtok_r(marks, ",", &save_mark) : NULL; m; m = strtok_r(NULL, ",", &save_mark)) {
                char *flag = mark_flag(id, m, s);
                strlist_add(flags, flag);
                free(flag);
            }
        }
    }
    free(text);
    free(tsv);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A CSV field: quoted, quotes doubled (names and flags are ours, but a
 * reader must never split a field). */
static void csv_field(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A graded student's lines of the summary, at 80 columns also with --all:
 * how many passed and a count per verdict, then each verdict that is not a
 * pass with its exercises ("  too_slow: ex07 ex09", wrapped). */
static void summary_student(FILE *out, const ClassOptions *o, const Cell *cells, int passed) {
    int ne = o->nexercises;
    StrList verdicts = {0}; /* in order of first appearance */
    for (int k = 0; k < ne; k++) {
        const char *v = cells[k].graded ? cells[k].verdict : "-";
        bool seen = false;
        for (int j = 0; j < verdicts.count && !seen; j++) seen = !strcmp(verdicts.items[j], v);
        if (!seen) strlist_add(&verdicts, v);
    }
    fprintf(out, "%d/%d passed", passed, ne);
    for (int j = 0; j < verdicts.count; j++) {
        int n = 0;
        for (int k = 0; k < ne; k++) n += !strcmp(cells[k].graded ? cells[k].verdict : "-", verdicts.items[j]);
        fprintf(out, "%s %d %s", j ? "," : ":", n, verdicts.items[j]);
    }
    fputc('\n', out);
    for (int j = 0; j < verdicts.count; j++) {
        if (!strcmp(verdicts.items[j], "pass")) continue;
        int col = fprintf(out, "  %s:", verdicts.items[j]);
        for (int k = 0; k < ne; k++) {
            if (strcmp(cells[k].graded ? cells[k].verdict : "-", verdicts.items[j])) continue;
            if (col + 1 + (int)strlen(o->exercises[k]->id) > 80) col = fprintf(out, "\n   ") - 1;
            col += fprintf(out, " %s", o->exercises[k]->id);
        }
        fputc('\n', out);
    }
    strlist_free(&verdicts);
}

int class_collect(const Course *c, const Roster *r, const ClassOptions *o, FILE *summary, ClassTotals *totals) {
    int ns = r->count, ne = o->nexercises;
    Cell *cells = xcalloc((size_t)(ns * ne), sizeof *cells);
    bool *present = xcalloc((size_t)ns, sizeof *present);
    StrList *flags = xcalloc((size_t)ns, sizeof *flags);
    for (int i = 0; i < ns; i++) read_rows(o, &r->students[i], cells + i * ne, &present[i], &flags[i]);
    Toolchain t;
    const Toolchain *tc = toolchain_find(&t) == 0 ? &t : NULL; /* for the sources as compiled */

    for (int k = 0; k < ne; k++) {
        const Exercise *e = o->exercises[k];
        /* ratios: far above the reference's, or the class's median */
        double *ratios = xcalloc((size_t)ns, sizeof *ratios);
        int nr = 0;
        for (int i = 0; i < ns; i++)
            if (cells[i * ne + k].vs_reference > 0) ratios[nr++] = cells[i * ne + k].vs_reference;
        qsort(ratios, (size_t)nr, sizeof *ratios, cmp_double);
        double median = nr ? (nr % 2 ? ratios[nr / 2] : (ratios[nr / 2 - 1] + ratios[nr / 2]) / 2) : 0;
        free(ratios);
        for (int i = 0; i < ns; i++) {
            double v = cells[i * ne + k].vs_reference;
            char *flag = NULL;
            if (v > FAR_ABOVE_REFERENCE) flag = xprintf("%s: %.2fx the reference's throughput", e->id, v);
            else if (nr >= 3 && v > FAR_ABOVE_CLASS * median)
                flag = xprintf("%s: %.2fx the reference's throughput, the class's median is %.2fx", e->id, v, median);
            if (flag) strlist_add(&flags[i], flag), free(flag);
        }
        /* sources: identical or near-identical to another student's or to the
         * reference; the untouched stub is nobody's work and no match */
        char *stub_path = course_stub_path(c, e), *ref_path = course_solution_path(c, e);
        char *stub_keep = compiled_keep(o, "course/stub", e), *ref_keep = compiled_keep(o, "course/solution", e);
        char *stub = compiled_text(tc, stub_path, stub_keep), *ref = compiled_text(tc, ref_path, ref_keep);
        free(stub_keep), free(ref_keep);
        char **src = xcalloc((size_t)ns, sizeof *src);
        for (int i = 0; i < ns; i++) {
            /* as its grading compiled it; made now when that grading left none */
            char *keep = compiled_keep(o, r->students[i].file, e);
            src[i] = read_file(keep, NULL);
            if (!src[i]) {
                char *p = xprintf("%s/exercises/%s", r->students[i].path, e->file);
                src[i] = compiled_text(tc, p, keep);
                free(p);
            }
            free(keep);
            if (src[i] && stub && class_similarity(src[i], stub) >= 1.0) free(src[i]), src[i] = NULL;
        }
        for (int i = 0; i < ns; i++) {
            if (!src[i]) continue;
            double best = ref ? class_similarity(src[i], ref) : 0;
            const char *whom = "the reference solution";
            for (int j = 0; j < ns; j++) {
                if (j == i || !src[j]) continue;
                double sim = class_similarity(src[i], src[j]);
                if (sim > best) best = sim, whom = r->students[j].name;
            }
            char *flag = NULL;
            if (best >= 1.0) flag = xprintf("%s: the same code as %s's", e->id, whom);
            else if (best >= NEAR_IDENTICAL) flag = xprintf("%s: %.0f%% alike to %s's", e->id, 100 * best, whom);
            if (flag && !strcmp(whom, "the reference solution")) {
                free(flag);
                flag = best >= 1.0 ? xprintf("%s: the same code as the reference solution", e->id)
                                   : xprintf("%s: %.0f%% alike to the reference solution", e->id, 100 * best);
            }
            if (flag) strlist_add(&flags[i], flag), free(flag);
        }
        for (int i = 0; i < ns; i++) free(src[i]);
        free(src);
        free(stub), free(ref), free(stub_path), free(ref_path);
    }

    /* the gradebook: a row per student, four columns per exercise */
    char *csv_path = xprintf("%s/gradebook.csv", o->out);
    char *tmp = xprintf("%s.tmp.%d", csv_path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    int rc = 0;
    if (!f) rc = error("cannot write %s", csv_path);
    if (f) {
        fputs("student,passed,graded", f);
        for (int k = 0; k < ne; k++) {
            const char *id = o->exercises[k]->id;
            fprintf(f, ",%s,%s vs_reference,%s attempts,%s seconds", id, id, id, id);
        }
        fputs(",flags\n", f);
    }
    int class_passed = 0, missing = 0, flagged = 0, reached = 0, class_skipped = 0;
    for (int i = 0; i < ns; i++) {
        int passed = 0, skipped = 0;
        for (int k = 0; k < ne; k++) {
            const Cell *x = &cells[i * ne + k];
            passed += !strcmp(x->verdict, "pass");
            /* compiled but never run (no GPU): no grade of their code */
            skipped += x->graded && !strcmp(x->verdict, "skipped");
            /* graded as far as their code: neither our setup nor a compile stopped it */
            reached += x->graded && strcmp(x->verdict, "setup_error") && strcmp(x->verdict, "compile_error") &&
                       strcmp(x->verdict, "missing");
        }
        class_passed += passed;
        class_skipped += skipped;
        missing += !present[i];
        flagged += flags[i].count > 0;
        StrBuf all = {0};
        for (int k = 0; k < flags[i].count; k++) sb_printf(&all, "%s%s", k ? "; " : "", flags[i].items[k]);
        if (f) {
            csv_field(f, r->students[i].name);
            /* a row with an exercise that was not run is no grade to import */
            fprintf(f, ",%d,%s", passed, !present[i] ? "no" : skipped ? "skipped" : "yes");
            for (int k = 0; k < ne; k++) {
                const Cell *x = &cells[i * ne + k];
                if (!x->graded) fputs(",,,,", f);
                else if (!strcmp(x->verdict, "skipped") || !strcmp(x->verdict, "missing")) /* not run: no ratio, not 0 */
                    fprintf(f, ",%s,,%d,%.1f", x->verdict, x->attempts, x->wall_s);
                else fprintf(f, ",%s,%.3f,%d,%.1f", x->verdict, x->vs_reference, x->attempts, x->wall_s);
            }
            fputc(',', f);
            csv_field(f, all.buf ? all.buf : "");
            fputc('\n', f);
        }
        fprintf(summary, "%-16s %s", r->students[i].name, present[i] ? "" : "NOT GRADED (see the task's log)");
        if (present[i]) summary_student(summary, o, cells + i * ne, passed);
        else fputc('\n', summary);
        for (int k = 0; k < flags[i].count; k++) fprintf(summary, "  flag: %s\n", flags[i].items[k]);
        sb_free(&all);
        strlist_free(&flags[i]);
    }
    if (f && (fclose(f) != 0 || rename(tmp, csv_path) != 0)) rc = error("cannot write %s", csv_path);
    if (rc) unlink(tmp);
    fputc('\n', summary);
    fprintf_wrapped(summary, 2, "%d student%s, %d pass%s of %d exercise%s, %d not graded, %d flagged; gradebook: %s\n",
                    ns, ns == 1 ? "" : "s", class_passed, class_passed == 1 ? "" : "es", ne, ne == 1 ? "" : "s", missing,
                    flagged, csv_path);
    *totals = (ClassTotals){.students = ns, .not_graded = missing, .reached = reached, .skipped = class_skipped};
    free(csv_path), free(tmp);
    free(cells), free(present), free(flags);
    if (tc) toolchain_free(&t);
    return rc;
}

/* ------------------------------------------------------------ the students' starter */

int class_starter(const Course *c, const char *dir) {
    DIR *d = opendir(dir);
    if (d) { /* never over anything: a starter is a new directory, or an empty one */
        int entries = 0;
        for (struct dirent *de; (de = readdir(d));) entries += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
        closedir(d);
        if (entries) return error("'%s' is not empty: a starter repository is made in a new directory", dir);
    }
    char *exercises = path_join(dir, "exercises");
    int rc = make_dirs(exercises);
    for (int i = 0; rc == 0 && i < c->nexercises; i++) {
        char *stub = course_stub_path(c, &c->exercises[i]), *mine = path_join(exercises, c->exercises[i].file);
        rc = copy_file(stub, mine);
        free(stub), free(mine);
    }
    free(exercises);
    /* what gpucourse writes beside the student's files, and no one grades */
    static const char gitignore[] = "# gpucourse's own files (docs/classroom.md): the build cache, reset's backups,\n"
                                    "# a lock and the temp files of a write in progress\n"
                                    ".build/\nbackups/\nprogress.yaml.lock\n*.tmp.*\n";
    char *text = xprintf("%s\n", c->id);
    const char *names[] = {".gitignore", ".course-id", "README.md"};
    StrBuf readme = {0};
    sb_printf(&readme,
              "# %s: your exercises\n\n"
              "Your work for the course: a file per exercise in `exercises/`, graded by\n"
              "`gpucourse`. Work in this checkout, not in ~/gpucourse:\n\n"
              "```sh\n"
              "export GPUCOURSE_WORKSPACE=\"$PWD\"   # or: gpucourse --workspace DIR ...\n"
              "gpucourse                          # where you are, and what to do next\n"
              "gpucourse grade ex01               # compile, check, time: pass or why not\n"
              "```\n\n"
              "Commit and push `exercises/` and `progress.yaml` (your attempts, hints and\n"
              "best results: the gradebook's attempts column is read from it, 0 without\n"
              "it). `.gitignore` leaves out what gpucourse keeps for itself: the build\n"
              "cache (`.build/`) and the backups `gpucourse reset` makes (`backups/`).\n"
              "`.course-id` says which course this is: keep it.\n",
              c->title);
    const char *texts[] = {gitignore, text, readme.buf};
    for (size_t k = 0; rc == 0 && k < ARRAY_SIZE(names); k++) {
        char *path = path_join(dir, names[k]);
        rc = write_file_atomic(path, texts[k], strlen(texts[k]));
        free(path);
    }
    free(text);
    sb_free(&readme);
    return rc;
}
