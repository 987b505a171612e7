#!/usr/bin/env python3
"""FLA's real l2norm_fwd_kernel timed by Triton's own do_bench, beside TuneScope's C++ launches of the same cached
binaries, and FLA's l2norm_fwd loading an exported profile in strict mode (issue 13, docs/triton-kernels.md).

One process, in this order:
  1. strict (with --export DIR): FLA_CACHE_MODE=strict and FLA_CONFIG_DIR=DIR are set before FLA is imported; the
     first l2norm_fwd call of every NB is made with the autotuner's benchmark counted (a wrapper around
     Autotuner._bench); the config FLA ran (the autotuner's cache) is recorded per NB.
  2. table: do_bench (warmup/rep in ms, median) of every config BT x num_warps x num_stages at every NB, launched
     through FLA's JIT function (kernel.fn[grid](..., BT=, num_warps=, num_stages=)), so from the same Triton cache
     (TRITON_CACHE_DIR) the C++ side read. do_bench's cache clearing is replaced by TuneScope's cold-L2 flush
     (kernels/common/gpu_backend.inc): write a buffer of max(3 x L2, 64 MiB) rounded up to 16 MiB (fill 0x5a), then
     read all of it, before every sample.
  3. compare (with --sweep FILE): per NB, the C++ sweep's median (kernel_source records of num_stages 3) against the
     do_bench median of the same config: max |ratio - 1| and Spearman's rank correlation over the configs.
  4. regret (with --export): per NB the config FLA loaded, its do_bench median over the fastest of the table.
Python standard library + torch + triton only. Usage:
  bench/triton_l2norm_dobench.py --fla-path .fla [--nb 1-32] [--stages 2,3,4] [--warmup 5] [--rep 20]
      [--slack spin1|spin-all|read|none] [--sweep sweep.jsonl] [--export DIR] [--json out.json]
      [--probe-nb 1-8 [--probe-variants spin1:side:exact:sync,...] [--probe-rounds 2]]
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

BT_LIST = [8, 16, 32, 64, 128]
WARPS_LIST = [1, 2, 4, 8, 16]
ROWS_PER_NB = 65536
D = 128
SLACKS = ["spin1", "spin-all", "read", "none"]


def parse_list(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


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


def flush_bytes(l2_bytes):
    """TuneScope's cold-flush size (gpu_backend.inc coldFlushBytes on CUDA)."""
    n = max(3 * l2_bytes, 64 << 20)
    return (n + (16 << 20) - 1) & ~((16 << 20) - 1)


def make_spin_all(torch, triton, us):
    """A kernel that keeps every SM busy for about `us` microseconds with register arithmetic only (no memory traffic
    but one store per program), calibrated once here. Returns a callable that launches it."""
    if us <= 0:
        return lambda: None
    import triton.language as tl

    @triton.jit
    def _tunescope_spin(out_ptr, n_iter):
        x = tl.program_id(0).to(tl.float32) + 1.0
        for _ in range(n_iter):
            x = x * 0.999999 + 1e-7
        tl.store(out_ptr + tl.program_id(0), x)

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    out = torch.empty(sms, device="cuda")
    probe_iter = 8192
    _tunescope_spin[(sms,)](out, probe_iter, num_warps=4)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        _tunescope_spin[(sms,)](out, probe_iter, num_warps=4)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    n_iter = max(1, int(probe_iter * us / max(statistics.median(times), 1e-3)))
    print(f"spin-all: {sms} programs x {n_iter} iterations ~ {us:.0f} us", flush=True)
    return lambda: _tunescope_spin[(sms,)](out, n_iter, num_warps=4)


def regret_summary(regrets):
    """'mean M%, worst W% (NB n), NBs over 1.5%: k' of {NB: regret}."""
    worst = max(regrets, key=regrets.get)
    return (f"mean {100 * statistics.mean(regrets.values()):.2f}%, worst {100 * regrets[worst]:.2f}% (NB {worst}), "
            f"NBs over 1.5%: {sum(1 for v in regrets.values() if v > 0.015)}")


