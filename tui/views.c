/* The views: each builds a Doc (or draws the live log), and the frame around
 * it (title bar, status line, footer of keys) is the same for all. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card.h"
#include "draw.h"
#include "markdown.h"
#include "views.h"

enum { MAX_TEXT_WIDTH = 100 }; /* lessons stay readable on wide terminals */

int view_body_rows(void) { return draw_rows() - 3; }

static int text_width_for(int cols) {
    int w = cols - 2;
    return w > MAX_TEXT_WIDTH ? MAX_TEXT_WIDTH : w;
}

static const char *status_mark(ExStatus s) {
    static const char *const marks[ST_COUNT] = {"[ ]", "[~]", "[c]", "[=]", "[x]"};
    return s < ST_COUNT ? marks[s] : "[?]";
}

static Style status_style(ExStatus s) {
    switch (s) {
    case ST_PASSED: return S_PASS;
    case ST_CORRECT: return S_WARN;
    case ST_COMPILES:
    case ST_ATTEMPTED: return S_INFO;
    default: return S_DIM;
    }
}

static void label(Doc *d, const char *name) { doc_printf(d, S_LABEL, "%-10s", name); }

/* What the status marks mean, wrapped between marks: a mark stays with its
 * words. Ends on a fresh line. */
static void marks_key(Doc *d, Style s, const char *gap, int indent, int width) {
    static const char *const meaning[ST_COUNT] = {"not started", "attempted", "compiles", "correct, too slow",
                                                  "passed"};
    int col = indent, gap_w = (int)strlen(gap);
    doc_printf(d, s, "%*s", indent, "");
    for (int st = 0; st < ST_COUNT; st++) {
        int w = 4 + (int)strlen(meaning[st]);
        if (st > 0 && col + gap_w + w > width) {
            doc_newline(d);
            doc_printf(d, s, "%*s", indent, "");
            col = indent;
        } else if (st > 0) {
            doc_add(d, s, gap);
            col += gap_w;
        }
        doc_add(d, s, status_mark((ExStatus)st));
        doc_printf(d, s, " %s", meaning[st]);
        col += w;
    }
    doc_newline(d);
}

/* ------------------------------------------------------------ course */

static void progress_bar(Doc *d, int done, int total, int w) {
    int full = total ? (done * w + total / 2) / total : 0;
    doc_add(d, S_DIM, "[");
    for (int i = 0; i < w; i++) doc_add(d, i < full ? S_PASS : S_DIM, i < full ? glyph->block : glyph->shade);
    doc_add(d, S_DIM, "]");
}

static void build_course(App *a, Doc *d, int width) {
    const Course *c = a->course;
    int name_w = 0; /* the name column fits the longest name */
    for (int i = 0; i < c->nexercises; i++) {
        int w = text_width(c->exercises[i].name, strlen(c->exercises[i].name));
        if (w > name_w) name_w = w;
    }
    doc_add(d, S_H2, c->title);
    doc_newline(d);
    for (int ch = 0; ch < c->nchapters; ch++) {
        const Chapter *chap = &c->chapters[ch];
        int passed = app_passed(a, chap->first, chap->count);
        doc_newline(d);
        int bar = 20, room = width - 14 - bar; /* the head, then the bar and "n/m passed" */
        doc_printf(d, S_H3, "%2d  ", ch + 1);
        doc_add_clipped(d, S_H3, chap->title, room - 4);
        int pad = room - text_width(d->lines[d->count - 1].text, d->lines[d->count - 1].len);
        doc_printf(d, S_NORMAL, "%*s", pad > 1 ? pad : 1, "");
        progress_bar(d, passed, chap->count, bar);
        doc_printf(d, passed == chap->count ? S_PASS : S_NORMAL, " %d/%d passed", passed, chap->count);
        doc_newline(d);
        for (int i = chap->first; i < chap->first + chap->count; i++) {
            const Exercise *e = &c->exercises[i];
            ExStatus st = app_status(a, i);
            if (i == a->ex) a->mark_line = doc_here(d);
            doc_add(d, S_NORMAL, "    ");
            doc_add(d, status_style(st), status_mark(st));
            doc_printf(d, S_NORMAL, " %s  %-*s  ", e->id, name_w, e->name); /* two spaces after the longest */
            doc_add_clipped(d, S_DIM, e->summary, width - text_width(d->lines[d->count - 1].text,
                                                                     d->lines[d->count - 1].len));
            doc_newline(d);
        }
    }
    doc_newline(d);
    marks_key(d, S_DIM, " ", 0, width);
}

/* ------------------------------------------------------------ exercise */

