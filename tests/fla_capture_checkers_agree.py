#!/usr/bin/env python3
"""The capture manifest has two checkers: scripts/fla_manifest_check.py (Python) and the C++ reader
(core/src/formats/fla_capture*.cpp, printed by `tunescope_fla_capture_test --faults FILE`). This test runs both on
every committed manifest (valid and bad) and on manifests with faults planted here, and requires both to find the
same faults at the same JSON Pointers (as sorted lists, one entry per fault), so that the two cannot drift apart.

    fla_capture_checkers_agree.py CXX_CHECKER [MANIFEST ...]

Without MANIFEST arguments: tests/data/fla-capture/*.json, tests/data/fla-capture/bad/*.json, the H100 capture of
bench/results/h100-run14/issue24a and the planted faults below. Exit 0 when they agree everywhere, 1 otherwise.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fla_manifest_check as fmc  # noqa: E402

SAMPLE = os.path.join(HERE, "data", "fla-capture", "gdr-fwd-T4096-handmade.json")


def python_pointers(path):
    _doc, errors = fmc.load_and_check(path)
    return sorted(p for p, _m in errors)


def cxx_pointers(checker, path):
    run = subprocess.run([checker, "--faults", path], capture_output=True, text=True, timeout=60)
    if run.returncode not in (0, 2):
        raise RuntimeError(f"{checker} --faults {path}: exit {run.returncode}\n{run.stdout}{run.stderr}")
    lines = [line for line in run.stdout.splitlines() if "\t" in line]
    return sorted(line.split("\t", 1)[0] for line in lines)


def _set(path, value):
    def change(doc):
        target = doc
        for token in path[:-1]:
            target = target[token]
        target[path[-1]] = value
    return change


def _delete(path):
    def change(doc):
        target = doc
        for token in path[:-1]:
            target = target[token]
        del target[path[-1]]
    return change


def _copy(src, dst):
    def change(doc):
        value = doc
        for token in src:
            value = value[token]
        _set(dst, copy.deepcopy(value))(doc)
    return change


# (name, change, recompute the digest). Each one plants a fault (or several) that both checkers must find alike.
L0 = ["kernels", 0, "launches", 0]
PLANTED = [
    ("top-unknown", _set(["extra"], 1), True),
    ("top-missing", _delete(["environment"]), True),
    ("top-array", lambda d: d.clear() or d.update({"format": fmc.FORMAT}), False),
    ("format-number", _set(["format"], 1), False),
    ("capture-kind", _set(["capture_kind"], "simulated"), True),
    ("created-utc", _set(["created_utc"], "2026-12-05 10:00:00"), True),
    ("tool-not-object", _set(["tool"], []), True),
    ("stack-version-null", _set(["stack", "fla_version"], None), True),
    ("fla-source-dotdot", _set(["stack", "fla_sources", "fla/../x.py"], "a" * 64), True),
    ("fla-sources-array", _set(["stack", "fla_sources"], []), True),
    ("device-arch", _set(["device", "arch"], "sm90"), True),
    ("device-backend", _set(["device", "backend"], "metal"), True),
    ("device-warp", _set(["device", "warp_size"], 16), True),
    ("device-capability", _set(["device", "capability"], [9]), True),
    ("env-name", _set(["environment", "lower"], "x"), True),
    ("env-value", _set(["environment", "FLA_X"], 3), True),
    ("cases-empty", _set(["cases"], []), True),
    ("case-id", _set(["cases", 0, "id"], "-bad"), True),
    ("case-id-newline", _set(["cases", 0, "id"], "gdr\n"), True),  # a pattern matches the whole string
    ("created-utc-unicode-digits", _set(["created_utc"], "\u0662026-12-05T10:00:00Z"), True),
    ("case-op", _set(["cases", 0, "op"], "chunk_kda"), True),
    ("case-hv", _set(["cases", 0, "params", "HV"], 24), True),
    ("case-chunk", _set(["cases", 0, "params", "chunk_size"], 48), True),
    ("case-scale", _set(["cases", 0, "params", "scale"], 0), True),
    ("case-param-missing", _delete(["cases", 0, "params", "T"]), True),
    ("case-inputs-short", lambda d: d["cases"][0]["inputs"].pop(), True),
    ("case-input-shape", _set(["cases", 0, "inputs", 1, "shape", 1], 4095), True),
    ("case-input-name", _set(["cases", 0, "inputs", 1, "name"], "kk"), True),
    ("case-generator-low-high", _set(["cases", 0, "inputs", 0, "generator", "low"], 2.0), True),
    ("case-generator-extra", _set(["cases", 0, "inputs", 0, "generator", "mean"], 0.0), True),
    ("case-generator-dist", _set(["cases", 0, "inputs", 0, "generator", "distribution"], "beta"), True),
    ("case-outputs", _set(["cases", 0, "outputs", 0, "name"], "out"), True),
    ("case-timing", _set(["cases", 0, "timing", "steady_median_ms"], "fast"), True),
    ("case-launch-count", _set(["cases", 0, "launch_count"], 8), True),
    ("case-duplicate-id", lambda d: d["cases"].append(copy.deepcopy(d["cases"][0])), True),
    ("case-other-kernels", _set(["cases", 0, "other_autotuned_kernels"], ["a", "a", "1b"]), True),
    ("kernel-name", _set(["kernels", 1, "kernel_name"], "l2norm_fwd_kernel"), True),
    ("kernel-source", _set(["kernels", 1, "source_file"], "fla/ops/none.py"), True),
    ("kernel-key-names", _set(["kernels", 1, "key_names"], ["B", "nope"]), True),
    ("kernel-arg-names-dup", lambda d: d["kernels"][1]["arg_names"].append(d["kernels"][1]["arg_names"][0]), True),
    ("config-pre-hook", _set(["kernels", 1, "configs", 0, "pre_hook"], "f"), True),
    ("config-same", _copy(["kernels", 1, "configs", 0], ["kernels", 1, "configs", 1]), True),
    ("config-kwarg", _set(["kernels", 1, "configs", 0, "kwargs", "NOT_CONSTEXPR"], 1), True),
    ("config-kwargs-differ", _delete(["kernels", 0, "configs", 0, "kwargs", "BT"]), True),
    ("config-stages", _set(["kernels", 1, "configs", 0, "num_stages"], 17), True),
    ("config-maxnreg", _set(["kernels", 1, "configs", 0, "maxnreg"], 0), True),
    ("launch-unknown", _set(L0 + ["stream"], 0), True),
    ("launch-sequence-dup", _set(["kernels", 1, "launches", 0, "sequence"], 0), True),
    ("launch-sequence-high", _set(["kernels", 1, "launches", 0, "sequence"], 99), True),
    ("launch-signature", _set(L0 + ["signature_source"], "guessed"), True),
    ("launch-args-short", lambda d: d["kernels"][0]["launches"][0]["args"].pop(), True),
    ("arg-name", _set(L0 + ["args", 1, "name"], "yy"), True),
    ("arg-kind", _set(L0 + ["args", 1, "kind"], "pointer"), True),
    ("arg-runtime-constexpr", _set(L0 + ["args", 1, "kind"], "constexpr"), True),
    ("arg-scalar-type", _set(L0 + ["args", 4, "triton_type"], "i128"), True),
    ("arg-scalar-value", _set(L0 + ["args", 4, "value"], 4096.0), True),
    ("arg-scalar-range", _set(L0 + ["args", 4, "value"], 2**40), True),
    ("arg-scalar-dns", _set(L0 + ["args", 4, "do_not_specialize"], False), True),
    ("arg-constexpr-value", _set(L0 + ["args", 6, "value"], [1]), True),
    ("arg-tensor-triton-type", _set(L0 + ["args", 0, "triton_type"], "*fp16"), True),
    ("arg-tensor-strides", _set(L0 + ["args", 0, "strides"], [1]), True),
    ("arg-tensor-origin-input", _set(L0 + ["args", 0, "origin", "input"], "zz"), True),
    ("arg-tensor-origin-kind", _set(L0 + ["args", 0, "origin"], {"kind": "heap"}), True),
    ("arg-tensor-origin-extra", _set(L0 + ["args", 1, "origin"], {"kind": "new", "input": "q"}), True),
    ("arg-missing-kind", _delete(L0 + ["args", 2, "kind"]), True),
    ("key-value", _set(L0 + ["autotune_key", 0], 128.0), True),
    ("key-length", lambda d: d["kernels"][0]["launches"][0]["autotune_key"].append(1), True),
    ("key-not-scalar", _set(L0 + ["autotune_key", 1], [1]), True),
    ("key-arg-order", _set(L0 + ["key_arg_names"], ["NB", "D"]), True),
    ("key-dtype-args", _set(L0 + ["dtype_arg_names"], ["x", "y"]), True),
    ("key-tensor-arg", lambda d: (_set(["kernels", 0, "key_names"], ["x", "D", "NB"])(d),
                                  _set(L0 + ["key_arg_names"], ["x", "D", "NB"])(d)), True),
    ("key-hash-format", _set(L0 + ["key_hash"], "XYZ"), True),
    ("autotune-benchmarked", _set(L0 + ["autotune", "source"], "benchmarked"), True),
    ("autotune-chosen", _set(L0 + ["autotune", "chosen_config"], 99), True),
    ("autotune-timings", _set(L0 + ["autotune", "timings_ms"], [[1, 2, 3]]), True),
    ("variant-config", _set(L0 + ["variants", 1, "config"], 0), True),
    ("variant-binary", _set(L0 + ["variants", 1, "binary"], "a" * 64), True),
    ("variant-binary-bad", _set(L0 + ["variants", 1, "binary"], "A"), True),
    ("variant-grid", _set(L0 + ["variants", 1, "grid"], [1, 1, 1, 1]), True),
    ("binaries-array", _set(["binaries"], []), True),
    ("binary-unused", _set(["binaries", "b" * 64], {"kernel_name": "k", "folder": "f", "metadata_file": "x.json",
                                                      "binary_file": 3, "files": [{"name": "a", "sha256": "c" * 64,
                                                                                   "bytes": -1}],
                                                      "target": {"backend": "hip", "arch": 90, "warp_size": 48},
                                                      "num_warps": 0, "num_stages": 3, "num_ctas": 1, "shared": 0}),
     True),
    ("triton-cache", _set(["triton_cache", "archives"], [{"file": "a.tgz", "sha256": "0" * 64, "bytes": 1},
                                                         {"file": "a.tgz", "sha256": "0" * 64, "bytes": -1}]), True),
    ("digest-algorithm", _set(["digest", "algorithm"], "sha512"), False),
    ("digest-stale", _set(["captured_by"], "someone else"), False),
]


def planted_manifests(folder):
    with open(SAMPLE) as f:
        base = json.load(f)
    for name, change, redigest in PLANTED:
        doc = copy.deepcopy(base)
        change(doc)
        if redigest and isinstance(doc.get("digest"), dict):
            try:
                doc["digest"]["value"] = fmc.manifest_digest(doc)
            except (ValueError, TypeError):
                pass
        path = os.path.join(folder, f"planted-{name}.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        yield path


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    checker = argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        files = argv[2:] or (sorted(glob.glob(os.path.join(HERE, "data", "fla-capture", "*.json"))) +
                             sorted(glob.glob(os.path.join(HERE, "data", "fla-capture", "bad", "*.json"))) +
                             [os.path.join(REPO, "bench", "results", "h100-run14", "issue24a", "fla-capture.json")] +
                             list(planted_manifests(tmp)))
        differ = 0
        refused = 0
        for path in files:
            want, got = python_pointers(path), cxx_pointers(checker, path)
            refused += bool(want)
            if want != got:
                differ += 1
                print(f"DIFFER {os.path.basename(path)}:\n  python: {want}\n  c++:    {got}")
        print(f"{len(files)} manifests ({refused} refused): the checkers "
              f"{'agree on every one' if not differ else f'differ on {differ}'}")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
