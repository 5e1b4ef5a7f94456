/* gpucourse class grade: every student of a roster, here or as Slurm job
 * arrays. */
#define _GNU_SOURCE
#include "cli.h"

static void class_phase(const char *what, void *ctx) {
    (void)ctx;
    fprintf(stderr, "grading %s...\n", what);
}

static void sh_quote(StrBuf *sb, const char *word) {
    sb_puts(sb, " '");
    for (const char *c = word; *c; c++) sb_puts(sb, *c == '\'' ? "'\\''" : (char[]){*c, '\0'});
    sb_puts(sb, "'");
}

/* sbatch --parsable's output as it comes: its first line, the job id, named
 * as one (with how to follow it); what else it says passes through. */
typedef struct {
    char first[64];
    size_t len;
    int done;
} SbatchOutput;

static void show_sbatch_output(const char *data, size_t len, void *ctx) {
    SbatchOutput *o = ctx;
    while (!o->done && len) {
        char c = *data++;
        len--;
        if (c != '\n' && o->len + 1 < sizeof o->first) {
            o->first[o->len++] = c;
            continue;
        }
        o->done = 1;
        o->first[o->len] = 0;
        if (o->len && strspn(o->first, "0123456789") == o->len)
            fprintf(stderr, "Slurm job %s (squeue -j %s shows its tasks)\n", o->first, o->first);
        else
            fprintf(stderr, "%s%c", o->first, c);
    }
    fwrite(data, 1, len, stderr);
}

/* A path in sbatch's --output, where '%' starts a pattern (%a, %j, ...):
 * each '%' doubled. NULL for a path with a '\', which makes sbatch leave
 * every pattern as it is. */
static char *sbatch_escape(const char *path) {
    if (strchr(path, '\\')) return NULL;
    StrBuf sb = {0};
    for (const char *c = path; *c; c++) sb_add(&sb, *c == '%' ? "%%" : c, *c == '%' ? 2 : 1);
    return sb_take(&sb);
}

/* The cluster's MaxArraySize (scontrol show config): an array's indices
 * are below it. Slurm's default, 1001, where it cannot be read: a smaller
 * one then fails at sbatch, which says so. */
static int slurm_max_array_size(void) {
    const char *argv[] = {"scontrol", "show", "config", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 30, .capture_limit = 1 << 20};
    ProcResult res;
    long max = 1001;
    if (proc_run(&spec, &res) == 0) {
        const char *at = res.output && res.exited && res.exit_code == 0 ? strstr(res.output, "\nMaxArraySize") : NULL;
        long v;
        if (at && sscanf(at + 1, "MaxArraySize = %ld", &v) == 1 && v >= 1 && v <= INT_MAX) max = v;
        proc_result_free(&res);
    }
    return (int)max;
}

/* One job array of the roster's students first to first + count - 1,
 * sbatch --wait until it is done. 0 when every task ended well, 1 when
 * sbatch says otherwise (said here), EXIT_INTERRUPTED after Ctrl-C (the
 * array cancelled), -1 when sbatch did not run. */
static int sbatch_array(const Options *o, const char *script, const char *log, int first, int count) {
    StrList args = {0};
    strlist_add(&args, "sbatch");
    strlist_add(&args, "--parsable");
    strlist_add(&args, "--wait");
    /* --gpus N: at most N tasks (GPUs) at once, Slurm's array throttle */
    char *array = o->gpus ? xprintf("--array=0-%d%%%d", count - 1, o->gpus) : xprintf("--array=0-%d", count - 1);
    char *output = xprintf("--output=%s", log), *offset = xprintf("%d", first);
    strlist_add(&args, array);
    strlist_add(&args, "--job-name=gpucourse-class");
    strlist_add(&args, output);
    free(array), free(output);
    strlist_add_words(&args, getenv("GPUCOURSE_SBATCH"));
    strlist_add(&args, script);
    strlist_add(&args, offset); /* the script's $1: the array's first student */
    free(offset);
    const char **argv = strlist_argv(&args);
    SbatchOutput shown = {0};
    ProcSpec spec = {.argv = argv, .capture_limit = 64 * 1024, .on_output = show_sbatch_output, .ctx = &shown};
    ProcResult res;
    int rc = proc_run(&spec, &res);
    if (rc == 0) {
        char job[64] = "";
        sscanf(res.output ? res.output : "", "%63[0-9]", job);
        if (res.interrupted && job[0]) { /* sbatch --wait leaves the array running: cancel it */
            const char *cancel[] = {"scancel", job, NULL};
            ProcSpec cs = {.argv = cancel, .timeout_s = 30, .capture_limit = 4096};
            ProcResult cr;
            if (proc_run(&cs, &cr) == 0) proc_result_free(&cr);
            fprintf(stderr, "cancelled job %s\n", job);
            rc = EXIT_INTERRUPTED;
        } else if (res.interrupted) rc = EXIT_INTERRUPTED;
        else if (!res.exited || res.exit_code != 0) {
            fprintf(stderr, "gpucourse: sbatch ended with exit code %d: %s\n", res.exited ? res.exit_code : 128 + res.signal,
                    job[0] ? "some tasks failed (their logs are in the output directory's log/)" : "no job array ran");
            rc = 1;
        }
        proc_result_free(&res);
    }
    free(argv);
    strlist_free(&args);
    return rc;
}

