#!/usr/bin/env python3
"""Issue 24's independent table: every config of every fla_cache_autotune kernel the FLA op launches, timed by its
own GPU duration (CUPTI kernel records through torch.profiler) on the op's real arguments, cold L2, shuffled
rounds, in Python (FLA's own autotuner objects), beside the C++ replay's choices and FLA's own autotune picks.

How: the capture's cases (a manifest of scripts/fla_capture.py) run FLA's op once more; at each launch of an
fla_cache_autotune kernel (Triton's Autotuner.run, wrapped in this process) the launch itself runs as FLA made it,
then, once per (kernel, key), every config of the kernel is launched on the same arguments through the autotuner's
own benchmark path (Autotuner._bench: its pre/post hooks, reset_to_zero and restore_value, so in-place kernels see
their inputs as the op did) with its timing function replaced by one launch: `--rounds` rounds, each in a new
shuffled order, `--samples` launches per config per round, each after TuneScope's cold flush (write then read
max(3 x L2, 64 MiB); docs/sweep.md "L2 regimes"), all inside one profiler session whose kernel records are matched
to the launches in order. A config's value is the median of its round medians; the split-half noise is |median of
the even rounds / median of the odd rounds - 1|. Configs that do not compile here (OutOfResources and the like) are
left out and named.

Regret of a choice = its table time / the table's fastest - 1, per kernel and key, for the C++ choices
(`--choices`, tunescope-fla-choices-v1) and FLA's own autotune picks (the manifest's chosen_config).

Python standard library + torch + triton; FLA's source. Usage:
  TRITON_CACHE_DIR=... python3 bench/fla_kernel_cupti_table.py --fla-path .fla --manifest fla-capture.json \\
      [--choices choices.json] [--rounds 20] [--samples 2] --json table.json
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import fla_capture  # noqa: E402  (the capture's cases, inputs and op runners: one definition)
import fla_manifest_check as fmc  # noqa: E402
import triton_l2norm_cupti_table as l2table  # noqa: E402  (flush size, kernel records)


def split_half(rounds):
    even, odd = rounds[0::2], rounds[1::2]
    return abs(statistics.median(even) / statistics.median(odd) - 1) if even and odd else float("nan")


class Tabler:
    """Wraps Autotuner.run: after a launch of an fla_cache_autotune kernel, tables its configs once per key and case
    (FLA's key of most kernels leaves T out, so one config serves every length: its cost is the sum over them)."""

    def __init__(self, torch, fla_cache, autotuner_cls, jit_cls, a):
        self.torch, self.fla_cache, self.Autotuner, self.JIT, self.a = torch, fla_cache, autotuner_cls, jit_cls, a
        self.active = False
        self.tables = {}  # (kernel, key_hash) -> entry
        self.case_id = None
        props = torch.cuda.get_device_properties(0)
        self.flush = torch.empty(l2table.flush_bytes(getattr(props, "L2_cache_size", 50 << 20)), dtype=torch.uint8,
                                 device="cuda")

    def install(self):
        tabler, original = self, self.Autotuner.run

        def run(tuner, *args, **kwargs):
            result = original(tuner, *args, **kwargs)
            if tabler.active and isinstance(tuner, tabler.fla_cache.CachedAutotuner):
                tabler.table(tuner, args, kwargs)
            return result

        self.Autotuner.run = run

    def jit_of(self, tuner):
        fn = tuner.fn
        while not isinstance(fn, self.JIT):
            fn = fn.fn
        return fn

    def cold(self):
        self.flush.fill_(0x5A)
        self.torch.sum(self.flush.view(self.torch.int32))

    def table(self, tuner, args, kwargs):
        torch = self.torch
        name = self.jit_of(tuner).__name__
        fla_key = self.fla_cache.AutotuneKey.build(tuner.arg_names, tuner.keys, args, kwargs).autotune_key
        key_hash = self.fla_cache.AutotuneKey.key_hash(fla_key)
        if (name, key_hash, self.case_id) in self.tables:  # once per case: a key can span several lengths
            return
        one_launch = lambda fn, quantiles=None, **_: (fn(), [0.0, 0.0, 0.0])[1]  # noqa: E731
        saved = {k: tuner.__dict__[k] for k in ("_do_bench", "do_bench", "nargs") if k in tuner.__dict__}
        tuner._do_bench = one_launch           # Triton's do_bench property reads this (3.4+) ...
        tuner.__dict__["do_bench"] = one_launch  # ... or, as a cached_property, the instance's value
        if tuner.do_bench is not one_launch:
            fla_capture.fail(f"{name}: this Triton's Autotuner.do_bench cannot be replaced per instance; the table "
                             "needs one launch per _bench call")
        tuner.nargs = dict(zip(tuner.arg_names, args))
        ok, refused = [], {}
        for i, cfg in enumerate(tuner.configs):  # compile and warm each config outside the profiler
            r = tuner._bench(*args, config=cfg, **kwargs)
            if r and r[0] == float("inf"):
                refused[i] = "does not compile or run here (Triton returned inf)"
            else:
                ok.append(i)
        torch.cuda.synchronize()
        order = []
        shuffle = random.Random(24000 + len(self.tables))
        t0 = time.perf_counter()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for rnd in range(self.a.rounds):
                todo = list(ok)
                shuffle.shuffle(todo)
                for i in todo:
                    for _ in range(self.a.samples):
                        self.cold()
                        tuner._bench(*args, config=tuner.configs[i], **kwargs)
                        order.append((i, rnd))
                torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        for k in ("_do_bench", "do_bench", "nargs"):
            tuner.__dict__.pop(k, None)
        tuner.__dict__.update(saved)
        records = [r for r in l2table.kernel_records(prof, torch) if r[2] == name]
        entry = {"kernel_name": name, "key_hash": key_hash, "autotune_key": list(fla_key), "case": self.case_id,
                 "configs": len(tuner.configs), "refused": {str(k): v for k, v in refused.items()},
                 "seconds": round(seconds, 2)}
        if len(records) != len(order):
            entry["error"] = (f"the profiler saw {len(records)} {name} launches, {len(order)} were made (a hook "
                              "that launches the kernel itself, or a config that failed)")
            print(f"  {name} {key_hash[:8]}: {entry['error']}", flush=True)
            self.tables[(name, key_hash, self.case_id)] = entry
            return
        by = {}
        for (i, rnd), (_, ns, _) in zip(order, records):
            by.setdefault(i, {}).setdefault(rnd, []).append(ns / 1000.0)
        rounds_us = {i: [statistics.median(v[r]) for r in sorted(v)] for i, v in by.items()}
        table_us = {i: statistics.median(v) for i, v in rounds_us.items()}
        best = min(table_us, key=table_us.get)
        entry.update(table_us={str(i): v for i, v in table_us.items()},
                     rounds_us={str(i): v for i, v in rounds_us.items()}, fastest=best,
                     split_half={"median_over_configs": statistics.median(split_half(v) for v in rounds_us.values()),
                                 "fastest_config": split_half(rounds_us[best])})
        self.tables[(name, key_hash, self.case_id)] = entry
        print(f"  {name} {key_hash[:8]}: {len(ok)} configs x {self.a.rounds} rounds x {self.a.samples} in "
              f"{seconds:.1f} s; fastest #{best} {table_us[best]:.2f} us; split-half noise "
              f"{100 * entry['split_half']['median_over_configs']:.2f}%", flush=True)


def key_totals(tables):
    """Per (kernel, key): each config's table time summed over the cases that launch the key (the C++ replay decides
    on the same sum), the fastest by that sum, and the cases; configs missing in a case are left out."""
    out = {}
    for (name, key_hash, case), entry in tables.items():
        if "table_us" not in entry:
            continue
        agg = out.setdefault((name, key_hash), {"cases": [], "totals": None})
        agg["cases"].append(case)
        t = {int(k): v for k, v in entry["table_us"].items()}
        agg["totals"] = t if agg["totals"] is None else {k: agg["totals"][k] + t[k] for k in agg["totals"] if k in t}
    for agg in out.values():
        agg["fastest"] = min(agg["totals"], key=agg["totals"].get)
    return out


def regret(agg, config):
    t = agg["totals"]
    return t[config] / t[agg["fastest"]] - 1 if config in t else None


def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        for k, i in enumerate(order):
            r[i] = float(k)
        return r
    ra, rb, n = ranks(a), ranks(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1)) if n > 2 else float("nan")