static void build_exercise(App *a, Doc *d, int width) {
    const Exercise *e = &a->course->exercises[a->ex];
    const Chapter *chap = &a->course->chapters[e->chapter];
    const ExProgress *p = app_progress(a, a->ex);
    ExStatus st = app_status(a, a->ex);
    char *text = xprintf("%s %s: %s", e->id, e->name, e->title);
    doc_wrap(d, S_H2, text, 0, width);
    free(text);
    text = xprintf("Chapter %d: %s", e->chapter + 1, chap->title);
    doc_wrap(d, S_DIM, text, 0, width);
    free(text);
    doc_newline(d);
    char *file = workspace_exercise_path(a->ws, e);
    label(d, "File");
    doc_wrap(d, S_CODE, file, 10, width);
    free(file);
    label(d, "Editor");
    char *editor = xprintf("%s (e opens the file in it; $VISUAL or $EDITOR sets it)", app_editor());
    doc_wrap(d, S_NORMAL, editor, 10, width);
    free(editor);
    /* the latest attempt: this session's, else the one recorded */
    Verdict last = a->have_result[a->ex] ? a->results[a->ex].verdict : p ? verdict_from_key(p->last_verdict) : V_COUNT;
    label(d, "Status");
    doc_add(d, status_style(st), status_mark(st));
    doc_printf(d, status_style(st), " %s", status_name(st));
    if (last < V_COUNT && verdict_status(last) < st) doc_add(d, S_DIM, " (your best so far)"); /* not the latest */
    int attempts = p ? p->attempts : 0;
    doc_printf(d, S_NORMAL, ", %d attempt%s", attempts, attempts == 1 ? "" : "s");
    doc_newline(d);
    if (last < V_COUNT) {
        label(d, "Last try");
        doc_add(d, card_verdict_style(last), card_verdict_phrase(last));
        if (a->have_result[a->ex]) doc_add(d, S_DIM, " (Enter shows the card)");
        doc_newline(d);
    }
    if (p && p->best_vs_reference > 0) {
        StrBuf best = {0};
        sb_printf(&best, "%.2fx the reference", p->best_vs_reference);
        if (p->best_vs_baseline > 0) sb_printf(&best, ", %.2fx the copy", p->best_vs_baseline);
        if (p->best_vs_library > 0) sb_printf(&best, ", %.2fx the library", p->best_vs_library);
        if (p->best_tflops > 0) sb_printf(&best, " (%.1f TFLOP/s)", p->best_tflops);
        label(d, "Best");
        doc_wrap(d, S_NORMAL, best.buf, 10, width);
        sb_free(&best);
    }
    label(d, "To pass");
    char *rule = exercise_pass_rule(e);
    doc_wrap(d, S_NORMAL, rule, 10, width);
    free(rule);
    int seen = p ? p->hints_seen : 0;
    label(d, "Hints");
    doc_printf(d, S_NORMAL, "%d of %d seen", seen, e->hints.count);
    doc_add(d, S_DIM, seen < e->hints.count ? " (h shows the next)" : " (all seen)");
    doc_newline(d);
    doc_newline(d);
    doc_add(d, S_H2, "Task");
    doc_newline(d);
    md_render(d, e->task, width);
    if (seen > 0) {
        doc_newline(d);
        doc_add(d, S_H2, "Hints");
        doc_newline(d);
        for (int i = 0; i < seen && i < e->hints.count; i++) {
            if (i == seen - 1) a->mark_line = doc_here(d);
            doc_printf(d, S_LABEL, "Hint %d of %d", i + 1, e->hints.count);
            if (i == seen - 1) doc_add(d, S_MESSAGE, " (new)");
            doc_newline(d);
            md_render(d, e->hints.items[i], width);
        }
    }
}

/* ------------------------------------------------------------ lesson, solution, help */

/* Whether the lesson on the screen was opened from a card of its chapter:
 * then Enter goes back to that card. */
static bool lesson_from_card(const App *a) {
    return a->lesson_from != VIEW_COURSE && a->course->exercises[a->lesson_from_ex].chapter == a->chapter;
}

static void lesson_doc(App *a, Doc *d, int width) {
    const Chapter *chap = &a->course->chapters[a->chapter];
    if (!a->lesson_text || a->lesson_chapter != a->chapter) {
        free(a->lesson_text);
        a->lesson_text = read_file(chap->lesson_path, NULL);
        a->lesson_chapter = a->chapter;
        if (!a->lesson_text) a->lesson_text = xprintf("The lesson cannot be read: %s\n", last_error());
    }
    md_render(d, a->lesson_text, width);
}

static void build_lesson(App *a, Doc *d, int width) {
    lesson_doc(a, d, width);
    doc_newline(d);
    char *end = lesson_from_card(a)
                    ? xprintf("End of the lesson. Enter goes back to %s; n the next chapter.",
                              a->course->exercises[a->lesson_from_ex].id)
                    : xprintf("End of the lesson. Enter opens the chapter's first unfinished exercise; n the next "
                              "chapter.");
    doc_wrap(d, S_DIM, end, 0, width);
    free(end);
}

/* The lesson's sections (its headings below the title), one a row, the
 * selected one marked; Enter goes there. */
static void build_contents(App *a, Doc *d, int width) {
    Doc lesson = {0};
    lesson_doc(a, &lesson, width);
    char *head = xprintf("Sections of chapter %d: %s", a->chapter + 1, a->course->chapters[a->chapter].title);
    doc_wrap(d, S_H2, head, 0, width);
    free(head);
    doc_wrap(d, S_DIM, "Enter goes to the selected one; Esc back to where you were.", 0, width);
    doc_newline(d);
    int n = 0, here = 0;
    for (int i = 0; i < lesson.nheads; i++) {
        const DocHeading *h = &lesson.heads[i];
        if (h->level < 2) continue;
        if (h->line <= a->lesson_scroll) here = n; /* the section of the lesson's place */
        n++;
    }
    a->toc_count = n;
    if (a->toc_sel < 0) a->toc_sel = here;
    if (a->toc_sel >= n) a->toc_sel = n - 1;
    if (n == 0) doc_wrap(d, S_DIM, "This lesson has no sections.", 0, width);
    for (int i = 0, k = 0; i < lesson.nheads; i++) {
        const DocHeading *h = &lesson.heads[i];
        if (h->level < 2) continue;
        if (k++ == a->toc_sel) a->mark_line = doc_here(d);
        doc_printf(d, S_NORMAL, "%*s", 2 + 4 * (h->level - 2), "");
        doc_add_clipped(d, h->level == 2 ? S_NORMAL : S_DIM, h->text, width - 2 - 4 * (h->level - 2));
        doc_newline(d);
    }
    doc_free(&lesson);
}