/* The roster as Slurm job arrays: task I of an array that starts at
 * student F runs `gpucourse class grade FROZEN ... --task F+I` on a node
 * sbatch picks (GPUCOURSE_SBATCH: its options, e.g. "--gres=gpu:1
 * --partition=gpu --time=30"), each writing its student's files under OUT.
 * FROZEN is the roster as it was at submission (OUT/roster-frozen.txt),
 * so that a directory that changes while the job waits changes nothing.
 * A class larger than the cluster's MaxArraySize goes as several arrays,
 * one after another; sbatch --wait returns when one is done. Ctrl-C
 * cancels the array. The paths must be the same on the nodes (a shared
 * file system). Returns 0, 1 when sbatch failed or a task did (said), or
 * EXIT_INTERRUPTED, or -1 with error set. */
static int class_slurm(const Options *o, const char *course, const Roster *roster, const char *run,
                       const char *const *selection, int nselection, const char *out) {
    char *escaped = sbatch_escape(out);
    if (!escaped) return error("--out %s: sbatch cannot take a '\\' in its paths (it turns off its patterns)", out);
    char *frozen = xprintf("%s/roster-frozen.txt", out), *self = realpath("/proc/self/exe", NULL);
    int rc = self ? class_freeze_roster(roster, run, frozen) : error("cannot find gpucourse's own path for the job script");
    StrBuf script = {0};
    sb_puts(&script, "#!/bin/sh\n# gpucourse class grade --slurm: task I of an array that starts at student $1 grades\n"
                     "# the frozen roster's student $1 + I\nunset GPUCOURSE_LAUNCHER\nexec");
    const char *fixed[] = {self ? self : "", "--course", course, "class", "grade", frozen};
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) sh_quote(&script, fixed[i]);
    for (int i = 0; i < nselection; i++) sh_quote(&script, selection[i]);
    sh_quote(&script, "--out");
    sh_quote(&script, out);
    char num[32];
    if (o->seed) snprintf(num, sizeof num, "%llu", o->seed), sh_quote(&script, "--seed"), sh_quote(&script, num);
    if (o->timeout_s) snprintf(num, sizeof num, "%d", o->timeout_s), sh_quote(&script, "--timeout"), sh_quote(&script, num);
    if (o->allow_partial_sandbox) sh_quote(&script, "--allow-partial-sandbox");
    sb_puts(&script, " --task \"$(($1 + SLURM_ARRAY_TASK_ID))\"\n");
    char *path = xprintf("%s/class.sbatch", out);
    if (rc == 0) rc = write_file_atomic(path, script.buf, script.len);
    sb_free(&script);
    free(self);
    int max = rc == 0 ? slurm_max_array_size() : 1, students = roster->count;
    int arrays = (students + max - 1) / max;
    if (rc == 0)
        fprintf(stderr, "submitting %d student%s as %s (%s) and waiting for %s...\n", students, students == 1 ? "" : "s",
                arrays == 1 ? "a Slurm job array" : "Slurm job arrays, one after another", path,
                arrays == 1 ? "it" : "them");
    if (rc == 0 && arrays > 1)
        fprintf(stderr, "  (the cluster's MaxArraySize is %d: %d arrays; the logs of the array that starts at student F "
                        "are log/task-F+I.txt)\n", max, arrays);
    bool failed = false;
    for (int first = 0; rc == 0 && first < students; first += max) {
        int count = students - first < max ? students - first : max;
        /* each task's log: log/task-I.txt, I the student's index (F+I after the first array) */
        char *log = first ? xprintf("%s/log/task-%d+%%a.txt", escaped, first) : xprintf("%s/log/task-%%a.txt", escaped);
        int one = sbatch_array(o, path, log, first, count);
        free(log);
        if (one == 1) failed = true;
        else rc = one;
    }
    free(path), free(frozen), free(escaped);
    return rc == 0 && failed ? 1 : rc;
}

/* The students of a class grade here, as proc_pool_run's jobs. */
typedef struct {
    const Course *course;
    const Roster *roster;
    const ClassOptions *co;
    bool interrupted;
} ClassRun;

/* In a worker (or here): student i graded into OUT; the reply is the
 * outcome, then what went wrong. */
