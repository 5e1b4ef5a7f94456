/* The terminal app: the main loop (keys, file events, resize),
 * and the actions (edit, grade, hint, solution, reset, watch), each done
 * through the same course, workspace, progress and grader code as the
 * command line. Also `gpucourse watch` without a terminal. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../grader/launcher.h"
#include "../grader/report.h"
#include "../grader/toolchain.h"
#include "../src/proc.h"
#include "card.h"
#include "draw.h"
#include "state.h"
#include "views.h"

enum { LOG_LIMIT = 256 * 1024 };
#define GRADING_REDRAW_S 0.05

static void reload_progress(App *a) {
    Progress fresh;
    if (progress_load(a->ws->progress, &fresh) < 0) {
        app_message(a, S_ERROR, "cannot read your progress: %s", last_error());
        return;
    }
    if (fresh.notice) app_message(a, S_ERROR, "warning: %s", fresh.notice);
    progress_free(&a->progress);
    a->progress = fresh;
}

static void show_notice(App *a, char *notice) {
    if (notice) app_message(a, S_ERROR, "warning: %s", notice);
    free(notice);
}

static const Exercise *current(const App *a) { return &a->course->exercises[a->ex]; }

/* ------------------------------------------------------------ grading */

/* At most one frame per GRADING_REDRAW_S while output pours in, but the
 * first output after a quiet spell at once: nothing else would draw it while
 * the program stays quiet (a line, then a long compile or a hang). */
static void grading_redraw(App *a, bool force) {
    double now = now_seconds();
    if (!force && now - a->last_draw < GRADING_REDRAW_S) return;
    a->last_draw = now;
    int key;
    while ((key = draw_key()) != ERR) { /* only a resize matters while grading; Ctrl-C is a signal */
    }
    view_draw(a);
}

static void on_grade_output(const char *data, size_t len, void *ctx) {
    App *a = ctx;
    if (a->log.len > LOG_LIMIT) { /* keep the tail: that is what is on the screen */
        size_t keep = LOG_LIMIT / 2;
        memmove(a->log.buf, a->log.buf + a->log.len - keep, keep);
        a->log.len = keep;
        a->log.buf[keep] = '\0';
    }
    for (size_t i = 0; i < len; i++) {
        char ch = data[i];
        if (ch == '\t') ch = ' ';
        else if ((unsigned char)ch < 0x20 && ch != '\n') continue; /* no escapes from the program on our screen */
        sb_add(&a->log, &ch, 1);
    }
    double now = now_seconds();
    bool after_quiet = now - a->last_output > GRADING_REDRAW_S;
    a->last_output = now;
    grading_redraw(a, after_quiet);
}

static void on_grade_phase(const char *phase, void *ctx) {
    App *a = ctx;
    snprintf(a->phase, sizeof a->phase, "%s", phase);
    grading_redraw(a, true);
}

static void grade(App *a, int ex, const char *why) {
    const Exercise *e = &a->course->exercises[ex];
    a->ex = ex;
    a->grading_ex = ex;
    ViewId was = a->view;
    a->view = VIEW_GRADING;
    a->confirm_reset = false;
    a->message[0] = '\0';
    a->log.len = 0;
    if (a->log.buf) a->log.buf[0] = '\0';
    snprintf(a->phase, sizeof a->phase, "starting");
    a->last_output = 0;
    grading_redraw(a, true);
    /* the judge ends after the card is drawn (loop settles it) */
    GradeOptions go = {.seed = a->opt.seed, .timeout_s = a->opt.timeout_s, .on_output = on_grade_output,
                       .on_phase = on_grade_phase, .ctx = a, .settle_later = true};
    GradeResult r;
    grade_exercise(a->course, a->ws, e, &go, &r);
    if (r.verdict == V_INTERRUPTED) {
        grade_result_free(&r);
        a->view = was == VIEW_GRADING ? VIEW_EXERCISE : was;
        app_message(a, S_MESSAGE, "grading cancelled; nothing was recorded");
        return;
    }
    char *notice = NULL;
    if (grade_record(a->ws, e, &r, &notice) < 0)
        app_message(a, S_ERROR, "progress not saved: %s", last_error());
    show_notice(a, notice);
    reload_progress(a);
    if (a->have_result[ex]) grade_result_free(&a->results[ex]);
    a->results[ex] = r;
    a->have_result[ex] = true;
    a->have_diagnosis[ex] = false;
    a->view = VIEW_RESULT;
    a->scroll = 0;
    if (!a->message[0])
        app_message(a, card_verdict_style(r.verdict), "%s%s: %s", why, e->id, verdict_title(r.verdict));
}

