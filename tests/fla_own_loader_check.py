#!/usr/bin/env python3
"""Checks an export-fla folder with FLA's own loader (fla/ops/utils/cache.py), not a re-implementation of it.

Usage: fla_own_loader_check.py MANIFEST --fla-root DIR [--allow-other-source]

MANIFEST is the profile export-fla wrote beside l2norm_fwd_kernel.json. DIR holds FLA's `fla` package (a checkout
or an installed site-packages folder; never committed to TuneScope). Needs torch, triton and packaging, so it runs
on a GPU machine, not in CI (tests/fla_strict_check.py is the CI check). Steps:
  1. SHA-256 of FLA's ops/utils/cache.py and modules/l2norm.py against the profile's fla_source_sha256 (exit 1 on
     a mismatch: the check would run another FLA than the profile was made for), and l2norm.py's NB formula and key.
  2. In strict mode, FLA's load_cached_config for every NB of the profile, with the key built by FLA's own
     AutotuneKey.build from real tensors, must return the profile's config; NB_max + 1 must return None (Triton
     would autotune: docs/formats.md, "Shapes outside the profile").
  3. In fuzzy mode, NB_max + 1 gets the first entry in file order (NB_min's config), as docs/formats.md says.
Prints one line per check and "OK" last; exit 0 all held, 1 a check failed, 2 usage.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import sys


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest")
    parser.add_argument("--fla-root", required=True, help="folder that contains the fla package")
    parser.add_argument("--allow-other-source", action="store_true", help="report a digest mismatch, do not stop")
    args = parser.parse_args()

    with open(args.manifest) as f:
        profile = json.load(f)
    export_dir = os.path.dirname(os.path.abspath(args.manifest))
    fla_pkg = os.path.join(args.fla_root, "fla")
    failures = []

    expected = profile.get("fla_source_sha256") or {}
    for rel in ("ops/utils/cache.py", "modules/l2norm.py"):
        path = os.path.join(fla_pkg, rel)
        if not os.path.isfile(path):
            print("missing %s" % path)
            return 2
        digest = sha256(path)
        want = expected.get(rel)
        status = "no digest in the profile" if want is None else ("matches" if want == digest else "DIFFERS")
        print("fla/%s sha256 %s: %s" % (rel, digest, status))
        if want is not None and want != digest and not args.allow_other_source:
            failures.append("fla/%s differs from the profile's fla_source_sha256" % rel)
    with open(os.path.join(fla_pkg, "modules", "l2norm.py")) as f:
        l2norm_source = f.read()
    for needle in ("NB = triton.cdiv(T, 2048 * 32)", 'key=["D", "NB"]'):
        found = needle in l2norm_source
        print("l2norm.py has %r: %s" % (needle, found))
        if not found:
            failures.append("l2norm.py no longer has %r" % needle)
    if failures:
        for f in failures:
            print("FAILED: " + f)
        return 1

    # FLA reads its mode and folder when cache.py is imported. Load cache.py alone: importing the fla package
    # would pull in every model and layer.
    os.environ["FLA_CONFIG_DIR"] = export_dir
    os.environ["FLA_CACHE_MODE"] = "strict"
    spec = importlib.util.spec_from_file_location("fla_cache_under_test", os.path.join(fla_pkg, "ops", "utils", "cache.py"))
    cache = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cache)
    import torch

    supported = profile["supported"]
    dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
    x = torch.empty(1, dtype=dtype[supported["body_dtype"].replace("torch.", "")])
    y = torch.empty(1, dtype=dtype[supported["output_dtype"].replace("torch.", "")])
    rstd = torch.empty(1, dtype=dtype[supported["rstd_dtype"].replace("torch.", "")])
    D = supported["head_dimension"]
    arg_names = ["x", "y", "rstd", "eps", "T", "D", "BD", "NB", "BT"]

    def key_for(nb):  # l2norm_fwd calls the kernel with keyword arguments only
        kwargs = dict(x=x, y=y, rstd=rstd, eps=1e-6, T=nb * 65536, D=D, BD=D, NB=nb)
        return cache.AutotuneKey.build(arg_names, ["D", "NB"], (), kwargs)

    def same(found, config):
        return found is not None and all(found.get(k) == config.get(k) for k in ("kwargs", "num_warps", "num_stages", "num_ctas"))

    policy = {e["NB"]: e["config"] for e in profile["per_NB_policy"]}
    lo, hi = supported["NB_min"], supported["NB_max"]
    wrong = [nb for nb in range(lo, hi + 1) if not same(cache.load_cached_config("l2norm_fwd_kernel", key_for(nb)), policy[nb])]
    print("strict: FLA's loader gave the profile's config for %d of %d NBs" % (hi - lo + 1 - len(wrong), hi - lo + 1))
    if wrong:
        failures.append("strict: wrong or no config for NB %s" % wrong)
    outside = cache.load_cached_config("l2norm_fwd_kernel", key_for(hi + 1))
    print("strict: NB %d (outside) -> %s (None: Triton autotunes)" % (hi + 1, outside))
    if outside is not None:
        failures.append("strict: NB %d outside the profile got a config" % (hi + 1))

    cache.FLA_CACHE_MODE = cache.FlaCacheMode.FUZZY
    fuzzy = cache.load_cached_config("l2norm_fwd_kernel", key_for(hi + 1))
    print("fuzzy: NB %d (outside) -> %s" % (hi + 1, fuzzy))
    if not same(fuzzy, policy[lo]):
        failures.append("fuzzy: NB %d did not get NB %d's config, as docs/formats.md says" % (hi + 1, lo))

    for f in failures:
        print("FAILED: " + f)
    if failures:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