/* The heading the contents' selection names. */
static const char *contents_heading(App *a, Doc *lesson) {
    for (int i = 0, k = 0; i < lesson->nheads; i++)
        if (lesson->heads[i].level >= 2 && k++ == a->toc_sel) return lesson->heads[i].text;
    return NULL;
}

/* After a build of the lesson: go to the section asked for, or to the
 * search's next match (a line holding it, case ignored). */
static void lesson_seek(App *a, const Doc *d) {
    if (a->goto_section[0]) {
        int h = doc_find_heading(d, a->goto_section);
        if (h >= 0) a->scroll = d->heads[h].line;
        else app_message(a, S_DIM, "no section '%s' in this lesson", a->goto_section);
        a->goto_section[0] = '\0';
    }
    if (!a->search_step || !d->count) return;
    int step = a->search_step < 0 ? -1 : 1, from = a->search_step == 2 ? a->scroll : a->scroll + step;
    a->search_step = 0;
    for (int k = 0; k < d->count; k++) {
        int i = ((from + step * k) % d->count + d->count) % d->count;
        if (d->lines[i].text && strcasestr(d->lines[i].text, a->search)) {
            a->scroll = i;
            app_message(a, S_MESSAGE, "/%s: line %d of %d; n next, N previous, Esc clears", a->search, i + 1,
                        d->count);
            return;
        }
    }
    app_message(a, S_DIM, "/%s: not in this lesson", a->search);
    a->search[0] = '\0';
}

static void build_solution(App *a, Doc *d, int width) {
    const Exercise *e = &a->course->exercises[a->ex];
    char *path = course_solution_path(a->course, e);
    doc_printf(d, S_H2, "The reference solution of %s", e->id);
    doc_newline(d);
    doc_add(d, S_DIM, path);
    doc_newline(d);
    doc_newline(d);
    char *text = read_file(path, NULL);
    if (!text) {
        doc_add(d, S_ERROR, last_error());
        doc_newline(d);
    }
    StrBuf code = {0};
    for (const char *p = text; p && *p; p++) sb_add(&code, *p == '\t' ? "    " : p, *p == '\t' ? 4 : 1);
    if (code.len) md_code(d, code.buf, "cuda", width);
    sb_free(&code);
    free(text);
    free(path);
}

static const char *const help_keys[][2] = {
    {NULL, "Anywhere"},
    {"e", "open the exercise in $VISUAL or $EDITOR (vi if neither is set)"},
    {"g", "grade it: compile and run on the GPU, the log streams live; Ctrl-C cancels"},
    {"h", "the next hint (each one is recorded in your progress)"},
    {"s", "the reference solution, once you passed the exercise"},
    {"r", "reset the exercise to its stub (asks first; your file is kept in backups/)"},
    {"n p", "the next / previous exercise (in a lesson: the next / previous chapter)"},
    {"l", "the lesson of the exercise's chapter; from an exercise, at its section (after y, at the section "
          "its hint names)"},
    {"w", "watch mode: grade now, then again every time an exercise file is saved"},
    {"y", "on a result card: why it failed (your code under compute-sanitizer, or its counters beside the "
          "reference's), shown below the card"},
    {"?", "this help"},
    {"D", "gpucourse doctor: what grading needs here, what is missing and how to fix it"},
    {"q", "quit"},
    {NULL, "Moving"},
    {"j k Up Down", "select, or scroll a line"},
    {"PgUp PgDn Space b", "a page down / up (on the list: the selection)"},
    {"Home End", "the top, the bottom"},
    {"Enter Right", "open: an exercise, its last result card"},
    {"Esc Left", "back (from a lesson: to the exercise it was opened from)"},
    {"0-9", "on the list: the chapter of that number"},
    {"/", "on the list: find an exercise by its id, name, title or summary (Enter on an empty search: the next one)"},
    {NULL, "In a lesson"},
    {"/", "search (Enter searches, Esc cancels); then n and N the next and previous match, Esc clears"},
    {"t", "its sections: j k select, Enter goes there"},
    {"n p", "the next / previous chapter"},
    {"Enter", "back to the exercise it was opened from, else the chapter's first unfinished one"},
    {"Ctrl-L", "redraw the screen"},
};

/* gpucourse doctor's report (D, tui/app.c), its lines wrapped to the view:
 * what is missing, and its fix, stand out. */
static void build_doctor(const App *a, Doc *d, int width) {
    doc_add(d, S_H2, "gpucourse doctor: what grading needs, and what is missing");
    doc_newline(d);
    doc_newline(d);
    Style style = S_NORMAL;
    const char *text = a->doctor ? a->doctor : "";
    DocLine none = {0}, cont = {0};
    line_addn(&cont, S_NORMAL, "                      ", 22); /* under the detail, as doctor prints it */
    while (*text) {
        size_t len = strcspn(text, "\n");
        if (!strncmp(text, "MISSING", 7)) style = S_ERROR;
        else if (text[0] != ' ') style = S_NORMAL; /* a line that goes on under itself keeps its check's style */
        DocLine line = {0};
        line_addn(&line, style, text, len);
        if (len) doc_wrap_verbatim(d, &line, &none, &cont, width); /* its columns kept, cut where it is too wide */
        else doc_newline(d);
        line_free(&line);
        text += len + (text[len] == '\n');
    }
    line_free(&cont);
    doc_newline(d);
    doc_wrap(d, S_DIM, "The same as 'gpucourse doctor' on the command line. D runs it again, Esc goes back.", 0, width);
}

