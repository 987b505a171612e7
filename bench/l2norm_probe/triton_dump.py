#!/usr/bin/env python3
"""Compile FLA's l2norm_fwd_kernel with Triton for a few launch shapes and write each cubin, its PTX and a small
JSON (kernel name, threads, dynamic shared memory) to a folder, so that bench/l2norm_probe/probe.cu can time
Triton's own machine code in the same process, on the same buffers and with the same cold-L2 method as ours.

Usage: python3 bench/l2norm_probe/triton_dump.py OUT_DIR [--configs 8/4,16/4,...]
"""
import argparse
import json
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from triton_l2norm_same_run import l2norm_fwd_kernel  # noqa: E402  (the FLA kernel, one definition)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--configs", default=",".join(f"{bt}/{w}" for bt in (8, 16, 32, 64, 128) for w in (1, 2, 4, 8, 16)))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = 65536
    x = torch.randn(rows, 128, device="cuda").to(torch.bfloat16)
    y = torch.empty_like(x)
    r = torch.empty(rows, dtype=torch.float32, device="cuda")
    index = []
    for text in args.configs.split(","):
        bt, warps = (int(v) for v in text.split("/"))
        grid = (triton.cdiv(rows, bt),)
        kernel = l2norm_fwd_kernel[grid](x, y, r, 1e-6, rows, D=128, BD=128, BT=bt, num_warps=warps, num_stages=3)
        torch.cuda.synchronize()
        stem = f"triton_bt{bt}_w{warps}"
        with open(os.path.join(args.out, stem + ".cubin"), "wb") as f:
            f.write(kernel.asm["cubin"])
        with open(os.path.join(args.out, stem + ".ptx"), "w") as f:
            f.write(kernel.asm["ptx"])
        meta = kernel.metadata
        entry = {"stem": stem, "bt": bt, "warps": warps, "name": meta.name, "threads": 32 * meta.num_warps,
                 "shared": meta.shared}
        index.append(entry)
        print(json.dumps(entry), flush=True)
    with open(os.path.join(args.out, "index.txt"), "w") as f:
        for e in index:
            f.write(f"{e['stem']} {e['bt']} {e['warps']} {e['threads']} {e['shared']} {e['name']}\n")


if __name__ == "__main__":
    main()
