#!/usr/bin/env python3
"""How the judge's clock rule treated each timed size of each grading.

Reads call logs written by the judge (GPUCOURSE_CALL_LOG=FILE gpucourse grade
EX, any number of gradings appended to one file) and prints, per grading and
timed size: the bound (the 90th percentile of wall - event over the trusted
calls that measure it), the overhead of the student's and the reference's
sample calls (median and 90th percentile), how many of each were judged by
the wall clock, and you/reference as the judge computes it (harness/rules.c).
Usage: tools/clock-report.py LOG...
"""
import statistics
import sys


def pct(values, q):
    v = sorted(values)
    return v[int(q * (len(v) - 1) + 0.5)] if v else float("nan")


def settle(event, wall, bound):
    t = max(event, wall - bound)
    return max(min(t, wall), 0.0), event < wall - bound


def gradings(paths):
    for path in paths:
        grading = None
        for line in open(path):
            if line.startswith("#"):
                if grading: yield grading
                grading = {"title": line[1:].strip(), "sizes": {}}
                continue
            size, when, who, event, wall, probes, measures = line.split()[:7]
            if grading is None: grading = {"title": path, "sizes": {}}
            grading["sizes"].setdefault(size, []).append(
                (when, who, float(event), float(wall), int(probes), measures == "1"))
        if grading: yield grading


def main(paths):
    print("| grading | size | bound us (n) | you over p50/p90 us | ref over p50/p90 us | warm-up over p50 us "
          "| judged by wall you/ref | you/ref |")
    print("|---|---|---|---|---|---|---|---|")
    for g in gradings(paths):
        for size, calls in g["sizes"].items():
            samples = [c for c in calls if c[0] == "sample"]
            # a size timed again after a neighbour: the last attempt's 21 samples per contestant
            bound_calls = [w - e for _, who, e, w, _, m in samples if m]
            bound = pct(bound_calls, 0.9)
            over = {who: [w - e for _, x, e, w, _, _ in samples if x == who] for who in ("student", "reference")}
            warm = [w - e for when, who, e, w, _, _ in calls if when == "warmup" and who != "student"]
            settled = {}
            for who in ("student", "reference"):
                s = [settle(e, w, bound) for _, x, e, w, _, _ in samples if x == who]
                settled[who] = ([t for t, _ in s], sum(j for _, j in s))
            ratio = statistics.median(settled["reference"][0]) / statistics.median(settled["student"][0])
            print(f"| {g['title']} | {size} | {bound * 1e3:.0f} ({len(bound_calls)}) "
                  f"| {pct(over['student'], .5) * 1e3:.0f}/{pct(over['student'], .9) * 1e3:.0f} "
                  f"| {pct(over['reference'], .5) * 1e3:.0f}/{pct(over['reference'], .9) * 1e3:.0f} "
                  f"| {pct(warm, .5) * 1e3:.0f} | {settled['student'][1]}/{settled['reference'][1]} "
                  f"of {len(settled['student'][0])} | {ratio:.4f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1:])
