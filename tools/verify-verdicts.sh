#!/bin/sh
# The GPU proof of the judge/runner design (docs/harness.md), in one lease.
#
#   tools/verify-verdicts.sh prepare   on any machine with nvcc (no GPU needed): builds
#                                      gpucourse and the build cache of every harness, runner and
#                                      reference into .verify/, and the last in-process design
#                                      (OLD below) with its own cache, for the side-by-side run
#   tools/verify-verdicts.sh run       on the GPU machine (carry .verify and build):
#                                      1. tests/gpu.sh with the cache (fixtures + red-team corpus)
#                                      2. bench with the old and the new design, twice, interleaved:
#                                         each reference's ratios to copy and library, side by side
#                                      3. one solution graded 10 times: the spread of its ratios
#                                      and prints the tables last.
#                                      VERIFY_PARTS="tests bench stability" (the default) picks
#                                      parts, to fit each device call in its time limit.
# .verify/ is listed in .git/info/exclude by `prepare`; nothing in it is committed.
OLD=17a161a   # the last commit that ran student code inside the judging process
set -u
cd "$(dirname "$0")/.." || exit 1
V=.verify

prepare() {
    set -e
    mkdir -p .git/info && { grep -qx "/$V/" .git/info/exclude 2>/dev/null || echo "/$V/" >>.git/info/exclude; }
    make
    mkdir -p $V
    GPUCOURSE_WORKSPACE=$PWD/$V/ws GPUCOURSE_COURSE=$PWD build/gpucourse check-course | tail -3
    # the records that say these builds are gpucourse's (grader/libcache.h), for tests/gpu.sh's GPU_TEST_CACHE
    mkdir -p $V/ws/.build/.records && cp "${XDG_CACHE_HOME:-$HOME/.cache}"/gpucourse/builds/part-* $V/ws/.build/.records/
    if [ ! -x $V/old/build/gpucourse ] || [ ! -d $V/ws-old/.build ]; then  # OLD never changes: built once
        rm -rf $V/old && mkdir -p $V/old
        git archive $OLD | tar -x -C $V/old
        make -C $V/old
        GPUCOURSE_WORKSPACE=$PWD/$V/ws-old GPUCOURSE_COURSE=$PWD/$V/old $V/old/build/gpucourse check-course | tail -3
    fi
    rm -rf $V/old/build/tests $V/old/build/*/ $V/ws/exercises $V/ws-old/exercises
    du -sh $V build
}

# ratio columns of a bench table: "exercise ref/copy ref/library" from the GB/s columns
ratios() {
    awk -F'|' '/^\| ex[0-9]/ { split($2, a, " "); r = $5 + 0; c = $6 + 0; l = $9 + 0;
        printf "%s %.4f %s\n", a[1], (c > 0 ? r / c : 0), (l > 0 ? sprintf("%.4f", r / l) : "-") }' "$1"
}

part() { case " ${VERIFY_PARTS:-tests bench stability} " in *" $1 "*) return 0 ;; esac; return 1; }

run() {
    out=$V/out
    mkdir -p $out
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
    if part tests; then
        echo "# 1. tests/gpu.sh (cache from prepare)"
        GPU_TEST_CACHE=$PWD/$V/ws/.build sh tests/gpu.sh >$out/gpu.tap 2>&1
        grep -E '^(not ok|ok)|passed,' $out/gpu.tap | grep -vE '^ok' | head -40
        tail -1 $out/gpu.tap
    fi
    part bench && bench_tables
    part stability && stability_table
    part tests && tail -1 $out/gpu.tap
    return 0
}

bench_tables() {
    echo "# 2. bench, old (in-process) and new (judge + runners), interleaved"
    for i in 1 2; do
        GPUCOURSE_WORKSPACE=$PWD/$V/ws-old GPUCOURSE_COURSE=$PWD/$V/old $V/old/build/gpucourse bench >$out/bench-old-$i 2>&1
        GPUCOURSE_WORKSPACE=$PWD/$V/ws GPUCOURSE_COURSE=$PWD build/gpucourse bench >$out/bench-new-$i 2>&1
    done
    echo
    echo "## old vs new: each reference's throughput over the same-run copy (and library), medians of 2 runs"
    echo "| exercise | old ref/copy | new ref/copy | diff | old ref/lib | new ref/lib | diff |"
    echo "|---|---|---|---|---|---|---|"
    for f in old-1 old-2 new-1 new-2; do ratios $out/bench-$f >$out/r-$f; done
    paste $out/r-old-1 $out/r-old-2 $out/r-new-1 $out/r-new-2 | awk '
        function m(a, b) { return (a + b) / 2 }
        function d(o, n) { return o > 0 ? sprintf("%+.1f%%", 100 * (n - o) / o) : "-" }
        { oc = m($2, $5); nc = m($8, $11); ol = ($3 == "-") ? 0 : m($3, $6); nl = ($9 == "-") ? 0 : m($9, $12);
          printf "| %s | %.3f | %.3f | %s | %s | %s | %s |\n", $1, oc, nc, d(oc, nc),
                 ol ? sprintf("%.3f", ol) : "-", nl ? sprintf("%.3f", nl) : "-", ol ? d(ol, nl) : "-" }'
}

stability_table() {
    echo "# 3. stability: the reference of ex13 (and ex01) graded 10 times as the student's file"
    ws=$PWD/$V/ws-stab
    mkdir -p $ws/.build && cp -a $V/ws/.build/. $ws/.build/
    for ex in ex01 ex13; do
        export GPUCOURSE_WORKSPACE=$ws GPUCOURSE_COURSE=$PWD
        build/gpucourse list >/dev/null
        cp solutions/${ex}_*.cu $ws/exercises/
        for i in 1 2 3 4 5 6 7 8 9 10; do
            build/gpucourse grade $ex --format json | grep -o '"vs_reference": [0-9.]*, "vs_baseline": [0-9.]*' |
                tr -d '",' | awk -v ex=$ex '{ print ex, $2, $4 }'
        done >$out/stab-$ex
    done

    echo
    echo "## stability: 10 grades of one solution (you/reference, you/copy)"
    echo "| exercise | min | median | max | spread (max-min)/median |"
    echo "|---|---|---|---|---|"
    for ex in ex01 ex13; do
        for col in 2 3; do
            sort -n -k$col $out/stab-$ex | awk -v c=$col -v ex=$ex '{ v[NR] = $c } END {
                if (NR == 0) { print "| " ex " | no results | | | |"; exit }
                med = v[int((NR + 1) / 2)]; printf "| %s %s | %.3f | %.3f | %.3f | %.1f%% |\n", ex,
                (c == 2 ? "you/ref" : "you/copy"), v[1], med, v[NR], 100 * (v[NR] - v[1]) / med }'
        done
    done
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
*) echo "usage: $0 prepare|run" >&2; exit 64 ;;
esac
