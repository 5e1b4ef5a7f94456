#!/bin/sh
# How long a grade takes on the GPU, and how steady its ratios are (issue 28's
# tables in docs/benchmarks.md), in one device call.
#
#   tools/verify-speed.sh prepare   on any machine with nvcc (no GPU needed): builds gpucourse,
#                                   and in .verify/speed/ a workspace whose files are the
#                                   references of EXERCISES, every library built (a fake GPU
#                                   and CUDA's stub driver take each grading through its builds)
#   tools/verify-speed.sh run [N]   on the GPU machine (carry .verify and build): each reference
#                                   graded N times (default 10), the exercises in turn, wall time
#                                   of `gpucourse grade EX --format json` with the trace; then the
#                                   honest fixtures of FIXTURES 3 times each (their verdicts);
#                                   tables last: wall min / median / max, each timed size's
#                                   you/reference (and you/copy) min-max and spread, how often the
#                                   judge's clock decided, and the fixtures' verdicts; the timed
#                                   calls' logs in .verify/speed/out/calls-EX.log
#                                   (tools/clock-report.py reads them)
#   tools/verify-speed.sh base REV  here: the same preparation for commit REV, in a worktree at
#                                   .verify/base (its build trimmed to gpucourse), for before and
#                                   after in one device call
#   tools/verify-speed.sh ab [N]    on the GPU machine (carry .verify/speed, .verify/base and
#                                   build): N rounds (default 6), each grading every exercise
#                                   with REV's gpucourse and this tree's in turn, the order
#                                   alternating; wall times before / after, the time until the
#                                   verdict was out (the trace's, from the process's start), and
#                                   each ratio's spread before / after. AB_EDIT=1: each grading
#                                   after an edit (a new comment line at the file's end), so
#                                   that nvcc compiles it: save to verdict
#   tools/verify-speed.sh watch [N] on the GPU machine (carry .verify/speed and build; tmux):
#                                   `gpucourse watch ex01` in tmux, the stub and the reference
#                                   saved in turn N times (default 3), each save's time until
#                                   the card shows its verdict
# .verify/ is listed in .git/info/exclude; nothing in it is committed.
set -u
cd "$(dirname "$0")/.." || exit 1
V=$PWD/.verify/speed
EXERCISES=${EXERCISES:-"ex01 ex13 ex21 ex33 ex41"}
# honest answers that the clock rule must not call too slow (docs/benchmarks.md, "The clock rule")
FIXTURES=${FIXTURES:-"ex05_tiled_2d ex10_atomic_add"}
export GPUCOURSE_COURSE=$PWD XDG_CACHE_HOME=$V/cache GPUCOURSE_LOCK_DIR=$V/locks
. tools/verify-lib.sh

prepare() {
    set -e
    rm -rf "$V"
    verify_start "$V"
    mkdir -p "$V/locks" "$V/fixtures"
    build/gpucourse --workspace "$V/ws" list >/dev/null
    for ex in $EXERCISES; do cp solutions/${ex}_*.cu "$V/ws/exercises/"; done
    for fx in $FIXTURES; do
        ex=${fx%%_*}
        mkdir -p "$V/fixtures/$fx/exercises"
        build/gpucourse --workspace "$V/fixtures/$fx" list >/dev/null
        sh tests/fixture_source.sh "tests/gpu/$fx.cu" "$V/fixtures/$fx/exercises/$(basename solutions/${ex}_*.cu)"
    done
    prebuild build/gpucourse --workspace "$V/ws" grade $EXERCISES
    for fx in $FIXTURES; do prebuild build/gpucourse --workspace "$V/fixtures/$fx" grade "${fx%%_*}"; done
    du -sh "$V" build
}

