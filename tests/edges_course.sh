#!/bin/sh
# Bad input to the course loader and to gpucourse new, from a bad-input sweep
# and a newcomer's first hour: a ladder of one id repeated thousands of times
# (bounded problems, time and memory), paths that lead outside the course
# (.., absolute, links), one-line texts with newlines, odd titles that new
# must write so that they load back as given, an empty course name, a
# duplicate anchor, the TODO placeholders new writes, an unknown kind.
# Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh edges-course

# A small valid course: one chapter, one exercise, its files. $1: its directory.
make_course() {
    mkdir -p "$1/course/01-one" "$1/exercises" "$1/solutions" &&
    printf 'title: Edges\nchapters:\n  - 01-one\n' >"$1/course/course.yaml" &&
    printf '# One\n' >"$1/course/01-one/lesson.md" &&
    printf '// stub\n' >"$1/exercises/ex01_add.cu" && printf '// ref\n' >"$1/solutions/ex01_add.cu" &&
    printf '// stub\n' >"$1/exercises/ex02_more.cu" && printf '// ref\n' >"$1/solutions/ex02_more.cu" &&
    chapter "$1" ""
}
# Writes the course's chapter.yaml: lesson.md, ex01 and ex02, and $2 (more keys of ex02).
chapter() {
    { printf 'title: One\nlesson: lesson.md\nexercises:\n'
      for ex in "ex01 add" "ex02 more"; do set -- "$1" "$2" $ex
          printf '  - id: %s\n    name: %s\n    title: T\n    kind: vector_add\n    file: %s_%s.cu\n' "$3" "$4" "$3" "$4"
          printf '    task: Add.\n    sizes: {check: [[1]], timing: [1000]}\n    floors: {reference: 0.5}\n    hints: [h]\n'
      done
      printf '%s' "$2"; } >"$1/course/01-one/chapter.yaml"
}
C=$T/c
make_course "$C"
t_valid() { code_is 0 "$GC" --course "$C" list && has "ex02  more"; }
check "the test's own course loads" t_valid

