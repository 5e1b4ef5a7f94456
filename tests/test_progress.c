/* The progress file: round trip, damage, versions, concurrent writers, links;
 * the workspace: reset's backups, stale temporary files. */
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/progress.h"
#include "../src/workspace.h"

static void test_missing_file_is_empty(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 0);
    assert_null(p.notice);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

static void test_round_trip(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    Progress p = {0};
    ExProgress *a = progress_get(&p, "ex01", true);
    a->status = ST_PASSED;
    a->attempts = 3;
    a->hints_seen = 2;
    a->best_vs_reference = 0.9731;
    a->best_vs_baseline = 0.88;
    a->best_vs_library = 0.8712;
    a->best_tflops = 44.25;
    strcpy(a->last_verdict, "pass");
    strcpy(a->first_attempt, "2026-11-22T10:00:00+00:00");
    strcpy(a->last_attempt, "2026-11-22T11:00:00+00:00");
    strcpy(a->passed_at, "2026-11-22T11:00:00+00:00");
    ExProgress *b = progress_get(&p, "ex02", true);
    b->status = ST_COMPILES;
    b->attempts = 1;
    assert_int_equal(progress_save(path, &p), 0);
    progress_free(&p);

    Progress q;
    assert_int_equal(progress_load(path, &q), 0);
    assert_int_equal(q.count, 2);
    ExProgress *x = progress_get(&q, "ex01", false);
    assert_non_null(x);
    assert_int_equal(x->status, ST_PASSED);
    assert_int_equal(x->attempts, 3);
    assert_int_equal(x->hints_seen, 2);
    assert_true(x->best_vs_reference > 0.973 && x->best_vs_reference < 0.9732);
    assert_string_equal(x->last_verdict, "pass");
    assert_string_equal(x->passed_at, "2026-11-22T11:00:00+00:00");
    assert_int_equal(progress_get(&q, "ex02", false)->status, ST_COMPILES);
    assert_null(progress_get(&q, "ex03", false));
    progress_free(&q);
    free(path);
    tmpdir_remove(dir);
}