run() {
    n=${1:-10}
    out=$V/out
    rm -rf "$out" && mkdir -p "$out"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
    for i in $(seq "$n"); do
        for ex in $EXERCISES; do
            start=$(date +%s.%N)
            GPUCOURSE_CALL_LOG=$out/calls-$ex.log GPUCOURSE_TRACE=1 build/gpucourse --workspace "$V/ws" grade "$ex" --format json >"$out/$ex-$i.json" \
                2>"$out/$ex-$i.trace"
            echo "$ex $i $(awk "BEGIN { print $(date +%s.%N) - $start }")" >>"$out/wall"
        done
    done
    for fx in $FIXTURES; do
        for i in 1 2 3; do
            build/gpucourse --workspace "$V/fixtures/$fx" grade "${fx%%_*}" --format json >"$out/fx-$fx-$i.json" 2>/dev/null
        done
    done
    python3 - "$out" "$EXERCISES" "$FIXTURES" <<'EOF'
import json, os, statistics, sys
out, exercises, fixtures = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
walls = {}
for line in open(os.path.join(out, "wall")):
    ex, _, s = line.split()
    walls.setdefault(ex, []).append(float(s))
print("\n## Wall time of `gpucourse grade EX` (reference as the student's file, library built)")
print("| exercise | grades | min | median | max | verdicts |")
print("|---|---|---|---|---|---|")
ratios, clock = {}, {}
for ex in exercises:
    verdicts = []
    for f in sorted(os.listdir(out)):
        if not (f.startswith(ex + "-") and f.endswith(".json")):
            continue
        r = json.load(open(os.path.join(out, f)))["results"][0]
        verdicts.append(r["verdict"])
        decided = any("the clock decided" in n for n in r.get("notes", []))
        clock[ex] = clock.get(ex, 0) + decided
        for s in r.get("timed_sizes") or []:
            for key in ("vs_reference", "vs_baseline"):
                if key in s:
                    ratios.setdefault((ex, s["size"], key), []).append(s[key])
    w = walls.get(ex, [0])
    print("| %s | %d | %.2f s | %.2f s | %.2f s | %s |" % (ex, len(w), min(w), statistics.median(w), max(w),
          ", ".join("%s %d" % (v, verdicts.count(v)) for v in sorted(set(verdicts)))))
print("\n## Stability over the grades (spread = (max - min) / median)")
print("| exercise | size | ratio | min-max | spread | the clock decided in |")
print("|---|---|---|---|---|---|")
for (ex, size, key), v in sorted(ratios.items()):
    med = statistics.median(v)
    print("| %s | %s | %s | %.4f-%.4f | %.1f%% | %d of %d grades |" % (ex, size, key.replace("vs_", "you/"), min(v),
          max(v), 100 * (max(v) - min(v)) / med if med else 0, clock.get(ex, 0), len(walls.get(ex, []))))
print("\n## Overhead of the timed calls (wall - event, us: p50 / p90 / max) and the stops (answer to the stop seen, looked for between probes)")
print("| exercise | your calls | reference's | library's or copy's | stops p50 / p99 / max |")
print("|---|---|---|---|---|")
def pct(v, q):
    v = sorted(v)
    return v[int(q * (len(v) - 1) + 0.5)] if v else float("nan")
for ex in exercises:
    over, stops = {}, []
    try:
        lines = open(os.path.join(out, "calls-%s.log" % ex)).read().split("\n")
    except OSError:
        continue
    for line in lines:
        f = line.split()
        if len(f) < 9 or f[1] != "sample":
            continue
        event, wall, answered, frozen = float(f[3]), float(f[4]), float(f[7]), float(f[8])
        who = f[2] if f[2] in ("student", "reference") else "other"
        over.setdefault(who, []).append(1000 * (wall - event))
        stops.append(1000 * (frozen - answered))
    cell = lambda v: "%.0f / %.0f / %.0f" % (pct(v, .5), pct(v, .9), max(v)) if v else "-"
    print("| %s | %s | %s | %s | %.0f / %.0f / %.0f |" % (ex, cell(over.get("student")), cell(over.get("reference")),
          cell(over.get("other")), pct(stops, .5), pct(stops, .99), max(stops)))
print("\n## Honest fixtures (must pass)")
for fx in fixtures:
    got = []
    for i in (1, 2, 3):
        p = os.path.join(out, "fx-%s-%d.json" % (fx, i))
        try:
            r = json.load(open(p))["results"][0]
            got.append("%s %.2fx" % (r["verdict"], (r.get("timing") or {}).get("vs_reference") or 0))
        except Exception as e:
            got.append("unreadable (%s)" % e)
    print("%s: %s" % (fx, "; ".join(got)))
EOF
}

