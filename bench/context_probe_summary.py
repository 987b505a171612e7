#!/usr/bin/env python3
"""Issue 22's context probe (bench/device/issue22f.sh): one pair of l2norm configs at some NBs, read from each
results file (sweep or confirm, JSON Lines, gzip or not) or from l2_gap_probe.py --allocations JSON, side by side.

Per file and NB: each config's median (us; a confirm's A/A replicas are pooled), its per-round medians' spread, the
ratio first/second and the per-round ratio's spread where both ran in the same rounds. The question it answers: does
the pair's ratio follow the context (items per round, copy ceiling, NBs before it) or the buffers' placement?

Usage:
  bench/context_probe_summary.py --nb 24 --l2 cold --pair 8/1/3,32/16/3 run1.jsonl run2.jsonl.gz ...
  bench/context_probe_summary.py --nb 24 --l2 cold --pair 8/1/3,32/16/3 --alloc alloc24.json
"""
import argparse
import gzip
import json
import os
import statistics
import sys

placements = {}  # results file -> {round: placement} where the rounds recorded one (--placements)

def parse_nbs(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def config_key(config):
    return f"{config['BT']}/{config['num_warps']}/{config['num_stages']}"


def read_results(path, nbs, l2, pair):
    """{nb: {config key: {round: [round medians in us]}}} from a results file's measurement records."""
    found = {}
    with open_text(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") != "measurement" or r.get("nb") not in nbs or r.get("l2") != l2 or not r.get("config"):
                continue
            key = config_key(r["config"])
            if key not in pair:
                continue
            per_round = found.setdefault(r["nb"], {}).setdefault(key, {})
            for rnd in r.get("rounds") or []:
                per_round.setdefault(rnd["round"], []).append(rnd["median_ms"] * 1000.0)
                if "placement" in rnd:
                    placements.setdefault(path, {})[rnd["round"]] = rnd["placement"]
    return found


def read_alloc(path, nbs, l2, pair):
    """{allocation name: {nb: {config key: {round: [us]}}}} from l2_gap_probe.py --allocations."""
    with open(path) as f:
        report = json.load(f)
    out = {}
    for group, per_nb in report.get("rounds_us", {}).items():
        if not group.startswith(l2 + "/"):
            continue
        for nb_text, configs in per_nb.items():
            if int(nb_text) not in nbs:
                continue
            for key, medians in configs.items():
                if key in pair:
                    out.setdefault(group, {}).setdefault(int(nb_text), {})[key] = {i: [m] for i, m in enumerate(medians)}
    return out


def describe(name, per_nb, pair, round_placement=None):
    round_placement = round_placement or {}
    lines = []
    for nb in sorted(per_nb):
        cfgs = per_nb[nb]
        if not all(k in cfgs for k in pair):
            lines.append(f"{name:28s} NB {nb:2d}  missing {', '.join(k for k in pair if k not in cfgs)}")
            continue
        medians = [statistics.median([v for vs in cfgs[k].values() for v in vs]) for k in pair]
        spreads = []
        for k in pair:
            rounds = [statistics.median(vs) for vs in cfgs[k].values()]
            spreads.append(f"{min(rounds):.2f}-{max(rounds):.2f}")
        common = sorted(set(cfgs[pair[0]]) & set(cfgs[pair[1]]))
        ratios = [statistics.median(cfgs[pair[0]][r]) / statistics.median(cfgs[pair[1]][r]) for r in common]
        ratio_text = (f"per-round ratio median {statistics.median(ratios):.4f} [{min(ratios):.4f}, {max(ratios):.4f}] "
                      f"over {len(ratios)} rounds") if ratios else "no common rounds"
        lines.append(f"{name:28s} NB {nb:2d}  {pair[0]} {medians[0]:8.2f} us ({spreads[0]})  {pair[1]} "
                     f"{medians[1]:8.2f} us ({spreads[1]})  ratio {medians[0] / medians[1]:.4f}; {ratio_text}")
        by_placement = {}
        for r, ratio in zip(common, ratios):
            if r in round_placement:
                by_placement.setdefault(round_placement[r], []).append(ratio)
        if by_placement:
            lines.append(" " * 38 + "per placement: " + ", ".join(
                f"{p}: {statistics.median(v):.4f} ({len(v)} rounds)" for p, v in sorted(by_placement.items())))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nb", required=True, help="NB list: 24 or 8,9")
    ap.add_argument("--l2", required=True, choices=["cold", "warm", "hot"])
    ap.add_argument("--pair", required=True, help="two configs BT/warps/stages, comma separated")
    ap.add_argument("--alloc", help="l2_gap_probe.py --allocations JSON instead of results files")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    pair = a.pair.split(",")
    if len(pair) != 2:
        sys.exit("--pair: two configs")
    nbs = parse_nbs(a.nb)
    print(f"== {a.l2} L2, NB {a.nb}: {pair[0]} vs {pair[1]} (per-round medians' range in brackets)")
    if a.alloc:
        for group, per_nb in sorted(read_alloc(a.alloc, nbs, a.l2, pair).items()):
            print("\n".join(describe(f"python {group}", per_nb, pair)))
        return
    for path in a.files:
        name = os.path.basename(path).split(".")[0]
        found = read_results(path, nbs, a.l2, pair)
        print("\n".join(describe(name, found, pair, placements.get(path))))


if __name__ == "__main__":
    main()
