/* gpucourse: the command line. main.c is the help, the table of commands
 * and the dispatch; each command is a file of its own in cli/ (cli.h). */
#define _GNU_SOURCE
#include "cli.h"

const char usage_text[] =
    "usage: gpucourse [options] [command] [args]\n"
    "\n"
    "A CUDA course in the terminal: write kernels, get them graded on the GPU.\n"
    "\n"
    "commands:\n"
    "  list                 chapters and exercises with your status\n"
    "  show [EX]            the task of an exercise and where its file is\n"
    "  lesson [EX|CHAPTER]  the lesson of EX's chapter, or of CHAPTER (04-scans,\n"
    "                       scans, or --chapter 4); through $PAGER on a terminal\n"
    "  grade [EX...]        compile, check and time your solution (each one named)\n"
    "  grade --chapter N    every exercise of chapter N\n"
    "  grade --all          every exercise of the course\n"
    "  why [EX]             grade EX, then say why it failed: your code under\n"
    "                       compute-sanitizer (wrong answers, faults, hangs) or its\n"
    "                       GPU counters beside the reference's (too slow); the\n"
    "                       verdict stays the grade's\n"
    "  hint [EX]            the next hint (one more each time)\n"
    "  solution EX          the reference solution, once you passed\n"
    "  reset EX             restore the stub (your file is kept in backups/)\n"
    "  watch [EX]           grade EX now, then on every save (default: any exercise)\n"
    "  progress             your progress through the course\n"
    "  check-course         validate the course (instructors; --format json for CI)\n"
    "  check-course --calibrate [EX...] [--runs N]\n"
    "                       grade each reference N times (default 5): measured\n"
    "                       ratios, floors to paste\n"
    "  new chapter NAME     a chapter at the end: its chapter.yaml and lesson.md\n"
    "  new exercise CHAPTER NAME --kind KIND\n"
    "                       the chapter's next exercise: its YAML entry, stub and\n"
    "                       reference\n"
    "  new course DIR       a course of its own in DIR (use it with --course DIR)\n"
    "  bench [--chapter N]  each reference against the same run's ceilings (a GPU)\n"
    "  doctor               what is installed, what is missing, how to fix it\n"
    "  class grade ROSTER [EX... | --chapter N | --all] [--out DIR] [--slurm]\n"
    "        [--gpus N] [--allow-partial-sandbox]\n"
    "                       grade every student of a roster (a file of NAME PATH\n"
    "                       lines, or a directory of workspaces) into DIR (default\n"
    "                       ./grades): JSON and JUnit per student, gradebook.csv,\n"
    "                       a summary with flags; --slurm: as a job array;\n"
    "                       --allow-partial-sandbox: also where the kernel cannot\n"
    "                       confine their code\n"
    "  class starter DIR    the repository students start from (stubs, .gitignore)\n"
    "  help                 this help\n"
    "\n"
    "EX is an exercise id (ex07, also ex7 or EX07), its number (7) or its name\n"
    "(vector_add); [EX] left out: the current exercise, the first not passed yet.\n"
    "With no command, on a terminal: the course app; elsewhere (a pipe, TERM dumb\n"
    "or unset), the course as text.\n"
    "Lines fit the terminal's width, and 80 columns where stdout is no terminal.\n"
    "\n"
    "options:\n"
    "  --format text|json|junit   output of grade and why (default text);\n"
    "                             check-course, progress and doctor: text or json;\n"
    "                             other commands print text and refuse json or\n"
    "                             junit (64)\n"
    "  --seed N                   replay a grading run with the inputs of seed N\n"
    "  --explain                  grade: after each failing grade, what why says\n"
    "  --profile                  why: also an Nsight Compute report of your\n"
    "                             kernels and the reference's at the size that\n"
    "                             decided, in WORKSPACE/profiles/ (needs ncu)\n"
    "  --trace                    grade: where each grading's time went, on stderr\n"
    "                             (also GPUCOURSE_TRACE=1)\n"
    "  --gpus N|all               grade and class grade with several exercises or\n"
    "                             students, check-course: how many gradings run at\n"
    "                             once, each on a GPU of its own (default all: one\n"
    "                             per GPU of this machine; through\n"
    "                             GPUCOURSE_LAUNCHER, default 1)\n"
    "  --timeout S                seconds that compiling your file, and then\n"
    "                             running it, may each take (default: 300 to\n"
    "                             compile, the exercise's own to run)\n"
    "  --course DIR               the course (default: $GPUCOURSE_COURSE, ., or\n"
    "                             beside the binary)\n"
    "  --workspace DIR            your files and progress (default:\n"
    "                             $GPUCOURSE_WORKSPACE or ~/gpucourse)\n"
    "  --kind KIND, --title T     new exercise: its problem kind\n"
    "                             (harness/kinds/KIND.cu); new: a title\n"
    "  --runs N                   check-course --calibrate: gradings per reference\n"
    "                             (1 to 100, default 5)\n"
    "  -h, --help                 this help\n"
    "  --version                  the version\n"
    "\n"
    "keys of the app (also on ?):\n"
    "  j/k or arrows move   Enter open   Esc back   e edit in $EDITOR\n"
    "  g grade (live log; Ctrl-C cancels)   h next hint   s solution, once passed\n"
    "  r reset   n/p next/previous   l lesson   w watch mode (grade on save)\n"
    "  y why (on a result card)   ? help   q quit\n"
    "\n"
    "exit codes of grade (and of check-course and doctor where they apply):\n"
    "  0 pass   1 wrong answer   2 too slow   3 compile error\n"
    "  4 runtime error or timeout\n"
    "  5 requirement not met (an instruction, the GPU's counters, a forbidden\n"
    "    library)\n"
    "  75 not now: the GPU was busy (grade again), or solution before a pass\n"
    "  77 no GPU (skipped)   64 usage error   130 interrupted\n"
    "  65 course or setup error (also: a required check this machine cannot make)\n"
    "With --format json or junit, stdout is a document also after a usage or\n"
    "setup error: its error member (JSON) or one errored test case (JUnit) says\n"
    "what went wrong.\n";