/* The first hint of the card's diagnosis that names a lesson's section, or NULL. */
static const Hint *section_hint(const App *a) {
    if (a->view != VIEW_RESULT || !a->have_result[a->ex] || !a->have_diagnosis[a->ex]) return NULL;
    const Diagnosis *d = &a->diagnoses[a->ex];
    for (int i = 0; i < d->nhints; i++)
        if (d->hints[i].section[0] && d->hints[i].chapter >= 0 && d->hints[i].chapter < a->course->nchapters)
            return &d->hints[i];
    return NULL;
}

/* l: the lesson of the exercise's chapter. From a card, at the exercise's
 * section (after y, at the section its hint names), and Esc comes back to
 * the card; from the list, at the top. */
static void open_lesson(App *a) {
    const Exercise *e = current(a);
    const char *section = NULL;
    a->chapter = e->chapter;
    if (a->view == VIEW_EXERCISE || a->view == VIEW_RESULT || a->view == VIEW_SOLUTION) {
        const Hint *h = section_hint(a);
        if (h) a->chapter = h->chapter;
        section = h ? h->section : e->lesson_section;
        a->lesson_from = a->view;
        a->lesson_from_ex = a->ex;
        a->lesson_from_scroll = a->scroll;
    } else if (a->view != VIEW_LESSON && a->view != VIEW_CONTENTS) {
        a->lesson_from = VIEW_COURSE;
    }
    a->view = VIEW_LESSON;
    a->scroll = 0;
    a->search[0] = '\0';
    snprintf(a->goto_section, sizeof a->goto_section, "%s", section ? section : "");
    if (section)
        app_message(a, S_DIM, "at '%s'; t lists the sections, / searches, Esc goes back to %s", section, e->id);
}

/* Whether grading can run code here, asked once, after the first frame is
 * drawn (the driver's start takes a moment): without a GPU or a launcher,
 * the title bar says so from the start, and the status line why. */
static void probe_gpu(App *a) {
    a->probed = true;
    Launcher l;
    bool launched = launcher_from_env(&l);
    launcher_free(&l);
    if (launched) return;
    GpuInfo g;
    gpu_probe(&g);
    if (g.count > 0) return;
    a->no_gpu = true;
    if (a->message[0] && a->message_style == S_ERROR) return; /* a warning keeps its rows; the title bar says it */
    char was[sizeof a->message];
    snprintf(was, sizeof was, "%s", a->message);
    app_message(a, was[0] ? a->message_style : S_MESSAGE, "no GPU here: grading compiles only; D says why%s%s",
                was[0] ? ". " : "", was);
}

