/* The terminal app's state: what the main loop and actions (app.c) change and
 * the views (views.c) draw. One program-state enum, the view, drives drawing
 * and input, as in ncdu. Below the views, which are below app.c: nothing here
 * calls up into them. */
#ifndef GPUCOURSE_TUI_STATE_H
#define GPUCOURSE_TUI_STATE_H

#include "../grader/diagnose.h"
#include "../grader/grader.h"
#include "doc.h"
#include "tui.h"
#include "watch.h"

typedef enum {
    VIEW_COURSE,   /* chapters and exercises, with progress */
    VIEW_LESSON,   /* the chapter's lesson */
    VIEW_EXERCISE, /* the task, the file, status, hints */
    VIEW_RESULT,   /* the last grading result of the exercise */
    VIEW_SOLUTION, /* the reference solution (once passed) */
    VIEW_HELP,     /* the keys */
    VIEW_GRADING,  /* the live log while grading */
    VIEW_CONTENTS, /* the lesson's sections, to jump to one */
    VIEW_DOCTOR,   /* gpucourse doctor's report: what is installed, what is missing */
    VIEW_COUNT
} ViewId;

typedef struct App {
    const Course *course;
    const Workspace *ws;
    TuiOptions opt;
    Progress progress;     /* as on disk; reloaded after every change we make */
    ViewId view;           /* what is on the screen */
    ViewId back;           /* where help, doctor and the solution return to */
    int ex;                /* the current exercise (course view: the selected one) */
    int chapter;           /* the lesson view's chapter */
    int scroll;            /* first line of the view's Doc on the screen */
    bool scroll_to_mark;   /* after the next build, show the Doc's marked line */
    int mark_line;         /* set by a build: a line worth showing (the newest hint) */
    char *lesson_text;     /* the lesson of lesson_chapter, read once */
    int lesson_chapter;
    /* the lesson's place: where it was opened from, where to go in it */
    ViewId lesson_from;    /* Esc (and Enter, in its chapter) goes back there: a card, or the list */
    int lesson_from_ex, lesson_from_scroll;
    char goto_section[128]; /* a heading to show at the next build ("": none) */
    char search[64];       /* the lesson's search ("": none); n and N go to its matches */
    int search_step;       /* a search to do at the next build: 2 from the top row, 1 the next, -1 the previous */
    bool prompt;           /* typing a search after / */
    char query[64];        /* what is typed */
    int toc_sel;           /* the contents' selected section (-1: the one at the lesson's place) */
    int toc_count;
    int lesson_scroll;     /* the lesson's place while its contents are shown */
    /* the list */
    int digits;            /* a chapter number being typed */
    double digit_at;
    /* no GPU here (and no launcher): said from the start */
    bool probed, no_gpu;
    char *doctor;          /* gpucourse doctor's report (D), as it printed it */
    GradeResult *results;  /* the last result of each exercise in this session */
    bool *have_result;
    Diagnosis *diagnoses;  /* gpucourse why of each exercise's last result (y on its card) */
    bool *have_diagnosis;
    char message[512];     /* the status line: what just happened */
    Style message_style;
    bool confirm_reset;    /* asking "reset? y/n" */
    Watcher *watcher;      /* watch mode is on when set */
    Debounce debounce;     /* a save seen, grading soon; what = the exercise */
    /* while grading */
    int grading_ex;
    StrBuf log;            /* nvcc's and the program's output so far */
    char phase[64];
    double last_draw;      /* when the live log was last drawn */
    double last_output;    /* when output last came */
    bool quit;
} App;

/* What the views read of the state, and the status line they set. */
ExStatus app_status(const App *a, int ex);
const ExProgress *app_progress(const App *a, int ex);
int app_passed(const App *a, int first, int count);
void app_message(App *a, Style s, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* The editor e runs: $VISUAL, else $EDITOR, else vi. */
const char *app_editor(void);

#endif