/* Every command; those with args -1 read their own arguments. */
static const struct {
    const char *name;
    int args; /* 0: none; 1: needs EX; 2: takes one EX; 3: takes EX... (or --chapter N, --all), the current
                 exercise when none; 4: takes one EX, the current exercise when none */
} commands[] = {{"list", 0},  {"show", 4},     {"grade", 3},  {"hint", 4},          {"solution", 1},
                {"reset", 1}, {"progress", 0}, {"bench", 0},  {"watch", 2},         {"why", 4},
                {"help", -1}, {"doctor", -1},  {"new", -1},   {"check-course", -1}, {"class", -1},
                {"lesson", 4}};

static int command_index(const char *name) {
    for (size_t i = 0; name && i < ARRAY_SIZE(commands); i++)
        if (!strcmp(name, commands[i].name)) return (int)i;
    return -1;
}

/* An unknown command, with the nearest one when it looks like a typo (one
 * or two letters off, not half of the word, as for exercises). */
static int fail_unknown_command(const char *typed) {
    const char *nearest = NULL;
    int best = INT_MAX;
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        int d = edit_distance(typed, commands[i].name);
        if (d <= 2 && 2 * d < (int)strlen(commands[i].name) && d < best) nearest = commands[i].name, best = d;
    }
    if (nearest) return fail_usage("unknown command '%s'; did you mean '%s'?", typed, nearest);
    /* the words of rustlings and similar courses, and what does that here */
    static const struct {
        const char *word, *here;
    } elsewhere[] = {
        {"run", "'grade' (with no exercise: the current one)"},
        {"verify", "'grade' (with no exercise: the current one)"},
        {"test", "'grade' (with no exercise: the current one)"},
        {"next", "'show' (with no exercise: the current one)"},
        {"status", "'progress'"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(elsewhere); i++)
        if (!strcmp(typed, elsewhere[i].word))
            return fail_usage("unknown command '%s'; here it is %s", typed, elsewhere[i].here);
    return fail_usage("unknown command '%s'", typed);
}

