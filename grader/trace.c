#include "trace.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../src/util.h"
#include "report.h"

static TraceStep *add_step(Trace *t, const char *who, const char *what) {
    if (t->n >= TRACE_MAX) {
        t->dropped++;
        return NULL;
    }
    TraceStep *s = &t->steps[t->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->who, sizeof s->who, "%s", who);
    snprintf(s->what, sizeof s->what, "%s", what);
    return s;
}

double trace_step(Trace *t, const char *what, double since) {
    double now = now_seconds();
    TraceStep *s = add_step(t, "grader", what);
    if (s) s->start_s = since - t->origin, s->seconds = now - since;
    return now;
}

bool trace_judge_line(Trace *t, const char *val) {
    char *end = NULL;
    double at = strtod(val, &end);
    if (end == val || *end != ' ' || !isfinite(at)) return false;
    TraceStep *s = add_step(t, "judge", end + 1);
    if (s) s->start_s = NAN, s->seconds = at; /* the mark itself, until placed */
    return true;
}

void trace_place_judge(Trace *t, double spawned, double ended) {
    int first = 0;
    while (first < t->n && !isnan(t->steps[first].start_s)) first++; /* the marks not yet placed */
    double shift = 0;
    if (first < t->n) {
        double at = t->steps[first].seconds;
        if (at < spawned || at > ended) shift = spawned - at; /* another machine's clock */
    }
    double prev = spawned;
    for (int i = first; i < t->n; i++) {
        TraceStep *s = &t->steps[i];
        double at = s->seconds + shift;
        if (at < prev) at = prev; /* never backwards */
        s->start_s = prev - t->origin;
        s->seconds = at - prev;
        prev = at;
    }
    TraceStep *s = add_step(t, "judge", first < t->n ? "exit (runners stopped)" : "the whole run (no marks)");
    if (s) s->start_s = prev - t->origin, s->seconds = ended > prev ? ended - prev : 0;
}

void trace_print(FILE *out, const char *title, const Trace *t, double wall_s) {
    fprintf(out, "trace of %s: %.3f s\n", title, wall_s);
    fprintf(out, "   start  seconds  step\n");
    double by_who[2] = {0, 0};
    for (int i = 0; i < t->n; i++) {
        const TraceStep *s = &t->steps[i];
        bool judge = !strcmp(s->who, "judge");
        by_who[judge] += s->seconds;
        fprintf(out, "  %6.3f  %7.3f  %s%s\n", s->start_s, s->seconds, judge ? "  judge: " : "", s->what);
    }
    if (t->dropped) fprintf(out, "  (%d more step%s not kept)\n", t->dropped, t->dropped == 1 ? "" : "s");
    /* the time no step covers: the judge may run beside the grader's steps (started beside nvcc) */
    double covered = 0, upto = 0;
    for (;;) { /* the steps' union, from the earliest start on */
        const TraceStep *next = NULL;
        for (int i = 0; i < t->n; i++)
            if (t->steps[i].start_s + t->steps[i].seconds > upto && (!next || t->steps[i].start_s < next->start_s ||
                                                                    (t->steps[i].start_s == next->start_s &&
                                                                     t->steps[i].seconds > next->seconds)))
                next = &t->steps[i];
        if (!next) break;
        double from = next->start_s > upto ? next->start_s : upto, to = next->start_s + next->seconds;
        covered += to - from;
        upto = to;
    }
    fprintf(out, "  grader %.3f s, judge %.3f s, between steps %.3f s\n", by_who[0], by_who[1], wall_s - covered);
}

void trace_json(FILE *out, const Trace *t) {
    fputc('[', out);
    for (int i = 0; i < t->n; i++) {
        const TraceStep *s = &t->steps[i];
        fputs(i ? ", {\"who\": " : "{\"who\": ", out);
        json_string(out, s->who);
        fputs(", \"step\": ", out);
        json_string(out, s->what);
        fputs(", \"start_seconds\": ", out);
        json_number(out, s->start_s);
        fputs(", \"seconds\": ", out);
        json_number(out, s->seconds);
        fputc('}', out);
    }
    fputc(']', out);
}
