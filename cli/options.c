/* The command line's options and its one error: what every command reads
 * and how a usage or setup error is said (and kept for --format json). */
#define _GNU_SOURCE
#include "cli.h"

#ifndef GPUCOURSE_VERSION
#define GPUCOURSE_VERSION "0.1.0"
#endif

/* The usage or setup error that ends this run (cli.h). */
Failure failure;

int fail(int code, const char *message, const char *advice) {
    if (failure.code) return code;
    failure.code = code;
    snprintf(failure.message, sizeof failure.message, "%s", message);
    fprintf(stderr, "gpucourse: %s\n%s", failure.message, advice);
    return code;
}

int fail_usage(const char *fmt, ...) PRINTF_LIKE(1, 2);
int fail_usage(const char *fmt, ...) {
    char message[sizeof failure.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return fail(EXIT_USAGE, message, "Try 'gpucourse --help'.\n");
}

int fail_setup(void) { return fail(EXIT_SETUP, last_error(), ""); }

/* After course_find: the exercise named is not in the course. */
int fail_no_exercise(void) { return fail(EXIT_USAGE, last_error(), "Try 'gpucourse list'.\n"); }

/* The error member of a JSON document: null, or what ended the run. */
void json_failure(FILE *out) {
    if (failure.code) json_error(out, failure.code, failure.message, &failure.details);
    else fputs("null", out);
}

/* A number given to an option: digits only (strtoull would take a sign,
 * blanks and "-5" as 2^64 - 5), no overflow, min to max; false otherwise. */
bool option_number(const char *text, unsigned long long min, unsigned long long max, unsigned long long *value) {
    unsigned long long v = 0;
    if (!*text) return false;
    for (const char *c = text; *c; c++) {
        unsigned digit = (unsigned)(*c - '0');
        if (digit > 9 || v > (ULLONG_MAX - digit) / 10) return false;
        v = v * 10 + digit;
    }
    if (v < min || v > max) return false;
    *value = v;
    return true;
}

/* --chapter's chapter (0-based), or -1 after saying which chapters there
 * are: only the course knows how many. */
int chapter_index(const Course *c, const char *text) {
    unsigned long long n;
    if (option_number(text, 1, (unsigned long long)c->nchapters, &n)) return (int)n - 1;
    if (c->nchapters == 1) fail_usage("no chapter '%s': the course has one chapter, 1", text);
    else fail_usage("no chapter '%s': chapters are 1 to %d", text, c->nchapters);
    return -1;
}

/* The options into *o; 0, EXIT_USAGE after saying why, or -1 when they
 * were answered (--help, --version). After a bad value it reads on, so
 * that a --format later on the line still shapes the error document. */
int parse_options(int argc, char **argv, Options *o) {
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"seed", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"course", required_argument, NULL, 'c'}, {"workspace", required_argument, NULL, 'w'},
        {"chapter", required_argument, NULL, 'C'}, {"all", no_argument, NULL, 'a'},
        {"kind", required_argument, NULL, 'k'}, {"title", required_argument, NULL, 'T'},
        {"calibrate", no_argument, NULL, 'L'}, {"runs", required_argument, NULL, 'r'},
        {"explain", no_argument, NULL, 'x'}, {"trace", no_argument, NULL, 'R'},
        {"profile", no_argument, NULL, 'p'},
        {"out", required_argument, NULL, 'O'}, {"slurm", no_argument, NULL, 'S'}, {"task", required_argument, NULL, 'K'},
        {"gpus", required_argument, NULL, 'G'}, {"allow-partial-sandbox", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    int rc = 0, opt, longindex = 0;
    unsigned long long v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, &longindex)) != -1) { /* ':': a missing value is ':' */
        switch (opt) {
        case 'f':
            if (!strcmp(optarg, "text")) o->format = FORMAT_TEXT;
            else if (!strcmp(optarg, "json")) o->format = FORMAT_JSON;
            else if (!strcmp(optarg, "junit")) o->format = FORMAT_JUNIT;
            else rc = fail_usage("unknown format '%s' (text, json or junit)", optarg);
            break;
        case 's': /* 0 is no seed: a fresh one */
            if (option_number(optarg, 1, ULLONG_MAX, &v)) o->seed = v;
            else rc = fail_usage("--seed takes a positive number, not '%s': seeds are 1 to %llu", optarg, ULLONG_MAX);
            break;
        case 't':
            if (option_number(optarg, 1, 3600, &v)) o->timeout_s = (int)v;
            else rc = fail_usage("--timeout takes seconds (1 to 3600), not '%s'", optarg);
            break;
        case 'c':
        case 'w':
        case 'O': /* "" would be the root directory once a file name is joined to it */
            if (!*optarg) rc = fail_usage("--%s takes a directory, not an empty word", longopts[longindex].name);
            else if (opt == 'c') o->course_dir = optarg;
            else if (opt == 'w') o->workspace_dir = optarg;
            else o->out = optarg;
            break;
        case 'C': o->chapter = optarg; break; /* checked against the course: only it knows how many */
        case 'a': o->all = true; break;
        case 'k': o->kind = optarg; break;
        case 'T': o->title = optarg; break;
        case 'L': o->calibrate = true; break;
        case 'x': o->explain = true; break;
        case 'p': o->profile = true; break;
        case 'R': o->trace = true; break;
        case 'S': o->slurm = true; break;
        case 'P': o->allow_partial_sandbox = true; break;
        case 'K':
            if (option_number(optarg, 0, 1000000, &v)) o->task = (int)v;
            else rc = fail_usage("--task takes a student's index (0 to 1000000), not '%s'", optarg);
            break;
        case 'G':
            o->gpus_given = true;
            if (!strcmp(optarg, "all")) o->gpus = 0;
            else if (option_number(optarg, 1, GPU_MAX, &v)) o->gpus = (int)v;
            else rc = fail_usage("--gpus takes how many GPUs to grade on at once (1 to %d) or all, not '%s'", GPU_MAX, optarg);
            break;
        case 'r':
            if (option_number(optarg, 1, 100, &v)) o->runs = (int)v;
            else rc = fail_usage("--runs takes a number of runs (1 to 100), not '%s'", optarg);
            break;
        case 'h':
            if (rc) break;
            fprintf_wrapped(stdout, WRAP_LABELS, "%s", usage_text);
            return -1;
        case 'V':
            if (rc) break;
            printf("gpucourse %s\n", GPUCOURSE_VERSION);
            return -1;
        case ':': rc = fail_usage("option '%s' needs a value", argv[optind - 1]); break;
        default: rc = fail_usage("unknown option '%s'", argv[optind - 1]); break;
        }
    }
    return rc;
}
