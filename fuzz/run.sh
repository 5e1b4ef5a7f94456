#!/bin/sh
# Runs each libFuzzer target (make fuzz) for SECONDS (default 60) on its
# committed seed corpus, fuzz/corpus/TARGET/, and prints a TAP line per
# target. A crash, leak, sanitizer report or an input slower than 25 s fails;
# the input is kept as build-fuzz/artifacts/TARGET-crash-... (replay:
# build-fuzz/fuzz_TARGET FILE). New inputs go to a scratch directory, never
# into the committed corpus.
secs=${1:-60}
cd "$(dirname "$0")/.." || exit 1
mkdir -p build-fuzz/artifacts
echo "1..3"
n=0 fail=0
for t in course progress libscan; do
    n=$((n + 1))
    work=$(mktemp -d)
    log=build-fuzz/fuzz_$t.log
    dict=-dict=fuzz/yaml.dict
    [ $t = libscan ] && dict=-dict=fuzz/elf.dict # a student's library, not YAML
    if build-fuzz/fuzz_$t -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 $dict \
        -artifact_prefix=build-fuzz/artifacts/$t- -print_final_stats=1 "$work" fuzz/corpus/$t >"$log" 2>&1; then
        stats=$(grep -m1 'DONE ' "$log" | sed 's/^#\([0-9]*\)[[:space:]]*DONE[[:space:]]*/\1 execs, /')
        echo "ok $n - fuzz_$t: $secs s, $stats"
    else
        echo "not ok $n - fuzz_$t (log: $log)"
        grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -n 20 | sed 's/^/# /'
        fail=$((fail + 1))
    fi
    rm -rf "$work"
done
echo "$((n - fail)) passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