/* y on a result card: gpucourse why of that result, shown below the card. */
static void why(App *a) {
    int ex = a->ex;
    if (a->view != VIEW_RESULT || !a->have_result[ex]) {
        app_message(a, S_DIM, "y explains a grade: open a result card first (g grades)");
        return;
    }
    const Exercise *e = &a->course->exercises[ex];
    a->grading_ex = ex;
    a->view = VIEW_GRADING;
    a->log.len = 0;
    if (a->log.buf) a->log.buf[0] = '\0';
    snprintf(a->phase, sizeof a->phase, "diagnosing");
    grading_redraw(a, true);
    DiagnoseOptions o = {.on_phase = on_grade_phase, .ctx = a};
    diagnose_exercise(a->course, a->ws, e, &a->results[ex], &o, &a->diagnoses[ex]);
    a->have_diagnosis[ex] = true;
    a->view = VIEW_RESULT;
    a->scroll_to_mark = true;
    const Diagnosis *d = &a->diagnoses[ex];
    const Hint *h = section_hint(a);
    if (d->kind == DIAG_NOTHING) app_message(a, S_DIM, "why %s: no diagnosis (below the card)", e->id);
    else if (h) app_message(a, S_MESSAGE, "why %s: %d hint%s, below the card (%.1f s); l opens the lesson at '%s'",
                            e->id, d->nhints, d->nhints == 1 ? "" : "s", d->wall_s, h->section);
    else app_message(a, S_MESSAGE, "why %s: %d hint%s, below the card (%.1f s)", e->id, d->nhints,
                     d->nhints == 1 ? "" : "s", d->wall_s);
}

/* ------------------------------------------------------------ actions */

/* D: gpucourse doctor's report in a view. doctor runs as a program of its
 * own (this one, the course's root given), so that the app shows what the
 * command line says, checks and fixes alike. */
static void doctor(App *a) {
    char *self = realpath("/proc/self/exe", NULL);
    if (!self) {
        app_message(a, S_ERROR, "cannot run gpucourse doctor: %s", strerror(errno));
        return;
    }
    app_message(a, S_DIM, "gpucourse doctor is looking...");
    view_draw(a);
    const char *argv[] = {self, "--course", a->course->root, "doctor", NULL};
    ProcSpec spec = {.argv = argv, .timeout_s = 60, .capture_limit = 64 << 10};
    ProcResult res = {0};
    int ran = proc_run(&spec, &res);
    free(self);
    if (ran != 0) {
        app_message(a, S_ERROR, "cannot run gpucourse doctor: %s", last_error());
        return;
    }
    free(a->doctor);
    a->doctor = res.output && res.output[0] ? xstrdup(res.output) : xstrdup("gpucourse doctor said nothing.\n");
    bool all_ok = res.exited && res.exit_code == 0;
    proc_result_free(&res);
    if (a->view != VIEW_DOCTOR && a->view != VIEW_HELP) a->back = a->view; /* one back for both: never each other */
    a->view = VIEW_DOCTOR;
    a->scroll = 0;
    app_message(a, all_ok ? S_MESSAGE : S_WARN, "%s", all_ok ? "doctor: everything grading needs is here"
                                                          : "doctor: something is missing (MISSING, with its fix)");
}

/* $VISUAL or $EDITOR split at blanks (no shell), then the file. */
static void edit(App *a) {
    const Exercise *e = current(a);
    char *file = workspace_exercise_path(a->ws, e);
    char *copy = xstrdup(app_editor()), *save = NULL;
    const char *argv[32];
    int argc = 0;
    for (char *w = strtok_r(copy, " \t", &save); w && argc < 30; w = strtok_r(NULL, " \t", &save)) argv[argc++] = w;
    argv[argc++] = file;
    argv[argc] = NULL;
    draw_suspend();
    int code = 0;
    int rc = proc_run_terminal(argv, &code);
    draw_resume();
    if (rc < 0) app_message(a, S_ERROR, "%s (set $EDITOR)", last_error());
    else if (code != 0) app_message(a, S_ERROR, "%s exited with %d", argv[0], code);
    else if (a->watcher) app_message(a, S_MESSAGE, "saved? watch mode grades %s on its own", e->id);
    else app_message(a, S_MESSAGE, "back from %s: g grades %s", argv[0], e->id);
    free(copy);
    free(file);
}

typedef struct {
    const Exercise *e;
    int shown;
} HintCtx;