base() {
    set -e
    [ -n "${1:-}" ] || { echo "usage: tools/verify-speed.sh base REV" >&2; exit 64; }
    rm -rf .verify/base && git worktree prune
    git worktree add -f --detach .verify/base "$1" >/dev/null
    (cd .verify/base && EXERCISES="$EXERCISES" FIXTURES="" sh tools/verify-speed.sh prepare)
    find .verify/base/build -mindepth 1 -maxdepth 1 ! -name gpucourse -exec rm -rf {} +
    du -sh .verify/base
}

# one grading with the gpucourse of tree $1 (its own .verify/speed), as "$2-EX-I" in $out
ab_grade() {
    (cd "$1" && W=$PWD/.verify/speed && { [ "${AB_EDIT:-}" != 1 ] || echo "// edit $2 $4 $(date +%s.%N)" >>"$(ls "$W"/ws/exercises/"$3"_*.cu)"; } &&
        start=$(date +%s.%N) &&
        GPUCOURSE_COURSE=$PWD XDG_CACHE_HOME=$W/cache GPUCOURSE_LOCK_DIR=$W/locks GPUCOURSE_TRACE=1 \
            build/gpucourse --workspace "$W/ws" grade "$3" --format json >"$out/$2-$3-$4.json" 2>"$out/$2-$3-$4.trace"
        echo "$2 $3 $4 $(awk "BEGIN { print $(date +%s.%N) - $start }")" >>"$out/wall")
}

