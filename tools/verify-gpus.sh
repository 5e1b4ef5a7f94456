#!/bin/sh
# The GPU proof of gradings spread over several GPUs of one host (issue 30):
# the same class graded one at a time and on 2 GPUs at once, in turn, gives
# the same verdicts, and ratios that agree within the spread of its rounds.
#
#   tools/verify-gpus.sh prepare   on any machine with nvcc (no GPU needed): builds gpucourse, and
#                                  in .verify/gpus/ a class (references of ex01 ex13 ex21 ex33
#                                  ex41, and students whose one file is a fixture of tests/gpu/)
#                                  graded once without a GPU, so that every harness, reference and
#                                  student library is built (carry .verify and build)
#   tools/verify-gpus.sh run [ROUNDS] [refs|class]
#                                  on a machine with 2 or more GPUs, in turn, ROUNDS times each:
#                                  refs (default 10 rounds): the references' student, `grade EX...
#                                  --gpus 1` and `--gpus 2` (its five gradings on two GPUs at once);
#                                  class (default 3): `class grade --gpus 1` and `--gpus 2` (the
#                                  students two at once). Then the tables: each student's verdicts
#                                  (expected, one GPU, two), each ratio's median and range on one
#                                  GPU and on two, and the throughput of both
# .verify/ is listed in .git/info/exclude; nothing in it is committed.
set -u
cd "$(dirname "$0")/.." || exit 1
V=$PWD/.verify/gpus
EXERCISES="ex01 ex13 ex21 ex33 ex41"
# student: the fixtures that stand in for their files (the rest: the references)
STUDENTS="ref: slow:ex01_too_slow,ex41_stored_at_once wrong:ex13_inclusive_prefix,ex21_off_by_one,ex33_accumulators_carried plain:ex13_one_block_for_totals,ex41_loads_not_overlapped attack:ex01_attack_other_gpu"
export GPUCOURSE_COURSE=$PWD XDG_CACHE_HOME=$V/cache GPUCOURSE_LOCK_DIR=$V/locks
. tools/verify-lib.sh

