#!/bin/sh
# Errata that were fixed in the lessons, exercises and docs (issue 27) must
# not come back: each line below is a file and a wrong wording (a fixed
# string) that must not appear in it again, with why (a directory: in none
# of its files). Prints TAP.
cd "$(dirname "$0")/.." || exit 1
n=0 fail=0
while IFS='|' read -r file wrong why; do
    case $file in '' | '#'*) continue ;; esac
    n=$((n + 1))
    if hits=$(grep -rnF -- "$wrong" "$file" 2>/dev/null); then
        echo "not ok $n - $file: \"$wrong\" is back ($why)"
        echo "$hits" | sed 's/^/# /'
        fail=$((fail + 1))
    else
        echo "ok $n - $file: not \"$wrong\" ($why)"
    fi
done <<'LIST'
course/07-mma/lesson.md|(k-major: a row holds|a row-major K x N B is N-major (MN-major), as chapter 9 defines K-major
exercises/ex24_ldmatrix_tiles.cu|turns a k-major matrix|row-major K x N is N-major
solutions/ex24_ldmatrix_tiles.cu|B is stored k-major|row-major K x N is N-major
solutions/ex25_mma_gemm.cu|stored k-major and wanted|row-major K x N is N-major
course/10-sgemm/chapter.yaml|A stored k-major|As[k][m] keeps m contiguous: M-major
course/07-mma/lesson.md|Testing bounds only in the tiles at the matrix's edges: 398|the ladder's kernels test no bounds
solutions/ex25_mma_gemm.cu|15-18%|no measurement shows it
exercises/ex25_mma_gemm.cu|15-18%|no measurement shows it
course/07-mma/lesson.md|255 registers, none spilled|ptxas reports 254
course/07-mma/lesson.md|600-740 with our|measured 536-761
docs/benchmarks.md|697-736 at|the bench table measured 760.8
course/08-tma/lesson.md|must move about 23 GB/s|the copy's rate counts bytes read and written: loads are half
course/07-mma/lesson.md|the way Ampere (A100) introduced them|mma.sync came with Volta, ldmatrix with Turing
course/07-mma/lesson.md|one per t, cover the 16 values of k|a lane holds two pairs; the group of four holds eight
docs/benchmarks.md|A 16 x 16 x 16 tile product|the mma_tiles product is 16 x 8 x 16
course/10-sgemm/lesson.md|without it, `acc[i]` would|nvcc unrolls fixed trip counts; unroll 1 or a run-time count sends acc to local memory
course/10-sgemm/chapter.yaml|Without the unroll pragmas acc[i]|nvcc unrolls fixed trip counts on its own
course/10-sgemm/lesson.md|cover 256 bytes: every bank twice|4 of the 8 groups of four banks, each twice
course/10-sgemm/chapter.yaml|cover 256 bytes, every bank twice|4 of the 8 groups of four banks, each twice
course/08-tma/lesson.md|multicast took a hand-written BF16 GEMM from 778|that step changed more than multicast
course/09-wgmma/lesson.md|Published kernels gain about 2-3% from it|that step changed more than multicast
course/09-wgmma/lesson.md|measured within 1-3% of the persistent one|it was 5% faster at 5000 x 3000 x 4040
course/09-wgmma/lesson.md|this was within 1% of waiting for every group|wait_group 0 measured as fast or faster
course/01-threads/lesson.md|as the next section shows, the last warp|warps are taught in "Warps and lanes", after ex03's "Grid-stride loops"
course/07-mma/lesson.md|53-59% of cuBLAS|docs/benchmarks.md's chapter 7 run: 0.58 at 4096^3, 0.53 at 8192^3, as chapter 9 quotes
course/07-mma/lesson.md|536-761 TFLOP/s in our runs|the run's cuBLAS is 611 and 761; 536-633 and 697-761 across the day
course/09-wgmma/lesson.md|TFLOP/s 4096^3|the table of "Where each step lands" wrapped at 80 columns: its cells are TFLOP/s (fraction of cuBLAS)
course/09-wgmma/chapter.yaml|the lesson's ladder shows|the section is "Where each step lands"; the ladder is chapter 7's tool
course/08-tma/lesson.md|declares the type `alignas(128)`, so|CUDA 12.x's cuda.h declares alignas(64)
course/10-sgemm/lesson.md|254 registers per thread, and so does rung 8|ex41 uses 222 registers; what it shares with cuBLAS is one block of 8 warps
docs/benchmarks.md|pass: the floor lets it through|ex40_conflicted is requirement not met by bank_conflicts_max since
course/07-mma/lesson.md|dense: fifteen times the CUDA cores|one clock for both: sixteen times
course/10-sgemm/lesson.md|more than seven times the|one clock for both: eight times
course/10-sgemm/lesson.md|33280 bytes smem|ex38's reference: 8192 bytes (ptxas)
course/10-sgemm/lesson.md|77% of that|51 of 66.9 is 76%
course/09-wgmma/lesson.md|cuBLAS's strided batched GEMM at 0.98|benchmarks: 0.97 of the copy
course/11-past-cublas/chapter.yaml|cluster barrier's wait (UCGABAR_WAIT): a missing|ex44 requires both cluster barriers, each in its place (required_sass_around), not one wait anywhere
course/09-wgmma/chapter.yaml|UTMALDG, USETMAXREG]|setmaxnreg is taught and timed, not graded: a USETMAXREG in the machine code does not show that it ran
docs/harness.md|(ex33 requires|setmaxnreg is not graded (ex33's lesson says so)
README.md|nothing else the course uses is newer|ex45's baseline, cuBLASLt's block scale modes, needs CUDA 12.9
exercises/ex43_split_k.cu|So at any moment the blocks work on the same part|a cut tile's parts run at once on neighbouring blocks, each at its own k-range
solutions/ex43_split_k.cu|So at any moment the blocks work on the same part|a cut tile's parts run at once on neighbouring blocks, each at its own k-range
solutions/ex43_split_k.cu|so that the blocks work on the same part of|a cut tile's parts run at once on neighbouring blocks, each at its own k-range
course/11-past-cublas/chapter.yaml|turns themselves are held by the speed|not graded: ex33's schedule reaches ex46's floors too (floors_why, the lesson)
course/11-past-cublas/chapter.yaml|race across SMs that the values may not show|on the H200 the values did show it (ex44_empty_own_consumers: wrong answer)
course/11-past-cublas/lesson.md|may not show (it ran at 670|on the H200 the values did show it (ex44_empty_own_consumers: wrong answer)
course/11-past-cublas/lesson.md|0.91-0.93 of cuBLAS at its three shapes|the bench of 2026-11-29 on the H200: 0.91-0.95
course/09-wgmma/lesson.md|reference reaches 0.82|ex33 stores its edge tiles' C in batches since 8bd8a12: 0.95 at 5000 x 3000 x 4096
grader/toolchain.c|(12.0 or later, for sm_90a)|ex45 needs 12.9 or later
README.md|Chapters 7-10 also need|chapter 11 needs the counters too (partial sums, multicast, e4m3)
course/11-past-cublas/lesson.md|takes three of those steps|chapter 11 has five exercises (ex43-ex47): ping-pong and the TMA-store epilogue came after FP8
README.md|7-10), a correct and fast answer|chapter 11 holds techniques too
cli/|(chapters 7-10)|doctor: chapter 11 needs the counters too
course/11-past-cublas/chapter.yaml|a partial sum was read before it was all written|racecheck sees shared memory only; ex43's partial sums are in global memory
course/11-past-cublas/chapter.yaml|So every block works on the same part of its|a cut tile's parts run at once on neighbouring blocks
course/11-past-cublas/lesson.md|with tiles in the same row of A are at the same part|a cut tile's parts run at once on neighbouring blocks
exercises/ex45_fp8_blockscaled.cu|201 KiB|ex45's SMEM_BYTES is 193 KiB since its 128 x 128 tile
solutions/ex45_fp8_blockscaled.cu|201 KiB|ex45's SMEM_BYTES is 193 KiB since its 128 x 128 tile
README.md|0.75-0.85 of cuBLASLt|ex45's two partial sums: 0.87-0.90 of cuBLASLt (H200, three runs)
course/11-past-cublas/lesson.md|ex45's makes 0.77-0.88|ex45's two partial sums: 0.87-0.90 of cuBLASLt
course/11-past-cublas/lesson.md|it writes one tile's C while|not measured: at the timed shapes the library's kernels are cooperative (coop in their names), and reading C costs them too (docs/benchmarks.md, the epilogue measured apart)
course/11-past-cublas/lesson.md|ex45's makes 0.87-0.91|ex45 stores C through TMA since 8d608d2: 0.88-0.94 of cuBLASLt (bench, H200)
README.md|0.87-0.91 of cuBLASLt|ex45 stores C through TMA since 8d608d2: 0.88-0.94 (bench, H200)
solutions/ex45_fp8_blockscaled.cu|193 KiB|ex45's SMEM_BYTES is 225 KiB since its C is staged for TMA (five stages)
course/11-past-cublas/chapter.yaml|wgmma_m64n192k32_e4m3|ex45's tile is 128 x 128 (m64n128k32) since its two partial sums
course/11-past-cublas/lesson.md|463 TFLOP/s|benchmarks: 464 (a standalone-driver best)
course/11-past-cublas/lesson.md|ping-pong +4% at|against ex33's 5000 x 3000 figure before its tile's width; beside today's ex33 both rungs are slower (bench, 2026-11-29)
course/11-past-cublas/lesson.md|(ex33 0.95-1.08 at its own)|ex33 takes 232-wide tiles at 5000 x 3000 x 4096 since beefc04: 0.98-1.07
course/11-past-cublas/lesson.md|(0.99) and at 0.94 at 5000|ex44 takes 240-wide tiles at 5000 x 3000 x 4096 since beefc04: 0.99
course/11-past-cublas/lesson.md|(681 and 753 against|benchmarks: 682 / 753 without multicast
course/11-past-cublas/chapter.yaml|reach about 0.8 of the reference|0.83 of the reference (benchmarks)
course/11-past-cublas/lesson.md|`VEC128_32F` for A and|in the library's call its A is our B (BLK128x128_32F)
course/11-past-cublas/lesson.md|132 on the H100, and each|the H100 PCIe has 114 SMs
course/11-past-cublas/lesson.md|# Past cuBLAS|the references are not past the library at every shape (issue 46)
course/11-past-cublas/chapter.yaml|title: "Past cuBLAS|the references are not past the library at every shape (issue 46)
README.md|11. past cuBLAS|the references are not past the library at every shape (issue 46)
LIST

# README's "Chapters so far" names every chapter of course/ as "N. ... (exA-exB)",
# its first and last exercise, and no other (issue 47: it stopped at 10)
chapters=$(sed -n '/^Chapters so far/,/^$/p' README.md | tr '\n' ' ')
listed=$(printf '%s\n' "$chapters" | grep -o '(ex[0-9]*-ex[0-9]*)' | wc -l)
count=0
for yaml in course/[0-9]*/chapter.yaml; do
    count=$((count + 1)) n=$((n + 1))
    ids=$(sed -n 's/^  - id: *//p' "$yaml")
    first=$(printf '%s\n' "$ids" | head -1) last=$(printf '%s\n' "$ids" | tail -1)
    if printf '%s\n' "$chapters" | grep -qE "(^|[ ,:])$count\. [^()]*\($first-$last\)"; then
        echo "ok $n - README.md lists chapter $count ($first-$last, $yaml)"
    else
        echo "not ok $n - README.md's \"Chapters so far\" does not list chapter $count as \"$count. ... ($first-$last)\" ($yaml)"
        fail=$((fail + 1))
    fi
done
n=$((n + 1))
if [ "$listed" = "$count" ]; then echo "ok $n - README.md lists $count chapters, as course/ has"
else echo "not ok $n - README.md lists $listed chapters, course/ has $count"; fail=$((fail + 1)); fi

# Chapter 11's stubs name in their header every instruction their YAML
# requires (required_sass, required_sass_around's each_side) and what the
# counters must show (issue 46: ex44's header left out the cluster barriers,
# ex45's QGMMA, UTMALDG and e4m3)
awk '
/^  - id:/ { id = $3 }
/^    file:/ { file = $2 }
/^    required_sass:|^      each_side:/ { s = $0; sub(/^[^[]*\[/, "", s); sub(/\].*/, "", s); k = split(s, a, /, */); for (i = 1; i <= k; i++) print file "|" a[i] }
/^    evidence:/ { if ($0 ~ /partial_sums_min/) print file "|partial sums"; if ($0 ~ /tma_multicast_share/) print file "|multicast"; if ($0 ~ /gmma_type: e4m3/) print file "|e4m3" }
' course/11-past-cublas/chapter.yaml | sort -u >"${TMPDIR:-/tmp}/errata-$$"
while IFS='|' read -r file word; do
    n=$((n + 1))
    if sed -n '1,/^[^/]/p' "exercises/$file" | grep -qF -- "$word"; then
        echo "ok $n - exercises/$file: its header names $word"
    else
        echo "not ok $n - exercises/$file: its header does not name $word, which chapter.yaml requires"
        fail=$((fail + 1))
    fi
done <"${TMPDIR:-/tmp}/errata-$$"
rm -f "${TMPDIR:-/tmp}/errata-$$"

# ex45's kind builds with a toolkit older than CUDA 12.9, without the
# library, and says why (issue 46: it did not compile there)
NVCC=${GPUCOURSE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
n=$((n + 1))
if [ ! -x "$NVCC" ]; then
    echo "ok $n - gemm_fp8_blockscaled with cuBLAS 12.8 # SKIP no nvcc"
else
    o=${TMPDIR:-/tmp}/errata-$$.o
    if "$NVCC" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iharness -DGPUCOURSE_CUBLAS_VERSION=120800 \
        -c harness/kinds/gemm_fp8_blockscaled.cu -o "$o" 2>&1 | sed 's/^/# /' &&
        [ -f "$o" ] && ! nm "$o" | grep -q cublasLtMatmul &&
        grep -q "no library baseline: cuBLASLt's block scaling needs CUDA 12.9" "$o"; then
        echo "ok $n - gemm_fp8_blockscaled with cuBLAS 12.8: builds without cuBLASLt's scale modes and says why"
    else
        echo "not ok $n - gemm_fp8_blockscaled with cuBLAS 12.8: does not build, or calls cuBLASLt, or does not say why"
        fail=$((fail + 1))
    fi
    rm -f "$o"
fi
# Chapter 11 names no chapter-level diagnosis (each exercise its own: a
# chapter-level `race` finding was one racecheck can never raise for ex43's
# partial sums in global memory), and chapters 7 and 9 say that every element
# of a GEMM is checked against its own rounding bound (the ch11 audit, E2, I6)
n=$((n + 1))
if grep -q '^diagnose:' course/11-past-cublas/chapter.yaml; then
    echo "not ok $n - course/11-past-cublas/chapter.yaml has a chapter-level diagnose"; fail=$((fail + 1))
else echo "ok $n - course/11-past-cublas/chapter.yaml: no chapter-level diagnose, each exercise its own"; fi
for lesson in course/07-mma/lesson.md course/09-wgmma/lesson.md; do
    n=$((n + 1))
    if tr '\n' ' ' <"$lesson" | grep -q 'its own rounding bound'; then echo "ok $n - $lesson: each element against its own rounding bound"
    else echo "not ok $n - $lesson: does not say each element is checked against its own rounding bound"; fail=$((fail + 1)); fi
done

# Chapter 11's hints point at the idea and its lesson section before any
# code: the first names a heading of the lesson as "(the lesson, 'HEADING')",
# and only the last gives the code ("The code. ...") (issue 46)
n=$((n + 1))
if why=$(python3 - course/11-past-cublas/chapter.yaml course/11-past-cublas/lesson.md <<'PY'
import re, sys
yaml_text, lesson = open(sys.argv[1]).read(), open(sys.argv[2]).read()
headings = set(re.findall(r"^#{2,3} (.+)$", lesson, re.M))
bad = []
for ex in re.split(r"\n  - id: ", yaml_text)[1:]:
    exid = ex.split("\n", 1)[0].strip()
    block = re.search(r"\n    hints:\n((?:      - .*\n)+)", ex)
    hints = re.findall(r'^      - "(.*)"$', block.group(1), re.M) if block else []
    if not hints:
        bad.append(exid + ": no hints")
        continue
    first = re.search(r"\(the lesson, '([^']+)'\)", hints[0])
    if not first or first.group(1) not in headings:
        bad.append(exid + ": the first hint names no heading of the lesson")
    if not hints[-1].startswith("The code") or any(h.startswith("The code") for h in hints[:-1]):
        bad.append(exid + ": the code is not the last hint alone")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then echo "ok $n - chapter 11's hints: the first names its lesson section, the code comes last"
else echo "not ok $n - chapter 11's hints: $why"; fail=$((fail + 1)); fi

# Every chapter's lesson ends its teaching with a checklist, and its
# exercises' lesson sections come in the lesson in the exercises' order (the
# newcomer audit: chapter 7 had no checklist, chapter 1 taught ex04's section
# before ex03's)
for yaml in course/[0-9]*/chapter.yaml; do
    dir=${yaml%/chapter.yaml}
    n=$((n + 1))
    if grep -q '^## Checklist' "$dir/lesson.md"; then echo "ok $n - $dir/lesson.md has a Checklist"
    else echo "not ok $n - $dir/lesson.md has no '## Checklist' section"; fail=$((fail + 1)); fi
    n=$((n + 1))
    last=0 order=ok
    for section in $(sed -n 's/^    lesson_section: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$yaml" | tr ' ' '\037'); do
        heading=$(printf '%s' "$section" | tr '\037' ' ')
        line=$(grep -nxF -- "## $heading" "$dir/lesson.md" | head -1 | cut -d: -f1)
        [ -n "$line" ] || line=$(grep -nxF -- "### $heading" "$dir/lesson.md" | head -1 | cut -d: -f1)
        if [ -z "$line" ] || [ "$line" -lt "$last" ]; then order="'$heading' (line ${line:-none}) comes before a section of an earlier exercise"; break; fi
        last=$line
    done
    if [ "$order" = ok ]; then echo "ok $n - $yaml: its lesson sections come in the exercises' order"
    else echo "not ok $n - $yaml: $order"; fail=$((fail + 1)); fi
done
echo "1..$n"
[ $fail = 0 ]
