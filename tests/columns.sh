#!/bin/sh
# The command line fitted to 80 columns (the newcomer audit's table, Part
# 2.2): what --help, list, show, hint, doctor, grade, why and progress print
# fits 80 columns where stdout is no terminal, and the terminal's width where
# it is one (check-course on the shipped course: tests/cli.sh, which runs it
# whole). A summary longer than a list's line is check-course's problem, at
# its file:line:col. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh columns

count=$("$GC" list | grep -c '^  \[.\] ex')
t_help() { code_is 0 "$GC" --help && fits_80 && code_is 0 "$GC" help && fits_80; }
check "--help and help: every line at most 80 columns" t_help
t_list() { code_is 0 "$GC" list && fits_80 && has "\[ \] ex45"; }
check "list: every line at most 80 columns (the summaries whole)" t_list
# every exercise's show, and every hint of each (hint shows one more each time)
t_show_hint() {
    : >"$T/all"
    for i in $(seq "$count"); do
        code_is 0 "$GC" show "$i" && cat "$T/got" >>"$T/all" || return 1
        hints=$(sed -n 's/^Hints: *[0-9]* of \([0-9]*\) seen.*/\1/p' "$T/got")
        for _ in $(seq "$hints"); do code_is 0 "$GC" hint "$i" && cat "$T/got" >>"$T/all" || return 1; done
    done
    fits_80 "$T/all" && grep -q "^To pass:    correct at every size" "$T/all" && grep -q "^Hint 3 of 3" "$T/all"
}
check "show and every hint of all $count exercises: every line at most 80 columns" t_show_hint
t_lessons() {
    : >"$T/all"
    for c in $(seq "$(sed -n 's/^Chapter \([0-9]*\):.*/\1/p' "$T/list" | tail -1)"); do
        code_is 0 "$GC" lesson --chapter "$c" && cat "$T/got" >>"$T/all" || return 1
    done
    fits_80 "$T/all"
}
"$GC" list >"$T/list"
check "lesson of every chapter: every line at most 80 columns" t_lessons
t_doctor() { "$GC" doctor >"$T/got" 2>&1; fits_80 && has "fix: "; }
check "doctor, its fix lines too: every line at most 80 columns" t_doctor
t_grade_why() { code_is 77 "$GC" grade ex01 && has "^SKIPPED ex01" && fits_80 && { "$GC" why ex01 >"$T/got" 2>&1; :; } &&
                has "^why ex01" && fits_80 && code_is 0 "$GC" progress && fits_80; }
check "grade and why without a GPU, then progress: every line at most 80 columns" t_grade_why
# on a terminal 60 columns wide (script gives one): its width, words whole
# (a word longer than a line, the path of your file, on a line of its own)
t_terminal() {
    command -v script >/dev/null || { echo "# SKIP no script(1)"; return 0; }
    script -qc "stty cols 60 rows 40; '$GC' --help; '$GC' show ex33" /dev/null | tr -d '\r' >"$T/got"
    has "^usage: gpucourse" && has "^To pass:    correct at every size, and at least 0.80x the\$" &&
        has "^            reference's throughput and 0.70x cuBLAS GemmEx\$" &&
        perl -CSD -ne 'chomp; next if /^\s*\S+$/; if (length > 60) { print "over 60: $_\n"; $w = 1 } END { exit($w ? 1 : 0) }' "$T/got"
}
check "on a terminal 60 columns wide: its width, broken at words, under the line's text" t_terminal

# A course whose summary is longer than a list shows: check-course says
# where (exit 65), list still works and goes on under the summary
# (its column: chapter 1's longest name).
# (chapter 1 alone: where the limit is missing, check-course builds it quickly)
mkdir -p "$T/long" && cp -R course harness exercises solutions "$T/long/"
sed -i '/^  - [0-9][0-9]-/{/01-threads/!d}' "$T/long/course/course.yaml"
long="One thread per element, an index, a guard, and a tail at the end of the vector."
sed -i "s/^    summary: One thread per element; index and tail guard\.\$/    summary: $long/" "$T/long/course/01-threads/chapter.yaml"
line=$(grep -n "summary: $long" "$T/long/course/01-threads/chapter.yaml" | cut -d: -f1)
t_summary_long() {
    [ -n "$line" ] || { echo "the sed did not apply"; return 1; }
    code_is 65 "$GC" --course "$T/long" check-course &&
        has "course/01-threads/chapter.yaml:$line:14: the summary is 79 characters; a list shows 46 (one line at 80 columns): shorten it (in exercise 'ex01')" &&
        has "check-course: 1 problem in the course files" &&
        code_is 0 "$GC" --course "$T/long" list && fits_80 && has "One thread per element, an index" &&
        has "^  \[.\] ex01  vector_add  One thread per element, an index, a guard, and a tail at\$" &&
        has "^                        the end of the vector\.\$"
}
check "a summary over 46 characters: check-course's problem at file:line:col (65); list goes on under it" t_summary_long
t_title_long() { # no summary: the title is what lists show
    sed -i "/^    summary: $long\$/d" "$T/long/course/01-threads/chapter.yaml" &&
        sed -i "s/^    title: Add two vectors, tail included\$/    title: Add two vectors of floats, element by element, the tail included/" \
            "$T/long/course/01-threads/chapter.yaml" &&
        code_is 65 "$GC" --course "$T/long" check-course &&
        has "the title (a list's summary when there is none) is 64 characters; a list shows 46 .*or add a summary"
}
check "no summary and a title over 46 characters: check-course says so, and to add a summary" t_title_long
echo "1..$n"