ab() {
    n=${1:-6}
    out=$PWD/.verify/ab
    rm -rf "$out" && mkdir -p "$out"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
    for i in $(seq "$n"); do
        for ex in $EXERCISES; do
            if [ $((i % 2)) = 1 ]; then ab_grade .verify/base before "$ex" "$i"; ab_grade . after "$ex" "$i"
            else ab_grade . after "$ex" "$i"; ab_grade .verify/base before "$ex" "$i"; fi
        done
    done
    python3 - "$out" "$EXERCISES" <<'EOF'
import json, os, statistics, sys
out, exercises = sys.argv[1], sys.argv[2].split()
walls, verdicts, ratios = {}, {}, {}
for line in open(os.path.join(out, "wall")):
    who, ex, i, s = line.split()
    walls.setdefault((who, ex), []).append(float(s))
    try:
        r = json.load(open(os.path.join(out, "%s-%s-%s.json" % (who, ex, i))))["results"][0]
    except Exception:
        verdicts.setdefault((who, ex), []).append("unreadable")
        continue
    verdicts.setdefault((who, ex), []).append(r["verdict"])
    for s in r.get("timed_sizes") or []:
        for key in ("vs_reference", "vs_baseline"):
            if key in s:
                ratios.setdefault((ex, s["size"], key, who), []).append(s[key])
# the verdict out: what the process did before grading, and the trace's total (printed with the verdict)
def verdict_s(path):
    before = total = None
    try:
        for line in open(path):
            if line.startswith("gpucourse started "): before = float(line.split()[2])
            elif line.startswith("trace of ") and total is None: total = float(line.split(": ")[1].split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return before + total if before is not None and total is not None else None
verdicts_s = {}
for line in open(os.path.join(out, "wall")):
    who, ex, i, s = line.split()
    v = verdict_s(os.path.join(out, "%s-%s-%s.trace" % (who, ex, i)))
    if v is not None: verdicts_s.setdefault((who, ex), []).append(v)
span = lambda v: "%.2f / %.2f / %.2f s" % (min(v), statistics.median(v), max(v))
count = lambda v: ", ".join("%s %d" % (x, v.count(x)) for x in sorted(set(v)))
print("\n## Wall time of `gpucourse grade EX`, before and after in turn")
print("| exercise | before min / median / max | after min / median / max | verdicts before / after |")
print("|---|---|---|---|")
for ex in exercises:
    print("| %s | %s | %s | %s / %s |" % (ex, span(walls.get(("before", ex), [0])), span(walls.get(("after", ex), [0])),
          count(verdicts.get(("before", ex), [])), count(verdicts.get(("after", ex), []))))
print("\n## Until the verdict was out (trace), before and after%s" % (" (each after an edit: save to verdict)" if os.environ.get("AB_EDIT") == "1" else ""))
print("| exercise | before min / median / max | after min / median / max |")
print("|---|---|---|")
for ex in exercises:
    print("| %s | %s | %s |" % (ex, span(verdicts_s.get(("before", ex), [0])), span(verdicts_s.get(("after", ex), [0]))))
print("\n## Stability (spread = (max - min) / median)")
print("| exercise | size | ratio | before min-max (spread) | after min-max (spread) |")
print("|---|---|---|---|---|")
for k in sorted(set(k[:3] for k in ratios)):
    cells = []
    for who in ("before", "after"):
        v = ratios.get(k + (who,), [])
        med = statistics.median(v) if v else 0
        cells.append("%.4f-%.4f (%.1f%%)" % (min(v), max(v), 100 * (max(v) - min(v)) / med) if med else "-")
    print("| %s | %s | %s | %s | %s |" % (k[0], k[1], k[2].replace("vs_", "you/"), cells[0], cells[1]))
EOF
}

# watch mode in tmux: from a save until the card shows the new verdict (polled every 20 ms), the
# stub and the reference of ex01 saved in turn N times, in .verify/speed's workspace
watch_mode() {
    n=${1:-3}
    sock=gc-watch-$$
    tm() { tmux -L "$sock" -f /dev/null "$@"; }
    trap 'tm kill-server 2>/dev/null' EXIT
    trap 'exit 130' INT TERM
    f=$V/ws/exercises/ex01_vector_add.cu
    cp solutions/ex01_vector_add.cu "$f"
    unset NO_COLOR
    tm new-session -d -s t -x 100 -y 40 "$PWD/build/gpucourse --workspace $V/ws watch ex01"
    # seconds from $1 until the screen shows $2 (and not $3), at most 30 s
    until_screen() {
        i=0
        while [ $i -lt 1500 ]; do
            s=$(tm capture-pane -t t -p)
            if printf '%s' "$s" | grep -qF -- "$2" && { [ -z "$3" ] || ! printf '%s' "$s" | grep -qF -- "$3"; }; then
                awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $1 }"
                return 0
            fi
            sleep 0.02
            i=$((i + 1))
        done
        echo never
        tm capture-pane -t t -p >&2
    }
    t=$(date +%s.%N)
    echo "the app started, to its first verdict (PASS): $(until_screen "$t" PASS '') s"
    sleep 2
    wrong="" pass=""
    for i in $(seq "$n"); do
        t=$(date +%s.%N); cp exercises/ex01_vector_add.cu "$f"; wrong="$wrong $(until_screen "$t" 'WRONG ANSWER' '')"; sleep 1
        t=$(date +%s.%N); cp solutions/ex01_vector_add.cu "$f"; pass="$pass $(until_screen "$t" PASS 'WRONG ANSWER')"; sleep 1
    done
    echo "save to WRONG ANSWER (the stub), s:$wrong"
    echo "save to PASS (the reference), s:$pass"
}

case "${1:-}" in
prepare) prepare ;;
run) shift; run "$@" ;;
base) shift; base "$@" ;;
ab) shift; ab "$@" ;;
watch) shift; watch_mode "$@" ;;
*) echo "usage: tools/verify-speed.sh prepare | run [N] | base REV | ab [N] | watch [N]" >&2; exit 64 ;;
esac

