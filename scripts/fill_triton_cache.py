#!/usr/bin/env python3
"""Fill a Triton cache with FLA's l2norm_fwd_kernel for every config x NB asked for: compile only, no benchmark.

For machines where FLA's autotune never ran: TuneScope's `sweep --kernel triton --triton-cache DIR` then launches
these exact binaries from C++ (docs/triton-kernels.md). Uses the user's own Triton and FLA (import path as usual,
or --fla-path). Each variant is compiled through the kernel's own JIT function with `warmup()`, so the cache entry
is byte-for-byte the one FLA's launcher would produce and reuse for the same key.

Beside Triton's per-hash folders it writes `tunescope-triton-index.json`: per compiled variant its metadata hash,
folder, constexprs (D, BD, NB, BT), launch settings and argument types, so that the reader need not guess what a
binary was specialised for.

    TRITON_CACHE_DIR=/tmp/tcache python3 scripts/fill_triton_cache.py --nb 1-32 --bt 8,16,32,64,128 \
        --warps 1,2,4,8,16 --jobs 8
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import sys
import time

INDEX_FORMAT = "tunescope-triton-index-v1"
INDEX_NAME = "tunescope-triton-index.json"
ROWS_PER_NB = 65536  # FLA: NB = cdiv(T, 2048 * 32)


def parse_list(text, what):
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    if not out:
        raise SystemExit(f"fill_triton_cache: {what} is empty")
    return sorted(set(out))


def import_kernel(fla_path):
    if fla_path:
        sys.path.insert(0, fla_path)
    import fla  # noqa: F401  (the user's FLA; its version goes into the index)
    from fla.modules import l2norm as mod
    kernel = mod.l2norm_fwd_kernel
    jit = kernel.fn if hasattr(kernel, "fn") else kernel  # fla_cache_autotune wraps the JIT function
    return fla, mod, jit


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def compile_chunk(args):
    """Compiles one list of (nb, bt, warps, stages) in this process; returns index entries."""
    fla_path, items, D, dtype_name = args
    import torch
    import triton
    fla, mod, jit = import_kernel(fla_path)
    dtype = getattr(torch, dtype_name)
    x = torch.empty((16, D), dtype=dtype, device="cuda")
    y = torch.empty_like(x)
    rstd = torch.empty((16,), dtype=torch.float32, device="cuda")
    BD = min(65536 // x.element_size(), triton.next_power_of_2(D))
    entries = []
    for nb, bt, warps, stages in items:
        T = nb * ROWS_PER_NB  # the bucket's upper edge; T is not specialised (do_not_specialize), only its type
        kwargs = dict(D=D, BD=BD, NB=nb, BT=bt, num_warps=warps)
        if stages is not None:
            kwargs["num_stages"] = stages
        t0 = time.time()
        compiled = jit.warmup(x, y, rstd, 1e-6, T, grid=(triton.cdiv(T, bt),), **kwargs)
        md = compiled.metadata
        md_hash = md.hash if hasattr(md, "hash") else md["hash"]
        entries.append({
            "hash": md_hash,
            "kernel": jit.__name__,
            "constexprs": {"D": D, "BD": BD, "NB": nb, "BT": bt},
            "num_warps": warps,
            "num_stages": stages if stages is not None else getattr(md, "num_stages", None),
            "num_stages_explicit": stages is not None,
            "num_ctas": getattr(md, "num_ctas", 1),
            "arg_types": {"x": str(x.dtype), "y": str(y.dtype), "rstd": str(rstd.dtype), "eps": "fp32",
                          "T": "i32" if T < 2**31 else "i64"},
            "compile_s": round(time.time() - t0, 3),
        })
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nb", default="1-32", help="NB list, e.g. 1-32 or 1,2,4 (default 1-32)")
    ap.add_argument("--bt", default="8,16,32,64,128", help="BT list (default FLA's 8,16,32,64,128)")
    ap.add_argument("--warps", default="1,2,4,8,16", help="num_warps list (default FLA's 1,2,4,8,16)")
    ap.add_argument("--stages", default="", help="num_stages list; empty (default) = Triton's default, as FLA's configs")
    ap.add_argument("--D", type=int, default=128, help="head dim (default 128)")
    ap.add_argument("--dtype", default="bfloat16", help="x/y dtype name in torch (default bfloat16)")
    ap.add_argument("--fla-path", default="", help="folder that holds the 'fla' package (default: import as installed)")
    ap.add_argument("--jobs", type=int, default=max(1, min(16, (os.cpu_count() or 2))), help="compile processes")
    ap.add_argument("--cache-dir", default="", help="Triton cache folder (default: $TRITON_CACHE_DIR or ~/.triton/cache)")
    a = ap.parse_args()

    if a.cache_dir:
        os.environ["TRITON_CACHE_DIR"] = a.cache_dir
    cache_dir = os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    os.makedirs(cache_dir, exist_ok=True)

    nbs = parse_list(a.nb, "--nb")
    bts = parse_list(a.bt, "--bt")
    warps = parse_list(a.warps, "--warps")
    stages = parse_list(a.stages, "--stages") if a.stages else [None]
    items = [(nb, bt, w, s) for nb in nbs for bt in bts for w in warps for s in stages]
    jobs = max(1, min(a.jobs, len(items)))
    chunks = [items[i::jobs] for i in range(jobs)]
    t0 = time.time()
    entries = []
    ctx = __import__("multiprocessing").get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        for part in pool.map(compile_chunk, [(a.fla_path, c, a.D, a.dtype) for c in chunks]):
            entries.extend(part)

    import triton
    fla, mod, jit = import_kernel(a.fla_path)
    src_sha = sha256_file(mod.__file__)
    # Each variant's folder and binary, found through Triton's own metadata files.
    by_hash = {}
    for root, _dirs, files in os.walk(cache_dir):
        for f in files:
            if f == f"{jit.__name__}.json":
                try:
                    with open(os.path.join(root, f)) as fh:
                        md = json.load(fh)
                except (OSError, ValueError):
                    continue
                by_hash[md.get("hash")] = (root, md)
    for e in entries:
        root, md = by_hash.get(e["hash"], (None, None))
        if root is None:
            raise SystemExit(f"fill_triton_cache: compiled variant {e['hash']} has no metadata file under {cache_dir}")
        e["folder"] = os.path.relpath(root, cache_dir)
        binary = next((os.path.join(root, f"{jit.__name__}.{ext}") for ext in ("cubin", "hsaco")
                       if os.path.exists(os.path.join(root, f"{jit.__name__}.{ext}"))), None)
        e["binary"] = os.path.basename(binary) if binary else None
        e["binary_sha256"] = sha256_file(binary) if binary else None
        e["target"] = md.get("target")
    entries.sort(key=lambda e: (e["constexprs"]["NB"], e["constexprs"]["BT"], e["num_warps"], e["num_stages"] or 0))
    index = {
        "format": INDEX_FORMAT,
        "kernel": jit.__name__,
        "triton_version": triton.__version__,
        "fla_version": getattr(fla, "__version__", None),
        "fla_l2norm_source_sha256": src_sha,
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "variants": entries,
    }
    path = os.path.join(cache_dir, INDEX_NAME)
    old = {}
    if os.path.exists(path):
        try:
            with open(path) as fh:
                old = json.load(fh)
        except (OSError, ValueError):
            old = {}
    if old.get("format") == INDEX_FORMAT and old.get("kernel") == index["kernel"]:
        known = {e["hash"] for e in entries}
        index["variants"] = [e for e in old.get("variants", []) if e.get("hash") not in known] + entries
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(index, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)
    print(f"fill_triton_cache: {len(entries)} variants of {jit.__name__} (Triton {triton.__version__}, "
          f"FLA {index['fla_version']}) in {cache_dir}, {time.time() - t0:.1f} s; index {path}")


if __name__ == "__main__":
    main()
