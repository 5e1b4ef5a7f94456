#!/bin/sh
# Each timed size against the ceilings (issue 47), without a GPU: a
# recorded judge output (tests/data/ceilings_memory.txt, ex01 on an H200)
# stands in for the judge through a launcher (tests/standin/replay.sh), and
# the card's text, its JSON, bench's table and the app at 80x24 show the
# bound of each size and the share reached. Prints TAP.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh ceilings
unset GPUCOURSE_NO_GPU
export GPUCOURSE_LAUNCHER=$PWD/tests/standin/replay.sh REPLAY=$PWD/tests/data/ceilings_memory.txt

# the app at 80x24 (first, while ex01 is next): the card of ex01 after g
# shows the Ceilings bars
t_app() {
    command -v tmux >/dev/null 2>&1 || { echo "# SKIP tmux is not installed"; return 0; }
    sock=gpucourse-ceilings-$$
    tm() { tmux -L "$sock" -f /dev/null "$@"; }
    tm new-session -d -x 80 -y 24 -s t "env LANG=C.UTF-8 '$GC'" || return 1
    ok=1
    for key in "" Enter g; do
        [ -n "$key" ] && tm send-keys -t t "$key"
        sleep 1
    done
    tries=1200 # up to two minutes: the grading builds the judge's parts and ex01
    while [ $tries -gt 0 ]; do
        tm capture-pane -t t -p >"$T/screen"
        grep -q "Ceilings (each size" "$T/screen" && break
        grep -q " PASS " "$T/screen" && tm send-keys -t t j
        sleep 0.1
        tries=$((tries - 1))
    done
    # the bar: 81% of 18 cells full
    grep -q "^ *ex01 vector_add: Add two vectors" "$T/screen" &&
        grep -q "Ceilings (each size: the bound that applies, your share of it)" "$T/screen" &&
        perl -CSD -Mutf8 -ne '$bar = 1 if /^ +268435456 +memory  (█+)(░*)  81% of 4231 GB\/s\s*$/ && length($1) == 15 &&
                                   length($1 . $2) == 18; END { exit($bar ? 0 : 1) }' "$T/screen" || ok=0
    tm kill-server 2>/dev/null
    [ $ok = 1 ] || { sed 's/^/|/' "$T/screen"; return 1; }
    perl -CSD -ne 'chomp; exit 1 if length > 80' "$T/screen"
}
check "the app at 80x24: the card's Ceilings, a bar a timed size" t_app

t_text() {
    code_is 0 "$GC" grade ex01 && fits_80 &&
        has "^  ceilings   each size's bound, by its flops per byte against the ridge: the\$" &&
        has "^             268435456        memory   81% of 4231 GB/s (the copy)\$"
}
check "grade: each timed size's bound and share, in 80 columns" t_text

t_json() {
    code_is 0 "$GC" grade ex01 --format json &&
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
size = r["timed_sizes"][0]
c = size["ceiling"]
assert c["bound"] == "memory", c
assert abs(c["fraction"] - size["vs_baseline"]) < 1e-9, c
assert abs(c["copy_gbps"] - size["baseline"]["gbps"]) < 1e-6, c
assert abs(c["flops_per_byte"] - 1 / 12) < 1e-6, c   # a vector add: 1 flop per 12 bytes
assert c["math"] == "FP32" and c["clock_mhz"] == 1980 and c["clock_measured"] is True, c
assert abs(c["peak_tflops"] - 132 * 256 * 1980e6 / 1e12) < 1e-3, c
assert c["ridge_flops_per_byte"] > c["flops_per_byte"], c
assert r["timing"]["ceiling"] == c   # the deciding size, the same
' "$T/got"
}
check "grade --format json: a ceiling object per timed size (bound, fraction, ridge, clock)" t_json

t_bench() {
    GPUCOURSE_FAKE_GPUS=GPU-a code_is 0 "$GC" bench --chapter 1 && has "| ref / library | ref / ceiling |\$" &&
        has "^| ex01 vector_add | vector_add | 268435456 | 3444 | 4231 | 0.81 | - | - | - | 0.81 memory |\$"
}
check "bench: a ref / ceiling column" t_bench

echo "1..$n"