/* A damaged file is moved aside under a .damaged- name and reported. */
static void check_damaged(const char *text, const char *why) {
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", text);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 0);
    assert_non_null(p.notice);
    if (!strstr(p.notice, why)) fprintf(stderr, "notice: %s\n", p.notice);
    assert_non_null(strstr(p.notice, why));
    assert_false(file_exists(path));
    char *cmd = xprintf("ls '%s' | grep -q '^progress.yaml.damaged-'", dir);
    assert_int_equal(system(cmd), 0);
    /* the damaged contents are intact in the kept file */
    char *cat = xprintf("grep -qF -- '%.20s' '%s'/progress.yaml.damaged-*", text, dir);
    assert_int_equal(system(cat), 0);
    free(cat);
    free(cmd);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

static void test_damaged_syntax(void **state) {
    (void)state;
    check_damaged("version: 1\nexercises:\n  ex01: {status: passed\n", "4:1: did not find expected");
}

static void test_damaged_truncated(void **state) {
    (void)state;
    check_damaged("version: 1\nexercises:\n  ex01:\n    status: passed\n  ex02: {status: pas",
                  "did not find expected");
}

static void test_damaged_garbage(void **state) {
    (void)state;
    check_damaged("\x01\x02\x03 binary junk", "");
}

static void test_damaged_structure(void **state) {
    (void)state;
    check_damaged("- just\n- a list\n", "expected a mapping");
}

static void test_newer_version_is_left_alone(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", "version: 9\nexercises: {}\n");
    Progress p;
    assert_int_equal(progress_load(path, &p), -1);
    assert_non_null(strstr(last_error(), "newer than this gpucourse"));
    assert_true(file_exists(path));
    free(path);
    tmpdir_remove(dir);
}

static void add_attempt(Progress *p, void *ctx) {
    progress_add_attempt(progress_get(p, ctx, true));
}

/* Eight processes each record 25 attempts at once: none is lost. */
static void test_concurrent_writers(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    enum { WRITERS = 8, EACH = 25 };
    for (int w = 0; w < WRITERS; w++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            for (int k = 0; k < EACH; k++)
                if (progress_update(path, add_attempt, (void *)(w % 2 ? "ex01" : "ex02"), NULL) < 0) _exit(1);
            _exit(0);
        }
    }
    int failures = 0;
    for (int w = 0; w < WRITERS; w++) {
        int status;
        wait(&status);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(failures, 0);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_null(p.notice);
    assert_int_equal(progress_get(&p, "ex01", false)->attempts, WRITERS / 2 * EACH);
    assert_int_equal(progress_get(&p, "ex02", false)->attempts, WRITERS / 2 * EACH);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ values a person may write */

static void assert_same_entry(const ExProgress *a, const ExProgress *b) {
    assert_string_equal(a->id, b->id);
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->attempts, b->attempts);
    assert_int_equal(a->hints_seen, b->hints_seen);
    assert_true(a->best_vs_reference == b->best_vs_reference);
    assert_true(a->best_vs_baseline == b->best_vs_baseline);
    assert_true(a->best_vs_library == b->best_vs_library);
    assert_true(a->best_tflops == b->best_tflops);
    assert_string_equal(a->last_verdict, b->last_verdict);
    assert_string_equal(a->first_attempt, b->first_attempt);
    assert_string_equal(a->last_attempt, b->last_attempt);
    assert_string_equal(a->passed_at, b->passed_at);
}

/* Quoted values that a hand-written printf would write back unquoted. */
static void test_round_trip_awkward_values(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml",
             "version: 1\n"
             "exercises:\n"
             "  ex01:\n"
             "    status: correct\n"
             "    attempts: 4\n"
             "    hints_seen: 1\n"
             "    best_vs_reference: 0.75\n"
             "    last_verdict: \"a: b # c\"\n"
             "    first_attempt: \"\xc3\xbcn\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80 \\L x\"\n"
             "    last_attempt: '#not a comment'\n"
             "    passed_at: \"tab\\there, \\\"quotes\\\" \"\n"
             "  \"odd: id #1\":\n"
             "    status: attempted\n"
             "    last_verdict: \"- [x] {y}, 'z' &a *b\"\n"
             "    first_attempt: \"null\"\n"
             "    last_attempt: \" 123 \"\n"
             "    passed_at: \"|\\nsecond line\"\n");
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    if (p.notice) fprintf(stderr, "notice: %s\n", p.notice);
    assert_null(p.notice);
    assert_int_equal(p.count, 2);
    assert_string_equal(p.items[0].last_verdict, "a: b # c");
    /* "\L" is U+2028, a line break to YAML: the writer must escape it */
    assert_string_equal(p.items[0].first_attempt,
                        "\xc3\xbcn\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80 \xe2\x80\xa8 x");
    assert_string_equal(p.items[0].passed_at, "tab\there, \"quotes\" ");
    assert_string_equal(p.items[1].id, "odd: id #1");
    assert_string_equal(p.items[1].passed_at, "|\nsecond line");
    assert_int_equal(progress_save(path, &p), 0);

    Progress q;
    assert_int_equal(progress_load(path, &q), 0);
    if (q.notice) fprintf(stderr, "notice: %s\n", q.notice);
    assert_null(q.notice);
    assert_int_equal(q.count, 2);
    assert_same_entry(&p.items[0], &q.items[0]);
    assert_same_entry(&p.items[1], &q.items[1]);
    progress_free(&p);
    progress_free(&q);
    free(path);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ one bad value */

static void test_bad_value_keeps_the_rest(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    const char *text = "version: 1\n"
                       "exercises:\n"
                       "  ex01:\n"
                       "    status: passed\n"
                       "    attempts: 3\n"
                       "    hints_seen: 2\n"
                       "    best_vs_reference: 0.9731\n"
                       "    best_vs_baseline: 0.5\n"
                       "    last_verdict: pass\n"
                       "    first_attempt: \"2026-11-22T10:00:00+00:00\"\n"
                       "    last_attempt: \"2026-11-22T11:00:00+00:00\"\n"
                       "    passed_at: \"2026-11-22T11:00:00+00:00\"\n"
                       "  ex02:\n"
                       "    status: attempted\n"
                       "    attempts: many\n"
                       "    hints_seen: 1\n";
    put_file(dir, "progress.yaml", text);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    ExProgress *a = progress_get(&p, "ex01", false);
    assert_non_null(a);
    assert_int_equal(a->status, ST_PASSED);
    assert_int_equal(a->attempts, 3);
    assert_int_equal(a->hints_seen, 2);
    assert_true(a->best_vs_reference == 0.9731 && a->best_vs_baseline == 0.5);
    assert_string_equal(a->last_verdict, "pass");
    assert_string_equal(a->first_attempt, "2026-11-22T10:00:00+00:00");
    assert_string_equal(a->last_attempt, "2026-11-22T11:00:00+00:00");
    assert_string_equal(a->passed_at, "2026-11-22T11:00:00+00:00");
    /* only the bad value is left out of ex02 */
    ExProgress *b = progress_get(&p, "ex02", false);
    assert_non_null(b);
    assert_int_equal(b->status, ST_ATTEMPTED);
    assert_int_equal(b->attempts, 0);
    assert_int_equal(b->hints_seen, 1);
    /* reported with file:line:col, and the original kept aside */
    assert_non_null(p.notice);
    char *where = xprintf("%s:15:15: bad value for 'attempts' in 'ex02'", path);
    if (!strstr(p.notice, where)) fprintf(stderr, "notice: %s\n", p.notice);
    assert_non_null(strstr(p.notice, where));
    assert_null(strstr(p.notice, "'ex01'"));
    char *aside = xprintf("%s.damaged-", path);
    assert_non_null(strstr(p.notice, aside));
    char *cmp = xprintf("printf '%%s' '%s' | cmp -s - '%s'/progress.yaml.damaged-*", text, dir);
    assert_int_equal(system(cmp), 0);
    /* what was kept is on disk, and reads without complaint */
    Progress q;
    assert_int_equal(progress_load(path, &q), 0);
    assert_null(q.notice);
    assert_int_equal(q.count, 2);
    assert_same_entry(a, progress_get(&q, "ex01", false));
    assert_same_entry(b, progress_get(&q, "ex02", false));
    progress_free(&q);
    free(cmp);
    free(aside);
    free(where);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

/* A document the YAML guard refuses is damaged like any other. */
static void test_damaged_too_deep(void **state) {
    (void)state;
    StrBuf sb = {0};
    sb_puts(&sb, "version: 1\nexercises:\n  ex01: {status: passed, extra: ");
    for (int i = 0; i < 200; i++) sb_puts(&sb, "[");
    for (int i = 0; i < 200; i++) sb_puts(&sb, "]");
    sb_puts(&sb, "}\n");
    check_damaged(sb.buf, "nested deeper than");
    sb_free(&sb);
}

/* ------------------------------------------------------------ symlinks */

/* progress.yaml -> elsewhere/p.yaml stays a link; the target gets the writes. */
static void test_save_through_symlink(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    char *target = path_join(dir, "elsewhere/p.yaml");
    put_file(dir, "elsewhere/p.yaml", "version: 1\nexercises:\n  ex01:\n    status: attempted\n    attempts: 5\n");
    assert_int_equal(symlink("elsewhere/p.yaml", path), 0);
    assert_int_equal(progress_update(path, add_attempt, "ex01", NULL), 0);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char link[256] = {0};
    assert_true(readlink(path, link, sizeof link - 1) > 0);
    assert_string_equal(link, "elsewhere/p.yaml");
    Progress p;
    assert_int_equal(progress_load(target, &p), 0);
    assert_int_equal(progress_get(&p, "ex01", false)->attempts, 6);
    progress_free(&p);
    /* a link to a file not yet written */
    assert_int_equal(unlink(target), 0);
    assert_int_equal(progress_update(path, add_attempt, "ex02", NULL), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_true(file_exists(target));
    /* no temporary file left anywhere */
    char *cmd = xprintf("find '%s' -name '*.tmp*' | grep -q .", dir);
    assert_int_not_equal(system(cmd), 0);
    free(cmd);
    free(target);
    free(path);
    tmpdir_remove(dir);
}

/* progress.yaml -> a file outside its workspace (a repository a classroom CI
 * grades, linking to the CI account's files): neither read, nor moved
 * aside as damaged, nor written. */
static void test_link_out_of_workspace(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    put_file(dir, "ws/exercises/.keep", "");
    put_file(dir, "home/.ssh/authorized_keys", "ssh-ed25519 AAAA the CI account's key\n");
    char *path = path_join(dir, "ws/progress.yaml"), *target = path_join(dir, "home/.ssh/authorized_keys");
    assert_int_equal(symlink("../home/.ssh/authorized_keys", path), 0);
    assert_int_equal(progress_update(path, add_attempt, "ex01", NULL), -1);
    assert_non_null(strstr(last_error(), "outside its workspace"));
    Progress p;
    assert_int_equal(progress_load(path, &p), -1);
    size_t len = 0;
    char *kept = read_file(target, &len);
    assert_string_equal(kept, "ssh-ed25519 AAAA the CI account's key\n"); /* as it was, where it was */
    char *cmd = xprintf("ls '%s/home/.ssh' | grep -qv '^authorized_keys$'", dir);
    assert_int_not_equal(system(cmd), 0); /* nothing moved aside beside it */
    free(cmd);
    free(kept);
    free(target);
    free(path);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ workspace */

/* A course of one exercise, ex01_x.cu, and a workspace in dir/NAME. */
static void make_course(const char *dir, Course *c, Exercise *e) {
    memset(c, 0, sizeof *c);
    memset(e, 0, sizeof *e);
    c->root = path_join(dir, "course");
    e->id = "ex01";
    e->file = "ex01_x.cu";
    put_file(c->root, "exercises/ex01_x.cu", "stub\n");
}

/* Waits for the start of a new second: what follows runs within one stamp. */
static time_t next_second(void) {
    time_t t = time(NULL);
    while (time(NULL) == t) usleep(1000);
    return t + 1;
}

/* Several resets of the same file in the same second: each backup is kept. */
static void test_reset_backups_concurrent(void **state) {
    (void)state;
    enum { N = 8 };
    char *dir = tmpdir_new();
    Course c;
    Exercise e;
    make_course(dir, &c, &e);
    char *backups = path_join(dir, "backups");
    time_t start = time(NULL) + 1;
    for (int k = 0; k < N; k++) {
        char *root = xprintf("%s/ws%d", dir, k), *text = xprintf("student %d\n", k);
        put_file(root, "exercises/ex01_x.cu", text);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            Workspace w = {.root = root, .backups = backups};
            char *backup;
            while (time(NULL) < start) usleep(100);
            _exit(workspace_reset(&c, &w, &e, &backup) == 0 && backup ? 0 : 1);
        }
        free(text);
        free(root);
    }
    int failures = 0;
    for (int k = 0; k < N; k++) {
        int status;
        wait(&status);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(failures, 0);
    for (int k = 0; k < N; k++) {
        char *cmd = xprintf("test $(grep -lx 'student %d' '%s'/ex01_x.cu.* | wc -l) -eq 1", k, backups);
        if (system(cmd) != 0) fprintf(stderr, "the backup of student %d is lost\n", k);
        assert_int_equal(system(cmd), 0);
        free(cmd);
    }
    char *count = xprintf("test $(ls '%s' | wc -l) -eq %d", backups, N);
    assert_int_equal(system(count), 0);
    free(count);
    free(backups);
    free(c.root);
    tmpdir_remove(dir);
}

/* The names a backup would take exist (one a dangling link): neither is touched. */
static void test_reset_backup_name_taken(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    Course c;
    Exercise e;
    make_course(dir, &c, &e);
    Workspace w = {.root = path_join(dir, "ws"), .backups = path_join(dir, "backups")};
    put_file(w.root, "exercises/ex01_x.cu", "mine\n");
    time_t t = next_second();
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char *first = xprintf("ex01_x.cu.%s", stamp), *second = xprintf("%s/ex01_x.cu.%s-2", w.backups, stamp);
    put_file(w.backups, first, "older\n");
    assert_int_equal(symlink("nowhere", second), 0);
    char *backup = NULL;
    assert_int_equal(workspace_reset(&c, &w, &e, &backup), 0);
    if (time(NULL) != t) skip(); /* the second ended: another stamp, nothing taken */
    char *want = xprintf("%s/ex01_x.cu.%s-3", w.backups, stamp);
    assert_non_null(backup);
    assert_string_equal(backup, want);
    char *older = path_join(w.backups, first), *kept = read_file(older, NULL), *saved = read_file(backup, NULL);
    assert_string_equal(kept, "older\n");
    assert_string_equal(saved, "mine\n");
    struct stat st;
    assert_int_equal(lstat(second, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    free(saved);
    free(kept);
    free(older);
    free(want);
    free(backup);
    free(second);
    free(first);
    workspace_free(&w);
    free(c.root);
    tmpdir_remove(dir);
}

/* Writes an empty file dir/name, modified minutes_ago. */
static void put_old(const char *dir, const char *name, int minutes_ago) {
    put_file(dir, name, "");
    char *path = path_join(dir, name);
    struct timespec ts[2] = {{time(NULL) - minutes_ago * 60, 0}, {time(NULL) - minutes_ago * 60, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    free(path);
}

/* Temp files of processes killed before their rename are removed when the
 * workspace is opened; those of live processes, recent ones and anything
 * else are left. */
static void test_open_removes_stale_temps(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0) _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    long me = (long)getpid();
    char *gone[] = {xprintf("progress.yaml.tmp.%ld", (long)dead), xprintf(".build/harness-scan.tmp.%ld", (long)dead),
                    xprintf(".build/harness-scan.stamp.tmp.%ld", (long)dead),
                    xprintf(".build/student-ex01.so.%ld.tmp", (long)dead)};
    char *kept_old[] = {xprintf("progress.yaml.tmp.%ld", me), xprintf(".build/student-ex01.so.%ld.tmp", me),
                        xprintf(".build/harness-scan.tmp.%ld", me), xprintf("notes.tmp.%ld", (long)dead),
                        xprintf("exercises/ex01_x.cu.tmp.%ld", (long)dead), xstrdup(".build/x.tmp"),
                        xstrdup(".build/x.tmp.12a"), xstrdup(".build/.123.tmp"), xstrdup("progress.yaml.lock"),
                        xstrdup(".build/harness-reduce"), xprintf("progress.yaml.%ld.tmp", (long)dead)};
    /* a dead pid, but just written: its pid may be in use again already */
    char *kept_new = xprintf(".build/reference-ex01.so.tmp.%ld", (long)dead);
    for (size_t i = 0; i < ARRAY_SIZE(gone); i++) put_old(dir, gone[i], 10);
    for (size_t i = 0; i < ARRAY_SIZE(kept_old); i++) put_old(dir, kept_old[i], 10);
    put_file(dir, kept_new, "");
    /* not regular files */
    char *subdir = xprintf("%s/.build/d.tmp.%ld", dir, (long)dead);
    char *link = xprintf("%s/.build/l.tmp.%ld", dir, (long)dead);
    assert_int_equal(make_dirs(subdir), 0);
    assert_int_equal(symlink("nowhere", link), 0);

    Course c = {.root = dir};
    Workspace w;
    assert_int_equal(workspace_open(&c, dir, &w), 0);
    for (size_t i = 0; i < ARRAY_SIZE(gone); i++) {
        char *path = path_join(dir, gone[i]);
        if (access(path, F_OK) == 0) fprintf(stderr, "still there: %s\n", gone[i]);
        assert_int_not_equal(access(path, F_OK), 0);
        free(path);
        free(gone[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(kept_old); i++) {
        char *path = path_join(dir, kept_old[i]);
        if (!file_exists(path)) fprintf(stderr, "removed: %s\n", kept_old[i]);
        assert_true(file_exists(path));
        free(path);
        free(kept_old[i]);
    }
    char *path = path_join(dir, kept_new);
    assert_true(file_exists(path));
    assert_true(dir_exists(subdir));
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    free(path);
    free(kept_new);
    free(link);
    free(subdir);
    workspace_free(&w);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ file sizes and modes */

/* The size is looked at before a byte is read, and a read without a size
 * (a device, a pipe) stops past the limit. */
static void test_read_file_max(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "f");
    put_file(dir, "f", "12345678");
    size_t len = 99;
    char *text = read_file_max(path, 8, &len);
    assert_non_null(text);
    assert_int_equal(len, 8);
    free(text);
    errno = 0;
    assert_null(read_file_max(path, 7, &len));
    assert_int_equal(errno, EFBIG);
    assert_int_equal(len, 8);
    char *want = xprintf("cannot read '%s': the file has 8 bytes, more than the limit of 7 bytes", path);
    assert_string_equal(last_error(), want);
    free(want);
    /* sparse: 30 GB that take no room, never read */
    assert_int_equal(truncate(path, 30ll << 30), 0);
    assert_null(read_file(path, &len));
    assert_int_equal(errno, EFBIG);
    assert_true(len == (size_t)30 << 30);
    assert_non_null(strstr(last_error(), "the file has 32212254720 bytes, more than the limit of 64 MiB"));
    /* no size, no end */
    assert_null(read_file_max("/dev/zero", 4 << 20, &len));
    assert_int_equal(errno, EFBIG);
    assert_int_equal(len, 0);
    assert_string_equal(last_error(), "cannot read '/dev/zero': the file has more than the limit of 4 MiB");
    /* a pipe with no writer is not waited on */
    char *fifo = path_join(dir, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    text = read_file(fifo, &len);
    assert_non_null(text);
    assert_int_equal(len, 0);
    free(text);
    free(fifo);
    free(path);
    tmpdir_remove(dir);
}

static unsigned mode_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* A rewritten file keeps its mode (also when a stale temp file of another
 * mode is in the way); a new one gets the umask's. */
static void test_write_keeps_mode(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml"), *stale = xprintf("%s.tmp.%ld", path, (long)getpid());
    mode_t old_umask = umask(022);
    assert_int_equal(write_file_atomic(path, "a", 1), 0);
    assert_int_equal(mode_of(path), 0644);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(write_file_atomic(stale, "", 0), 0);
    assert_int_equal(chmod(stale, 0666), 0);
    assert_int_equal(write_file_atomic(path, "b", 1), 0);
    assert_int_equal(mode_of(path), 0600);
    Progress p = {0};
    progress_get(&p, "ex01", true)->attempts = 1;
    assert_int_equal(progress_save(path, &p), 0);
    assert_int_equal(mode_of(path), 0600);
    assert_int_equal(chmod(path, 0664), 0); /* wider than the umask allows a new file: kept too */
    assert_int_equal(progress_save(path, &p), 0);
    assert_int_equal(mode_of(path), 0664);
    progress_free(&p);
    /* copy_file: onto a file, its mode; a new file, the umask's */
    char *from = path_join(dir, "from"), *onto = path_join(dir, "onto"), *fresh = path_join(dir, "fresh");
    put_file(dir, "from", "mine\n");
    put_file(dir, "onto", "old\n");
    assert_int_equal(chmod(from, 0444), 0);
    assert_int_equal(chmod(onto, 0600), 0);
    assert_int_equal(copy_file(from, onto), 0);
    assert_int_equal(mode_of(onto), 0600);
    umask(077);
    assert_int_equal(copy_file(from, fresh), 0);
    assert_int_equal(mode_of(fresh), 0600);
    char *copied = read_file(fresh, NULL);
    assert_string_equal(copied, "mine\n");
    free(copied);
    umask(old_umask);
    free(fresh);
    free(onto);
    free(from);
    free(stale);
    free(path);
    tmpdir_remove(dir);
}

/* ------------------------------------------------------------ repeated and unknown keys, counts */

/* An exercise listed twice: neither is taken (which is right cannot be
 * known), the others are, and the file is kept aside as read. */
static void test_repeated_exercise(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", "version: 1\nexercises:\n  ex01: {status: passed, passed_at: x}\n"
                                   "  ex02: {status: compiles}\n  ex01: {status: attempted}\n  ex01: {}\n");
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(progress_get(&p, "ex02", false)->status, ST_COMPILES);
    assert_non_null(p.notice);
    char *second = xprintf("%s:5:3: 'ex01' is listed twice (first at 3:3)", path);
    char *third = xprintf("%s:6:3: 'ex01' is listed twice (first at 3:3)", path);
    if (!strstr(p.notice, second) || !strstr(p.notice, third)) fprintf(stderr, "notice: %s\n", p.notice);
    assert_non_null(strstr(p.notice, second));
    assert_non_null(strstr(p.notice, third));
    assert_non_null(strstr(p.notice, ".damaged-"));
    progress_free(&p);
    /* what was written back reads clean */
    assert_int_equal(progress_load(path, &p), 0);
    assert_null(p.notice);
    assert_int_equal(p.count, 1);
    progress_free(&p);
    free(third);
    free(second);
    free(path);
    tmpdir_remove(dir);
}

/* A key twice in an entry: that entry is left out, the others kept. */
static void test_repeated_entry_key(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", "version: 1\nexercises:\n  ex01:\n    attempts: 2\n    attempts: 3\n"
                                   "  ex02: {attempts: 1, extra: 1, extra: 2}\n  ex03: {attempts: 4}\n");
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(progress_get(&p, "ex03", false)->attempts, 4);
    char *first = xprintf("%s:5:5: 'attempts' is listed twice in 'ex01' (first at 4:5)", path);
    if (!strstr(p.notice, first)) fprintf(stderr, "notice: %s\n", p.notice);
    assert_non_null(strstr(p.notice, first));
    assert_non_null(strstr(p.notice, "'extra' is listed twice in 'ex02'"));
    free(first);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

/* A top-level key twice: the file as a whole cannot be trusted. */
static void test_repeated_top_key(void **state) {
    (void)state;
    check_damaged("version: 1\nexercises: {ex01: {status: passed}}\nexercises: {}\n",
                  "3:1: 'exercises' is listed twice (first at 2:1)");
}

/* Keys this gpucourse does not know, at the top and in entries, nested,
 * quoted and tagged, come back from a rewrite as they were read. */
static void test_unknown_keys_kept(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    put_file(dir, "progress.yaml", "version: 1\n"
                                   "badges: [fast, {gold: 2}]\n"
                                   "exercises:\n"
                                   "  ex01:\n"
                                   "    attempts: 1\n"
                                   "    streak: \"7\"\n"
                                   "    seen: !!float 2\n"
                                   "    nested: {a: [1, 2], b: {c: d}}\n"
                                   "  ex02: {}\n"
                                   "  ex03: {later: yes}\n"
                                   "theme: &t dark\n"
                                   "again: *t\n");
    assert_int_equal(progress_update(path, add_attempt, "ex02", NULL), 0);
    char *text = read_file(path, NULL);
    const char *want = "version: 1\n"
                       "badges: [fast, {gold: 2}]\n"
                       "theme: dark\n"
                       "again: dark\n"
                       "exercises:\n"
                       "  ex01:\n"
                       "    attempts: 1\n"
                       "    streak: \"7\"\n"
                       "    seen: !!float 2\n"
                       "    nested: {a: [1, 2], b: {c: d}}\n"
                       "  ex02:\n"
                       "    attempts: 1\n"
                       "  ex03:\n"
                       "    later: yes\n";
    if (!strstr(text, want)) fprintf(stderr, "written:\n%s", text);
    assert_non_null(strstr(text, want));
    free(text);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_null(p.notice);
    assert_int_equal(p.count, 3);
    progress_free(&p);
    free(path);
    tmpdir_remove(dir);
}

/* Attempts at the most the reader takes stay there: the file stays valid. */
static void test_attempts_saturate(void **state) {
    (void)state;
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    char *text = xprintf("version: 1\nexercises:\n  ex01: {attempts: %d}\n", PROGRESS_COUNT_MAX);
    put_file(dir, "progress.yaml", text);
    assert_int_equal(progress_update(path, add_attempt, "ex01", NULL), 0);
    assert_int_equal(progress_update(path, add_attempt, "ex01", NULL), 0);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    assert_null(p.notice);
    assert_int_equal(progress_get(&p, "ex01", false)->attempts, PROGRESS_COUNT_MAX);
    progress_free(&p);
    free(text);
    free(path);
    tmpdir_remove(dir);
}

/* 49,000 entries: read in linear time, and written back as cheaply as they
 * were read (so that the YAML guard's limits take the file again). */
static void test_many_entries(void **state) {
    (void)state;
    enum { N = 49000 };
    char *dir = tmpdir_new();
    char *path = path_join(dir, "progress.yaml");
    StrBuf sb = {0};
    sb_puts(&sb, "version: 1\nexercises:\n");
    for (int i = 0; i < N; i++) sb_printf(&sb, "  x%d: {}\n", i);
    put_file(dir, "progress.yaml", sb.buf);
    double start = now_seconds();
    assert_int_equal(progress_update(path, add_attempt, "ex01", NULL), 0);
    Progress p;
    assert_int_equal(progress_load(path, &p), 0);
    double took = now_seconds() - start;
    assert_null(p.notice);
    assert_int_equal(p.count, N + 1);
    assert_int_equal(progress_get(&p, "ex01", false)->attempts, 1);
    assert_non_null(progress_get(&p, "x48999", false));
    if (took > 2) fprintf(stderr, "two loads and a save of %d entries took %.1f s\n", N, took);
    assert_true(took < 2); /* quadratic: 5 s and more */
    progress_free(&p);
    sb_free(&sb);
    free(path);
    tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file_is_empty), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_damaged_syntax),        cmocka_unit_test(test_damaged_truncated),
        cmocka_unit_test(test_damaged_garbage),       cmocka_unit_test(test_damaged_structure),
        cmocka_unit_test(test_newer_version_is_left_alone), cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_round_trip_awkward_values), cmocka_unit_test(test_bad_value_keeps_the_rest),
        cmocka_unit_test(test_damaged_too_deep),      cmocka_unit_test(test_save_through_symlink), cmocka_unit_test(test_link_out_of_workspace),
        cmocka_unit_test(test_reset_backups_concurrent), cmocka_unit_test(test_reset_backup_name_taken),
        cmocka_unit_test(test_open_removes_stale_temps), cmocka_unit_test(test_read_file_max),
        cmocka_unit_test(test_write_keeps_mode), cmocka_unit_test(test_repeated_exercise),
        cmocka_unit_test(test_repeated_entry_key), cmocka_unit_test(test_repeated_top_key),
        cmocka_unit_test(test_unknown_keys_kept), cmocka_unit_test(test_attempts_saturate),
        cmocka_unit_test(test_many_entries),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