def compare_with_sweep(path, tables):
    """The C++ replay's per-launch time of every config (its total over the key's launches / their count) against
    the table's, per kernel and key: the independent check of the engine's new path (docs/fla-capture.md)."""
    with open(path) as f:
        sweep = json.load(f)
    out, seen = [], set()
    for d in sweep.get("decisions", []):
      for run in d.get("launch_runs") or []:
        launch = sweep["launches"][run]
        where = (d["kernel_name"], d["key_hash"], launch["case"])
        entry = tables.get(where)
        if where in seen or not entry or "table_us" not in entry:  # the first launch of a key in a case is tabled
            continue
        seen.add(where)
        pairs = [(c["config"], 1000.0 * c["median_ms"], entry["table_us"][str(c["config"])])
                 for c in launch["configs"] if c.get("median_ms") and str(c["config"]) in entry["table_us"]]
        if not pairs:
            continue
        rel = [cxx / py - 1 for _, cxx, py in pairs]
        within = sum(1 for _, cxx, py in pairs if abs(cxx - py) <= max(0.01 * py, 0.1))
        row = {"kernel_name": d["kernel_name"], "key_hash": d["key_hash"], "case": launch["case"], "configs": len(pairs),
               "median_relative": statistics.median(rel), "min_relative": min(rel), "max_relative": max(rel),
               "within_1pct_or_0.1us": within,
               "spearman": spearman([p[1] for p in pairs], [p[2] for p in pairs]),
               "per_config_us": [{"config": i, "engine": cxx, "table": py} for i, cxx, py in pairs]}
        out.append(row)
        print(f"engine vs table {d['kernel_name'][:40]:40s} {d['key_hash'][:8]} {launch['case'][-34:-21]}: median {100 * row['median_relative']:+.2f}% "
              f"[{100 * row['min_relative']:+.2f}, {100 * row['max_relative']:+.2f}], {within}/{len(pairs)} within 1% or "
              f"0.1 us, Spearman {row['spearman']:.3f}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fla-path", default="")
    ap.add_argument("--manifest", required=True, help="scripts/fla_capture.py's manifest (the cases and FLA's picks)")
    ap.add_argument("--choices", default="", help="tunescope-fla-choices-v1 (sweep --manifest --choices-out)")
    ap.add_argument("--sweep", default="", help="the C++ replay's results (sweep --manifest --out): per kernel and "
                                                "key, its per-launch times against the table's, config by config")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    doc, errors = fmc.load_and_check(a.manifest)
    if errors:
        sys.exit(fmc.format_fault(a.manifest, *errors[0]))
    cases = fla_capture.resolve_spec(fla_capture.spec_of_cases(doc["cases"]), a.manifest)
    torch, triton, fla, fla_cache, Autotuner, JITFunction, _ = fla_capture.import_stack(a.fla_path)
    tabler = Tabler(torch, fla_cache, Autotuner, JITFunction, a)
    tabler.install()
    props = torch.cuda.get_device_properties(0)
    print(f"fla kernel table: {props.name}, triton {triton.__version__}, torch {torch.__version__}, fla "
          f"{getattr(fla, '__version__', '?')}, {len(cases)} cases, {a.rounds} rounds x {a.samples} samples, cold L2, "
          f"FLA_CACHE_MODE={os.environ.get('FLA_CACHE_MODE', '')}", flush=True)
    for case in cases:
        x = fla_capture.make_inputs(torch, case)
        run = fla_capture.op_runner(case)
        tabler.case_id, tabler.active = case["id"], True
        with torch.no_grad():
            run(x)
        torch.cuda.synchronize()
        tabler.active = False
        print(f"{case['id']}: done", flush=True)
    fla_picks = {(k["kernel_name"], l["key_hash"]): l["autotune"].get("chosen_config")
                 for k in doc["kernels"] for l in k["launches"]}
    cxx = {}
    if a.choices:
        with open(a.choices) as f:
            cxx = {(c["kernel_name"], c["key_hash"]): c["config"] for c in json.load(f)["choices"]}
    rows, cxx_regrets, fla_regrets = [], [], []
    per_case = {}
    for (name, key_hash, case), entry in tabler.tables.items():
        per_case.setdefault((name, key_hash), []).append(entry)
    for (name, key_hash), agg in sorted(key_totals(tabler.tables).items()):
        noise = [e["split_half"]["median_over_configs"] for e in per_case[(name, key_hash)] if "split_half" in e]
        entry = {"split_half": {"median_over_configs": max(noise)}} if noise else {}
        row = {"kernel_name": name, "key_hash": key_hash, "cases": agg["cases"], "fastest": agg["fastest"],
               "total_us": {str(k): v for k, v in agg["totals"].items()},
               "fla_pick": fla_picks.get((name, key_hash)), "cxx_pick": cxx.get((name, key_hash))}
        for who in ("fla_pick", "cxx_pick"):
            row[who.replace("pick", "regret")] = regret(agg, row[who]) if row[who] is not None else None
        if row["cxx_regret"] is not None:
            cxx_regrets.append(row["cxx_regret"])
        if row["fla_regret"] is not None:
            fla_regrets.append(row["fla_regret"])
        row["split_half"] = entry.get("split_half")
        rows.append(row)
        fmt = lambda v: "-" if v is None else f"{100 * v:+.2f}%"  # noqa: E731
        print(f"{name:48s} {key_hash[:8]} ({len(agg['cases'])} case(s)): fastest #{row['fastest']}, C++ #{row['cxx_pick']} {fmt(row['cxx_regret'])}, "
              f"FLA #{row['fla_pick']} {fmt(row['fla_regret'])}, noise "
              f"{fmt((entry.get('split_half') or {}).get('median_over_configs'))}")
    summary = {}
    for who, values in (("cxx", cxx_regrets), ("fla", fla_regrets)):
        if values:
            summary[who] = {"keys": len(values), "mean_regret": statistics.mean(values), "worst_regret": max(values)}
            print(f"{who}: regret mean {100 * statistics.mean(values):.2f}%, worst {100 * max(values):.2f}% over "
                  f"{len(values)} kernel keys")
    agreement = compare_with_sweep(a.sweep, tabler.tables) if a.sweep else []
    report = {"format": "tunescope-fla-kernel-cupti-table-v1", "engine_vs_table": agreement, "device": props.name, "triton": triton.__version__,
              "torch": torch.__version__, "fla": getattr(fla, "__version__", "?"), "rounds": a.rounds,
              "samples": a.samples, "l2": "cold", "timer": "torch.profiler (CUPTI kernel records)",
              "manifest": os.path.basename(a.manifest), "choices": os.path.basename(a.choices) if a.choices else None,
              "tables": list(tabler.tables.values()), "rows": rows, "summary": summary}
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
    print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
