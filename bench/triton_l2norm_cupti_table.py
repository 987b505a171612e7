#!/usr/bin/env python3
"""An independent same-run table of FLA's l2norm_fwd_kernel timed by each launch's own GPU duration (issue 22):
CUPTI kernel records through torch.profiler, the binaries of the Triton cache the C++ sweep read (TRITON_CACHE_DIR,
launched through FLA's JIT function), shuffled rounds, in the cold and the warm L2 regime as TuneScope defines them
(docs/sweep.md, "L2 regimes"):
  cold: before every sample, TuneScope's flush (write a buffer of max(3 x L2, 64 MiB) rounded up to 16 MiB, then
        read all of it; kernels/common/gpu_backend.inc);
  warm: before every sample, a producer kernel writes the input again with the same values (write only, as the
        engine's producer), so the L2 holds as much of it as fits, as after the layer that made it.
Samples are queued without a host wait in between (the host runs ahead, as in the engine's pipelined samples and in
production); the profiler's kernel records give each l2norm launch's start/end, matched to the launches in order.

Per NB, every (config, regime) is measured `--samples` times per round, in a new shuffled order each round; a
config's table value is the median of its round medians, and the split-half noise is |median of the even rounds /
median of the odd rounds - 1| (per config; per NB the median over configs and the fastest config's).
With --export DIR, first FLA's own l2norm_fwd loads that folder in strict mode (FLA_CACHE_MODE=strict,
FLA_CONFIG_DIR=DIR; set before FLA is imported) and the autotuner's benchmark calls are counted (must be 0).

Python standard library + torch + triton. Usage:
  bench/triton_l2norm_cupti_table.py --fla-path .fla [--nb 1-32] [--rounds 40] [--samples 2] [--regimes cold,warm]
      [--export DIR] --json table.json
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
KERNEL_NAME = "l2norm_fwd_kernel"


def parse_list(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def config_key(bt, warps, stages):
    return f"{bt}/{warps}/{stages}"


def flush_bytes(l2_bytes):
    """TuneScope's cold-flush size (gpu_backend.inc coldFlushBytes on CUDA)."""
    n = max(3 * l2_bytes, 64 << 20)
    return (n + (16 << 20) - 1) & ~((16 << 20) - 1)


def kernel_records(prof, torch):
    """(start_ns, duration_ns, name) of every GPU kernel the profiler saw, in start order."""
    out = []
    try:
        for e in prof.profiler.kineto_results.events():
            if str(e.device_type()).endswith("CUDA"):
                out.append((e.start_ns(), e.duration_ns(), e.name()))
    except AttributeError:  # an older torch: the FunctionEvent list (times in us)
        for e in prof.events():
            if str(e.device_type).endswith("CUDA"):
                out.append((int(e.time_range.start * 1000), int(e.time_range.elapsed_us() * 1000), e.name))
    out.sort()
    return out