static void class_job(int i, StrBuf *reply, void *ctx) {
    ClassRun *run = ctx;
    int rc = class_grade_student(run->course, run->roster, i, run->co);
    sb_printf(reply, "%d\n%s", rc, rc < 0 ? last_error() : "");
}

/* Here, in roster order: says what went wrong for student i; false after Ctrl-C. */
static bool class_done(int i, const char *reply, size_t len, void *ctx) {
    (void)len;
    ClassRun *run = ctx;
    const char *name = run->roster->students[i].name;
    const char *why = reply ? strchr(reply, '\n') : NULL;
    int rc = why ? atoi(reply) : -1;
    if (rc == EXIT_INTERRUPTED) return !(run->interrupted = true);
    if (rc < 0) /* their row says "not graded"; the others go on */
        fprintf(stderr, "gpucourse: %s: %s\n", name,
                why ? why + 1 : "the process of gpucourse's that graded them ended before it said how");
    return true;
}

/* Exit codes of class grade: 0 when every student was graded (whatever
 * their verdicts), EXIT_SETUP (65) when sbatch failed, a student has no
 * results ("not graded"), or nobody's code got past compiling (every
 * grading a setup or compile error), EXIT_SKIPPED (77) when no student's
 * code ran (every grading that compiled was skipped: no GPU): the gradebook
 * is written all the same. */

/* After the summary: a class where gradings were skipped says so at class
 * level, with where the GPU should have come from; true when nothing ran. */
static bool class_no_gpu_banner(const Options *o, const ClassTotals *t) {
    if (!t->skipped) return false;
    bool nothing_ran = t->skipped == t->reached;
    Launcher launch;
    bool launched = launcher_from_env(&launch);
    if (launched) launcher_free(&launch);
    const char *fix = o->slurm ? "the Slurm tasks found none (--gres=gpu:1 in GPUCOURSE_SBATCH)"
                      : launched ? "the launcher's jobs found none (srun --gres=gpu:1 gives one)"
                                 : "set GPUCOURSE_LAUNCHER or run on a GPU node";
    if (nothing_ran)
        printf("\nno GPU: nothing was run; %s\n(every grading that compiled was skipped: graded is skipped in the "
               "gradebook)\n", fix);
    else
        printf("\nno GPU for %d of %d gradings: they were not run; %s\n(graded is skipped in the gradebook for "
               "their students)\n", t->skipped, t->reached, fix);
    return nothing_ran;
}

/* The students' code runs as the instructor, beside their keys and the
 * class's other work: where this kernel cannot confine it (no Landlock, or
 * no seccomp filters), a class grade refuses unless told otherwise. */
static int class_sandbox_check(const Options *o) {
    SandboxStatus sb;
    sandbox_probe(&sb);
    if (sb.landlock && sb.seccomp) return 0;
    if (o->allow_partial_sandbox) {
        fprintf_visible(stderr, "gpucourse: note: students' code runs confined less on this machine (%s): "
                                "--allow-partial-sandbox\n", sb.note);
        return 0;
    }
    char message[512];
    snprintf(message, sizeof message, "this machine cannot confine the students' code (%s): it would run as you, "
             "able to read what you can", sb.note);
    return fail(EXIT_SETUP, message,
                "Grade on a Linux kernel with Landlock and seccomp filters (5.13 or later, Landlock enabled at boot: "
                "gpucourse doctor shows it), or pass --allow-partial-sandbox to grade here anyway.\n");
}

