#!/usr/bin/env python3
"""Checks an FLA_CONFIG_DIR that `tunescope-cli capture export-fla` wrote, the way FLA >= 0.5.2 reads it with
FLA_CONFIG_DIR=<dir> FLA_CACHE_MODE=strict, for every kernel and key of the capture that has a choice.

    fla_config_dir_check.py DIR --capture M.json (--choices C.json | --captured) [--fla-source SRC | --own-loader]

Without --own-loader: a restatement of FLA's loader (fla/ops/utils/cache.py), standard library only, so it runs in
CI: each {kernel_name}.json is read with Python's json; the root is a dict, autotune_entries a dict of dicts each with
a dict "config", default_config a dict; strict mode looks an entry up by md5(json.dumps(key, separators=(",", ":"),
sort_keys=True)) of the launch's key and needs kwargs, num_warps, num_stages and num_ctas in its config (maxnreg and
ir_override by .get). It also checks the folder's manifest (tunescope-fla-config-dir.json: every file's SHA-256 and
size, the capture's digest, device and stack, and its own digest), that every chosen config is the capture's, that no
key without a choice has an entry, and with --captured that every file is byte for byte what scripts/fla_capture.py's
write_fla_config_dir writes for the capture.

--own-loader: FLA's own cache.py from its source (--fla-source, else $TUNESCOPE_FLA_SOURCE, else <repo>/.fla) in
strict mode, its torch/triton imports stood in for as tests/fla_capture_test.py does: load_cached_config of every
launch's key must return the chosen config. Where FLA's source is not here it prints "SKIP: ..." and exits 0.
Exit 0 when everything holds, 1 when a check fails, 2 usage.
"""
import argparse
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fla_manifest_check as fmc  # noqa: E402

MANIFEST = "tunescope-fla-config-dir.json"


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def wanted_choices(capture, args):
    """{(kernel, key_hash): config index} the folder must hold."""
    if args.captured:
        out = {}
        for kernel in capture["kernels"]:
            for launch in kernel["launches"]:
                chosen = launch["autotune"]["chosen_config"]
                if chosen is not None:
                    out.setdefault((kernel["kernel_name"], launch["key_hash"]), chosen)
        return out
    with open(args.choices) as f:
        return {(c["kernel_name"], c["key_hash"]): c["config"] for c in json.load(f)["choices"]}


def check_manifest(folder, capture, failures):
    with open(os.path.join(folder, MANIFEST)) as f:
        m = json.load(f)
    if m.get("format") != "tunescope-fla-config-dir-v1":
        failures.append(f"{MANIFEST}: format {m.get('format')!r}")
    body = {k: v for k, v in m.items() if k != "digest"}
    if m.get("digest", {}).get("value") != hashlib.sha256(fmc.canonical_json(body).encode()).hexdigest():
        failures.append(f"{MANIFEST}: its digest is not the SHA-256 of its canonical body")
    if m["capture"]["digest"] != capture["digest"]["value"]:
        failures.append(f"{MANIFEST}: capture digest {m['capture']['digest']} is not the capture's")
    if m["device"] != capture["device"] or m["stack"] != capture["stack"]:
        failures.append(f"{MANIFEST}: device or stack is not the capture's")
    for entry in m["files"]:
        path = os.path.join(folder, entry["name"])
        if not os.path.isfile(path):
            failures.append(f"{MANIFEST}: {entry['name']} is missing")
        elif sha256(path) != entry["sha256"] or os.path.getsize(path) != entry["bytes"]:
            failures.append(f"{MANIFEST}: {entry['name']} has another SHA-256 or size than recorded")
    listed = {e["name"] for e in m["files"]} | {MANIFEST, MANIFEST + ".sig.json"}  # and its signature (sign DIR)
    for name in os.listdir(folder):
        if name not in listed:
            failures.append(f"{name} is in the folder but not in {MANIFEST}")
    return m


