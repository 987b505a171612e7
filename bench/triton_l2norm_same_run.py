#!/usr/bin/env python3
"""FLA's l2norm_fwd_kernel (v0.5.2 math and launch, NB dropped: it is unused) timed on this GPU the way
tunescope-cli bench-l2norm times its kernels: CUDA events around one launch, the L2 flushed before each sample by
writing and then reading a buffer of 3x the L2, median of N samples. Also triton.testing.do_bench's number (a
memset-only flush), the method of shared/reference/h200-l2norm-triton-table.md, for calibration against it.

Usage: python3 bench/triton_l2norm_same_run.py [--nb 1-32] [--samples 25] [--json out.json]
"""
import argparse
import json
import statistics

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["T"])
def l2norm_fwd_kernel(x, y, rstd, eps, T, D: tl.constexpr, BD: tl.constexpr, BT: tl.constexpr):
    i_t = tl.program_id(0).to(tl.int64)
    o_t = i_t * BT + tl.arange(0, BT)
    o_d = tl.arange(0, BD)
    m_t = o_t < T
    m_x = m_t[:, None] & (o_d[None, :] < D)
    b_x = tl.load(x + o_t[:, None] * D + o_d[None, :], mask=m_x, other=0).to(tl.float32)
    b_rstd = 1 / tl.sqrt(tl.sum(b_x * b_x, 1) + eps)
    b_y = b_x * b_rstd[:, None]
    tl.store(y + o_t[:, None] * D + o_d[None, :], b_y.to(y.dtype.element_ty), mask=m_x)
    tl.store(rstd + o_t, b_rstd.to(rstd.dtype.element_ty), mask=m_t)


def parse_nb(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nb", default="1-32")
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--configs", default="8/1,8/2,8/4,16/4,16/2,32/4,64/8")
    parser.add_argument("--do-bench", action="store_true", help="also time with triton.testing.do_bench")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    configs = [tuple(int(v) for v in c.split("/")) for c in args.configs.split(",")]
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 << 20)
    flush = torch.empty(3 * l2 // 4, dtype=torch.float32, device="cuda")
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    eps = 1e-6
    results = []
    print(f"triton {triton.__version__}, torch {torch.__version__}, {props.name}, L2 {l2 >> 20} MiB, flush {flush.numel() * 4 >> 20} MiB write+read")
    print("  NB | " + " ".join(f"{bt:>3}/{w:<2} us" for bt, w in configs) + " | best (ours-method) | do_bench best")
    max_rows = max(parse_nb(args.nb)) * 65536
    x_all = (torch.randn(max_rows, 128, device="cuda") * 2).to(torch.bfloat16)
    x_all[x_all == 0] = 1
    y_all = torch.empty_like(x_all)
    r_all = torch.empty(max_rows, dtype=torch.float32, device="cuda")
    for nb in parse_nb(args.nb):
        T = nb * 65536
        x, y, r = x_all[:T], y_all[:T], r_all[:T]
        row = {"nb": nb, "rows": T, "events_us": {}, "do_bench_us": {}}
        for bt, w in configs:
            grid = (triton.cdiv(T, bt),)
            fn = lambda: l2norm_fwd_kernel[grid](x, y, r, eps, T, D=128, BD=128, BT=bt, num_warps=w, num_stages=3)
            for _ in range(3):
                fn()
            times = []
            for _ in range(args.samples):
                flush.fill_(1.0)
                flush.sum()
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop) * 1e3)
            row["events_us"][f"{bt}/{w}"] = statistics.median(times)
            if args.do_bench:
                row["do_bench_us"][f"{bt}/{w}"] = triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median") * 1e3
        best = min(row["events_us"].items(), key=lambda kv: kv[1])
        best_db = min(row["do_bench_us"].items(), key=lambda kv: kv[1]) if args.do_bench else ("-", float("nan"))
        print(f"{nb:4d} | " + " ".join(f"{row['events_us'][f'{bt}/{w}']:9.1f}" for bt, w in configs)
              + f" | {best[0]:>5} {best[1]:7.1f} | {best_db[0]:>5} {best_db[1]:7.1f}", flush=True)
        results.append(row)
    # Correctness spot check of the last NB against torch in fp32.
    ref = x.float() * torch.rsqrt((x.float() ** 2).sum(-1, keepdim=True) + eps)
    err = (y.float() - ref).abs().max().item()
    print(f"max |y - torch fp32 ref| at NB {nb}: {err:.3g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "triton": triton.__version__, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