# 1. A ladder of 6000 copies of one id (36 KB) gave 18 million problems (2 GB,
# 46 s): each repeat once, at most 100 problems from one file, then one line
# saying how many more. Bounded in memory and time.
t_ladder_repeats() {
    chapter "$C" "    ladder: [$(python3 -c "print(', '.join(['ex01'] * 6000))")]
" && [ "$(wc -c <"$C/course/01-one/chapter.yaml")" -gt 36000 ] &&
    (ulimit -v 300000; code_is 65 timeout 10 "$GC" --course "$C" check-course --format json) &&
    python3 -c "
import json; p = json.load(open('$T/got'))['problems']
assert p == ['course/01-one/chapter.yaml:22:13: ladder entry \'ex01\' is given 6000 times (in exercise \'ex02\')'], p"; }
check "a ladder of one id 6000 times (36 KB): one problem, under ulimit -v and timeout" t_ladder_repeats
t_file_cap() {
    chapter "$C" "    ladder: [$(python3 -c "print(', '.join('ex%d' % k for k in range(100, 6100)))")]
" && (ulimit -v 300000; code_is 65 timeout 10 "$GC" --course "$C" check-course --format json) &&
    python3 -c "
import json; p = json.load(open('$T/got'))['problems']
assert len(p) == 101, len(p)
assert p[0].startswith('course/01-one/chapter.yaml:22:13: ladder entry \'ex100\' is not an earlier'), p[0]
assert p[100] == 'course/01-one/chapter.yaml:22:13: ... and 5900 more problems in this file', p[100]"; }
check "6000 distinct problems in one file: the first 100, then how many more" t_file_cap

# 12. Paths a course names stay inside the course: no absolute path, no ..
# that leads out, no link to a file outside.
t_lesson_escape() {
    chapter "$C" "" && sed -i 's|^lesson: lesson.md|lesson: ../../../../../../etc/passwd|' "$C/course/01-one/chapter.yaml" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/01-one/chapter.yaml:2:9: lesson '../../../../../../etc/passwd' leads outside the course directory" &&
    code_is 65 "$GC" --course "$C" show ex01 && ! grep -q "root:" "$T/got" "$T/goterr"; }
check "lesson: ../../../etc/passwd is refused at file:line:col, and not read" t_lesson_escape
t_lesson_absolute() {
    sed -i 's|^lesson: .*|lesson: /etc/passwd|' "$C/course/01-one/chapter.yaml" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/01-one/chapter.yaml:2:9: lesson '/etc/passwd' must be a path relative to chapter.yaml"; }
check "an absolute lesson path is refused" t_lesson_absolute
t_lesson_inside() {
    mkdir -p "$C/course/shared" && printf '# Shared\n' >"$C/course/shared/intro.md" &&
    sed -i 's|^lesson: .*|lesson: ../shared/intro.md|' "$C/course/01-one/chapter.yaml" &&
    code_is 0 "$GC" --course "$C" list; }
check "a lesson path with .. that stays inside the course loads" t_lesson_inside
t_lesson_link() {
    chapter "$C" "" && printf '# Outside\n' >"$T/outside.md" && ln -sf "$T/outside.md" "$C/course/01-one/lesson.md" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/01-one/chapter.yaml:2:9: lesson 'lesson.md' leads outside the course directory (through a link)"; }
check "a lesson that is a link to a file outside the course is refused" t_lesson_link
t_lesson_link_inside() {
    rm -f "$C/course/01-one/lesson.md" && ln -s ../shared/intro.md "$C/course/01-one/lesson.md" &&
    code_is 0 "$GC" --course "$C" list; }
check "a lesson that is a link inside the course loads" t_lesson_link_inside
t_stub_link() {
    ln -sf /etc/passwd "$C/exercises/ex02_more.cu" && ln -sf "$T/outside.md" "$C/solutions/ex02_more.cu" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/01-one/chapter.yaml:17:11: exercises/ex02_more.cu (the stub) leads outside the course directory (through a link)" &&
    has "^course/01-one/chapter.yaml:17:11: solutions/ex02_more.cu (the reference) leads outside the course directory (through a link)"; }
check "a stub or a reference that is a link outside the course is refused" t_stub_link
rm -f "$C/exercises/ex02_more.cu" "$C/solutions/ex02_more.cu"
printf '// stub\n' >"$C/exercises/ex02_more.cu"; printf '// ref\n' >"$C/solutions/ex02_more.cu"
t_chapter_dotdot() {
    printf 'title: Edges\nchapters:\n  - 01-one\n  - ..\n' >"$C/course/course.yaml" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/course.yaml:4:5: a chapter is named by its directory under course/"; }
check "a chapter named .. is refused" t_chapter_dotdot
t_chapter_link() {
    cp -R "$C/course/01-one" "$T/elsewhere" && ln -s "$T/elsewhere" "$C/course/02-two" &&
    printf 'title: Edges\nchapters:\n  - 01-one\n  - 02-two\n' >"$C/course/course.yaml" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/course.yaml:4:5: course/02-two/chapter.yaml leads outside the course directory (through a link)"; }
check "a chapter directory that is a link outside the course is refused" t_chapter_link
printf 'title: Edges\nchapters:\n  - 01-one\n' >"$C/course/course.yaml"

# floors_why and timeout_hint are said inside a sentence: one line.
t_one_line() {
    chapter "$C" '    floors_why: "slow by nature\nand more"
    timeout_hint: |
      a wait that
      never ends
' && code_is 65 "$GC" --course "$C" check-course &&
    has "^course/01-one/chapter.yaml:22:17: 'floors_why' must be one line (in exercise 'ex02')" &&
    has "^course/01-one/chapter.yaml:23:19: 'timeout_hint' must be one line (in exercise 'ex02')"; }
check "floors_why and timeout_hint with a newline are refused" t_one_line
t_one_line_folded() {
    chapter "$C" '    timeout_hint: >
      a wait that
      never ends
' && code_is 0 "$GC" --course "$C" list; }
check "a folded timeout_hint (one line and its final newline) loads" t_one_line_folded

# 14. Titles new writes load back as given: quoted so that YAML takes them as text.
t_odd_titles() {
    long=$(python3 -c "print('a long title, ' * 700)")
    for title in 'Colon: here' '# not a comment' '"double" quotes' "'single' quotes" '- a dash' '--dashes' '* star' \
                 '& ampersand' '! bang' '% percent' '@ at' '`backquote`' '{braces}' '[brackets]' '| pipe' '> more' \
                 '? question' 'back\slash' '  spaced  ' 'ünïcødé ✓ 日本語' 'yes' 'null' '~' '1e3' "$long"; do
        d=$T/titles/$(printf '%s' "$title" | cksum | cut -d' ' -f1)
        code_is 0 "$GC" new course "$d" --title "$title" &&
        code_is 0 "$GC" --course "$d" new chapter one --title "$title" &&
        code_is 0 "$GC" --course "$d" new exercise one add --kind vector_add --title "$title" &&
        code_is 0 "$GC" --course "$d" --workspace "$d/ws" list && mv "$T/got" "$T/list" &&
        code_is 0 "$GC" --course "$d" --workspace "$d/ws" show ex01 && python3 - "$T/list" "$T/got" "$title" <<'PY' || { echo "for title '$title'"; return 1; }
import sys
listing, show, title = (open(sys.argv[1], encoding='utf-8').read().splitlines(),
                        open(sys.argv[2], encoding='utf-8').read().splitlines(), sys.argv[3])
assert listing[0] == title, listing[0]                                 # the course's
assert listing[2].startswith('Chapter 1: %s  (' % title), listing[2]   # the chapter's
first = show[0]                      # the exercise's, its line broken at 80 columns joined
for more in show[1:]:
    if not more.startswith(' ' * 10) or not more.strip(): break
    first += ' ' + more.strip()
assert first.rstrip() == ('ex01 add: ' + title).rstrip(), first
PY
    done; }
check "odd titles (:, #, quotes, leading -, *, &, !, %, @, backquote, unicode, very long): new writes, list loads the same" t_odd_titles
t_bad_titles() {
    for title in '' ' ' "$(printf 'two\nlines')" "$(printf 'tab\there')" "$(printf 'del\177')" "$(printf 'c1 \302\200')" \
                 "$(printf 'not utf-8 \377')"; do
        code_is 64 "$GC" new course "$T/bad-title" --title "$title" && has_err "title" && [ ! -e "$T/bad-title" ] &&
        code_is 64 "$GC" --course "$T/titles/new" new chapter x --title "$title" && has_err "title" ||
            { echo "for title '$title'"; return 1; }
    done; }
mkdir -p "$T/titles" && "$GC" new course "$T/titles/new" >/dev/null
check "titles that are empty, blank, more than one line, control characters or not UTF-8: usage error 64" t_bad_titles
t_empty_course_name() { (cd "$T" && code_is 64 "$GC" new course "") && has_err "new course" && [ ! -e "$T/course" ]; }
check "new course \"\": usage error 64, nothing made in the current directory" t_empty_course_name

t_duplicate_anchor() {
    chapter "$C" "" && printf 'title: &t Edges\nchapters: &t\n  - 01-one\n' >"$C/course/course.yaml" &&
    code_is 65 "$GC" --course "$C" check-course &&
    has "^course/course.yaml:2:11: anchor '&t' is defined twice (first at course/course.yaml:1:8)$"; }
check "a duplicate anchor: a clean file:line:col message" t_duplicate_anchor
printf 'title: Edges\nchapters:\n  - 01-one\n' >"$C/course/course.yaml"

# 18. The placeholders new writes must be replaced before check-course passes.
N=$T/new
t_todo() {
    code_is 0 "$GC" new course "$N" && code_is 0 "$GC" --course "$N" new chapter one &&
    code_is 0 "$GC" --course "$N" new exercise one add --kind vector_add &&
    code_is 65 "$GC" --course "$N" check-course &&
    has "^course/01-one/chapter.yaml:11:14: the summary, the task and hint 1 are still gpucourse new's placeholders (a line that starts TODO:): write them (in exercise 'ex01')$" &&
    has "^course/01-one/lesson.md:3:1: the lesson is still gpucourse new's placeholder" &&
    has "^exercises/ex01_add.cu:4:6: the stub's header is still gpucourse new's placeholder" &&
    has "^solutions/ex01_add.cu:3:4: the reference still has gpucourse new's placeholder" &&
    has "check-course: 4 problems in the course files" &&
    code_is 0 "$GC" --course "$N" --workspace "$T/ws-new" list; }
check "check-course: what new left to write (the entry's TODO: lines, the lesson, the stub's header, the reference) is a problem; list still loads" t_todo
t_todo_fixed() { # written, what is left is building: stopped here by a missing nvcc
    sed -i -e 's/"TODO: one line for lists"/"Adds two vectors."/' -e 's/TODO: what to write, in markdown. //' \
        -e 's/"TODO: a first nudge"/"One thread per element."/' "$N/course/01-one/chapter.yaml" &&
    sed -i 's/^TODO: the lesson.*/Threads add./' "$N/course/01-one/lesson.md" &&
    sed -i -e 's/TODO: the idea this exercise is about/The idea/' -e 's/In the kernel: TODO\./In the kernel: add./' \
        "$N/exercises/ex01_add.cu" && sed -i '/TODO/d' "$N/solutions/ex01_add.cu" &&
    (export GPUCOURSE_NVCC=$T/no-nvcc; code_is 65 "$GC" --course "$N" check-course) && has "YAML valid" && ! grep -q TODO "$T/got"; }
check "with the placeholders written, check-course reports none (what is left: building)" t_todo_fixed
t_todo_json() {
    chapter "$C" "" && sed -i 's/hints: \[h\]/hints: [h, "TODO: more"]/' "$C/course/01-one/chapter.yaml" &&
    code_is 65 "$GC" --course "$C" check-course --format json &&
    python3 -c "
import json; d = json.load(open('$T/got'))
todo = ' is still gpucourse new\'s placeholder (a line that starts TODO:): write it (in exercise \'%s\')'
assert not d['ok'] and d['problems'] == ['course/01-one/chapter.yaml:12:16: hint 2' + todo % 'ex01',
                                         'course/01-one/chapter.yaml:21:16: hint 2' + todo % 'ex02'], d['problems']"; }
check "check-course --format json lists the placeholders left" t_todo_json
chapter "$C" ""

t_unknown_kind() {
    code_is 64 "$GC" --course "$N" new exercise one other --kind nope &&
    has_err "no kind 'nope'" && has_err "known: .*vector_add" && has_err "transpose" &&
    code_is 64 "$GC" --course "$N" new exercise one other --kind 'Bad Kind' && has_err "known: .*vector_add"; }
check "new exercise --kind nope lists the kinds there are" t_unknown_kind

echo "1..$n"
