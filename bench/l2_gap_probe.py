#!/usr/bin/env python3
"""Issue 22's open question (BENCHMARKS.md run 14): in the warm L2 regime the engine's CUPTI durations of FLA's
l2norm_fwd_kernel read ~1.1 us under the same-run Python table's (bench/triton_l2norm_cupti_table.py), cold ones
0.2-0.5 us at NB 1-5. One difference between the two is the stream's timing: the engine queues the producer (or
the flush) and the kernel back to back, while the table launches both from Python, so the GPU may idle between
them. This probe times the same binaries (the Triton cache the engine reads, through FLA's JIT function) by CUPTI
(torch.profiler kernel records) in three launch modes, per NB and config, in shuffled rounds:
  eager: prepare (flush or producer) and kernel launched from Python, no wait (the table as it is);
  gap:   the same with a host synchronize between prepare and kernel (the GPU idles before the kernel);
  graph: prepare + kernel captured once in a CUDA graph and replayed (no host in between: as the engine queues
         them, and as a model run from CUDA graphs does).
If graph reads like the engine and eager like gap, the host's launch gap makes the table's numbers, and the table
should time graphs; if all three agree, the difference is in the producers themselves.

Python standard library + torch + triton; FLA's source for its JIT function. Usage:
  bench/l2_gap_probe.py --fla-path .fla --nb 1,2,3,4,8,16 [--rounds 20] [--samples 2] --json probe.json
  bench/l2_gap_probe.py --fla-path .fla --nb 1,2 --allocations 4 --rounds 40 --json alloc.json
With --allocations K the question is another one (issue 22's cold NB 1-2 spread, and issue 24's l2norm regret at
NB 1, where C++ and Python disagree per config by up to 3%): each round runs on one of K buffer allocations; if
the configs' times or ranking move between allocations as much, placement and not the timer makes the spread.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_l2norm_cupti_table as table  # noqa: E402  (same folder: producer, flush size, kernel records)

MODES = ("eager", "gap", "graph")


def prepare_sample(state, regime, x):
    """What the L2 holds when a sample starts: TuneScope's cold flush, or the warm producer writing x again."""
    torch = state["torch"]
    if regime == "cold":
        state["flush"].fill_(0x5A)
        torch.sum(state["flush"].view(torch.int32))
    else:
        state["produce"](x)


def round_medians(prof, torch, order, nb):
    """Matches the profiler's l2norm kernel records to `order` ((group, config key, round) per launch, in launch
    order); returns {group: {config key: [round medians in us]}}."""
    records = [rec for rec in table.kernel_records(prof, torch) if rec[2] == table.KERNEL_NAME]
    if len(records) != len(order):
        sys.exit(f"NB {nb}: the profiler saw {len(records)} {table.KERNEL_NAME} launches, {len(order)} were made")
    samples = {}
    for (group, key, rnd), (_, ns, _) in zip(order, records):
        samples.setdefault(group, {}).setdefault(key, {}).setdefault(rnd, []).append(ns / 1000.0)
    return {g: {key: [statistics.median(v[rnd]) for rnd in sorted(v)] for key, v in cfgs.items()}
            for g, cfgs in samples.items()}


def time_nb(nb, a, state):
    torch, triton, jit = state["torch"], state["triton"], state["jit"]
    T = nb * table.ROWS_PER_NB
    if a.allocations > 1:
        return time_nb_allocations(nb, a, state)
    x, y, r = state["x"][:T], state["y"][:T], state["r"][:T]
    configs = [(bt, w, 3) for w in table.WARPS_LIST for bt in table.BT_LIST]

    def prepare(regime):
        prepare_sample(state, regime, x)

    def launch(bt, w, s):
        jit[(triton.cdiv(T, bt),)](x, y, r, 1e-6, T, D=table.D, BD=table.D, NB=nb, BT=bt, num_warps=w, num_stages=s)

    for c in configs:
        launch(*c)
    torch.cuda.synchronize()
    graphs = {}
    if "graph" in a.modes:
        stream = torch.cuda.Stream()
        for c in configs:
            for regime in a.regimes:
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=stream):
                    for _ in range(a.samples):
                        prepare(regime)
                        launch(*c)
                graphs[(c, regime)] = g
        torch.cuda.synchronize()
    items = [(c, regime, mode) for c in configs for regime in a.regimes for mode in a.modes]
    shuffle = random.Random(22400 + nb)
    order = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for rnd in range(a.rounds):
            todo = list(items)
            shuffle.shuffle(todo)
            for c, regime, mode in todo:
                if mode == "graph":
                    graphs[(c, regime)].replay()
                else:
                    for _ in range(a.samples):
                        prepare(regime)
                        if mode == "gap":
                            torch.cuda.synchronize()
                        launch(*c)
                order += [(f"{regime}/{mode}", table.config_key(*c), rnd)] * a.samples
            torch.cuda.synchronize()
    del graphs
    return round_medians(prof, torch, order, nb)


