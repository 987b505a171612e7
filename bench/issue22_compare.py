#!/usr/bin/env python3
"""Issue 22's comparison: the engine's CUPTI sweep of FLA's Triton binaries against the independent same-run table of
bench/triton_l2norm_cupti_table.py (torch.profiler kernel records of the same binaries), per L2 regime and NB:
  - per config, engine median vs table median: the worst and mean |ratio - 1| (%), the worst |difference| (us),
    and how many configs are within 1% or 0.1 us (the acceptance bar);
  - Spearman's rank correlation over the configs (bar: >= 0.95 at every NB);
  - with --export REGIME=DIR (export-fla's folder of the profile promoted from that regime), the export's regret
    against the table (its config's median over the table's fastest), beside the table's split-half noise (bars:
    mean <= 0.3%, worst NB <= 1.0%); with --baseline-fla FILE (FLA's own autotune picks), theirs too.
Python standard library only. Usage:
  bench/issue22_compare.py --table table.json --sweep sweep.jsonl[.gz] [--sweep ...] [--export cold=DIR] \
      [--export warm=DIR] [--baseline-fla FILE] [--json out.json]
"""
import argparse
import gzip
import json
import os
import statistics


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va > 0 and vb > 0 else float("nan")


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def read_sweep(path):
    """{regime: {nb: {"BT/w/s": median us}}} and the timers of the records (l2 and timer: results format, issue 22;
    older files: cold_l2 and events)."""
    medians, timers = {}, set()
    with open_text(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") != "measurement" or rec.get("kind") != "l2norm":
                continue
            regime = rec.get("l2") or ("cold" if rec.get("cold_l2", True) else "hot")
            timers.add(rec.get("timer", "events"))
            c = rec["config"]
            key = f"{c['BT']}/{c['num_warps']}/{c['num_stages']}"
            medians.setdefault(regime, {}).setdefault(rec["nb"], {})[key] = 1e3 * rec["median_ms"]
    return medians, timers


def read_fla(path):
    """NB -> "BT/w/s" of an FLA config file (l2norm's D = 128 keys)."""
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for entry in doc.get("autotune_entries", {}).values():
        key, cfg = entry.get("autotune_key", []), entry.get("config", {})
        if len(key) >= 2 and int(key[0]) == 128:
            out[int(key[1])] = f"{cfg['kwargs']['BT']}/{cfg['num_warps']}/{cfg.get('num_stages', 3)}"
    return out, doc.get("triton_version")


def compare_sweep(name, medians, table, report):
    print(f"\n== engine sweep {name} vs the CUPTI table (ratio = engine / table)")
    out = {}
    for regime in sorted(medians):
        if regime not in table:
            print(f"  {regime}: not in the table")
            continue
        print(f"  {regime}:  NB  configs  worst|r-1|  mean|r-1|  worst|d| us  mean d us  within 1%/0.1us  Spearman  "
              "engine fastest  table fastest")
        rows, within, total, low_rho = {}, 0, 0, []
        for nb in sorted(medians[regime]):
            row = table[regime].get(str(nb), {})
            keys = sorted(k for k in medians[regime][nb] if k in row)
            if len(keys) < 3:
                continue
            ours, theirs = [medians[regime][nb][k] for k in keys], [row[k] for k in keys]
            ratios = [o / t - 1 for o, t in zip(ours, theirs)]
            diffs = [abs(o - t) for o, t in zip(ours, theirs)]
            ok = sum(1 for r, d in zip(ratios, diffs) if abs(r) <= 0.01 or d <= 0.1)
            rho = spearman(ours, theirs)
            within, total = within + ok, total + len(keys)
            if rho < 0.95:
                low_rho.append(nb)
            rows[nb] = {"configs": len(keys), "worst_ratio": max(ratios, key=abs), "mean_abs": statistics.mean(map(abs, ratios)),
                        "worst_diff_us": max(diffs), "within": ok, "spearman": rho,
                        "mean_engine_minus_table_us": statistics.mean(o - t for o, t in zip(ours, theirs))}
            print(f"        {nb:3d}  {len(keys):7d}  {100 * max(map(abs, ratios)):9.2f}%  "
                  f"{100 * rows[nb]['mean_abs']:8.2f}%  {max(diffs):11.3f}  {rows[nb]['mean_engine_minus_table_us']:+9.3f}  "
                  f"{ok:7d}/{len(keys):<7d}  {rho:8.3f}  "
                  f"{min(keys, key=lambda k: medians[regime][nb][k]):>14}  {min(row, key=row.get):>13}")
        print(f"  {regime}: {within} of {total} configs within 1% or 0.1 us; Spearman < 0.95 at "
              f"{len(low_rho)} NBs {low_rho if low_rho else ''}")
        out[regime] = rows
    report.setdefault("sweeps", {})[name] = out


def regret_of(policy, table, noise, regime, label, report):
    regrets = {}
    print(f"\n== {label}: regret against the CUPTI table ({regime} L2), beside the table's split-half noise")
    print("  NB  config      us      fastest     us     regret   noise (median, fastest)")
    for nb_text, row in sorted(table[regime].items(), key=lambda kv: int(kv[0])):
        nb = int(nb_text)
        k = policy.get(nb)
        if k is None or k not in row:
            print(f"  {nb:2d}  {k or '-':>9}  not in the table")
            continue
        best = min(row, key=row.get)
        regrets[nb] = row[k] / row[best] - 1
        n = noise[regime][nb_text]
        print(f"  {nb:2d}  {k:>9}  {row[k]:7.2f}  {best:>9}  {row[best]:7.2f}  {100 * regrets[nb]:6.2f}%   "
              f"{100 * n['median_over_configs']:.2f}%, {100 * n['fastest_config']:.2f}%")
    if regrets:
        worst = max(regrets, key=regrets.get)
        print(f"  {label} ({regime}): mean regret {100 * statistics.mean(regrets.values()):.2f}%, worst "
              f"{100 * regrets[worst]:.2f}% (NB {worst}); table noise median "
              f"{100 * statistics.median(n['median_over_configs'] for n in noise[regime].values()):.2f}%")
    report.setdefault("regret", {}).setdefault(regime, {})[label] = regrets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", required=True)
    ap.add_argument("--sweep", action="append", default=[])
    ap.add_argument("--export", action="append", default=[], help="REGIME=DIR (export-fla's folder)")
    ap.add_argument("--baseline-fla", default="", help="FLA's own autotune picks (bench/fla_own_autotune.py)")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    with open(a.table) as f:
        t = json.load(f)
    table, noise = t["table_us"], t["split_half"]
    print(f"CUPTI table: {t['device']}, triton {t['triton']}, torch {t['torch']}, fla {t['fla']}, {t['rounds']} rounds "
          f"x {t['samples']} samples, regimes {', '.join(t['regimes'])}")
    report = {"table": os.path.basename(a.table)}
    for path in a.sweep:
        medians, timers = read_sweep(path)
        compare_sweep(f"{os.path.basename(path)} (timer {', '.join(sorted(timers))})", medians, table, report)
    for spec in a.export:
        regime, folder = spec.split("=", 1)
        policy, triton_version = read_fla(os.path.join(folder, "l2norm_fwd_kernel.json"))
        print(f"\nexport {folder}: triton_version {triton_version} (the table's Triton: {t['triton']})")
        regret_of(policy, table, noise, regime, f"export ({os.path.basename(folder.rstrip('/'))})", report)
    if a.baseline_fla:
        policy, _ = read_fla(a.baseline_fla)
        for regime in table:
            regret_of(policy, table, noise, regime, "FLA's own autotune", report)
    if "strict" in t:
        calls = sum(v["bench_calls"] for v in t["strict"].values())
        print(f"\nFLA strict mode: {len(t['strict'])} NBs loaded, {calls} autotune benchmark calls")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