static void take_hint(Progress *p, void *ctx) {
    HintCtx *h = ctx;
    ExProgress *x = progress_get(p, h->e->id, true);
    if (x->hints_seen < h->e->hints.count) x->hints_seen++;
    h->shown = x->hints_seen;
}

static void hint(App *a) {
    const Exercise *e = current(a);
    if (e->hints.count == 0) {
        app_message(a, S_DIM, "%s has no hints", e->id);
        return;
    }
    HintCtx h = {e, 0};
    char *notice = NULL;
    if (progress_update(a->ws->progress, take_hint, &h, &notice) < 0) {
        app_message(a, S_ERROR, "cannot record the hint: %s", last_error());
        return;
    }
    reload_progress(a);
    app_message(a, S_MESSAGE, "Hint %d of %d%s", h.shown, e->hints.count,
                h.shown == e->hints.count ? ": that was the last one" : " (h again for the next)");
    show_notice(a, notice);
    a->view = VIEW_EXERCISE;
    a->scroll_to_mark = true;
}

static void solution(App *a) {
    const Exercise *e = current(a);
    if (app_status(a, a->ex) != ST_PASSED) {
        app_message(a, S_MESSAGE, "the reference solution of %s opens once you passed it; h gives a hint", e->id);
        return;
    }
    if (a->view != VIEW_SOLUTION) a->back = a->view;
    a->view = VIEW_SOLUTION;
    a->scroll = 0;
}

static void reset(App *a) {
    const Exercise *e = current(a);
    char *backup = NULL;
    if (workspace_reset(a->course, a->ws, e, &backup) < 0) app_message(a, S_ERROR, "%s", last_error());
    else if (backup) app_message(a, S_MESSAGE, "%s is the stub again; your file is kept as %s", e->id, backup);
    else app_message(a, S_MESSAGE, "%s is the stub again", e->id);
    free(backup);
}

static void toggle_watch(App *a) {
    if (a->watcher) {
        watcher_free(a->watcher);
        a->watcher = NULL;
        a->debounce.due = 0;
        app_message(a, S_MESSAGE, "watch mode off");
        return;
    }
    char *dir = path_join(a->ws->root, "exercises");
    a->watcher = watcher_new(dir);
    free(dir);
    if (!a->watcher) {
        app_message(a, S_ERROR, "%s; g grades by hand", last_error());
        return;
    }
    /* graded at once, as a save would: what is on the screen is never a
     * result from before the watch (an old compile error) */
    grade(a, a->ex, "watch mode on (every save grades), graded ");
}

static void on_saved(const char *name, bool written, void *ctx) {
    App *a = ctx;
    for (int i = 0; i < a->course->nexercises; i++) {
        if (strcmp(a->course->exercises[i].file, name)) continue;
        if (a->opt.start && a->opt.watch && &a->course->exercises[i] != a->opt.start) return; /* watch EX: only EX */
        debounce_poke(&a->debounce, i, now_seconds(), written);
    }
}

static void move_exercise(App *a, int delta) {
    int to = a->ex + delta;
    if (to < 0 || to >= a->course->nexercises) {
        app_message(a, S_DIM, "%s", delta > 0 ? "this is the last exercise" : "this is the first exercise");
        return;
    }
    a->ex = to;
    a->scroll = 0;
    if (a->view == VIEW_RESULT && !a->have_result[to]) a->view = VIEW_EXERCISE;
    if (a->view == VIEW_SOLUTION || a->view == VIEW_HELP || a->view == VIEW_DOCTOR) a->view = VIEW_EXERCISE;
}

