#define _GNU_SOURCE
#include "classroom.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

static bool good_name(const char *s) {
    if (!*s || *s == '.') return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' && *s != '_') return false;
    return true;
}

static void add_student(Roster *r, const char *name, const char *path) {
    r->students = xrealloc(r->students, (size_t)(r->count + 1) * sizeof *r->students);
    r->students[r->count++] = (Student){xstrdup(name), xstrdup(path)};
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const Student *)a)->name, ((const Student *)b)->name);
}

int roster_load(const char *path, Roster *r) {
    memset(r, 0, sizeof *r);
    if (dir_exists(path)) {
        DIR *d = opendir(path);
        if (!d) return error("cannot read the roster directory '%s'", path);
        for (struct dirent *de; (de = readdir(d));) {
            char *dir = path_join(path, de->d_name), *ex = path_join(dir, "exercises");
            if (good_name(de->d_name) && dir_exists(ex)) add_student(r, de->d_name, dir);
            free(dir);
            free(ex);
        }
        closedir(d);
        qsort(r->students, (size_t)r->count, sizeof *r->students, by_name);
        if (r->count == 0) return error("%s: no student workspaces (subdirectories with an exercises/ directory)", path);
        return 0;
    }
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return -1;
    char *base = path_dirname(path), *save = NULL;
    int line_no = 0, rc = 0;
    for (char *line = strtok_r(text, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        line_no++; /* blank lines vanish in strtok_r: numbers count the lines it returns */
        char name[256] = "", where[4096] = "", more[8] = "";
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        int n = sscanf(line, "%255s %4095s %7s", name, where, more);
        if (n <= 0) continue;
        if (n != 2) rc = error("%s:%d: a line is NAME PATH (a name, then the workspace's directory)", path, line_no);
        else if (!good_name(name)) rc = error("%s:%d: '%s' is not a usable name (letters, digits, '.', '-', '_')", path, line_no, name);
        else {
            char *dir = where[0] == '/' ? xstrdup(where) : path_join(base, where);
            char *ex = path_join(dir, "exercises");
            for (int k = 0; k < r->count && rc == 0; k++)
                if (!strcmp(r->students[k].name, name)) rc = error("%s:%d: '%s' is listed twice", path, line_no, name);
            if (rc == 0 && !dir_exists(ex))
                rc = error("%s:%d: %s has no exercises/ directory: not a gpucourse workspace", path, line_no, dir);
            if (rc == 0) add_student(r, name, dir);
            free(ex);
            free(dir);
        }
    }
    free(base);
    free(text);
    if (rc == 0 && r->count == 0) rc = error("%s: no students listed", path);
    if (rc) roster_free(r);
    return rc;
}

void roster_free(Roster *r) {
    for (int i = 0; i < r->count; i++) free(r->students[i].name), free(r->students[i].path);
    free(r->students);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ sources as compiled */

/* What the similarity of two sources is computed on: the source as the
 * compiler read it (nvcc -E, in the compiler's box), less the toolkit's and
 * the system's headers (toolchain_own_text), so that what an #include
 * brings in (a classmate's file copied beside it) counts as the student's.
 * The file as it is when it does not preprocess (an #include the box
 * refused, a broken directive: it does not compile either), or where nvcc
 * is missing. Kept in `keep` (written, or removed when there is no file);
 * NULL: no file. */
static char *compiled_text(const Toolchain *t, const char *source, const char *keep) {
    char *text = read_file(source, NULL);
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

/* Where a student's source as compiled is kept: OUT/build/compiled/NAME-EX
 * (the course's in compiled/course/, which no student's name reaches). */
static char *compiled_keep(const ClassOptions *o, const char *name, const Exercise *e) {
    return xprintf("%s/build/compiled/%s-%s", o->out, name, e->id);
}

/* ------------------------------------------------------------ grading one student */

static char *out_file(const ClassOptions *o, const char *name, const char *ext) {
    return xprintf("%s/%s.%s", o->out, name, ext);
}

/* The student's attempts, read from a copy of their progress file: a
 * damaged one is moved aside and rewritten by progress_load, which must
 * happen to the copy, never to the student's. */
static void read_attempts(const ClassOptions *o, const Student *s, const Exercise *const *es, int n, int *attempts) {
    char *progress = path_join(s->path, "progress.yaml");
    char *copy = xprintf("%s/build/%s-progress.yaml", o->out, s->name);
    Progress p;
    if (file_exists(progress) && copy_file(progress, copy) == 0 && progress_load(copy, &p) == 0) {
        for (int i = 0; i < n; i++) {
            const ExProgress *x = progress_find(&p, es[i]->id);
            attempts[i] = x ? x->attempts : 0;
        }
        progress_free(&p);
    }
    free(progress);
    free(copy);
}

int class_grade_student(const Course *c, const Roster *r, int i, const ClassOptions *o) {
    const Student *s = &r->students[i];
    /* one build directory for the class: the harness and the references are
     * built once; each student's library is named after them (the label) */
    Workspace w = {.root = xstrdup(s->path), .progress = NULL, .build = xprintf("%s/build", o->out)};
    int rc = make_dirs(w.build);
    GradeResult *rs = xcalloc((size_t)o->nexercises, sizeof *rs);
    int *attempts = xcalloc((size_t)o->nexercises, sizeof *attempts);
    int graded = 0;
    Toolchain t;
    bool have_nvcc = toolchain_find(&t) == 0; /* without it grading says why; here the files are compared as they are */
    for (int k = 0; rc == 0 && k < o->nexercises; k++) {
        const Exercise *e = o->exercises[k];
        char *phase = xprintf("%s %s", s->name, e->id);
        if (o->on_phase) o->on_phase(phase, NULL);
        free(phase);
        GradeOptions go = {.seed = o->seed, .timeout_s = o->timeout_s, .label = s->name};
        grade_exercise(c, &w, e, &go, &rs[k]); /* never recorded: the progress is the student's */
        graded++;
        /* the source as compiled, beside the grading (in each array task): the collection compares them */
        char *source = xprintf("%s/exercises/%s", s->path, e->file), *keep = compiled_keep(o, s->name, e);
        free(compiled_text(have_nvcc ? &t : NULL, source, keep));
        free(source), free(keep);
        if (rs[k].verdict == V_INTERRUPTED) rc = EXIT_INTERRUPTED;
    }
    if (rc == 0) {
        read_attempts(o, s, o->exercises, graded, attempts);
        char *json = out_file(o, s->name, "json"), *xml = out_file(o, s->name, "xml"), *tsv = out_file(o, s->name, "tsv");
        FILE *f = fopen(json, "w");
        if (f) report_json(f, o->exercises, rs, graded), fclose(f);
        FILE *g = fopen(xml, "w");
        if (g) report_junit(g, o->exercises, rs, graded), fclose(g);
        StrBuf rows = {0};
        for (int k = 0; k < graded; k++)
            sb_printf(&rows, "%s\t%s\t%.4f\t%.4f\t%.4f\t%d\t%.1f\n", o->exercises[k]->id, verdict_key(rs[k].verdict),
                      rs[k].timed ? rs[k].vs_reference : 0, rs[k].timed ? rs[k].vs_baseline : 0,
                      rs[k].timed ? rs[k].vs_library : 0, attempts[k], rs[k].wall_s);
        /* written last, whole: its presence says this student was graded */
        if (!f || !g || write_file_atomic(tsv, rows.buf ? rows.buf : "", rows.len) < 0)
            rc = error("cannot write %s's results under %s", s->name, o->out);
        sb_free(&rows);
        free(json), free(xml), free(tsv);
    }
    for (int k = 0; k < graded; k++) grade_result_free(&rs[k]);
    if (have_nvcc) toolchain_free(&t);
    free(rs);
    free(attempts);
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

static void read_rows(const ClassOptions *o, const Student *s, Cell *cells, bool *present) {
    char *tsv = out_file(o, s->name, "tsv");
    char *text = read_file(tsv, NULL);
    *present = text != NULL;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char id[64];
        Cell c = {.graded = true};
        if (sscanf(line, "%63s %31s %lf %lf %lf %d %lf", id, c.verdict, &c.vs_reference, &c.vs_baseline,
                   &c.vs_library, &c.attempts, &c.wall_s) != 7)
            continue;
        for (int k = 0; k < o->nexercises; k++)
            if (!strcmp(o->exercises[k]->id, id)) cells[k] = c;
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

int class_collect(const Course *c, const Roster *r, const ClassOptions *o, FILE *summary) {
    int ns = r->count, ne = o->nexercises;
    Cell *cells = xcalloc((size_t)(ns * ne), sizeof *cells);
    bool *present = xcalloc((size_t)ns, sizeof *present);
    StrList *flags = xcalloc((size_t)ns, sizeof *flags);
    for (int i = 0; i < ns; i++) read_rows(o, &r->students[i], cells + i * ne, &present[i]);
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
            char *keep = compiled_keep(o, r->students[i].name, e);
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
    int class_passed = 0, missing = 0, flagged = 0;
    for (int i = 0; i < ns; i++) {
        int passed = 0;
        for (int k = 0; k < ne; k++) passed += !strcmp(cells[i * ne + k].verdict, "pass");
        class_passed += passed;
        missing += !present[i];
        flagged += flags[i].count > 0;
        StrBuf all = {0};
        for (int k = 0; k < flags[i].count; k++) sb_printf(&all, "%s%s", k ? "; " : "", flags[i].items[k]);
        if (f) {
            csv_field(f, r->students[i].name);
            fprintf(f, ",%d,%s", passed, present[i] ? "yes" : "no");
            for (int k = 0; k < ne; k++) {
                const Cell *x = &cells[i * ne + k];
                if (!x->graded) fputs(",,,,", f);
                else fprintf(f, ",%s,%.3f,%d,%.1f", x->verdict, x->vs_reference, x->attempts, x->wall_s);
            }
            fputc(',', f);
            csv_field(f, all.buf ? all.buf : "");
            fputc('\n', f);
        }
        fprintf(summary, "%-16s %s", r->students[i].name, present[i] ? "" : "NOT GRADED (see the task's log)");
        if (present[i]) {
            fprintf(summary, "%d/%d passed ", passed, ne);
            for (int k = 0; k < ne; k++) {
                const Cell *x = &cells[i * ne + k];
                fprintf(summary, " %s:%s", o->exercises[k]->id, x->graded ? x->verdict : "-");
            }
        }
        fputc('\n', summary);
        for (int k = 0; k < flags[i].count; k++) fprintf(summary, "  flag: %s\n", flags[i].items[k]);
        sb_free(&all);
        strlist_free(&flags[i]);
    }
    if (f && (fclose(f) != 0 || rename(tmp, csv_path) != 0)) rc = error("cannot write %s", csv_path);
    if (rc) unlink(tmp);
    fprintf(summary, "\n%d student%s, %d pass%s of %d exercise%s, %d not graded, %d flagged; gradebook: %s\n", ns,
            ns == 1 ? "" : "s", class_passed, class_passed == 1 ? "" : "es", ne, ne == 1 ? "" : "s", missing, flagged,
            csv_path);
    free(csv_path), free(tmp);
    free(cells), free(present), free(flags);
    if (tc) toolchain_free(&t);
    return rc;
}
