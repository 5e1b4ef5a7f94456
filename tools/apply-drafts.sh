#!/bin/sh
# tools/apply-drafts.sh ROOT: puts the drafts that wait for the H100 into a
# copy of the course at ROOT (ROOT/course/...): ex45's exercise
# (course/11-past-cublas/ex45-draft.yaml) at the end of chapter 11, its
# lesson section (fp8-draft.md) before the chapter's checklist. Used by
# tools/verify-ch11.sh (to grade the drafts on the GPU) and tests/drafts.sh
# (to keep them building). Never on the course itself.
set -eu
d=$1/course/11-past-cublas
[ "$(cd "$1" && pwd)" != "$(cd "$(dirname "$0")/.." && pwd)" ] || { echo "apply-drafts: a copy of the course, not the course" >&2; exit 64; }
cat "$d/ex45-draft.yaml" >>"$d/chapter.yaml"
awk -v fp8="$d/fp8-draft.md" '
    /^## Checklist/ { while ((getline line < fp8) > 0) if (line ~ /^## FP8/ || started) { started = 1; print line } }
    { print }' "$d/lesson.md" >"$d/lesson.md.new"
mv "$d/lesson.md.new" "$d/lesson.md"
