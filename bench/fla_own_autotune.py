#!/usr/bin/env python3
"""FLA's own autotune of l2norm_fwd_kernel, the baseline a TuneScope export must match or beat (docs/sweep.md, "Head
to head"; docs/triton-kernels.md).

Calls FLA's real l2norm_fwd once per NB with FLA_CACHE_MODE disabled (FLA's default), so Triton's autotuner times
FLA's 25 configs with its own do_bench and picks one per key, exactly as a user's first call does. Then writes
what it chose as FLA's config file (OUT/l2norm_fwd_kernel.json, the format export-fla writes and FLA loads), so that
`tunescope-cli confirm EXPORT --baseline OUT` measures the export against it, and
bench/triton_l2norm_dobench.py --baseline-fla OUT/l2norm_fwd_kernel.json reads its regret off the same table.
Python standard library + torch + triton only. Usage:
  bench/fla_own_autotune.py --fla-path .fla --nb 1-32 --out DIR
"""
import argparse
import hashlib
import json
import os
import sys
import time

from triton_l2norm_dobench import D, ROWS_PER_NB, parse_list  # same folder: one list parser, one problem size


def fla_key_hash(key):
    """FLA's entry id (fla/ops/utils/cache.py AutotuneKey.key_hash): md5 of the compact, sorted JSON of the key."""
    return hashlib.md5(json.dumps(key, separators=(",", ":"), sort_keys=True).encode()).hexdigest()


def config_dict(cfg):
    return {"kwargs": dict(cfg.kwargs), "num_warps": cfg.num_warps, "num_ctas": getattr(cfg, "num_ctas", 1),
            "num_stages": cfg.num_stages, "maxnreg": getattr(cfg, "maxnreg", None), "pre_hook": None,
            "ir_override": None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fla-path", default="", help="folder holding the 'fla' package (default: as installed)")
    ap.add_argument("--nb", default="1-32")
    ap.add_argument("--out", required=True, help="folder for l2norm_fwd_kernel.json (created)")
    a = ap.parse_args()
    if os.environ.get("FLA_CACHE_MODE", "disabled") != "disabled":
        sys.exit("fla_own_autotune: unset FLA_CACHE_MODE: FLA must autotune, not load a config file")
    if a.fla_path:
        sys.path.insert(0, a.fla_path)
    import torch
    import triton
    import fla
    from fla.modules import l2norm as mod

    kernel = mod.l2norm_fwd_kernel
    nbs = parse_list(a.nb)
    x_all = torch.randn(max(nbs) * ROWS_PER_NB, D, device="cuda").to(torch.bfloat16)
    x_all[x_all == 0] = 1
    entries, seconds = {}, {}
    for nb in nbs:
        x = x_all[: nb * ROWS_PER_NB].view(nb * 16, ROWS_PER_NB // 16, D)  # T = nb * 65536 rows
        t0 = time.time()
        mod.l2norm_fwd(x)
        torch.cuda.synchronize()
        seconds[nb] = time.time() - t0
        key = (D, nb, "torch.bfloat16", "torch.bfloat16", "torch.float32")
        cfg = getattr(kernel, "cache", {}).get(key)
        if cfg is None:
            sys.exit(f"fla_own_autotune: NB {nb}: the autotuner holds no config for key {key}")
        timings = getattr(kernel, "configs_timings", None) or {}
        best = timings.get(cfg)
        entries[fla_key_hash(list(key))] = {"autotune_key": list(key), "config": config_dict(cfg),
                                            "best_timing": list(best) if isinstance(best, (list, tuple)) else None}
        print(f"NB {nb:2d}: FLA's autotune chose BT={cfg.kwargs.get('BT')} num_warps={cfg.num_warps} "
              f"num_stages={cfg.num_stages} ({seconds[nb]:.1f} s for the first call)", flush=True)
    first = entries[sorted(entries)[0]]["config"]
    document = {"kernel_name": "l2norm_fwd_kernel", "triton_version": triton.__version__,
                "default_config": {k: first[k] for k in ("kwargs", "num_warps", "num_ctas", "num_stages")},
                "autotune_entries": entries}
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "l2norm_fwd_kernel.json")
    with open(path, "w") as f:
        json.dump(document, f, indent=2)
    print(f"fla_own_autotune: FLA {getattr(fla, '__version__', '?')}, Triton {triton.__version__}: {len(entries)} NBs "
          f"autotuned in {sum(seconds.values()):.0f} s of first calls; wrote {path}", flush=True)


if __name__ == "__main__":
    main()