/* The command line's command, args its arguments. */
static int run_command(const Options *o, const char *cmd, const char *const *args, int nargs) {
    int which = command_index(cmd);
    if (cmd && which < 0) return fail_unknown_command(cmd);
    /* --format shapes what grade, why and check-course print (class grade
     * says its own), and progress and doctor also write JSON; any other
     * command prints text: refused, never ignored */
    bool json_too = cmd && (!strcmp(cmd, "progress") || !strcmp(cmd, "doctor"));
    if (o->format == FORMAT_JUNIT && json_too)
        return fail_usage("--format junit goes with grade, why and check-course; %s writes text or json", cmd);
    if (o->format != FORMAT_TEXT && !json_too &&
        (!cmd || (strcmp(cmd, "grade") && strcmp(cmd, "why") && strcmp(cmd, "check-course") && strcmp(cmd, "class"))))
        return fail_usage("--format %s goes with grade, why, check-course%s; %s prints text",
                          o->format == FORMAT_JSON ? "json" : "junit", o->format == FORMAT_JSON ? ", progress and doctor" : "",
                          cmd ? cmd : "the course app");
    if (cmd && !strcmp(cmd, "help")) {
        fprintf_wrapped(stdout, WRAP_LABELS, "%s", usage_text);
        return 0;
    }
    if (cmd && !strcmp(cmd, "doctor")) return cmd_doctor(o);
    if (cmd && !strcmp(cmd, "check-course")) return cmd_check_course(o, args, nargs);
    if (cmd && !strcmp(cmd, "new")) return cmd_new(o, args, nargs);
    if (cmd && !strcmp(cmd, "class")) return cmd_class(o, args, nargs);
    if (o->out || o->slurm || o->task >= 0) return fail_usage("%s", "--out, --slurm and --task go with class grade");
    if (o->gpus_given && (!cmd || (strcmp(cmd, "grade") && strcmp(cmd, "why"))))
        return fail_usage("%s", "--gpus goes with grade, class grade and check-course");
    if (o->kind || o->title) return fail_usage("%s", "--kind and --title go with new");
    if (o->calibrate || o->runs) return fail_usage("%s", "--calibrate and --runs go with check-course");
    if (o->explain && (!cmd || strcmp(cmd, "grade"))) return fail_usage("%s", "--explain goes with grade");
    if (o->trace && (!cmd || strcmp(cmd, "grade"))) return fail_usage("%s", "--trace goes with grade");
    if (o->profile && (!cmd || strcmp(cmd, "why"))) return fail_usage("%s", "--profile goes with why");

    bool grade = cmd && !strcmp(cmd, "grade"), grade_many = grade && (o->all || o->chapter);
    if (o->all && o->chapter) return fail_usage("%s", "--all and --chapter N exclude each other");
    bool lesson = cmd && !strcmp(cmd, "lesson");
    if (!grade && (o->all || (o->chapter && strcmp(cmd ? cmd : "", "bench") && !lesson)))
        return fail_usage("%s", "--all and --chapter go with grade (--chapter also with bench and lesson)");
    if (lesson && o->chapter && nargs) return fail_usage("%s", "lesson takes an exercise, a chapter or --chapter N");
    if (grade_many && nargs) return fail_usage("grade takes exercises, --chapter N or --all: one of them");
    if (which >= 0 && commands[which].args == 1 && !nargs)
        return fail_usage("'%s' needs an exercise, like ex01", cmd);
    if (which >= 0 && commands[which].args != 3 && nargs > (commands[which].args ? 1 : 0))
        return fail_usage("too many arguments for '%s'", cmd);

    Session s;
    int rc = session_open(o, &s, true);
    if (rc) {
        session_close(&s);
        return rc;
    }
    /* show, hint, grade and why without an exercise: the current one, the
     * first not passed (as rustlings' hint), said on stderr */
    const char *current[1];
    if (which >= 0 && commands[which].args >= 3 && !nargs && !grade_many && !(lesson && o->chapter)) {
        const Exercise *next = next_exercise(&s);
        if (!next) {
            session_close(&s);
            return fail_usage("every exercise is passed: '%s' needs one named, like ex01", cmd);
        }
        fprintf(stderr, "gpucourse: %s, the first exercise not passed yet\n", next->id);
        current[0] = next->id;
        args = current;
        nargs = 1;
    }
    const char *arg = nargs ? args[0] : NULL;
    if (!cmd) rc = tui_can_draw() ? run_app(&s, o, NULL, false) : cmd_start(&s);
    else if (!strcmp(cmd, "list")) rc = cmd_list(&s);
    else if (!strcmp(cmd, "show")) rc = cmd_show(&s, arg);
    else if (lesson) rc = cmd_lesson(&s, o, arg);
    else if (!strcmp(cmd, "grade")) rc = cmd_grade(&s, o, args, nargs, false);
    else if (!strcmp(cmd, "why")) rc = cmd_grade(&s, o, args, nargs, true);
    else if (!strcmp(cmd, "hint")) rc = cmd_hint(&s, arg);
    else if (!strcmp(cmd, "solution")) rc = cmd_solution(&s, arg);
    else if (!strcmp(cmd, "reset")) rc = cmd_reset(&s, arg);
    else if (!strcmp(cmd, "bench")) rc = cmd_bench(&s, o);
    else if (!strcmp(cmd, "watch")) rc = run_app(&s, o, arg, true);
    else rc = cmd_progress(&s, o);
    session_close(&s);
    return rc;
}