def strict_mode(mod, torch, autotuner, nbs, x_all):
    """FLA's l2norm_fwd per NB with the exported folder loaded in strict mode; the autotuner's benchmarks counted."""
    calls = {"n": 0}
    original = autotuner.Autotuner._bench

    def counted(self, *args, **kwargs):
        calls["n"] += 1
        return original(self, *args, **kwargs)

    autotuner.Autotuner._bench = counted
    strict = {}
    for nb in nbs:
        x = x_all[: nb * ROWS_PER_NB].view(nb * 16, ROWS_PER_NB // 16, D)
        before = calls["n"]
        y, rstd = mod.l2norm_fwd(x)
        torch.cuda.synchronize()
        key = (D, nb, str(x.dtype), str(y.dtype), str(rstd.dtype))
        cfg = getattr(mod.l2norm_fwd_kernel, "cache", {}).get(key)
        strict[nb] = {"config": config_key(cfg.kwargs.get("BT"), cfg.num_warps, cfg.num_stages) if cfg else None,
                      "bench_calls": calls["n"] - before}
    autotuner.Autotuner._bench = original
    return strict


def make_producer(triton):
    import triton.language as tl

    @triton.jit
    def _tunescope_produce(x_ptr, n, BLOCK: tl.constexpr):
        """Writes x[i] = a fixed function of i (never zero), reading nothing: the warm regime's producer."""
        i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        h = (i * 2654435761) & 0xFFFF
        v = (h.to(tl.float32) - 32767.5) / 8192.0
        tl.store(x_ptr + i, v.to(tl.bfloat16), mask=i < n)

    def produce(x):
        n = x.numel()
        _tunescope_produce[(triton.cdiv(n, 4096),)](x, n, BLOCK=4096, num_warps=8)

    return produce


def time_nb(nb, a, state):
    """One NB: every (config, regime) x rounds x samples inside one profiler session. Returns {regime: {cfg: [round
    medians]}} in us."""
    torch, triton, jit = state["torch"], state["triton"], state["jit"]
    T = nb * ROWS_PER_NB
    # One (x, y, r) per placement; round k runs on copy k mod K (the engine's --placements, docs/sweep.md).
    copies = [(x[:T], y[:T], r[:T]) for x, y, r in state["copies"]]
    configs = [(bt, w, 3) for w in WARPS_LIST for bt in BT_LIST]
    flush, produce = state["flush"], state["produce"]

    def prepare(regime, copy):
        if regime == "cold":
            flush.fill_(0x5A)
            torch.sum(flush.view(torch.int32))
        else:
            produce(copy[0])

    def launch(copy, bt, w, s):
        x, y, r = copy
        jit[(triton.cdiv(T, bt),)](x, y, r, 1e-6, T, D=D, BD=D, NB=nb, BT=bt, num_warps=w, num_stages=s)

    for copy in copies:  # load every binary before the profiler starts
        for c in configs:
            launch(copy, *c)
    torch.cuda.synchronize()
    order = []  # (regime, cfg key, round) per timed launch
    items = [(c, regime) for c in configs for regime in a.regimes]
    shuffle = random.Random(22000 + nb)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for rnd in range(a.rounds):
            copy = copies[rnd % len(copies)]
            todo = list(items)
            shuffle.shuffle(todo)
            for c, regime in todo:
                for _ in range(a.samples):
                    prepare(regime, copy)
                    launch(copy, *c)
                    order.append((regime, config_key(*c), rnd))
            torch.cuda.synchronize()
    records = [rec for rec in kernel_records(prof, torch) if rec[2] == KERNEL_NAME]
    if len(records) != len(order):
        sys.exit(f"NB {nb}: the profiler saw {len(records)} {KERNEL_NAME} launches, {len(order)} were made")
    samples = {}
    for (regime, key, rnd), (_, duration_ns, _) in zip(order, records):
        samples.setdefault(regime, {}).setdefault(key, {}).setdefault(rnd, []).append(duration_ns / 1000.0)
    return {regime: {key: [statistics.median(by_round[rnd]) for rnd in sorted(by_round)] for key, by_round in cfgs.items()}
            for regime, cfgs in samples.items()}


def split_half(rounds):
    even, odd = rounds[0::2], rounds[1::2]
    return abs(statistics.median(even) / statistics.median(odd) - 1) if even and odd else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fla-path", default="")
    ap.add_argument("--nb", default="1-32")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--samples", type=int, default=2, help="launches per (config, regime) per round")
    ap.add_argument("--regimes", default="cold,warm")
    ap.add_argument("--export", default="", help="export-fla's folder: FLA loads it in strict mode first")
    ap.add_argument("--placements", type=int, default=1, help="copies of x, y, rstd (each after its own pad); round "
                    "k runs on copy k mod K, as the engine's --placements")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    a.regimes = [r for r in a.regimes.split(",") if r]
    if any(r not in ("cold", "warm") for r in a.regimes):
        sys.exit("--regimes: cold and/or warm")
    nbs = parse_list(a.nb)
    if a.export:  # read once by FLA at import
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
    produce = make_producer(triton)
    if not 1 <= a.placements <= 8:
        sys.exit("--placements: 1 to 8")
    copies, pads = [], []
    for k in range(a.placements):
        if k:  # a pad of its own size (not a multiple of 2 MiB) before each further copy, as the engine's
            pads.append(torch.empty(k * ((2 << 20) + (36 << 10)), dtype=torch.uint8, device="cuda"))
        x_k = torch.empty(max(nbs) * ROWS_PER_NB, D, dtype=torch.bfloat16, device="cuda")
        produce(x_k)  # the values the warm producer writes again before every warm sample
        copies.append((x_k, torch.empty_like(x_k), torch.empty(x_k.shape[0], dtype=torch.float32, device="cuda")))
    x_all = copies[0][0]
    state = {"torch": torch, "triton": triton, "jit": mod.l2norm_fwd_kernel.fn, "copies": copies, "pads": pads,
             "flush": torch.empty(flush_bytes(l2), dtype=torch.uint8, device="cuda"), "produce": produce}
    report = {"device": props.name, "triton": triton.__version__, "torch": torch.__version__,
              "fla": getattr(fla, "__version__", "?"), "rounds": a.rounds, "samples": a.samples,
              "regimes": a.regimes, "placements": a.placements, "timer": "torch.profiler (CUPTI kernel records)"}
    print(f"cupti table: {props.name}, triton {triton.__version__}, torch {torch.__version__}, fla {report['fla']}, "
          f"{len(nbs)} NBs x 25 configs x {a.regimes}, {a.rounds} shuffled rounds x {a.samples} samples, flush "
          f"{state['flush'].numel() >> 20} MiB", flush=True)
    if a.export:
        strict = strict_mode(mod, torch, autotuner, nbs, x_all)
        report["strict"] = {str(nb): v for nb, v in strict.items()}
        print(f"strict: {a.export}: autotuner benchmark calls {sum(v['bench_calls'] for v in strict.values())}",
              flush=True)
    table, rounds_us, noise = {}, {}, {}
    t0 = time.time()
    for nb in nbs:
        measured = time_nb(nb, a, state)
        for regime, cfgs in measured.items():
            row = {k: statistics.median(v) for k, v in cfgs.items()}
            table.setdefault(regime, {})[str(nb)] = row
            rounds_us.setdefault(regime, {})[str(nb)] = cfgs
            best = min(row, key=row.get)
            halves = [split_half(v) for v in cfgs.values()]
            noise.setdefault(regime, {})[str(nb)] = {"median_over_configs": statistics.median(halves),
                                                      "fastest_config": split_half(cfgs[best])}
            print(f"  {regime} NB {nb:2d}: fastest {best} {row[best]:.2f} us, split-half noise "
                  f"{100 * noise[regime][str(nb)]['median_over_configs']:.2f}% (fastest "
                  f"{100 * noise[regime][str(nb)]['fastest_config']:.2f}%)", flush=True)
    report.update(table_us=table, rounds_us=rounds_us, split_half=noise, seconds=round(time.time() - t0, 1))
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
    print(f"cupti table: {len(nbs)} NBs in {report['seconds']:.0f} s; wrote {a.json}", flush=True)


if __name__ == "__main__":
    main()