int cmd_class(const Options *o, const char *const *args, int nargs) {
    static const char usage[] =
        "usage: gpucourse class grade ROSTER [EX... | --chapter N | --all] [--out DIR] [--slurm] [--gpus N] "
        "[--allow-partial-sandbox], or: gpucourse class starter DIR";
    if (nargs == 2 && !strcmp(args[0], "starter")) { /* the students' starter repository (docs/classroom.md) */
        Session s;
        int rc = session_open(o, &s, false);
        if (rc == 0 && class_starter(s.course, args[1]) < 0) rc = fail_setup();
        if (rc == 0) printf("made %s: exercises/ (%d stubs), .gitignore, .course-id, README.md\n", args[1], s.course->nexercises);
        session_close(&s);
        return rc;
    }
    if (nargs < 2 || strcmp(args[0], "grade")) return fail_usage("%s", usage);
    if ((nargs >= 3) == (o->all || o->chapter)) return fail_usage("%s", usage);
    if (o->all && o->chapter) return fail_usage("%s", "--all and --chapter N exclude each other");
    if (o->format != FORMAT_TEXT)
        return fail_usage("%s", "class grade writes text; each student's results are OUT/NAME.json and OUT/NAME.xml "
                                "(JUnit), the class's OUT/gradebook.csv");
    const char *const *keys = args + 2;
    int nkeys = nargs - 2;
    Session s;
    int rc = session_open(o, &s, false);
    if (rc) {
        session_close(&s);
        return rc;
    }
    const Exercise **list = NULL;
    Roster roster = {0};
    int count = selected_exercises(&s, o, keys, nkeys, &list);
    char *out = NULL, *run = NULL;
    if (count < 0) rc = EXIT_USAGE;
    else if (roster_load(args[1], &roster) < 0) rc = fail_setup();
    else if (o->task >= roster.count)
        rc = roster.count == 1 ? fail_usage("--task %d: the roster has one student: 0", o->task)
                               : fail_usage("--task %d: the roster's students are 0 to %d", o->task, roster.count - 1);
    else {
        const char *dir = o->out ? o->out : "grades";
        char *logs = path_join(dir, "log");
        if (make_dirs(logs) < 0 || !(out = realpath(dir, NULL))) rc = fail_setup();
        free(logs);
    }
    if (rc) goto done;
    /* where the students' code runs (here, or each Slurm task on its node) */
    if ((o->task >= 0 || !o->slurm) && (rc = class_sandbox_check(o)) != 0) goto done;
    /* a task's results belong to the run that froze its roster; any other run is a fresh one */
    run = o->task >= 0 && roster.run ? xstrdup(roster.run) : class_run_id();
    ClassOptions co = {list, count, out, o->seed, o->timeout_s, class_phase, run};
    if (o->task >= 0) { /* one array task: its student, no collection */
        rc = class_grade_student(s.course, &roster, o->task, &co);
        if (rc < 0) rc = fail_setup();
        goto done;
    }
    /* a directory's entries that are not workspaces: each said, none silently */
    for (int i = 0; i < roster.skipped.count; i++)
        fprintf_visible(stderr, "gpucourse: %s: skipped %s\n", args[1], roster.skipped.items[i]);
    /* every student's results of an earlier run go before any is graded: a
     * task that never runs leaves its student "not graded" (and results
     * that cannot be removed are of another run: the collection skips them) */
    for (int i = 0; i < roster.count; i++)
        if (class_clear_outputs(&co, &roster.students[i]) < 0) fprintf_visible(stderr, "gpucourse: %s\n", last_error());
    if (class_clear_others(&co, &roster) < 0) fprintf_visible(stderr, "gpucourse: %s\n", last_error());
    bool sbatch_failed = false;
    if (rc == 0 && o->slurm) {
        char *course = realpath(s.course->root, NULL);
        const char **selection = xcalloc((size_t)nkeys + 2, sizeof *selection);
        int nsel = 0;
        for (int k = 0; k < nkeys; k++) selection[nsel++] = keys[k];
        if (o->all) selection[nsel++] = "--all";
        else if (o->chapter) selection[nsel++] = "--chapter", selection[nsel++] = o->chapter;
        rc = course ? class_slurm(o, course, &roster, run, selection, nsel, out) : error("cannot resolve the course's path");
        if (rc == 1) sbatch_failed = true, rc = 0;
        free(course), free(selection);
    } else if (rc == 0) { /* the students, as many at once as this machine has GPUs */
        int gpus = 0, at_once = grading_workers(o, roster.count, &gpus);
        ClassRun jobs = {s.course, &roster, &co, 0};
        ProcPool pool = {roster.count, at_once, class_job, class_done, &jobs};
        bool interrupted = false;
        double start = now_seconds();
        int students = proc_pool_run(&pool, &interrupted);
        rc = interrupted || jobs.interrupted ? EXIT_INTERRUPTED : 0;
        if (!rc) print_throughput(stderr, students * count, now_seconds() - start, at_once, gpus);
    }
    ClassTotals totals = {0};
    if (rc == EXIT_INTERRUPTED) fprintf(stderr, "gpucourse: interrupted: no gradebook written\n");
    else if (rc < 0) rc = fail_setup();
    else if (class_collect(s.course, &roster, &co, stdout, &totals) < 0) rc = fail_setup();
    else if (class_no_gpu_banner(o, &totals) && !sbatch_failed && !totals.not_graded) rc = EXIT_SKIPPED;
    else if (sbatch_failed || totals.not_graded || !totals.reached) {
        if (sbatch_failed) error("the Slurm job did not end well (sbatch's exit code above): the gradebook is incomplete");
        else if (totals.not_graded)
            error("%d of %d student%s not graded (their rows say so): the gradebook is incomplete", totals.not_graded,
                  totals.students, totals.students == 1 ? "" : "s");
        else error("nobody's code could be graded: every grading ended in a setup error or a compile error (%s/NAME.json "
                   "says why)", out);
        rc = fail_setup();
    }
done:
    free(run);
    free(out);
    free(list);
    roster_free(&roster);
    session_close(&s);
    return rc;
}