def check_like_fla(folder, capture, wanted, failures):
    """FLA's strict lookup, restated: every launch of a chosen key finds the chosen config."""
    checked = 0
    for kernel in capture["kernels"]:
        name = kernel["kernel_name"]
        path = os.path.join(folder, f"{name}.json")
        keys = {k for (n, k) in wanted if n == name}
        if not keys:
            if os.path.exists(path):
                failures.append(f"{name}.json exists, but no key of {name} has a choice")
            continue
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or data.get("kernel_name") != name:
            failures.append(f"{name}.json: root is not a dict of kernel {name}")
            continue
        entries = data.get("autotune_entries")
        if not isinstance(entries, dict) or not all(isinstance(e, dict) and isinstance(e.get("config"), dict)
                                                    for e in entries.values()):
            failures.append(f"{name}.json: autotune_entries is not a dict of entries with a config dict")
            continue
        default = data.get("default_config")
        if not isinstance(default, dict) or not all(k in default for k in ("kwargs", "num_warps", "num_stages",
                                                                            "num_ctas")):
            failures.append(f"{name}.json: default_config lacks kwargs, num_warps, num_stages or num_ctas")
        if set(entries) != keys:
            failures.append(f"{name}.json: entries {sorted(entries)} are not the chosen keys {sorted(keys)}")
        for launch in kernel["launches"]:
            if (name, launch["key_hash"]) not in wanted:
                continue
            entry = entries.get(fmc.fla_key_hash(launch["autotune_key"]))
            if entry is None:
                failures.append(f"{name}: strict lookup of key {launch['autotune_key']} finds no entry")
                continue
            config = entry["config"]
            _ = (config["kwargs"], config["num_warps"], config["num_stages"], config["num_ctas"],
                 config.get("maxnreg"), config.get("ir_override"))  # what maybe_load_cached_config reads
            if config != kernel["configs"][wanted[(name, launch["key_hash"])]]:
                failures.append(f"{name}: key {launch['key_hash']} holds another config than the chosen one")
            checked += 1
    return checked


def check_own_loader(folder, capture, wanted, fla_source, failures):
    sys.path.insert(0, HERE)
    from fla_capture_test import load_fla_cache_module
    fla = load_fla_cache_module(fla_source, folder)
    old = os.environ.get("FLA_CONFIG_DIR")
    os.environ["FLA_CONFIG_DIR"] = folder  # FLA reads it at lookup time (get_fla_config_dir)
    checked = 0
    try:
        for kernel in capture["kernels"]:
            for launch in kernel["launches"]:
                choice = wanted.get((kernel["kernel_name"], launch["key_hash"]))
                if choice is None:
                    continue
                cfg = fla.load_cached_config(kernel["kernel_name"], fla.AutotuneKey(tuple(launch["autotune_key"])))
                if cfg != kernel["configs"][choice]:
                    failures.append(f"FLA's loader: {kernel['kernel_name']} key {launch['key_hash']} -> {cfg}")
                checked += 1
    finally:
        if old is None:
            os.environ.pop("FLA_CONFIG_DIR", None)
        else:
            os.environ["FLA_CONFIG_DIR"] = old
    return checked


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--capture", required=True)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--choices")
    group.add_argument("--captured", action="store_true")
    ap.add_argument("--own-loader", action="store_true")
    ap.add_argument("--fla-source", default="")
    args = ap.parse_args()
    with open(args.capture) as f:
        capture = json.load(f)
    wanted = wanted_choices(capture, args)
    failures = []
    if args.own_loader:
        candidates = [c for c in (args.fla_source, os.environ.get("TUNESCOPE_FLA_SOURCE"), os.path.join(REPO, ".fla"))
                      if c]
        source = next((c for c in candidates if os.path.isfile(os.path.join(c, "fla", "ops", "utils", "cache.py"))),
                      "")
        if not source:
            print(f"SKIP: FLA's source is not in {', '.join(candidates)}: FLA's own cache.py cannot load the folder "
                  "here (the restated loader check runs in CI)")
            return 0
        checked = check_own_loader(args.folder, capture, wanted, source, failures)
        what = f"FLA's own cache.py ({source}) in strict mode"
    else:
        check_manifest(args.folder, capture, failures)
        checked = check_like_fla(args.folder, capture, wanted, failures)
        what = "FLA's loader rules, restated"
        if args.captured:
            sys.path.insert(0, os.path.join(REPO, "scripts"))
            import fla_capture
            for name, document in fla_capture.fla_config_documents(capture).items():
                with open(os.path.join(args.folder, f"{name}.json")) as f:
                    if f.read() != json.dumps(document, indent=2) + "\n":
                        failures.append(f"{name}.json is not byte for byte scripts/fla_capture.py's file")
    for f in failures:
        print("FAILED: " + f)
    if not failures and checked == 0:
        print("FAILED: no launch was looked up")
        return 1
    if failures:
        return 1
    print(f"ok: {checked} launches of {len(wanted)} chosen keys found their config ({what})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
