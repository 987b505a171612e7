#!/usr/bin/env python3
"""Two results files of the same plan (two processes): does a config's time move more between them than between
the rounds of one of them? (docs/sweep.md, "Placements"; BENCHMARKS.md run 19 re-read.)

Per regime and NB group: the median and p90 over configs of |median A / median B - 1| (between processes), beside
the median half-range of the round medians within one file (within a process), for configs with at least 3 rounds
in both; then the configs that moved most, and the NBs whose configs all moved together (a shift of the whole NB:
its buffers sat elsewhere in the other process).

Usage: bench/between_runs.py A.jsonl[.gz] B.jsonl[.gz] [--groups 1-3,4-9,10-32] [--top 12]
"""
import argparse
import gzip
import json
import statistics


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def load(path):
    out = {}
    with open_text(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") != "measurement" or r.get("kind") != "l2norm" or not r.get("config"):
                continue
            c = r["config"]
            out[(r.get("l2", "cold"), r["nb"], f"{c['BT']}/{c['num_warps']}/{c['num_stages']}", r.get("replica", 0))] = r
    return out


def groups_of(text):
    groups = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        groups.append((int(lo), int(hi or lo)))
    return groups


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--groups", default="1-3,4-9,10-32")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    rows = []
    for key, ra in a.items():
        rb = b.get(key)
        if not rb:
            continue
        rounds_a = [x["median_ms"] for x in ra.get("rounds") or []]
        rounds_b = [x["median_ms"] for x in rb.get("rounds") or []]
        if len(rounds_a) < 3 or len(rounds_b) < 3:
            continue
        within = max((max(r) - min(r)) / statistics.median(r) for r in (rounds_a, rounds_b)) / 2 * 100
        rows.append((key, ra["median_ms"] / rb["median_ms"], within))
    if not rows:
        raise SystemExit("no config ran at least 3 rounds in both files")
    for regime in sorted({k[0] for k, _, _ in rows}):
        for lo, hi in groups_of(args.groups):
            sel = [(r, w) for k, r, w in rows if k[0] == regime and lo <= k[1] <= hi]
            if not sel:
                continue
            between = sorted(abs(r - 1) * 100 for r, _ in sel)
            print(f"{regime:5s} NB {lo:2d}-{hi:2d}: {len(sel):3d} configs, between files |diff| median "
                  f"{statistics.median(between):.3f}% p90 {between[int(0.9 * (len(between) - 1))]:.3f}%; within a "
                  f"file, half-range of the round medians median {statistics.median(w for _, w in sel):.3f}%")
    print(f"the {args.top} configs that moved most (ratio A/B; within = the larger file's half-range):")
    for key, ratio, within in sorted(rows, key=lambda x: -abs(x[1] - 1))[: args.top]:
        print(f"  {key[0]:5s} NB {key[1]:2d} {key[2]:8s} ratio {ratio:.4f}  within {within:.3f}%")
    print("NBs whose configs moved together (median ratio over the NB's configs, and its spread):")
    for regime in sorted({k[0] for k, _, _ in rows}):
        for nb in sorted({k[1] for k, _, _ in rows if k[0] == regime}):
            ratios = sorted(r for k, r, _ in rows if k[0] == regime and k[1] == nb)
            med = statistics.median(ratios)
            if abs(med - 1) >= 0.002 and len(ratios) >= 3:
                print(f"  {regime:5s} NB {nb:2d}: median {med:.4f} over {len(ratios)} configs "
                      f"[{ratios[0]:.4f}, {ratios[-1]:.4f}]")


if __name__ == "__main__":
    main()