def config_key(bt, warps, stages):
    return f"{bt}/{warps}/{stages}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fla-path", default="", help="folder holding the 'fla' package (default: as installed)")
    ap.add_argument("--nb", default="1-32")
    ap.add_argument("--stages", default="2,3,4", help="num_stages of the do_bench table (default 2,3,4: 75 configs)")
    ap.add_argument("--warmup", type=float, default=5, help="do_bench warmup, ms")
    ap.add_argument("--rep", type=float, default=20, help="do_bench rep, ms")
    ap.add_argument("--sweep", action="append", default=[],
                    help="TuneScope sweep results (JSON Lines) of --kernel triton to compare; repeatable (the probe "
                         "uses the first)")
    ap.add_argument("--export", default="", help="folder written by export-fla: run FLA's l2norm_fwd in strict mode")
    ap.add_argument("--rounds", type=int, default=3,
                    help="do_bench calls per config and NB, in a new shuffled order each round; the table holds the "
                         "median of the rounds (default 3)")
    ap.add_argument("--host-slack-us", type=float, default=60,
                    help="GPU spin after each flush (us), so that the host has enqueued the kernel before its start "
                         "event runs (default 60; 0: none)")
    ap.add_argument("--slack", default="spin1", choices=SLACKS,
                    help="what keeps the GPU busy for --host-slack-us after each flush: spin1 (a one-thread spin, "
                         "torch.cuda._sleep), spin-all (every SM spins, no memory traffic), read (the flush is read "
                         "again), none (default spin1)")
    ap.add_argument("--probe-nb", default="",
                    help="after the table: at these NBs, every config timed under each --probe-variants "
                         "variant, interleaved per config, and each variant compared with the C++ sweep")
    ap.add_argument("--probe-variants", default="spin1,spin-all,read,none",
                    help="comma-separated slack[:stream[:inputs[:timing]]] (see section 3b), e.g. "
                         "spin1:side:exact:sync")
    ap.add_argument("--probe-rounds", type=int, default=2)
    ap.add_argument("--baseline-fla", default="",
                    help="an FLA config file (e.g. bench/fla_own_autotune.py's: FLA's own autotune picks): its regret "
                         "from the same table, and per NB the exported config against it")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    nbs, stages_list = parse_list(a.nb), parse_list(a.stages)
    if a.export:
        # Read once by FLA at import: must be set before it is imported.
        os.environ["FLA_CACHE_MODE"] = "strict"
        os.environ["FLA_CONFIG_DIR"] = os.path.abspath(a.export)
    if a.fla_path:
        sys.path.insert(0, a.fla_path)
    import torch
    import triton
    import triton.runtime.autotuner as autotuner
    import fla
    from fla.modules import l2norm as mod

    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    print(f"triton {triton.__version__}, torch {torch.__version__}, fla {getattr(fla, '__version__', '?')}, "
          f"{props.name}, L2 {l2 >> 20} MiB, TRITON_CACHE_DIR={os.environ.get('TRITON_CACHE_DIR', '(default)')}",
          flush=True)
    report = {"device": props.name, "triton": triton.__version__, "fla": getattr(fla, "__version__", "?"),
              "warmup_ms": a.warmup, "rep_ms": a.rep}
    max_rows = max(nbs) * ROWS_PER_NB
    gen = torch.Generator(device="cuda").manual_seed(20261203)
    x_all = torch.randn(max_rows, D, device="cuda", generator=gen).to(torch.bfloat16)
    x_all[x_all == 0] = 1  # never zeros, as TuneScope's inputs
    y_all = torch.empty_like(x_all)
    r_all = torch.empty(max_rows, dtype=torch.float32, device="cuda")

    # --- 1. FLA strict mode: the exported config, no autotuning --------------------------------------------------
    strict = {}
    if a.export:
        bench_calls = {"n": 0}
        original_bench = autotuner.Autotuner._bench

        def counted_bench(self, *args, **kwargs):
            bench_calls["n"] += 1
            return original_bench(self, *args, **kwargs)

        autotuner.Autotuner._bench = counted_bench
        kernel = mod.l2norm_fwd_kernel
        for nb in nbs:
            x = x_all[: nb * ROWS_PER_NB].view(nb * 16, ROWS_PER_NB // 16, D)  # [B*L, H, D]-like; T = nb * 65536
            before = bench_calls["n"]
            t0 = time.time()
            y, rstd = mod.l2norm_fwd(x)
            torch.cuda.synchronize()
            first_s = time.time() - t0
            key = (D, nb, str(x.dtype), str(y.dtype), str(rstd.dtype))
            cfg = getattr(kernel, "cache", {}).get(key) or getattr(kernel, "best_config", None)
            ref = x.float() * torch.rsqrt((x.float() ** 2).sum(-1, keepdim=True) + 1e-6)
            err = (y.float() - ref).abs().max().item()
            strict[nb] = {"BT": cfg.kwargs.get("BT") if cfg else None, "num_warps": cfg.num_warps if cfg else None,
                          "num_stages": cfg.num_stages if cfg else None, "num_ctas": cfg.num_ctas if cfg else None,
                          "bench_calls": bench_calls["n"] - before, "first_call_s": round(first_s, 3),
                          "max_abs_err": err}
        autotuner.Autotuner._bench = original_bench
        total_bench = sum(s["bench_calls"] for s in strict.values())
        print(f"strict: FLA_CONFIG_DIR={a.export}: {len(strict)} NBs, autotuner benchmark calls: {total_bench}, "
              f"first calls {min(s['first_call_s'] for s in strict.values()):.2f}-"
              f"{max(s['first_call_s'] for s in strict.values()):.2f} s, max |y - ref| "
              f"{max(s['max_abs_err'] for s in strict.values()):.3g}", flush=True)
        report["strict"] = strict
        report["strict_autotune_benchmark_calls"] = total_bench

    # --- 2. do_bench table with TuneScope's flush --------------------------------------------------------------
    flush = torch.empty(flush_bytes(l2), dtype=torch.uint8, device="cuda")
    driver = triton.runtime.driver.active

    # do_bench records the start event right after the flush and then launches through Python (the JIT's argument
    # binding, ~50-100 us of host time). When the host falls behind the GPU, the kernel starts some microseconds
    # after the start event and that gap is timed too: at NB 1-8 run 10 saw do_bench 1-12% above the C++ launch of
    # the same binary, bimodal per call. A spin on the GPU after the flush (no memory traffic, L2 untouched) keeps
    # the GPU behind the host.
    spin_cycles = int(a.host_slack_us * 1e-6 * torch.cuda.get_device_properties(0).clock_rate * 1e3) \
        if hasattr(torch.cuda.get_device_properties(0), "clock_rate") else int(a.host_slack_us * 1980)
    spin_all = make_spin_all(torch, triton, a.host_slack_us)
    slack = {"mode": a.slack}

    def tunescope_flush(cache):
        cache.fill_(0x5A)
        torch.sum(cache.view(torch.int32))  # read every byte back (the result is not needed)
        mode = slack["mode"]
        if mode == "spin1" and spin_cycles > 0:
            torch.cuda._sleep(spin_cycles)  # one thread spins; the other SMs sit idle
        elif mode == "spin-all" and a.host_slack_us > 0:
            spin_all()  # every SM busy, no memory traffic, L2 untouched
        elif mode == "read" and a.host_slack_us > 0:
            torch.sum(cache.view(torch.int32))  # the flush read again: the GPU stays busy, L2 as after one read

    driver.get_empty_cache_for_benchmark = lambda: flush
    has_clear = hasattr(driver, "clear_cache")
    driver.clear_cache = tunescope_flush
    assert triton.runtime.driver.active.get_empty_cache_for_benchmark() is flush, "the flush patch did not take"
    print(f"do_bench: warmup {a.warmup} ms, rep {a.rep} ms, median of {a.rounds} rounds in shuffled order, "
          f"{a.host_slack_us:.0f} us of '{a.slack}' slack after the flush; flush {flush.numel() >> 20} MiB write+read "
          f"({'clear_cache replaced' if has_clear else 'WARNING: this Triton zeroes the buffer itself (write only)'})",
          flush=True)
    report["flush_bytes"] = flush.numel()
    report["slack"] = a.slack
    report["host_slack_us"] = a.host_slack_us
    jit = mod.l2norm_fwd_kernel.fn
    table = {}
    rounds_table = {}
    t_table = time.time()
    for nb in nbs:
        T = nb * ROWS_PER_NB
        x, y, r = x_all[:T], y_all[:T], r_all[:T]
        configs = [(bt, warps, stages) for stages in stages_list for warps in WARPS_LIST for bt in BT_LIST]
        per_round = {config_key(*c): [] for c in configs}
        shuffle = random.Random(1000 * nb + 7)
        for _ in range(max(1, a.rounds)):
            order = list(configs)
            shuffle.shuffle(order)
            for bt, warps, stages in order:
                def run(bt=bt, warps=warps, stages=stages):
                    jit[(triton.cdiv(T, bt),)](x, y, r, 1e-6, T, D=D, BD=D, NB=nb, BT=bt, num_warps=warps,
                                               num_stages=stages)
                per_round[config_key(bt, warps, stages)].append(1e3 * triton.testing.do_bench(
                    run, warmup=a.warmup, rep=a.rep, return_mode="median"))
        row = {k: statistics.median(v) for k, v in per_round.items()}
        rounds_table[nb] = per_round
        table[nb] = row
        best = min(row, key=row.get)
        print(f"  NB {nb:2d}: fastest {best} {row[best]:.2f} us ({len(row)} configs)", flush=True)
    print(f"do_bench table: {len(nbs)} NBs x {len(table[nbs[0]])} configs in {time.time() - t_table:.0f} s", flush=True)
    report["do_bench_us"] = {str(nb): row for nb, row in table.items()}
    report["do_bench_rounds_us"] = {str(nb): row for nb, row in rounds_table.items()}

    # --- 3. C++ sweep vs do_bench, num_stages 3 ---------------------------------------------------------------
    def read_sweep(path):
        medians = {}
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("type") != "measurement" or rec.get("kind") != "l2norm" or not rec.get("kernel_source"):
                    continue
                c = rec["config"]
                medians.setdefault(rec["nb"], {})[config_key(c["BT"], c["num_warps"], c["num_stages"])] = \
                    1e3 * rec["median_ms"]
        return medians

    cpp = {}
    report["compare_by_sweep"] = {}
    for index, path in enumerate(a.sweep):
        medians = read_sweep(path)
        if index == 0:
            cpp = medians  # the probe below compares against the first sweep
        print(f"compare: C++ sweep median (Triton binaries launched from C++, {os.path.basename(path)}) vs do_bench "
              "median, per NB over the configs of both")
        print("  NB  configs  max|ratio-1|  worst config  mean|ratio-1|  spearman  C++ fastest  do_bench fastest")
        compare = {}
        for nb in nbs:
            keys = sorted(k for k in medians.get(nb, {}) if k in table[nb])
            if len(keys) < 2:
                print(f"  {nb:2d}  (no common configs)")
                continue
            ours, theirs = [medians[nb][k] for k in keys], [table[nb][k] for k in keys]
            dev = [abs(o / t - 1) for o, t in zip(ours, theirs)]
            worst = keys[max(range(len(keys)), key=lambda i: dev[i])]
            rho = spearman(ours, theirs)
            compare[nb] = {"configs": len(keys), "max_abs_ratio_minus_1": max(dev), "worst_config": worst,
                           "worst_ratio": medians[nb][worst] / table[nb][worst], "mean": statistics.mean(dev),
                           "spearman": rho}
            print(f"  {nb:2d}  {len(keys):7d}  {100 * max(dev):10.2f}%  {worst:>12}  {100 * statistics.mean(dev):11.2f}%  "
                  f"{rho:8.3f}  {min(keys, key=lambda k: medians[nb][k]):>11}  "
                  f"{min(keys, key=lambda k: table[nb][k]):>16}")
        if compare:
            print(f"compare ({os.path.basename(path)}): worst max|ratio-1| "
                  f"{100 * max(c['max_abs_ratio_minus_1'] for c in compare.values()):.2f}%"
                  f", lowest Spearman {min(c['spearman'] for c in compare.values()):.3f}")
        report["compare_by_sweep"][os.path.basename(path)] = compare
        if index == 0:
            report["compare"] = compare

    # --- 3b. probe: the same configs under several measurement variants, interleaved, against the C++ sweep -----
    # A variant is slack:stream:inputs:timing. slack: see --slack. stream: default (torch's current stream, the legacy
    # default stream unless the caller set one) or side (a torch.cuda.Stream). inputs: slice (views of one large
    # tensor, as the table) or exact (tensors of exactly T rows, as the C++ side allocates). timing: dobench, or sync
    # (the C++ engine's loop: flush, start event, launch, stop event, wait, per sample).
    if a.probe_nb:
        probe_nbs = parse_list(a.probe_nb)
        variants = []
        for spec in [x for x in a.probe_variants.split(",") if x]:
            parts = spec.split(":") + ["default", "slice", "dobench"][len(spec.split(":")) - 1:]
            slack_name, stream_name, inputs, timing = parts[:4]
            if slack_name not in SLACKS or stream_name not in ("default", "side") or inputs not in ("slice", "exact") \
                    or timing not in ("dobench", "sync"):
                sys.exit(f"--probe-variants: bad variant '{spec}' (slack:stream:inputs:timing, e.g. spin1:side:exact:sync)")
            variants.append((":".join(parts[:4]), slack_name, stream_name, inputs, timing))
        side = torch.cuda.Stream()

        def sync_bench(fn, rep_ms):
            """The C++ engine's loop (gpu_backend.inc EventTimedWork): per sample, flush, events around one launch,
            wait; the median of the samples."""
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            fn()
            torch.cuda.synchronize()
            times, t0 = [], time.time()
            while len(times) < 10 or (time.time() - t0) * 1e3 < rep_ms:
                driver.clear_cache(flush)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            return statistics.median(times)

        print(f"probe: {len(variants)} variants ({', '.join(v[0] for v in variants)}), interleaved per config in "
              f"shuffled order, median of {a.probe_rounds} rounds; per variant: mean time/C++ ratio, max |ratio-1|, "
              "Spearman vs C++, mean us")
        print("  NB  " + "  ".join(f"{v[0]:>32}" for v in variants))
        probe = {}
        for nb in probe_nbs:
            T = nb * ROWS_PER_NB
            exact = (x_all[:T].clone(), torch.empty_like(x_all[:T]), torch.empty(T, dtype=torch.float32, device="cuda"))
            sliced = (x_all[:T], y_all[:T], r_all[:T])
            configs = [(bt, warps, 3) for warps in WARPS_LIST for bt in BT_LIST]
            samples = {v[0]: {config_key(*c): [] for c in configs} for v in variants}
            shuffle = random.Random(5000 + nb)
            for _ in range(max(1, a.probe_rounds)):
                order = list(configs)
                shuffle.shuffle(order)
                for bt, warps, stages in order:
                    vorder = list(variants)
                    shuffle.shuffle(vorder)
                    for name, slack_name, stream_name, inputs, timing in vorder:
                        xx, yy, rr = exact if inputs == "exact" else sliced

                        def run(bt=bt, warps=warps, stages=stages, xx=xx, yy=yy, rr=rr):
                            jit[(triton.cdiv(T, bt),)](xx, yy, rr, 1e-6, T, D=D, BD=D, NB=nb, BT=bt, num_warps=warps,
                                                       num_stages=stages)
                        slack["mode"] = slack_name
                        with torch.cuda.stream(side if stream_name == "side" else torch.cuda.current_stream()):
                            if timing == "sync":
                                ms = sync_bench(run, a.rep)
                            else:
                                ms = triton.testing.do_bench(run, warmup=a.warmup, rep=a.rep, return_mode="median")
                        torch.cuda.synchronize()
                        samples[name][config_key(bt, warps, stages)].append(1e3 * ms)
            slack["mode"] = a.slack
            probe[nb] = {}
            cells = []
            for name, *_ in variants:
                med = {k: statistics.median(v) for k, v in samples[name].items()}
                keys = sorted(k for k in med if k in cpp.get(nb, {}))
                entry = {"median_us": med, "mean_us": statistics.mean(med.values())}
                if len(keys) >= 2:
                    ratios = [med[k] / cpp[nb][k] for k in keys]
                    entry.update(mean_ratio=statistics.mean(ratios),
                                 max_abs_ratio_minus_1=max(abs(q - 1) for q in ratios),
                                 spearman=spearman([cpp[nb][k] for k in keys], [med[k] for k in keys]))
                    cells.append(f"{entry['mean_ratio']:.4f} {100 * entry['max_abs_ratio_minus_1']:5.2f}% "
                                 f"{entry['spearman']:.3f} {entry['mean_us']:7.2f}")
                else:
                    cells.append(f"(no C++ sweep) {entry['mean_us']:7.2f}")
                probe[nb][name] = entry
            print(f"  {nb:2d}  " + "  ".join(f"{c:>32}" for c in cells), flush=True)
            del exact
        report["probe"] = {str(nb): v for nb, v in probe.items()}

    # --- 4. regret of the config FLA loaded ---------------------------------------------------------------------
    if strict:
        print("regret: the config FLA loaded (strict) vs the fastest of the do_bench table")
        print("  NB  loaded BT/w/s   loaded us  fastest        us   regret  bench calls")
        regrets = {}
        for nb in nbs:
            s = strict[nb]
            if s["BT"] is None:
                print(f"  {nb:2d}  no config in FLA's cache for this key")
                continue
            k = config_key(s["BT"], s["num_warps"], s["num_stages"])
            best = min(table[nb], key=table[nb].get)
            loaded = table[nb].get(k)
            if loaded is None:
                print(f"  {nb:2d}  {k:>13}  not in the table")
                continue
            regrets[nb] = loaded / table[nb][best] - 1
            print(f"  {nb:2d}  {k:>13}  {loaded:9.2f}  {best:>9} {table[nb][best]:9.2f}  {100 * regrets[nb]:6.2f}%  "
                  f"{s['bench_calls']:5d}")
        if regrets:
            print(f"regret: {regret_summary(regrets)}, autotuner benchmark calls "
                  f"{report.get('strict_autotune_benchmark_calls')}")
        report["regret"] = regrets

    # --- 5. a baseline policy (FLA's own autotune) read off the same table, and the export against it ---------------
    if a.baseline_fla:
        with open(a.baseline_fla) as f:
            fla_file = json.load(f)
        baseline = {}
        for entry in fla_file.get("autotune_entries", {}).values():
            key, cfg = entry.get("autotune_key", []), entry.get("config", {})
            if len(key) >= 2 and int(key[0]) == D:
                baseline[int(key[1])] = config_key(cfg["kwargs"]["BT"], cfg["num_warps"], cfg.get("num_stages", 3))
        print(f"baseline ({os.path.basename(a.baseline_fla)}): its config vs the fastest of the table, and the export "
              "(strict) vs the baseline (ratio < 1: the export is faster)")
        print("  NB  baseline BT/w/s  baseline us  regret   export/baseline")
        base_regrets, export_ratios = {}, {}
        for nb in nbs:
            k = baseline.get(nb)
            if k is None or k not in table[nb]:
                print(f"  {nb:2d}  no baseline config in the table")
                continue
            best = min(table[nb].values())
            base_regrets[nb] = table[nb][k] / best - 1
            cell = "-"
            s = strict.get(nb) if strict else None
            if s and s["BT"] is not None:
                ek = config_key(s["BT"], s["num_warps"], s["num_stages"])
                if ek in table[nb]:
                    export_ratios[nb] = table[nb][ek] / table[nb][k]
                    cell = f"{export_ratios[nb]:.4f}"
            print(f"  {nb:2d}  {k:>15}  {table[nb][k]:11.2f}  {100 * base_regrets[nb]:6.2f}%  {cell:>15}")
        if base_regrets:
            print(f"baseline regret: {regret_summary(base_regrets)}")
        if export_ratios:
            worst = max(export_ratios, key=export_ratios.get)
            print(f"export vs baseline (do_bench table): mean ratio {statistics.mean(export_ratios.values()):.4f}, "
                  f"worst {export_ratios[worst]:.4f} (NB {worst}), NBs where the export is > 0.5% slower: "
                  f"{sum(1 for v in export_ratios.values() if v > 1.005)}")
        report["baseline_regret"] = base_regrets
        report["export_vs_baseline"] = export_ratios
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