static void build_help(Doc *d, int width) {
    doc_add(d, S_H2, "gpucourse: the keys");
    doc_newline(d);
    for (size_t i = 0; i < ARRAY_SIZE(help_keys); i++) {
        if (!help_keys[i][0]) {
            doc_newline(d);
            doc_add(d, S_H3, help_keys[i][1]);
            doc_newline(d);
            continue;
        }
        doc_printf(d, S_KEY, "  %-18s", help_keys[i][0]);
        doc_wrap(d, S_NORMAL, help_keys[i][1], 20, width);
    }
    doc_newline(d);
    doc_add(d, S_H3, "Status marks");
    doc_newline(d);
    marks_key(d, S_NORMAL, "  ", 2, width);
    doc_newline(d);
    doc_wrap(d, S_DIM,
             "Watch mode also runs on its own: 'gpucourse watch ex03' grades on every save. Where file events do "
             "not arrive (some network file systems), press g. Without a GPU, grading compiles your code, "
             "checks what needs no GPU (the machine code, the libraries) and says the rest was skipped: nothing "
             "passes there, so the next exercise stays the first one; move on with j and Enter.",
             0, width);
}

void view_build(App *a, Doc *d, int width) {
    a->mark_line = -1;
    switch (a->view) {
    case VIEW_COURSE: build_course(a, d, width); break;
    case VIEW_LESSON: build_lesson(a, d, width); break;
    case VIEW_CONTENTS: build_contents(a, d, width); break;
    case VIEW_EXERCISE: build_exercise(a, d, width); break;
    case VIEW_RESULT:
        if (a->have_result[a->ex])
            card_build(d, a->course, &a->progress, &a->course->exercises[a->ex], &a->results[a->ex], width);
        if (a->have_result[a->ex] && a->have_diagnosis[a->ex]) {
            a->mark_line = d->count;
            card_report_lines(d, S_NORMAL, &a->results[a->ex], a->course, &a->course->exercises[a->ex],
                              &a->diagnoses[a->ex], width);
        }
        break;
    case VIEW_SOLUTION: build_solution(a, d, width); break;
    case VIEW_HELP: build_help(d, width); break;
    case VIEW_DOCTOR: build_doctor(a, d, width); break;
    default: break;
    }
}

/* ------------------------------------------------------------ the frame */

typedef struct {
    const char *key, *what;
} KeyHelp;

static const KeyHelp keys_course[] = {{"Enter", "open"}, {"l", "lesson"}, {"e", "edit"}, {"g", "grade"},
                                      {"h", "hint"}, {"w", "watch"}, {"/", "find"}, {"?", "help"}, {"q", "quit"},
                                      {NULL, NULL}};
static const KeyHelp keys_lesson[] = {{"j/k", "scroll"}, {"/", "find"}, {"t", "sections"}, {"n/p", "chapter"},
                                      {"Enter", "exercise"}, {"Esc", "back"}, {"q", "quit"}, {NULL, NULL}};
static const KeyHelp keys_search[] = {{"j/k", "scroll"}, {"n/N", "next/previous match"}, {"/", "find"},
                                      {"t", "sections"}, {"Esc", "clear"}, {"q", "quit"}, {NULL, NULL}};
static const KeyHelp keys_prompt[] = {{"Enter", "search"}, {"Esc", "cancel"}, {NULL, NULL}};
static const KeyHelp keys_contents[] = {{"j/k", "select"}, {"Enter", "go there"}, {"Esc", "back"}, {"q", "quit"},
                                        {NULL, NULL}};
static const KeyHelp keys_exercise[] = {{"e", "edit"}, {"g", "grade"}, {"h", "hint"}, {"s", "solution"},
                                        {"n/p", "next/prev"}, {"l", "lesson"}, {"?", "help"},
                                        {"q", "quit"}, {NULL, NULL}};
/* 80 columns hold this many: h (hint) is in the exercise's keys and in help */
static const KeyHelp keys_result[] = {{"j/k", "scroll"}, {"y", "why"}, {"e", "edit"}, {"g", "grade"},
                                      {"n/p", "next/prev"}, {"Esc", "back"}, {"?", "help"}, {"q", "quit"}, {NULL, NULL}};
static const KeyHelp keys_doc[] = {{"j/k", "scroll"}, {"Esc", "back"}, {"q", "quit"}, {NULL, NULL}};
static const KeyHelp keys_help[] = {{"j/k", "scroll"}, {"Esc ? q", "close"}, {NULL, NULL}};
static const KeyHelp keys_doctor[] = {{"j/k", "scroll"}, {"D", "again"}, {"Esc q", "close"}, {NULL, NULL}};
static const KeyHelp keys_grading[] = {{"Ctrl-C", "cancel grading"}, {NULL, NULL}};
static const KeyHelp keys_confirm[] = {{"y", "yes, reset"}, {"n Esc", "no"}, {NULL, NULL}};