/* After a usage or setup error, the document that --format json|junit
 * promises, in the shape of the command's own (a mistyped command gets
 * grade's), with the error in it. Commands that write no document keep to
 * stderr. */
static void write_failure_document(const Options *o, const char *cmd) {
    bool check_course = cmd && !strcmp(cmd, "check-course");
    bool progress = cmd && !strcmp(cmd, "progress"), doctor = cmd && !strcmp(cmd, "doctor");
    bool json_too = (progress || doctor) && o->format == FORMAT_JSON;
    if (!cmd || (command_index(cmd) >= 0 && strcmp(cmd, "grade") && strcmp(cmd, "why") && !check_course && !json_too))
        return;
    if (json_too) { /* the members of their own document, none filled */
        if (progress) fputs("{\n  \"course\": null,\n  \"progress_file\": null,\n  \"exercises\": [],\n  \"passed\": 0,\n"
                            "  \"total\": 0,\n  \"error\": ", stdout);
        else printf("{\n  \"checks\": [],\n  \"ok\": false,\n  \"exit_code\": %d,\n  \"error\": ", failure.code);
        json_failure(stdout);
        fputs("\n}\n", stdout);
    } else if (o->format == FORMAT_JUNIT) {
        char *name = xprintf("gpucourse %s", cmd);
        report_junit_error(stdout, name, failure.code, failure.message, &failure.details);
        free(name);
    } else if (check_course && o->calibrate) {
        printf("{\n  \"calibration\": [],\n  \"ok\": false,\n  \"exit_code\": %d,\n  \"error\": ", failure.code);
        json_failure(stdout);
        fputs("\n}\n", stdout);
    } else if (check_course) {
        StrList none = {0};
        check_json(NULL, &none, NULL, NULL, 0, NULL, false, failure.code);
    } else {
        report_json_error(stdout, failure.code, failure.message, &failure.details);
    }
}

int main(int argc, char **argv) {
    process_start = now_seconds();
    proc_harden_self(); /* before anything of the student's runs: see proc.c */
    /* why --profile's runs, started by ncu (grader/profile.h): no command of the user's */
    if (argc >= 2 && !strcmp(argv[1], PROFILE_RUNS_ARG)) return profile_runs_main(argc - 2, argv + 2);
    Options o = {.task = -1};
    int rc = parse_options(argc, argv, &o);
    if (rc < 0) return 0;
    const char *cmd = optind < argc ? argv[optind] : NULL;
    const char *trace_env = getenv("GPUCOURSE_TRACE"); /* a CI's setting: grade's --trace, other commands unmoved */
    if (trace_env && *trace_env && strcmp(trace_env, "0") && cmd && !strcmp(cmd, "grade")) o.trace = true;
    int nargs = cmd ? argc - optind - 1 : 0;
    if (rc == 0) rc = run_command(&o, cmd, (const char *const *)argv + optind + 1, nargs);
    if (failure.code && rc == failure.code && o.format != FORMAT_TEXT) write_failure_document(&o, cmd);
    return rc;
}