prepare() {
    set -e
    verify_start "$V"
    rm -rf "$V/class" "$V/expect" && mkdir -p "$V/class" "$V/locks"
    for entry in $STUDENTS; do
        name=${entry%%:*} fixtures=${entry#*:}
        mkdir -p "$V/class/$name/exercises"
        for ex in $EXERCISES; do
            cp solutions/${ex}_*.cu "$V/class/$name/exercises/"
            echo "$name $ex pass" >>"$V/expect"
        done
        for fx in $(echo "$fixtures" | tr ',' ' '); do
            ex=${fx%%_*}
            f=$(ls tests/gpu/$fx.cu tests/gpu/$fx.patch 2>/dev/null | head -1)
            sh tests/fixture_source.sh "$f" "$V/class/$name/exercises/$(basename solutions/${ex}_*.cu)"
            verdict=$(head -1 "$f" | sed -n 's|^// expect: [0-9]* \([a-z_]*\).*|\1|p')
            sed -i "s/^$name $ex pass$/$name $ex $verdict/" "$V/expect"
        done
    done
    prebuild build/gpucourse class grade "$V/class" $EXERCISES --out "$V/grades"
    prebuild build/gpucourse --workspace "$V/class/ref" grade $EXERCISES
    ls "$V/grades/build" | wc -l
    du -sh "$V" build
}

run() {
    what=${2:-refs}
    rounds=${1:-$([ "$what" = refs ] && echo 10 || echo 3)}
    out=$V/out-$what
    rm -rf "$out" && mkdir -p "$out"
    nvidia-smi -L
    build/gpucourse doctor | grep -i 'gpu'
    for i in $(seq "$rounds"); do
        for g in 1 2; do
            start=$(date +%s.%N)
            mkdir -p "$out/$g-$i"
            if [ "$what" = refs ]; then
                build/gpucourse --workspace "$V/class/ref" grade $EXERCISES --gpus $g --format json \
                    >"$out/$g-$i/ref.json" 2>"$out/err-$g-$i"
            else
                build/gpucourse class grade "$V/class" $EXERCISES --out "$V/grades" --gpus $g >"$out/summary-$g-$i" \
                    2>"$out/err-$g-$i"
                cp "$V"/grades/*.json "$out/$g-$i/"
            fi
            end=$(date +%s.%N)
            echo "round $i, --gpus $g: wall $(awk "BEGIN { printf \"%.1f\", $end - $start }") s $(grep -h 'gradings in' "$out/err-$g-$i")"
        done
    done
    python3 - "$out" "$V/expect" "$rounds" <<'EOF'
import json, os, statistics, sys
out, expect_file, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
expect = {}
for line in open(expect_file):
    name, ex, verdict = line.split()
    expect[(name, ex)] = verdict
verdicts, ratios, gpus_used = {}, {}, {}
for g in (1, 2):
    for i in range(1, rounds + 1):
        d = os.path.join(out, f"{g}-{i}")
        for f in sorted(os.listdir(d)):
            name = f[:-5]
            for r in json.load(open(os.path.join(d, f)))["results"]:
                key = (name, r["id"])
                verdicts.setdefault((key, g), []).append(r["verdict"])
                gpus_used.setdefault(g, set()).add(r.get("gpu"))
                for s in (r.get("timed_sizes") or []):
                    for which in ("vs_reference", "vs_baseline", "vs_library"):
                        if which in s:
                            ratios.setdefault((key, s["size"], which, g), []).append(s[which])
print("\n## Verdicts (%d rounds each): expected, one GPU, two GPUs" % rounds)
print("| student | exercise | expected | --gpus 1 | --gpus 2 | |")
print("|---|---|---|---|---|---|")
bad = 0
for key in sorted(k for k in expect if (k, 1) in verdicts or (k, 2) in verdicts):
    one, two = verdicts.get((key, 1), []), verdicts.get((key, 2), [])
    same = set(one) == set(two) == {expect[key]}
    bad += not same
    print("| %s | %s | %s | %s | %s | %s |" % (key[0], key[1], expect[key], ",".join(sorted(set(one))),
                                              ",".join(sorted(set(two))), "ok" if same else "DIFFERS"))
print("\n## Ratios: median (min-max) over the rounds, one GPU and two")
print("| student | exercise | size | ratio | --gpus 1 | --gpus 2 | medians differ by | within the spread |")
print("|---|---|---|---|---|---|---|---|")
outside = 0
for (key, size, which, g) in sorted(k for k in ratios if k[3] == 1):
    a, b = ratios[(key, size, which, 1)], ratios.get((key, size, which, 2), [])
    if not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    spread = max(max(a) - min(a), max(b) - min(b))
    diff = abs(ma - mb)
    inside = diff <= spread
    outside += not inside
    print("| %s | %s | %s | %s | %.4f (%.4f-%.4f) | %.4f (%.4f-%.4f) | %.2f%% | %s |" % (
        key[0], key[1], size, which.replace("vs_", "you/"), ma, min(a), max(a), mb, min(b), max(b),
        100 * diff / ma if ma else 0, "yes" if inside else "NO"))
print("\nGPUs used: --gpus 1: %s; --gpus 2: %s" % (sorted(x for x in gpus_used.get(1, ()) if x),
                                                  sorted(x for x in gpus_used.get(2, ()) if x)))
print("%d verdicts differ from the expected; %d ratios' medians differ by more than their spread" % (bad, outside))
EOF
}

case "${1:-}" in
prepare) prepare ;;
run) shift; run "$@" ;;
*) echo "usage: tools/verify-gpus.sh prepare | run [ROUNDS] [refs|class]" >&2; exit 64 ;;
esac