static void draw_footer(const App *a) {
    static const KeyHelp *const by_view[VIEW_COUNT] = {
        [VIEW_COURSE] = keys_course, [VIEW_LESSON] = keys_lesson, [VIEW_EXERCISE] = keys_exercise,
        [VIEW_RESULT] = keys_result, [VIEW_SOLUTION] = keys_doc, [VIEW_HELP] = keys_help, [VIEW_DOCTOR] = keys_doctor,
        [VIEW_GRADING] = keys_grading, [VIEW_CONTENTS] = keys_contents,
    };
    const KeyHelp *k = a->confirm_reset                          ? keys_confirm
                       : a->prompt                               ? keys_prompt
                       : a->view == VIEW_LESSON && a->search[0] ? keys_search
                                                                 : by_view[a->view];
    int y = draw_rows() - 1, x = 0, cols = draw_cols();
    draw_fill(y, 0, cols, S_FOOTER);
    for (; k->key; k++) {
        if (x + 3 + (int)(strlen(k->key) + strlen(k->what)) > cols) break; /* a key whole, or not at all */
        x += draw_text(y, x, cols - x, S_FOOTER, " ");
        x += draw_text(y, x, cols - x, S_KEY, k->key);
        x += draw_text(y, x, cols - x, S_FOOTER, " ");
        x += draw_text(y, x, cols - x, S_FOOTER, k->what);
        x += draw_text(y, x, cols - x, S_FOOTER, " ");
    }
}

static void view_title(const App *a, char *buf, size_t size) {
    const Exercise *e = &a->course->exercises[a->ex];
    switch (a->view) {
    case VIEW_COURSE: snprintf(buf, size, "the course"); break;
    case VIEW_LESSON:
        snprintf(buf, size, "Chapter %d: %s", a->chapter + 1, a->course->chapters[a->chapter].title);
        break;
    case VIEW_EXERCISE: snprintf(buf, size, "%s %s", e->id, e->name); break;
    case VIEW_RESULT: snprintf(buf, size, "%s %s: result", e->id, e->name); break;
    case VIEW_SOLUTION: snprintf(buf, size, "%s %s: reference solution", e->id, e->name); break;
    case VIEW_HELP: snprintf(buf, size, "help"); break;
    case VIEW_DOCTOR: snprintf(buf, size, "doctor"); break;
    case VIEW_CONTENTS:
        snprintf(buf, size, "Chapter %d: %s: sections", a->chapter + 1, a->course->chapters[a->chapter].title);
        break;
    case VIEW_GRADING:
        snprintf(buf, size, "%s %s: grading", a->course->exercises[a->grading_ex].id,
                 a->course->exercises[a->grading_ex].name);
        break;
    default: buf[0] = '\0';
    }
}

/* " gpucourse | the view's title ... [watch] n/m passed ". The app's name
 * gives way to a title that needs its room; a title longer still is cut
 * after a whole word, with an ellipsis. */
static void draw_title(const App *a) {
    int cols = draw_cols();
    draw_fill(0, 0, cols, S_TITLE);
    char title[512], right[96];
    view_title(a, title, sizeof title);
    int name_w = (int)strlen(" gpucourse  ") + text_width(glyph->vline, strlen(glyph->vline));
    /* [no GPU] where the whole title and the app's name leave room for it */
    bool tag = a->no_gpu && name_w + text_width(title, strlen(title)) + 1 + (int)strlen("[watch] [no GPU] 99/99 passed ") <= cols;
    snprintf(right, sizeof right, "%s%s%d/%d passed ", a->watcher ? "[watch] " : "", tag ? "[no GPU] " : "",
             app_passed(a, 0, a->course->nexercises), a->course->nexercises);
    int rw = (int)strlen(right), x = 1;
    Doc t = {0};
    doc_add_clipped(&t, S_TITLE, title, cols - 2 - rw);
    doc_newline(&t);
    int tw = text_width(t.lines[0].text, t.lines[0].len);
    if (name_w + tw + 1 + rw <= cols) {
        x = draw_text(0, 0, cols, S_TITLE, " gpucourse ");
        x += draw_text(0, x, cols - x, S_TITLE, glyph->vline);
        x += draw_text(0, x, cols - x, S_TITLE, " ");
    }
    draw_doc_line(0, x, cols - x - rw - 1, &t.lines[0], S_NORMAL);
    doc_free(&t);
    draw_text(0, cols - rw, rw, S_TITLE, right);
}

/* Wrapped to the width it complains about, so that it is read whole there. */
static void draw_too_small_screen(void) {
    int rows = draw_rows(), cols = draw_cols();
    Doc d = {0};
    doc_wrap(&d, S_FAIL, "terminal too small", 0, cols);
    char *size = xprintf("%dx%d; gpucourse needs %dx%d", cols, rows, MIN_COLS, MIN_ROWS);
    doc_wrap(&d, S_NORMAL, size, 0, cols);
    free(size);
    doc_wrap(&d, S_NORMAL, "make it larger, or press q to quit", 0, cols);
    int top = (rows - d.count) / 2;
    for (int i = 0; i < d.count; i++) {
        int w = text_width(d.lines[i].text, d.lines[i].len);
        draw_doc_line((top > 0 ? top : 0) + i, (cols - w) / 2, cols, &d.lines[i], S_NORMAL);
    }
    doc_free(&d);
}