def time_nb_allocations(nb, a, state):
    """--allocations K: eager launches only, and each round's input/output buffers are the round's own allocation
    (K of them, each at another offset of a few pages): does a config's time, or the configs' ranking, depend on
    where the buffers lie? Results under "REGIME/eager/aK"."""
    torch, triton, jit = state["torch"], state["triton"], state["jit"]
    T = nb * table.ROWS_PER_NB
    configs = [(bt, w, 3) for w in table.WARPS_LIST for bt in table.BT_LIST]
    buffers = []
    for k in range(a.allocations):
        pad = torch.empty((k * 7 + 1) * 4096, dtype=torch.uint8, device="cuda")  # shifts the next allocation
        x = torch.empty(T, table.D, dtype=torch.bfloat16, device="cuda")
        state["produce"](x)
        buffers.append((pad, x, torch.empty_like(x), torch.empty(T, dtype=torch.float32, device="cuda")))

    def launch(k, bt, w, s):
        _, x, y, r = buffers[k]
        jit[(triton.cdiv(T, bt),)](x, y, r, 1e-6, T, D=table.D, BD=table.D, NB=nb, BT=bt, num_warps=w, num_stages=s)

    for k in range(a.allocations):
        for c in configs:
            launch(k, *c)
    torch.cuda.synchronize()
    items = [(c, regime) for c in configs for regime in a.regimes]
    shuffle = random.Random(22500 + nb)
    order = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for rnd in range(a.rounds):
            k = rnd % a.allocations
            todo = list(items)
            shuffle.shuffle(todo)
            for c, regime in todo:
                for _ in range(a.samples):
                    prepare_sample(state, regime, buffers[k][1])
                    launch(k, *c)
                order += [(f"{regime}/eager/a{k}", table.config_key(*c), rnd)] * a.samples
            torch.cuda.synchronize()
    return round_medians(prof, torch, order, nb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fla-path", default="")
    ap.add_argument("--nb", default="1,2,3,4,8,16")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--regimes", default="cold,warm")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--allocations", type=int, default=1, help="K > 1: eager only, each round on one of K "
                                                                   "buffer allocations (does placement matter?)")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    a.regimes = [r for r in a.regimes.split(",") if r]
    a.modes = [m for m in a.modes.split(",") if m]
    if any(r not in ("cold", "warm") for r in a.regimes) or any(m not in MODES for m in a.modes):
        sys.exit("--regimes: cold and/or warm; --modes: eager, gap, graph")
    if a.fla_path:
        sys.path.insert(0, a.fla_path)
    import torch
    import triton
    from fla.modules import l2norm as mod
    nbs = table.parse_list(a.nb)
    props = torch.cuda.get_device_properties(0)
    produce = table.make_producer(triton)
    x_all = torch.empty(max(nbs) * table.ROWS_PER_NB, table.D, dtype=torch.bfloat16, device="cuda")
    produce(x_all)
    state = {"torch": torch, "triton": triton, "jit": mod.l2norm_fwd_kernel.fn, "x": x_all,
             "y": torch.empty_like(x_all), "r": torch.empty(x_all.shape[0], dtype=torch.float32, device="cuda"),
             "flush": torch.empty(table.flush_bytes(getattr(props, "L2_cache_size", 50 << 20)), dtype=torch.uint8,
                                  device="cuda"), "produce": produce}
    report = {"device": props.name, "triton": triton.__version__, "torch": torch.__version__, "rounds": a.rounds,
              "samples": a.samples, "regimes": a.regimes, "modes": a.modes,
              "timer": "torch.profiler (CUPTI kernel records)", "table_us": {}, "rounds_us": {}}
    t0 = time.time()
    for nb in nbs:
        measured = time_nb(nb, a, state)
        for rm, cfgs in measured.items():
            report["table_us"].setdefault(rm, {})[str(nb)] = {k: statistics.median(v) for k, v in cfgs.items()}
            report["rounds_us"].setdefault(rm, {})[str(nb)] = cfgs
        line = ", ".join(f"{rm} {statistics.median(report['table_us'][rm][str(nb)].values()):.2f}"
                         for rm in sorted(measured))
        print(f"NB {nb:2d} (median over configs, us): {line}", flush=True)
    report["seconds"] = round(time.time() - t0, 1)
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
    print(f"l2 gap probe: {len(nbs)} NBs in {report['seconds']:.0f} s; wrote {a.json}", flush=True)


if __name__ == "__main__":
    main()