static void key(App *a, int k) {
    if (k == KEY_RESIZE) return; /* the next frame is drawn at the new size */
    if (a->confirm_reset) {
        a->confirm_reset = false;
        if (k == 'y' || k == 'Y') reset(a);
        else app_message(a, S_DIM, "not reset");
        return;
    }
    if (draw_too_small()) { /* nothing to act on that cannot be seen */
        if (k == 'q') a->quit = true;
        return;
    }
    if (k != ERR) a->message[0] = '\0';
    if (view_key(a, k)) return;
    switch (k) {
    case 'q': a->quit = true; break;
    case '?':
        if (a->view != VIEW_HELP && a->view != VIEW_DOCTOR) a->back = a->view;
        a->view = VIEW_HELP;
        a->scroll = 0;
        break;
    case 'e': edit(a); break;
    case 'g': grade(a, a->ex, ""); break;
    case 'h': hint(a); break;
    case 's': solution(a); break;
    case 'r': a->confirm_reset = true; break;
    case 'n': move_exercise(a, +1); break;
    case 'p': move_exercise(a, -1); break;
    case 'l': open_lesson(a); break;
    case 'w': toggle_watch(a); break;
    case 'y': why(a); break;
    case 'D': doctor(a); break;
    case 12: /* Ctrl-L */ clearok(curscr, TRUE); break;
    default: break;
    }
}

/* ------------------------------------------------------------ main loop */

static void loop(App *a) {
    while (!a->quit) {
        view_draw(a);
        grade_settle(); /* the last grading's judge, now that its verdict is on the screen */
        if (!a->probed) {
            probe_gpu(a);
            continue;
        }
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}};
        int nfds = 1;
        if (a->watcher) fds[nfds++] = (struct pollfd){.fd = watcher_fd(a->watcher), .events = POLLIN};
        int r = poll(fds, (nfds_t)nfds, debounce_wait_ms(&a->debounce, now_seconds()));
        if (r < 0 && errno != EINTR) break;
        if (a->watcher && nfds > 1 && (fds[1].revents & POLLIN)) watcher_read(a->watcher, on_saved, a);
        int k;
        while (!a->quit && (k = draw_key()) != ERR) {
            key(a, k);
            if (a->quit) break;
        }
        if (r > 0 && (fds[0].revents & (POLLHUP | POLLERR))) break; /* the terminal went away */
        int ex;
        if (!a->quit && debounce_take(&a->debounce, now_seconds(), &ex)) grade(a, ex, "saved, graded ");
    }
}

static int first_unfinished(const App *a) {
    for (int i = 0; i < a->course->nexercises; i++)
        if (app_status(a, i) != ST_PASSED) return i;
    return a->course->nexercises - 1;
}

int tui_run(const Course *c, const Workspace *w, const TuiOptions *o) {
    App a = {.course = c, .ws = w, .lesson_chapter = -1};
    if (o) a.opt = *o;
    if (c->nexercises == 0) return error("the course has no exercises"), 65;
    if (progress_load(w->progress, &a.progress) < 0) return 65;
    a.results = xcalloc((size_t)c->nexercises, sizeof *a.results);
    a.have_result = xcalloc((size_t)c->nexercises, sizeof *a.have_result);
    a.diagnoses = xcalloc((size_t)c->nexercises, sizeof *a.diagnoses);
    a.have_diagnosis = xcalloc((size_t)c->nexercises, sizeof *a.have_diagnosis);
    a.ex = a.opt.start ? a.opt.start->index : first_unfinished(&a);
    if (draw_init() < 0) {
        fprintf(stderr, "gpucourse: %s\n", last_error());
        progress_free(&a.progress);
        free(a.results);
        free(a.have_result);
        free(a.diagnoses);
        free(a.have_diagnosis);
        return 65;
    }
    if (a.opt.notice) app_message(&a, S_ERROR, "warning: %s", a.opt.notice);
    else if (app_passed(&a, 0, c->nexercises) == c->nexercises)
        app_message(&a, S_PASS, "every exercise passed; well done");
    else
        app_message(&a, S_MESSAGE, "%s is next: Enter opens it, l its lesson, ? all keys", c->exercises[a.ex].id);
    if (a.opt.start) a.view = VIEW_EXERCISE;
    if (a.opt.watch) toggle_watch(&a);
    loop(&a);
    grade_settle();
    draw_end();
    watcher_free(a.watcher);
    for (int i = 0; i < c->nexercises; i++)
        if (a.have_result[i]) grade_result_free(&a.results[i]);
    free(a.results);
    free(a.have_result);
    free(a.diagnoses);
    free(a.have_diagnosis);
    free(a.lesson_text);
    free(a.doctor);
    sb_free(&a.log);
    progress_free(&a.progress);
    return 0;
}