/* The live log in the body's rows. */
static void draw_grading(App *a, int rows) {
    int cols = draw_cols();
    char head[160];
    const Exercise *e = &a->course->exercises[a->grading_ex];
    snprintf(head, sizeof head, "Grading %s %s: %s", e->id, e->name, a->phase);
    draw_text(1, 1, cols - 2, S_H2, head);
    draw_text(2, 1, cols - 2, S_DIM, "the compiler's and your program's output, as it comes; Ctrl-C cancels");
    for (int x = 1; x < cols - 1; x++) draw_text(3, x, 1, S_DIM, glyph->hline);
    int avail = rows - 3;
    /* the last lines of the log that fit */
    const char *s = a->log.buf ? a->log.buf : "";
    const char *end = s + utf8_cut(s, a->log.len); /* a character half read yet: shown when it is whole */
    while (s < end && ((unsigned char)*s & 0xc0) == 0x80) s++; /* the log's tail was kept from mid-character */
    if (end > s && end[-1] == '\n') end--;
    const char *start = end;
    int n = 0;
    while (start > s && n < avail) {
        start--;
        if (*start == '\n') n++;
    }
    if (start > s || (start == s && *start == '\n')) start++;
    /* those lines wrapped at the width (a long error is read to its end), the newest rows that fit */
    Doc d = {0};
    DocLine none = {0}, cont = {0};
    line_addn(&cont, S_DIM, glyph->wrap, strlen(glyph->wrap));
    line_addn(&cont, S_DIM, " ", 1);
    StrBuf vis = {0};
    while (start < end) {
        const char *nl = memchr(start, '\n', (size_t)(end - start));
        size_t len = nl ? (size_t)(nl - start) : (size_t)(end - start);
        vis.len = 0;
        sb_add_visible(&vis, start, len); /* the output's escapes shown, not obeyed */
        const char *text = vis.len ? vis.buf : "";
        DocLine line = {0};
        line_addn(&line, strstr(text, "error") ? S_ERROR : S_LOG, text, vis.len);
        doc_wrap_verbatim(&d, &line, &none, &cont, cols - 2);
        line_free(&line);
        start += len + 1;
    }
    int first = d.count > avail ? d.count - avail : 0;
    for (int i = first; i < d.count; i++) draw_doc_line(4 + i - first, 1, cols - 2, &d.lines[i], S_NORMAL);
    sb_free(&vis);
    line_free(&cont);
    doc_free(&d);
}

/* The status line above the footer: the message (or the reset question)
 * wrapped on as many rows as it needs, at most half the body, so that a path
 * in it is read whole; where we are in a long document on its last row, or
 * on a row of its own when the message leaves no room there. */
typedef struct {
    Doc message;
    int rows;      /* the rows it takes */
    bool position; /* the position in the document is shown */
} StatusLines;

static StatusLines status_layout(const App *a, int total, int cols) {
    StatusLines st = {{0}, 1, false};
    char question[160];
    const char *text = a->message;
    Style style = a->message_style;
    if (a->confirm_reset) {
        snprintf(question, sizeof question, "Reset %s to its stub? Your file is kept in backups/. (y/n)",
                 a->course->exercises[a->ex].id);
        text = question;
        style = S_MESSAGE;
    } else if (a->prompt) {
        snprintf(question, sizeof question, "/%s_", a->query);
        text = question;
        style = S_MESSAGE;
    }
    if (text[0]) doc_wrap(&st.message, style, text, 0, cols - 2);
    int most = (draw_rows() - 2) / 2;
    if (st.message.count > 1) st.rows = st.message.count < most ? st.message.count : most;
    st.position = total > draw_rows() - 2 - st.rows;
    char widest[64]; /* the widest the position can be */
    snprintf(widest, sizeof widest, " %d-%d of %d %s", total, total, total, glyph->more);
    if (st.position && st.message.count && st.rows < most) {
        const DocLine *l = &st.message.lines[st.rows - 1];
        if (text_width(l->text, l->len) + text_width(widest, strlen(widest)) > cols - 2) st.rows++;
    }
    return st;
}

void view_draw(App *a) {
    draw_begin_frame();
    if (draw_too_small()) {
        draw_too_small_screen();
        draw_end_frame();
        return;
    }
    int cols = draw_cols();
    draw_title(a);
    Doc d = {0};
    /* the list takes the whole width (its summaries); text stays readable */
    if (a->view != VIEW_GRADING) view_build(a, &d, a->view == VIEW_COURSE ? cols - 2 : text_width_for(cols));
    if (a->view == VIEW_LESSON) lesson_seek(a, &d);
    StatusLines st = status_layout(a, d.count, cols);
    int rows = draw_rows() - 2 - st.rows;
    if (a->view == VIEW_GRADING) {
        draw_grading(a, rows);
    } else {
        bool list = a->view == VIEW_COURSE || a->view == VIEW_CONTENTS;
        if (list && a->mark_line >= 0) { /* keep the selection in sight */
            if (a->mark_line < a->scroll + 1) a->scroll = a->mark_line - 2;
            if (a->mark_line >= a->scroll + rows) a->scroll = a->mark_line - rows + 1;
            if (a->view == VIEW_COURSE && a->ex == 0) a->scroll = 0; /* and above the first, the course's title */
            if (a->view == VIEW_COURSE && a->ex == a->course->nexercises - 1)
                a->scroll = d.count - rows; /* and below the last, the key */
        } else if (a->scroll_to_mark && a->mark_line >= 0) {
            a->scroll = a->mark_line - 1;
        }
        a->scroll_to_mark = false;
        if (a->scroll > d.count - rows) a->scroll = d.count - rows;
        if (a->scroll < 0) a->scroll = 0;
        for (int i = 0; i < rows && a->scroll + i < d.count; i++) {
            int line = a->scroll + i;
            bool sel = list && line == a->mark_line;
            if (sel) draw_fill(1 + i, 0, cols, S_SELECTED);
            draw_doc_line(1 + i, 1, cols - 2, &d.lines[line], sel ? S_SELECTED : S_NORMAL);
        }
    }
    int top = draw_rows() - 1 - st.rows;
    for (int i = 0; i < st.rows && i < st.message.count; i++)
        draw_doc_line(top + i, 1, cols - 2, &st.message.lines[i], S_NORMAL);
    if (st.position) { /* where we are in a long document */
        char pos[64];
        int last = a->scroll + rows < d.count ? a->scroll + rows : d.count;
        snprintf(pos, sizeof pos, " %d-%d of %d %s", a->scroll + 1, last, d.count, last < d.count ? glyph->more : " ");
        int w = text_width(pos, strlen(pos));
        draw_text(draw_rows() - 2, cols - w - 1, w, S_DIM, pos);
    }
    doc_free(&st.message);
    doc_free(&d);
    draw_footer(a);
    draw_end_frame();
}

