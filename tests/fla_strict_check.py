#!/usr/bin/env python3
"""Checks an exported folder the way FLA >= 0.5.2 reads it with FLA_CONFIG_DIR=<dir> FLA_CACHE_MODE=strict.

An independent re-statement of FLA's documented contract (fla/ops/utils/cache.py), without torch or triton:
  - <dir>/l2norm_fwd_kernel.json is read with Python's json module;
  - the root is a dict; autotune_entries is a dict of dicts, each with a dict "config"; default_config is a dict;
  - strict mode looks an entry up by md5(json.dumps(key, separators=(",", ":"), sort_keys=True)) of the runtime
    key (D, NB, str(x.dtype), str(y.dtype), str(rstd.dtype));
  - the config must have kwargs, num_warps, num_stages and num_ctas (plain indexing); maxnreg and ir_override are
    read with .get.
Usage: fla_strict_check.py DIR D KEY_HEADS BATCH_MAX PADDED_TOKENS_MAX [DTYPE_BODY DTYPE_OUT DTYPE_RSTD]
Prints one line per NB and exits 0 when every NB of the profile's range finds its entry.
"""
import hashlib
import json
import math
import os
import sys


def key_hash(key):
    return hashlib.md5(json.dumps(list(key), separators=(",", ":"), sort_keys=True).encode()).hexdigest()


def main():
    folder, d, heads, bmax, lmax = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    dtypes = sys.argv[6:9] if len(sys.argv) >= 9 else ["torch.bfloat16", "torch.bfloat16", "torch.float32"]
    with open(os.path.join(folder, "l2norm_fwd_kernel.json")) as f:
        data = json.load(f)
    assert isinstance(data, dict), "root is not a dict"
    entries = data.get("autotune_entries")
    assert isinstance(entries, dict), "autotune_entries is not a dict"
    for h, entry in entries.items():
        assert isinstance(entry, dict) and isinstance(entry.get("config"), dict), f"entry {h} has no config dict"
    default = data.get("default_config")
    assert default is None or isinstance(default, dict), "default_config is not a dict"
    nb_max = math.ceil(bmax * lmax * heads / 65536)
    for nb in range(1, nb_max + 1):
        key = (d, nb, *dtypes)
        entry = entries.get(key_hash(key))
        assert entry is not None, f"NB {nb}: no entry for key {list(key)} (hash {key_hash(key)})"
        config = entry["config"]
        kwargs, warps, stages, ctas = config["kwargs"], config["num_warps"], config["num_stages"], config["num_ctas"]
        maxnreg, ir_override = config.get("maxnreg"), config.get("ir_override")
        assert isinstance(kwargs, dict) and "BT" in kwargs, f"NB {nb}: kwargs without BT"
        print(f"NB {nb}: BT={kwargs['BT']} num_warps={warps} num_stages={stages} num_ctas={ctas} "
              f"maxnreg={maxnreg} ir_override={ir_override}")
    print(f"ok: {nb_max} keys found")


if __name__ == "__main__":
    main()