/* ------------------------------------------------------------ watch without a terminal */

typedef struct {
    const Course *c;
    const Exercise *only;
    Debounce debounce;
} TextWatch;

static void text_on_saved(const char *name, bool written, void *ctx) {
    TextWatch *t = ctx;
    for (int i = 0; i < t->c->nexercises; i++) {
        const Exercise *e = &t->c->exercises[i];
        if (!strcmp(e->file, name) && (!t->only || t->only == e))
            debounce_poke(&t->debounce, i, now_seconds(), written);
    }
}

static void text_phase(const char *phase, void *ctx) {
    const Exercise *e = ctx;
    fprintf(stderr, "%s: %s...\n", e->id, phase);
}

static int watch_text(const Course *c, const Workspace *w, const TuiOptions *o) {
    char *dir = path_join(w->root, "exercises");
    Watcher *watcher = watcher_new(dir);
    if (!watcher) {
        free(dir);
        fprintf(stderr, "gpucourse: %s\n", last_error());
        return EXIT_SETUP;
    }
    TextWatch t = {c, o->start, {0}};
    bool keys = isatty(STDIN_FILENO);
    if (o->start) printf("watching %s/%s: every save grades %s", dir, o->start->file, o->start->id);
    else printf("watching %s: saving an exercise file grades it", dir);
    printf("%s; Ctrl-C stops\n", keys ? "; Enter grades again" : "");
    fflush(stdout);
    int last = o->start ? o->start->index : -1, code = 0;
    for (;;) {
        struct pollfd fds[2] = {{.fd = watcher_fd(watcher), .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
        int r = poll(fds, keys ? 2 : 1, debounce_wait_ms(&t.debounce, now_seconds()));
        if (r < 0 && errno != EINTR) break;
        if (fds[0].revents & POLLIN) watcher_read(watcher, text_on_saved, &t);
        if (keys && (fds[1].revents & (POLLIN | POLLHUP))) {
            char line[256];
            if (!fgets(line, sizeof line, stdin)) break;
            if (line[0] == 'q') break;
            if (last >= 0) debounce_poke(&t.debounce, last, now_seconds() - WATCH_DEBOUNCE_S, false);
        }
        int ex;
        if (!debounce_take(&t.debounce, now_seconds(), &ex)) continue;
        last = ex;
        const Exercise *e = &c->exercises[ex];
        GradeOptions go = {.seed = o->seed, .timeout_s = o->timeout_s, .on_phase = text_phase, .ctx = (void *)e,
                           .settle_later = true};
        GradeResult r2;
        grade_exercise(c, w, e, &go, &r2);
        char *notice = NULL;
        if (grade_record(w, e, &r2, &notice) < 0)
            fprintf(stderr, "gpucourse: warning: progress not saved: %s\n", last_error());
        if (notice) fprintf(stderr, "gpucourse: warning: %s\n", notice);
        free(notice);
        report_text(stdout, e, &r2);
        putchar('\n');
        fflush(stdout);
        grade_settle(); /* the judge's end, once its verdict is out */
        bool stop = r2.verdict == V_INTERRUPTED;
        if (stop) code = EXIT_INTERRUPTED;
        grade_result_free(&r2);
        if (stop) break;
    }
    watcher_free(watcher);
    free(dir);
    return code;
}

int tui_watch(const Course *c, const Workspace *w, const TuiOptions *o) {
    TuiOptions wo = *o;
    wo.watch = true;
    if (tui_can_draw()) return tui_run(c, w, &wo);
    return watch_text(c, w, &wo);
}