/* ------------------------------------------------------------ keys */

static bool scroll_key(App *a, int key) {
    int page = view_body_rows() - 1;
    switch (key) {
    case KEY_UP:
    case 'k': a->scroll--; return true;
    case KEY_DOWN:
    case 'j': a->scroll++; return true;
    case KEY_NPAGE:
    case ' ':
    case 6: /* Ctrl-F */ a->scroll += page; return true;
    case KEY_PPAGE:
    case 'b':
    case 2: /* Ctrl-B */ a->scroll -= page; return true;
    case KEY_HOME: a->scroll = 0; return true;
    case KEY_END:
    case 'G': a->scroll = 1 << 28; return true;
    default: return false;
    }
}

static bool is_back(int key) { return key == 27 || key == KEY_LEFT || key == KEY_BACKSPACE || key == 127; }
static bool is_open(int key) { return key == '\n' || key == '\r' || key == KEY_ENTER || key == KEY_RIGHT; }

static void show(App *a, ViewId v) {
    a->view = v;
    a->scroll = 0;
}

/* The first exercise of a chapter not passed yet, else its first. */
static int chapter_next_exercise(const App *a, int ch) {
    const Chapter *c = &a->course->chapters[ch];
    for (int i = c->first; i < c->first + c->count; i++)
        if (app_status(a, i) != ST_PASSED) return i;
    return c->first;
}

/* The line of exercise ex on the list (build_course's layout: the title,
 * then each chapter's blank line and head before its exercises). */
static int course_line(const App *a, int ex) {
    int line = 1;
    for (int ch = 0; ch < a->course->nchapters; ch++) {
        const Chapter *c = &a->course->chapters[ch];
        if (ex < c->first + c->count) return line + 2 + (ex - c->first);
        line += 2 + c->count;
    }
    return line;
}

/* Space, b, PgDn, PgUp on the list: the list a page down or up, and the
 * selection with it (on the same row, where the list's end allows). */
static void course_page(App *a, int dir) {
    int n = a->course->nexercises, page = view_body_rows() - 2;
    int target = course_line(a, a->ex) + dir * page, to = a->ex;
    while (to + dir >= 0 && to + dir < n && (dir > 0 ? course_line(a, to + dir) <= target : course_line(a, to + dir) >= target))
        to += dir;
    if (to == a->ex && a->ex + dir >= 0 && a->ex + dir < n) to += dir;
    a->scroll += course_line(a, to) - course_line(a, a->ex);
    a->ex = to;
}

/* A digit on the list: the chapter of that number; a second digit soon
 * after makes a two-digit number when there is such a chapter ("1" "1":
 * chapter 11). */
static void course_digit(App *a, int digit) {
    double now = now_seconds();
    int number = a->digits * 10 + digit;
    if (!a->digits || now - a->digit_at > 1.5 || number > a->course->nchapters) number = digit;
    a->digits = number;
    a->digit_at = now;
    if (number < 1 || number > a->course->nchapters) {
        app_message(a, S_DIM, "no chapter %d: the chapters are 1 to %d", number, a->course->nchapters);
        a->digits = 0;
        return;
    }
    a->ex = chapter_next_exercise(a, number - 1);
    app_message(a, S_DIM, "chapter %d: %s", number, a->course->chapters[number - 1].title);
}

/* Typing a search after /: Enter searches (an empty one repeats the last),
 * Esc cancels, Backspace takes back a character. */
static bool prompt_key(App *a, int key) {
    size_t len = strlen(a->query);
    if (is_open(key) && key != KEY_RIGHT) {
        a->prompt = false;
        if (len) snprintf(a->search, sizeof a->search, "%s", a->query);
        if (a->search[0]) a->search_step = len ? 2 : 1;
    } else if (key == 27) {
        a->prompt = false;
        app_message(a, S_DIM, "search cancelled");
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        while (len > 0 && ((unsigned char)a->query[len - 1] & 0xC0) == 0x80) len--; /* a whole character */
        if (len > 0) len--;
        a->query[len] = '\0';
    } else if (key >= 32 && key < 256 && key != 127 && len + 1 < sizeof a->query) {
        a->query[len] = (char)key;
        a->query[len + 1] = '\0';
    }
    return true;
}

/* The list's search: the next exercise after the selected one (after it and
 * round, the selected one last; a new search from the selected one itself)
 * whose id, name, title or summary holds the search, case ignored. */
static void course_seek(App *a) {
    int n = a->course->nexercises, from = a->search_step == 2 ? a->ex : a->ex + 1;
    a->search_step = 0;
    for (int k = 0; k < n; k++) {
        int i = (from + k) % n;
        const Exercise *e = &a->course->exercises[i];
        if (strcasestr(e->id, a->search) || strcasestr(e->name, a->search) || strcasestr(e->title, a->search) ||
            (e->summary && strcasestr(e->summary, a->search))) {
            a->ex = i;
            app_message(a, S_MESSAGE, "/%s: %s %s; / and Enter the next one", a->search, e->id, e->name);
            return;
        }
    }
    app_message(a, S_DIM, "/%s: no exercise's id, name, title or summary has it", a->search);
    a->search[0] = '\0';
}

/* Esc in the lesson: back to the card it was opened from, or the list. */
static void lesson_back(App *a) {
    if (a->lesson_from == VIEW_COURSE) {
        show(a, VIEW_COURSE);
        return;
    }
    a->ex = a->lesson_from_ex;
    a->view = a->lesson_from == VIEW_RESULT && !a->have_result[a->ex] ? VIEW_EXERCISE : a->lesson_from;
    a->scroll = a->lesson_from_scroll;
}

bool view_key(App *a, int key) {
    int n = a->course->nexercises;
    switch (a->view) {
    case VIEW_COURSE:
        if (a->prompt) {
            prompt_key(a, key);
            if (!a->prompt && a->search_step) course_seek(a);
            return true;
        }
        if (key == '/') {
            a->prompt = true;
            a->query[0] = '\0';
            return true;
        }
        switch (key) {
        case KEY_UP:
        case 'k': if (a->ex > 0) a->ex--; return true;
        case KEY_DOWN:
        case 'j': if (a->ex < n - 1) a->ex++; return true;
        case KEY_HOME: a->ex = 0; return true;
        case KEY_END:
        case 'G': a->ex = n - 1; return true;
        case KEY_PPAGE:
        case 'b':
        case 2: /* Ctrl-B */ course_page(a, -1); return true;
        case KEY_NPAGE:
        case ' ':
        case 6: /* Ctrl-F */ course_page(a, +1); return true;
        }
        if (key >= '0' && key <= '9') {
            course_digit(a, key - '0');
            return true;
        }
        if (is_open(key)) {
            show(a, VIEW_EXERCISE);
            return true;
        }
        return false;
    case VIEW_CONTENTS:
        switch (key) {
        case KEY_UP:
        case 'k': if (a->toc_sel > 0) a->toc_sel--; return true;
        case KEY_DOWN:
        case 'j': if (a->toc_sel < a->toc_count - 1) a->toc_sel++; return true;
        case KEY_HOME: a->toc_sel = 0; return true;
        case KEY_END:
        case 'G': a->toc_sel = a->toc_count - 1; return true;
        case 'n':
        case 'p': return true; /* not another exercise from here */
        }
        if (is_open(key)) {
            Doc lesson = {0};
            lesson_doc(a, &lesson, text_width_for(draw_cols()));
            const char *h = contents_heading(a, &lesson);
            if (h) snprintf(a->goto_section, sizeof a->goto_section, "%s", h);
            doc_free(&lesson);
            a->view = VIEW_LESSON;
            a->scroll = a->lesson_scroll;
            return true;
        }
        if (is_back(key) || key == 't') {
            a->view = VIEW_LESSON;
            a->scroll = a->lesson_scroll;
            return true;
        }
        return false;
    case VIEW_LESSON:
        if (a->prompt) return prompt_key(a, key);
        if (key == '/') {
            a->prompt = true;
            a->query[0] = '\0';
            return true;
        }
        if (key == 't') {
            a->lesson_scroll = a->scroll;
            a->toc_sel = -1;
            show(a, VIEW_CONTENTS);
            return true;
        }
        if (a->search[0] && (key == 'n' || key == 'N')) {
            a->search_step = key == 'n' ? 1 : -1;
            return true;
        }
        if (a->search[0] && key == 27) {
            a->search[0] = '\0';
            app_message(a, S_DIM, "search cleared; Esc again goes back");
            return true;
        }
        if (scroll_key(a, key)) return true;
        if (is_back(key)) {
            lesson_back(a);
            return true;
        }
        if (is_open(key)) {
            if (lesson_from_card(a)) {
                lesson_back(a);
            } else {
                a->ex = chapter_next_exercise(a, a->chapter);
                show(a, VIEW_EXERCISE);
            }
            return true;
        }
        if (key == 'n' || key == 'p') {
            int ch = a->chapter + (key == 'n' ? 1 : -1);
            if (ch < 0 || ch >= a->course->nchapters) {
                app_message(a, S_DIM, "%s", key == 'n' ? "this is the last chapter" : "this is the first chapter");
            } else {
                a->chapter = ch;
                a->ex = chapter_next_exercise(a, ch);
                a->search[0] = '\0';
                show(a, VIEW_LESSON);
            }
            return true;
        }
        return false;
    case VIEW_EXERCISE:
        if (scroll_key(a, key)) return true;
        if (is_back(key)) {
            show(a, VIEW_COURSE);
            return true;
        }
        if (is_open(key)) {
            if (a->have_result[a->ex]) show(a, VIEW_RESULT);
            else app_message(a, S_DIM, "no result yet in this session: g grades %s", a->course->exercises[a->ex].id);
            return true;
        }
        return false;
    case VIEW_RESULT:
    case VIEW_SOLUTION:
        if (scroll_key(a, key)) return true;
        if (is_back(key)) {
            show(a, a->view == VIEW_RESULT ? VIEW_EXERCISE : a->back);
            return true;
        }
        return false;
    case VIEW_HELP:
    case VIEW_DOCTOR:
        if (scroll_key(a, key)) return true;
        if (is_back(key) || key == 'q' || (key == '?' && a->view == VIEW_HELP)) {
            show(a, a->back);
            return true;
        }
        return false;
    default: return false;
    }
}
