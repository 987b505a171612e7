#!/usr/bin/env python3
"""Capture what FLA's autotuned Triton kernels see in a real op, for replay and tuning (docs/fla-capture.md).

Runs FLA ops at the user's shapes with the user's own FLA, Triton and torch, and records, for every kernel that FLA
wraps in its autotune-with-config-cache (`fla_cache_autotune`): the kernel name, FLA's autotune key exactly as FLA
builds it (and its md5, the entry id of FLA's config file), the config list, and per launch the arguments (tensor
shapes, dtypes, strides, scalar values, constexprs) and per config the grid and the compiled binary. Every config is
compiled into the Triton cache (Triton's `warmup`, as scripts/fill_triton_cache.py does: nothing extra runs on the
GPU), the binaries' folders are packed into tar.gz archives, and a versioned manifest with the SHA-256 of every file
and a digest over its canonical body is written. FLA's first call per case is timed and its autotune benchmarks are
counted (Triton's `Autotuner._bench` calls), so a later run with an exported FLA_CONFIG_DIR can be put beside it.

Interception is at the Triton/FLA class level (Autotuner.run, Autotuner._bench, FLA's
CachedAutotuner.maybe_load_cached_config), wrapped in this process only; no FLA file is changed.

    TRITON_CACHE_DIR=/tmp/tc PYTHONPATH=.fla python3 scripts/fla_capture.py --T 4096,16384,65536 \\
        --out capture/fla-capture.json
    python3 scripts/fla_capture.py --spec my-shapes.json --out capture/fla-capture.json
    # FLA's own choices from a capture, as an FLA_CONFIG_DIR, then the same ops in strict mode:
    python3 scripts/fla_capture.py --fla-config-from capture/fla-capture.json --fla-config-dir fla-own
    FLA_CONFIG_DIR=fla-own FLA_CACHE_MODE=strict python3 scripts/fla_capture.py --strict-run \\
        --spec-from capture/fla-capture.json --out strict.json
    # outputs of an export against FLA's own autotune, by FLA's test tolerance; whole-op CUDA-graph replays:
    python3 scripts/fla_capture.py --autotuned-run --spec-from capture/fla-capture.json --save-outputs auto.pt
    FLA_CONFIG_DIR=export FLA_CACHE_MODE=strict python3 scripts/fla_capture.py --strict-run \\
        --spec-from capture/fla-capture.json --compare-outputs auto.pt --graph-replays 300 --out strict.json

Defaults: chunk_gated_delta_rule forward, use_qk_l2norm_in_kernel=True, B=1, H=HV=16, K=V=128, bf16, T=4096, inputs
drawn as FLA's own test draws them (scripts/fla_manifest_check.py, OPS). Without torch only --fla-config-from and
--print-spec work.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import platform
import statistics
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fla_manifest_check as fmc  # noqa: E402  (same folder: the format's one set of rules)

TOOL_NAME = "scripts/fla_capture.py"
TOOL_VERSION = "1"
SPEC_FORMAT = "tunescope-fla-capture-spec-v1"
STRICT_FORMAT = "tunescope-fla-strict-run-v1"
ARCHIVE_MEMBER_BUDGET = 15 * 1024 * 1024  # bytes of files per archive: the device's result files are <= 16 MiB
ENV_PREFIXES = ("FLA_", "TRITON_")
FLA_ERR_ATOL = 1e-6        # fla/utils/_testing.py assert_close's err_atol
FLA_FORWARD_RATIO = 0.005  # FLA's tests/ops/test_gdn.py: chunk_gated_delta_rule's forward outputs (o, ht)


class Refused(Exception):
    """Bad flags, spec or stack, or a manifest the checker would refuse: exit 2 with this message."""


def fail(message):
    raise Refused(f"fla_capture: {message}")


# ---------------------------------------------------------------------------------------------------------------
# The capture spec: which ops at which shapes. Pure Python.

def _dtype_name(text, where):
    name = text if text.startswith("torch.") else "torch." + text
    if name not in fmc.TORCH_DTYPES:
        fail(f"{where}: dtype '{text}' is not one of {', '.join(d[6:] for d in fmc.TORCH_DTYPES)}")
    return name


def _case_id(op, params):
    if op == "chunk_gated_delta_rule":
        return "{}-B{B}-T{T}-H{H}-HV{HV}-K{K}-V{V}".format(op, **params)
    return "{}-B{B}-T{T}-H{H}-D{D}".format(op, **params)


def resolve_spec(spec, where="spec"):
    """The spec's cases, complete: [{id, op, params, inputs: [{name, shape, dtype, generator}], seed}].

    A spec is {"format": SPEC_FORMAT, "seed": int, "cases": [{"op", "params"?, "dtype"?, "inputs"?, "id"?,
    "seed"?}]}; missing params take the op's defaults, `dtype` is the dtype of the op's main inputs, `inputs` maps an
    input name to {"dtype"?, "generator"?} overrides."""
    if not isinstance(spec, dict) or spec.get("format") != SPEC_FORMAT:
        fail(f"{where}: not a capture spec (\"format\": \"{SPEC_FORMAT}\")")
    seed = spec.get("seed", 42)
    cases_in = spec.get("cases")
    if not isinstance(cases_in, list) or not cases_in:
        fail(f"{where}: at /cases: must be a non-empty array")
    out, ids = [], set()
    for i, raw in enumerate(cases_in):
        ptr = f"/cases/{i}"
        if not isinstance(raw, dict) or raw.get("op") not in fmc.OPS:
            fail(f"{where}: at {ptr}/op: must be one of {', '.join(fmc.OPS)}")
        op = raw["op"]
        rules = fmc.OPS[op]["params"]
        params = {name: default for name, (_rule, default) in rules.items()}
        given = raw.get("params", {})
        unknown = set(given) - set(rules) if isinstance(given, dict) else {"(not an object)"}
        if unknown:
            fail(f"{where}: at {ptr}/params: unknown parameter(s) {', '.join(sorted(unknown))}")
        params.update(given)
        c = fmc.Checker()
        if not fmc.check_params(c, op, params, ptr + "/params"):
            fail(f"{where}: at {c.errors[0][0]}: {c.errors[0][1]}")
        main_dtype = _dtype_name(raw.get("dtype", "bfloat16"), f"{where}: at {ptr}/dtype")
        overrides = raw.get("inputs", {})
        names = [n for n, _ in fmc.op_input_shapes(op, params)]
        if not isinstance(overrides, dict) or set(overrides) - set(names):
            fail(f"{where}: at {ptr}/inputs: must map input names of {op} ({', '.join(names)}) to overrides")
        case_seed = raw.get("seed", seed)
        if not fmc._is_int(case_seed) or case_seed < 0:
            fail(f"{where}: at {ptr}/seed: must be an integer >= 0")
        inputs = []
        for name, shape in fmc.op_input_shapes(op, params):
            dtype, generator = fmc.OPS[op]["default_inputs"][name]
            dtype = main_dtype if dtype == "op" else dtype
            o = overrides.get(name, {})
            if "dtype" in o:
                dtype = _dtype_name(o["dtype"], f"{where}: at {ptr}/inputs/{name}/dtype")
            if "generator" in o:
                generator = o["generator"]
                gc = fmc.Checker()
                if not fmc.check_generator(gc, generator, f"{ptr}/inputs/{name}/generator") or gc.errors:
                    fail(f"{where}: at {gc.errors[0][0]}: {gc.errors[0][1]}")
            inputs.append({"name": name, "shape": shape, "dtype": dtype, "generator": dict(generator)})
        case_id = raw.get("id") or _case_id(op, params)
        if case_id in ids:
            fail(f"{where}: at {ptr}: two cases share the id '{case_id}'")
        ids.add(case_id)
        out.append({"id": case_id, "op": op, "params": params, "inputs": inputs, "seed": case_seed})
    return out


def spec_from_flags(a):
    ts = [int(t) for t in a.T.split(",") if t.strip()]
    cases = []
    for T in ts:
        if a.op == "chunk_gated_delta_rule":
            params = {"B": a.B, "T": T, "H": a.H, "HV": a.HV or a.H, "K": a.K, "V": a.V, "chunk_size": a.chunk_size,
                      "use_qk_l2norm_in_kernel": not a.no_qk_l2norm, "output_final_state": a.output_final_state,
                      "initial_state": a.initial_state, "scale": None}
            inputs = {"g": {"dtype": a.gate_dtype}, "beta": {"dtype": a.beta_dtype}}
        else:
            params = {"B": a.B, "T": T, "H": a.H, "D": a.K, "eps": 1e-6}
            inputs = {}
        cases.append({"op": a.op, "params": params, "dtype": a.dtype, "inputs": inputs})
    return {"format": SPEC_FORMAT, "seed": a.seed, "cases": cases}


def spec_of_cases(cases):
    """The spec that reproduces resolved cases or a manifest's cases (same ids, params, dtypes, generators, seeds)."""
    out = []
    for case in cases:
        inputs = {i["name"]: {"dtype": i["dtype"], "generator": i["generator"]} for i in case["inputs"]}
        out.append({"id": case["id"], "op": case["op"], "params": case["params"], "inputs": inputs,
                    "seed": case["seed"]})
    return {"format": SPEC_FORMAT, "seed": out[0]["seed"], "cases": out}


# ---------------------------------------------------------------------------------------------------------------
# FLA's key, and FLA's config files from a capture. Pure Python.

def describe_key(arg_names, key_names, args, kwargs):
    """FLA's autotune key as fla/ops/utils/cache.py (AutotuneKey.build) and Triton's Autotuner.run build it, with
    which arguments made it: (key, key_arg_names, dtype_arg_names). The key is the values of the key arguments the
    call passed, in key order, then str(arg.dtype) of every passed argument that has a dtype, in call order."""
    all_args = {**dict(zip(arg_names, args)), **kwargs}
    tracked = {k: v for k, v in all_args.items() if k in arg_names}
    key_arg_names = [name for name in key_names if name in tracked]
    dtype_arg_names = [name for name, v in tracked.items() if hasattr(v, "dtype")]
    key = [tracked[name] for name in key_arg_names] + [str(tracked[name].dtype) for name in dtype_arg_names]
    return key, key_arg_names, dtype_arg_names


def fla_config_documents(doc):
    """{kernel_name: FLA config file} holding, per autotune key of a capture, the config FLA's own autotune chose
    (the format FLA's cache.py loads and export-fla writes; docs/formats.md)."""
    out = {}
    for kernel in doc["kernels"]:
        entries = {}
        for launch in kernel["launches"]:
            chosen = launch["autotune"]["chosen_config"]
            if chosen is None or launch["key_hash"] in entries:
                continue
            timings = launch["autotune"]["timings_ms"]
            entries[launch["key_hash"]] = {"autotune_key": launch["autotune_key"],
                                           "config": dict(kernel["configs"][chosen]),
                                           "best_timing": timings[chosen] if timings else None}
        if not entries:
            continue
        first = entries[sorted(entries)[0]]["config"]
        out[kernel["kernel_name"]] = {
            "kernel_name": kernel["kernel_name"], "triton_version": doc["stack"]["triton_version"],
            "default_config": {k: first[k] for k in ("kwargs", "num_warps", "num_ctas", "num_stages")},
            "autotune_entries": dict(sorted(entries.items())),
        }
    return out


def write_fla_config_dir(doc, folder):
    os.makedirs(folder, exist_ok=True)
    written = []
    for name, document in fla_config_documents(doc).items():
        path = os.path.join(folder, f"{name}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(document, f, indent=2)
            f.write("\n")
        os.replace(path + ".tmp", path)
        written.append((name, len(document["autotune_entries"])))
    return written


# ---------------------------------------------------------------------------------------------------------------
# Files: hashes, the binaries' folders, deterministic archives. Pure Python.

def sha256_file(path):
    return fmc._sha256_file(path)


def binary_files(folder, kernel_name, keep_ir):
    """The files of a Triton cache folder that the C++ side reads: metadata, binary, the JIT's TTIR (.source, else
    .ttir), Triton's group file; with keep_ir every file."""
    present = sorted(os.listdir(folder))
    if keep_ir:
        return [f for f in present if not f.startswith(".")]
    wanted = [f"{kernel_name}.json", f"__grp__{kernel_name}.json", f"{kernel_name}.cubin", f"{kernel_name}.hsaco"]
    wanted.append(f"{kernel_name}.source" if f"{kernel_name}.source" in present else f"{kernel_name}.ttir")
    return [f for f in present if f in wanted]


def index_cache(cache_dir):
    """{metadata hash: (folder name, metadata)} over a Triton cache's kernel metadata files."""
    found = {}
    for entry in sorted(os.listdir(cache_dir)):
        folder = os.path.join(cache_dir, entry)
        if not os.path.isdir(folder):
            continue
        for f in os.listdir(folder):
            if not f.endswith(".json") or f.startswith("__grp__") or f.endswith(".autotune.json"):
                continue
            try:
                with open(os.path.join(folder, f)) as fh:
                    md = json.load(fh)
            except (OSError, ValueError):
                continue
            if isinstance(md, dict) and isinstance(md.get("hash"), str) and md.get("name") == f[:-5]:
                found[md["hash"]] = (entry, md)
    return found


def binary_entry(cache_dir, folder, md, keep_ir):
    name = md["name"]
    path = os.path.join(cache_dir, folder)
    files = [{"name": f, "sha256": sha256_file(os.path.join(path, f)), "bytes": os.path.getsize(os.path.join(path, f))}
             for f in binary_files(path, name, keep_ir)]
    names = {f["name"] for f in files}
    binary = next((f"{name}.{ext}" for ext in ("cubin", "hsaco") if f"{name}.{ext}" in names), None)
    if binary is None:
        fail(f"{path}: no {name}.cubin or {name}.hsaco beside the metadata")
    target = md.get("target", {})
    return {"kernel_name": name, "folder": folder, "metadata_file": f"{name}.json", "binary_file": binary,
            "files": files, "target": {"backend": target.get("backend"), "arch": target.get("arch"),
                                        "warp_size": target.get("warp_size")},
            "num_warps": md.get("num_warps"), "num_stages": md.get("num_stages"), "num_ctas": md.get("num_ctas"),
            "shared": md.get("shared")}


def write_archives(cache_dir, binaries, prefix, budget=ARCHIVE_MEMBER_BUDGET):
    """Packs every listed file into PREFIX-1.tar.gz, PREFIX-2.tar.gz, ... (members `folder/file`, at most `budget`
    bytes of files each; fixed mtime, owner and mode, so the same files give the same bytes)."""
    folders = sorted({(b["folder"], tuple(f["name"] for f in b["files"]), sum(f["bytes"] for f in b["files"]))
                      for b in binaries.values()})
    parts, current, size = [], [], 0
    for folder, names, nbytes in folders:
        if current and size + nbytes > budget:
            parts.append(current)
            current, size = [], 0
        current.append((folder, names))
        size += nbytes
    if current:
        parts.append(current)
    archives = []
    for i, part in enumerate(parts, 1):
        path = f"{prefix}-{i}.tar.gz"
        with open(path + ".tmp", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for folder, names in part:
                for name in names:
                    with open(os.path.join(cache_dir, folder, name), "rb") as f:
                        data = f.read()
                    info = tarfile.TarInfo(f"{folder}/{name}")
                    info.size, info.mtime, info.mode, info.uid, info.gid = len(data), 0, 0o644, 0, 0
                    tar.addfile(info, io.BytesIO(data))
        os.replace(path + ".tmp", path)
        archives.append({"file": os.path.basename(path), "sha256": sha256_file(path), "bytes": os.path.getsize(path)})
    return archives


def finish_manifest(body):
    """The manifest with its digest; refuses to write one the checker would refuse."""
    doc = dict(body)
    doc["digest"] = {"algorithm": fmc.DIGEST_ALGORITHM, "value": fmc.manifest_digest(doc)}
    errors = fmc.check_manifest(fmc.parse_manifest_text(json.dumps(doc)))
    if errors:
        for pointer, message in errors[:20]:
            print(fmc.format_fault("manifest", pointer, message), file=sys.stderr)
        fail(f"the manifest built would be refused ({len(errors)} faults); nothing written")
    return doc


def write_json(path, doc):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------------------------------------------------------
# On the device: torch, Triton and FLA are imported from here on.

class Recorder:
    """Wraps Triton's Autotuner.run and _bench and FLA's config loading (this process only). During a case's first
    call (`watching`) it notes how every launch of an fla_cache_autotune kernel got its config (`events`) and, when
    `recording`, records the launch; benchmarks are counted always. Outside first calls a launch passes straight
    through, so the steady timings carry no bookkeeping."""

    def __init__(self, torch, fla_cache, autotuner_cls, jit_cls, fla_root):
        self.torch, self.fla_cache, self.Autotuner, self.JIT = torch, fla_cache, autotuner_cls, jit_cls
        self.fla_root = fla_root
        self.watching = False
        self.recording = False
        self.bench_fla = 0
        self.bench_other = 0
        self.bench_by_tuner = {}
        self.loaded = set()
        self.kernels = {}          # kernel name -> kernel record (manifest form)
        self.tuners = {}           # kernel name -> id of its autotuner
        self.pending = []          # launches whose configs are compiled after the op's first call
        self.case_id = None
        self.sequence = 0
        self.other_kernels = set()
        self.tensor_origins = {}   # (data_ptr, dtype) -> origin
        self.events = []           # kernel, key and config source of every fla_cache launch while watching

    def install(self):
        rec, at_cls = self, self.Autotuner
        original_run, original_bench = at_cls.run, at_cls._bench
        original_load = self.fla_cache.CachedAutotuner.maybe_load_cached_config

        def run(tuner, *args, **kwargs):
            return rec.on_run(original_run, tuner, args, kwargs)

        def bench(tuner, *args, **kwargs):
            if isinstance(tuner, rec.fla_cache.CachedAutotuner):
                rec.bench_fla += 1
                rec.bench_by_tuner[id(tuner)] = rec.bench_by_tuner.get(id(tuner), 0) + 1
            else:
                rec.bench_other += 1
            return original_bench(tuner, *args, **kwargs)

        def load(tuner, key):
            before = key.autotune_key in tuner.cache
            result = original_load(tuner, key)
            if not before and key.autotune_key in tuner.cache:
                rec.loaded.add((id(tuner), key.autotune_key))
            return result

        at_cls.run, at_cls._bench = run, bench
        self.fla_cache.CachedAutotuner.maybe_load_cached_config = load

    def jit_of(self, tuner):
        fn = tuner.fn
        while not isinstance(fn, self.JIT):
            fn = fn.fn
        return fn

    def begin_case(self, case_id, inputs, record):
        self.case_id, self.sequence, self.watching, self.recording = case_id, 0, True, record
        self.other_kernels = set()
        self.tensor_origins = {(t.data_ptr(), str(t.dtype)): {"kind": "op_input", "input": name}
                               for name, t in inputs.items()}

    def on_run(self, original, tuner, args, kwargs):
        if not self.watching:
            return original(tuner, *args, **kwargs)
        jit = self.jit_of(tuner)
        if not isinstance(tuner, self.fla_cache.CachedAutotuner):
            if self.recording:
                self.other_kernels.add(jit.__name__)
            return original(tuner, *args, **kwargs)
        key, key_arg_names, dtype_arg_names = describe_key(tuner.arg_names, tuner.keys, args, kwargs)
        fla_key = self.fla_cache.AutotuneKey.build(tuner.arg_names, tuner.keys, args, kwargs).autotune_key
        try:
            key_hash = self.fla_cache.AutotuneKey.key_hash(fla_key)
        except (TypeError, ValueError):  # FLA could never look this key up in a config file either
            return self.pass_as_other(original, tuner, jit, args, kwargs, f"its key {fla_key!r} is not JSON, so FLA "
                                      "cannot load a config for it")
        if not isinstance(tuner.fn, self.JIT):  # FLA 0.5.2 has none: its heuristics wrap the autotuner
            return self.pass_as_other(original, tuner, jit, args, kwargs, "a wrapper between FLA's autotuner and the "
                                      "JIT function (its constexprs are not all in the call) is not supported")
        if list(fla_key) != key:
            fail(f"{jit.__name__}: this script's key {key} differs from FLA's {list(fla_key)}: FLA changed how it "
                 "builds keys; update describe_key")
        key_tuple = tuple(fla_key)
        loaded = (id(tuner), key_tuple) in self.loaded
        self.loaded.discard((id(tuner), key_tuple))
        cached = key_tuple in tuner.cache
        bench_before = self.bench_by_tuner.get(id(tuner), 0)
        t0 = time.perf_counter()
        result = original(tuner, *args, **kwargs)
        seconds = time.perf_counter() - t0
        benchmarks = self.bench_by_tuner.get(id(tuner), 0) - bench_before
        if loaded:
            source = "fla_config_file"
        elif cached:
            source = "memory"
        elif benchmarks > 0:
            source = "benchmarked"
        elif len(tuner.configs) > 1 and getattr(tuner, "cache_results", False):
            source = "triton_disk_cache"  # Triton read the timings of an earlier process from its cache
        else:
            source = "single_config"  # one config, or pruned to one
        self.events.append({"case": self.case_id, "kernel_name": jit.__name__, "key_hash": key_hash,
                            "source": source, "benchmarks": benchmarks})
        if self.recording:
            self.record(tuner, jit, args, kwargs, key, key_arg_names, dtype_arg_names, key_hash, source, benchmarks,
                        seconds)
        return result

    def pass_as_other(self, original, tuner, jit, args, kwargs, reason):
        """Runs a launch the manifest cannot describe, naming it with the other autotuned kernels."""
        if self.recording and jit.__name__ not in self.other_kernels:
            print(f"fla_capture: {jit.__name__}: {reason}; listed with the other autotuned kernels", flush=True)
            self.other_kernels.add(jit.__name__)
        before = self.bench_by_tuner.get(id(tuner), 0)
        result = original(tuner, *args, **kwargs)
        moved = self.bench_by_tuner.get(id(tuner), 0) - before  # no launch record holds these: count as other
        self.bench_fla, self.bench_other = self.bench_fla - moved, self.bench_other + moved
        return result

    def kernel_record(self, tuner, jit):
        name = jit.__name__
        if name in self.kernels:
            if self.tuners[name] != id(tuner):
                fail(f"two fla_cache_autotune kernels are named {name}: FLA would read one {name}.json for both")
            return self.kernels[name]
        source = os.path.relpath(os.path.abspath(jit.fn.__code__.co_filename), self.fla_root).replace(os.sep, "/")
        self.tuners[name] = id(tuner)
        self.kernels[name] = {
            "kernel_name": name, "source_file": source, "arg_names": list(jit.arg_names),
            "constexpr_names": [p.name for p in jit.params if p.is_constexpr],
            "do_not_specialize": [p.name for p in jit.params if p.do_not_specialize],
            "key_names": list(tuner.keys), "configs": [config_dict(c) for c in tuner.configs], "launches": []}
        return self.kernels[name]

    def record(self, tuner, jit, args, kwargs, key, key_arg_names, dtype_arg_names, key_hash, source, benchmarks,
               seconds):
        kernel = self.kernel_record(tuner, jit)
        call = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        values = {**dict(zip(jit.arg_names, args)), **call}
        config_names = set().union(*[set(c.kwargs) for c in tuner.configs])
        launch_args = [self.arg_record(p, values, config_names, jit) for p in jit.params]
        chosen = tuner.cache.get(tuple(key), getattr(tuner, "best_config", None))
        timings = None
        if source == "benchmarked" and getattr(tuner, "configs_timings", None):
            timings = [timing_list(tuner.configs_timings.get(c)) for c in tuner.configs]
        launch = {"case": self.case_id, "sequence": self.sequence, "signature_source": "derived",
                  "autotune_key": key, "key_hash": key_hash, "key_arg_names": key_arg_names,
                  "dtype_arg_names": dtype_arg_names, "args": launch_args,
                  "autotune": {"source": source, "benchmarks": benchmarks, "seconds": round(seconds, 6),
                               "chosen_config": config_index(tuner.configs, chosen), "timings_ms": timings},
                  "variants": []}
        kernel["launches"].append(launch)
        for arg in launch_args:  # later launches with the same memory name the first launch that had it
            if arg["kind"] == "tensor":
                t = values.get(arg["name"])
                self.tensor_origins.setdefault((t.data_ptr(), str(t.dtype)),
                                               {"kind": "launch_arg", "sequence": self.sequence, "arg": arg["name"]})
        self.pending.append((tuner, jit, args, call, kwargs.get("grid"), launch, values))
        self.sequence += 1

    def arg_record(self, param, values, config_names, jit):
        name = param.name
        if name in config_names:
            return {"name": name, "kind": "config"}
        default = jit.signature.parameters[name].default
        value = values.get(name, None if default is jit.signature.parameters[name].empty else default)
        if param.is_constexpr:
            return {"name": name, "kind": "constexpr", "value": json_scalar(value)}
        if value is None:
            return {"name": name, "kind": "none"}
        if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
            dtype = str(value.dtype)
            origin = self.tensor_origins.get((value.data_ptr(), dtype), {"kind": "new"})
            return {"name": name, "kind": "tensor", "dtype": dtype,
                    "triton_type": "*" + fmc.TORCH_DTYPES.get(dtype, ("?", 0))[0], "shape": list(value.shape),
                    "strides": list(value.stride()), "storage_offset": value.storage_offset(),
                    "storage_bytes": value.untyped_storage().nbytes(), "aligned_16": value.data_ptr() % 16 == 0,
                    "origin": origin}
        return {"name": name, "kind": "scalar", "triton_type": scalar_type(value), "value": value,
                "do_not_specialize": bool(param.do_not_specialize)}

    def compile_pending(self):
        """Compiles every config of every recorded launch (Triton's warmup: into the cache, nothing runs) and fills
        in the variants; then lets go of the launches' tensors."""
        t0 = time.perf_counter()
        for tuner, jit, args, call, grid, launch, values in self.pending:
            signature = None
            for i, cfg in enumerate(tuner.configs):
                meta = {**values, **cfg.kwargs}
                for p in jit.params:
                    if p.name not in meta:
                        default = jit.signature.parameters[p.name].default
                        meta[p.name] = None if default is jit.signature.parameters[p.name].empty else default
                g = grid(meta) if callable(grid) else grid
                variant = {"config": i, "grid": [int(x) for x in g], "binary": None, "compile_error": None}
                try:
                    compiled = jit.warmup(*args, grid=g, **call, **cfg.all_kwargs())
                    variant["binary"] = metadata_hash(compiled)
                    signature = signature or getattr(getattr(compiled, "src", None), "signature", None)
                except Exception as e:  # a config Triton cannot compile is recorded, as its autotune records inf
                    variant["compile_error"] = f"{type(e).__name__}: {e}"[:2000]
                launch["variants"].append(variant)
            apply_signature(launch, signature)
        self.pending = []
        return time.perf_counter() - t0


def config_dict(cfg):
    return {"kwargs": {k: json_scalar(v) for k, v in cfg.kwargs.items()}, "num_warps": cfg.num_warps,
            "num_ctas": getattr(cfg, "num_ctas", 1), "num_stages": cfg.num_stages,
            "maxnreg": getattr(cfg, "maxnreg", None), "pre_hook": None,
            "ir_override": getattr(cfg, "ir_override", None)}


def config_index(configs, chosen):
    if chosen is None:
        return None
    for i, c in enumerate(configs):
        if c is chosen:
            return i
    want = config_dict(chosen)
    return next((i for i, c in enumerate(configs) if config_dict(c) == want), None)


def timing_list(t):
    if t is None:
        return None
    values = [float(x) for x in (t if isinstance(t, (list, tuple)) else [t, t, t])]
    if len(values) != 3 or not all(x == x and x != float("inf") for x in values):
        return None  # a config Triton could not run: [inf, inf, inf]
    return values


def json_scalar(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and abs(v) != float("inf") else {"repr": repr(v)}
    inner = getattr(v, "value", None)  # tl.constexpr
    if inner is not None and inner is not v and isinstance(inner, (bool, int, float, str)):
        return json_scalar(inner)
    return {"repr": repr(v)}


def scalar_type(v):
    """Triton's type for a runtime scalar argument (its specialization rule)."""
    if isinstance(v, bool):
        return "u1"
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return "i32"
        return "i64" if -2**63 <= v < 2**63 else "u64"
    if isinstance(v, float):
        return "fp32"
    fail(f"a runtime argument of type {type(v).__name__} is not a scalar this format records")


def metadata_hash(compiled):
    md = compiled.metadata
    return md.hash if hasattr(md, "hash") else md["hash"]


def apply_signature(launch, signature):
    """Types from the compiled kernel's own signature where Triton exposes it (ASTSource.signature)."""
    if not isinstance(signature, dict):
        return
    for arg in launch["args"]:
        ty = signature.get(arg["name"])
        if arg["kind"] in ("tensor", "scalar") and isinstance(ty, str) and ty != "constexpr":
            arg["triton_type"] = ty
    launch["signature_source"] = "compiled"


def tensor_sha256(torch, t):
    data = t.detach().contiguous().view(torch.uint8).cpu()
    try:
        raw = data.numpy().tobytes()
    except (RuntimeError, TypeError, ImportError):
        raw = bytes(data.tolist())
    return hashlib.sha256(raw).hexdigest()


def make_inputs(torch, case):
    """The op's inputs, drawn in float32 on the device from torch.Generator('cuda').manual_seed(seed), in input order,
    transformed, scaled, normalized, then cast (docs/fla-capture.md, "Inputs")."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(case["seed"])
    out = {}
    for spec in case["inputs"]:
        g, shape = spec["generator"], spec["shape"]
        if g["distribution"] == "uniform":
            x = torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * (g["high"] - g["low"]) + g["low"]
        elif g["distribution"] == "normal":
            x = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32) * g["std"] + g["mean"]
        else:
            x = torch.zeros(shape, device="cuda", dtype=torch.float32)
        if g["transform"] == "sigmoid":
            x = torch.sigmoid(x)
        elif g["transform"] == "logsigmoid":
            x = torch.nn.functional.logsigmoid(x)
        x = x * g["scale"]
        if g["normalize"] == "l2_last_dim":
            x = torch.nn.functional.normalize(x, p=2, dim=-1)
        out[spec["name"]] = x.to(getattr(torch, spec["dtype"][6:])).contiguous()
    return out


def op_runner(case):
    """A function of the inputs that runs the op once and returns its outputs (op_output_names order)."""
    p = case["params"]
    if case["op"] == "chunk_gated_delta_rule":
        from fla.ops.gated_delta_rule import chunk_gated_delta_rule

        def run(x):
            o, final_state = chunk_gated_delta_rule(
                x["q"], x["k"], x["v"], x["g"], x["beta"], scale=p["scale"], initial_state=x.get("initial_state"),
                output_final_state=p["output_final_state"], use_qk_l2norm_in_kernel=p["use_qk_l2norm_in_kernel"],
                chunk_size=p["chunk_size"])
            return [o] + ([final_state] if p["output_final_state"] else [])
        return run
    from fla.modules.l2norm import l2norm_fwd

    def run_l2norm(x):
        return list(l2norm_fwd(x["x"], eps=p["eps"]))
    return run_l2norm


def import_stack(fla_path):
    if fla_path:
        sys.path.insert(0, fla_path)
    import torch
    import triton
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    import fla
    from fla.ops.utils import cache as fla_cache
    if not torch.cuda.is_available():
        fail("torch sees no CUDA/HIP device; the capture runs FLA's kernels on the GPU")
    root = os.path.dirname(os.path.dirname(os.path.abspath(fla.__file__)))
    return torch, triton, fla, fla_cache, Autotuner, JITFunction, root


def device_record(torch, triton, fla_cache):
    props = torch.cuda.get_device_properties(0)
    hip = getattr(torch.version, "hip", None)
    cap = list(torch.cuda.get_device_capability(0))
    arch = getattr(props, "gcnArchName", "").split(":")[0] if hip else f"sm_{cap[0]}{cap[1]}"
    try:
        smem = triton.runtime.driver.active.utils.get_device_properties(0).get("max_shared_mem")
    except Exception:  # the driver utils differ across Triton backends; the value is informative only
        smem = None
    return {"name": torch.cuda.get_device_name(0), "fla_gpu_name": fla_cache.get_gpu_info(),
            "backend": "hip" if hip else "cuda", "arch": arch, "capability": None if hip else cap,
            "warp_size": 64 if hip and not arch.startswith("gfx1") else 32,
            "multiprocessors": props.multi_processor_count, "max_shared_mem_bytes": smem,
            "total_memory_bytes": props.total_memory}


def fla_close(max_abs_err, err_ratio, ratio, err_atol=FLA_ERR_ATOL):
    """FLA's own test rule (fla/utils/_testing.py, assert_close): equal enough when the largest absolute difference
    is at most err_atol, else when the rms of the difference over the rms of the reference is below `ratio`. NaN
    never passes."""
    if max_abs_err != max_abs_err or err_ratio != err_ratio:
        return False
    return max_abs_err <= err_atol or err_ratio < ratio


def compare_tensors(torch, name, ref, got, ratio):
    """One output against the reference run's, as FLA's tests compare them (float32 on the device)."""
    if tuple(ref.shape) != tuple(got.shape) or ref.dtype != got.dtype:
        return {"name": name, "close": False, "why": f"shape/dtype {tuple(got.shape)} {got.dtype} vs "
                                                      f"{tuple(ref.shape)} {ref.dtype}"}
    r, g = ref.detach().float().flatten(), got.detach().float().flatten()
    diff = r - g
    max_abs = diff.abs().max().item() if diff.numel() else 0.0
    err = diff.square().mean().sqrt().item() if diff.numel() else 0.0
    base = r.square().mean().sqrt().item() if r.numel() else 0.0
    err_ratio = err / (base + 1e-8)
    nan = bool(torch.isnan(g).any().item())
    return {"name": name, "max_abs_err": max_abs, "err_ratio": err_ratio, "ratio_bar": ratio,
            "bitwise_equal": bool(torch.equal(ref, got)), "nan": nan,
            "close": (not nan) and fla_close(max_abs, err_ratio, ratio)}


def graph_replay_ms(torch, run, x, replays):
    """The op captured once in a CUDA graph and replayed `replays` times back to back, each replay timed by CUDA
    events (warm: the previous replay's data stays where it is, as in a model's decode/prefill loop). Returns the
    samples in ms."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):
            run(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        run(x)
    for _ in range(10):
        graph.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    del graph
    return samples


def run_case(torch, rec, case, repeat, record, keep_outputs=False, graph_replays=0):
    """Runs one case: the timed first call (recorded when `record`), the compile of every config, the steady
    calls (and `graph_replays` CUDA-graph replays). Returns the case's manifest record (and, with keep_outputs,
    the output tensors under "_tensors", on the CPU)."""
    x = make_inputs(torch, case)
    run = op_runner(case)
    bench_fla, bench_other = rec.bench_fla, rec.bench_other
    rec.begin_case(case["id"], x, record)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.no_grad():
        outputs = run(x)
    torch.cuda.synchronize()
    first_call_s = time.perf_counter() - t0
    rec.watching = rec.recording = False
    benchmarks = {"fla_cache_kernels": rec.bench_fla - bench_fla, "other_kernels": rec.bench_other - bench_other}
    launch_count = rec.sequence if record else 0
    extra_compile_s = rec.compile_pending() if record else None
    names = fmc.op_output_names(case["op"], case["params"])
    outs = [{"name": n, "shape": list(t.shape), "dtype": str(t.dtype), "sha256": tensor_sha256(torch, t)}
            for n, t in zip(names, outputs)]
    tensors = {n: t.detach().cpu() for n, t in zip(names, outputs)} if keep_outputs else None
    del outputs
    steady = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        for _ in range(repeat):
            start.record()
            run(x)
            end.record()
            end.synchronize()
            steady.append(start.elapsed_time(end))
    graph, graph_error = [], None
    if graph_replays > 0:
        try:
            graph = graph_replay_ms(torch, run, x, graph_replays)
        except RuntimeError as e:  # an op that syncs with the host cannot be captured: say so, keep the rest
            graph_error = str(e).splitlines()[0] if str(e) else type(e).__name__
    result = {"id": case["id"], "op": case["op"], "params": case["params"], "inputs": case["inputs"], "outputs": outs,
            "seed": case["seed"], "grad_mode": "no_grad",
            "timing": {"first_call_s": round(first_call_s, 4),
                       "extra_compile_s": round(extra_compile_s, 4) if extra_compile_s is not None else None,
                       "repeat_calls": repeat,
                       "steady_median_ms": round(statistics.median(steady), 5) if steady else None,
                       "steady_timer": "cuda_events" if steady else None},
            "autotune_benchmarks": benchmarks,
            "other_autotuned_kernels": sorted(rec.other_kernels), "launch_count": launch_count}
    if graph_error:
        result["timing"]["graph_replay_error"] = graph_error
    if graph:
        result["timing"]["graph_replays"] = len(graph)
        result["timing"]["graph_replay_median_ms"] = round(statistics.median(graph), 6)
        result["timing"]["graph_replay_ms"] = [round(v, 6) for v in graph]
    if tensors is not None:
        result["_tensors"] = tensors
    return result


def environment():
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)}


def collect_binaries(kernels, cache_dir, keep_ir):
    """{metadata hash: binary entry} of every compiled variant, from the Triton cache's metadata files."""
    known = index_cache(cache_dir)
    binaries = {}
    for kernel in kernels:
        for launch in kernel["launches"]:
            for v in launch["variants"]:
                if v["binary"] is None or v["binary"] in binaries:
                    continue
                if v["binary"] not in known:
                    fail(f"{kernel['kernel_name']}: compiled variant {v['binary']} has no metadata file under "
                         f"{cache_dir} (is TRITON_CACHE_DIR the cache Triton wrote?)")
                folder, md = known[v["binary"]]
                binaries[v["binary"]] = binary_entry(cache_dir, folder, md, keep_ir)
    return dict(sorted(binaries.items()))


def manifest_body(stack, fla_root, device, cases, kernels, binaries, archives):
    """The manifest of a device capture, without its digest."""
    kernels = list(kernels)
    sources = {k["source_file"] for k in kernels} | {"fla/ops/utils/cache.py"}
    stack = dict(stack, fla_sources={s: sha256_file(os.path.join(fla_root, s)) for s in sorted(sources)})
    return {
        "format": fmc.FORMAT, "capture_kind": "device",
        "captured_by": f"{TOOL_NAME} {TOOL_VERSION} on {platform.node() or 'unknown host'}",
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tool": {"name": TOOL_NAME, "version": TOOL_VERSION}, "stack": stack, "device": device,
        "environment": environment(), "cases": list(cases), "kernels": kernels, "binaries": binaries,
        "triton_cache": {"archives": archives},
    }


def capture(cases, a):
    cache_dir = os.environ["TRITON_CACHE_DIR"]
    torch, triton, fla, fla_cache, Autotuner, JITFunction, root = import_stack(a.fla_path)
    if fla_cache.FLA_CACHE_MODE is not fla_cache.FlaCacheMode.DISABLED:
        print(f"fla_capture: note: FLA_CACHE_MODE={fla_cache.FLA_CACHE_MODE.value}: FLA may load configs instead of "
              "autotuning; the manifest records each launch's source", flush=True)
    rec = Recorder(torch, fla_cache, Autotuner, JITFunction, root)
    rec.install()
    records = []
    for case in cases:
        r = run_case(torch, rec, case, a.repeat, record=True)
        records.append(r)
        launches = [launch for k in rec.kernels.values() for launch in k["launches"] if launch["case"] == case["id"]]
        print_case(r, launches, rec.kernels)
    binaries = collect_binaries(rec.kernels.values(), cache_dir, a.keep_ir)
    prefix = a.archive_prefix or os.path.join(os.path.dirname(os.path.abspath(a.out)), "triton-cache")
    archives = write_archives(cache_dir, binaries, prefix) if binaries else []
    stack = {"fla_version": getattr(fla, "__version__", "unknown"), "triton_version": triton.__version__,
             "torch_version": torch.__version__, "cuda_version": torch.version.cuda,
             "hip_version": getattr(torch.version, "hip", None), "python_version": platform.python_version()}
    body = manifest_body(stack, root, device_record(torch, triton, fla_cache), records, rec.kernels.values(),
                         binaries, archives)
    doc = finish_manifest(body)
    write_json(a.out, doc)
    print(f"fla_capture: wrote {a.out} ({fmc.summary(doc)}; digest {doc['digest']['value'][:16]}...) and "
          f"{len(archives)} archive(s): {', '.join(x['file'] for x in archives)}", flush=True)
    if a.fla_config_dir:
        for name, n in write_fla_config_dir(doc, a.fla_config_dir):
            print(f"fla_capture: {a.fla_config_dir}/{name}.json: FLA's own choice for {n} key(s)")
    return doc


def print_case(record, launches, kernels):
    t = record["timing"]
    b = record["autotune_benchmarks"]
    steady = f", then {t['steady_median_ms']:.3f} ms per call (median of {t['repeat_calls']})" \
        if t["steady_median_ms"] is not None else ""
    print(f"{record['id']}: first call {t['first_call_s']:.2f} s, {b['fla_cache_kernels']} autotune benchmarks of "
          f"fla_cache kernels (+{b['other_kernels']} of others){steady}; {record['launch_count']} launches", flush=True)
    for launch in sorted(launches, key=lambda x: x["sequence"]):
        kernel = next(k for k in kernels.values() if launch in k["launches"])
        at = launch["autotune"]
        chosen = at["chosen_config"]
        cfg = kernel["configs"][chosen] if chosen is not None else None
        what = (f"{cfg['kwargs']} w{cfg['num_warps']} s{cfg['num_stages']}" if cfg else "?")
        errors = sum(1 for v in launch["variants"] if v["binary"] is None)
        print(f"  {launch['sequence']:2d} {kernel['kernel_name']:50s} key {launch['key_hash'][:8]} {at['source']:17s} "
              f"{at['benchmarks']:3d} benchmarks -> {what}" + (f"; {errors} configs do not compile" if errors else ""),
              flush=True)


def strict_run(cases, a):
    """The cases again in this process's FLA_CACHE_MODE: how each launch got its config, the benchmarks, the
    first-call times, whether the outputs equal the capture's (SHA-256), and, with --compare-outputs, whether they
    are close to a saved run's by FLA's own test rule. --strict-run expects every launch from FLA's config files
    (strict mode with an FLA_CONFIG_DIR); --autotuned-run lets FLA autotune (its own picks, the reference)."""
    torch, triton, fla, fla_cache, Autotuner, JITFunction, root = import_stack(a.fla_path)
    rec = Recorder(torch, fla_cache, Autotuner, JITFunction, root)
    rec.install()
    reference = {}
    if a.spec_from:
        with open(a.spec_from) as f:
            reference = {c["id"]: c["outputs"] for c in json.load(f)["cases"]}
    saved = {}
    if a.compare_outputs:
        try:
            saved = torch.load(a.compare_outputs, map_location="cpu")
        except (OSError, RuntimeError, ValueError) as e:
            fail(f"{a.compare_outputs}: {e}")
    keep = bool(a.save_outputs or a.compare_outputs)
    report_cases, misses, saving, far = [], [], {}, []
    for case in cases:
        start = len(rec.events)
        r = run_case(torch, rec, case, a.repeat, record=False, keep_outputs=keep, graph_replays=a.graph_replays)
        tensors = r.pop("_tensors", None)
        events = rec.events[start:]
        if a.strict_run:
            misses += [e for e in events if e["source"] not in ("fla_config_file", "memory")]
        want = reference.get(case["id"])
        equal = None if want is None else [o["sha256"] for o in want] == [o["sha256"] for o in r["outputs"]]
        entry = {"id": case["id"], "first_call_s": r["timing"]["first_call_s"],
                 "steady_median_ms": r["timing"]["steady_median_ms"],
                 "autotune_benchmarks": r["autotune_benchmarks"], "launches": events,
                 "outputs": r["outputs"], "outputs_equal_capture": equal}
        for k in ("graph_replays", "graph_replay_median_ms", "graph_replay_ms", "graph_replay_error"):
            if k in r["timing"]:
                entry[k] = r["timing"][k]
        if a.save_outputs:
            saving[case["id"]] = tensors
        closeness = ""
        if a.compare_outputs:
            ref = saved.get(case["id"])
            if ref is None:
                entry["outputs_close"] = [{"name": "*", "close": False, "why": "not in " + a.compare_outputs}]
            else:
                entry["outputs_close"] = [compare_tensors(torch, n, ref[n], t, a.tolerance) if n in ref else
                                          {"name": n, "close": False, "why": "not in " + a.compare_outputs}
                                          for n, t in tensors.items()]
            far += [(case["id"], c) for c in entry["outputs_close"] if not c["close"]]
            closeness = "; vs the saved run: " + ", ".join(
                f"{c['name']} " + (f"max abs {c['max_abs_err']:.3g} ratio {c['err_ratio']:.3g}"
                                   + (" (bitwise equal)" if c.get("bitwise_equal") else "")
                                   if "err_ratio" in c else c.get("why", "?"))
                + ("" if c["close"] else " NOT CLOSE") for c in entry["outputs_close"])
        report_cases.append(entry)
        graph = (f", graph replay median {entry['graph_replay_median_ms']:.4f} ms of {entry['graph_replays']}"
                 if "graph_replay_median_ms" in entry else "")
        print(f"{case['id']}: first call {r['timing']['first_call_s']:.2f} s, "
              f"{r['autotune_benchmarks']['fla_cache_kernels']} autotune benchmarks of fla_cache kernels; "
              f"{sum(e['source'] == 'fla_config_file' for e in events)} of {len(events)} launches took FLA's config "
              f"file; outputs {'equal to' if equal else 'differ from' if equal is False else 'not compared with'} "
              f"the capture's{closeness}{graph}", flush=True)
    report = {"format": STRICT_FORMAT, "mode": "strict" if a.strict_run else "autotuned",
              "fla_cache_mode": fla_cache.FLA_CACHE_MODE.value,
              "fla_config_dir": os.environ.get("FLA_CONFIG_DIR"), "stack": {"fla_version": fla.__version__,
                                                                             "triton_version": triton.__version__,
                                                                             "torch_version": torch.__version__},
              "device": torch.cuda.get_device_name(0), "cases": report_cases, "misses": misses,
              "compared_with": a.compare_outputs or None,
              "tolerance": {"rule": "FLA assert_close: max abs diff <= 1e-6, else rms(diff)/rms(ref) < ratio",
                            "ratio": a.tolerance} if a.compare_outputs else None}
    if a.out:
        write_json(a.out, report)
    if a.save_outputs:
        torch.save(saving, a.save_outputs)
    for m in misses:
        print(f"fla_capture: {m['case']}: {m['kernel_name']} key {m['key_hash']} was not found in FLA's config "
              f"files ({m['source']}, {m['benchmarks']} benchmarks)", file=sys.stderr)
    for case_id, c in far:
        print(f"fla_capture: {case_id}: output {c['name']} is not close to {a.compare_outputs}'s "
              f"(ratio bar {a.tolerance}): {c}", file=sys.stderr)
    if a.compare_outputs:  # the tolerance comparison decides; the SHA-256 one is informative then
        return 1 if misses or far else 0
    return 1 if misses or any(c["outputs_equal_capture"] is False for c in report_cases) else 0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="", help=f"capture spec JSON ({SPEC_FORMAT}); overrides the shape flags")
    ap.add_argument("--spec-from", default="", help="take the cases (ids, shapes, generators, seeds) from a manifest")
    ap.add_argument("--print-spec", action="store_true", help="print the resolved cases as a spec and exit")
    ap.add_argument("--op", default="chunk_gated_delta_rule", choices=sorted(fmc.OPS))
    ap.add_argument("--T", default="4096", help="sequence lengths, comma-separated (default 4096)")
    ap.add_argument("--B", type=int, default=1)
    ap.add_argument("--H", type=int, default=16)
    ap.add_argument("--HV", type=int, default=0, help="value heads (default: H)")
    ap.add_argument("--K", type=int, default=128, help="key head dim (l2norm_fwd: D)")
    ap.add_argument("--V", type=int, default=128)
    ap.add_argument("--chunk-size", type=int, default=64)
    ap.add_argument("--dtype", default="bfloat16", help="dtype of q, k, v (l2norm_fwd: x)")
    ap.add_argument("--gate-dtype", default="float32", help="dtype of g (FLA's test: float32)")
    ap.add_argument("--beta-dtype", default="float32", help="dtype of beta (FLA's test: float32; in FLA's key)")
    ap.add_argument("--no-qk-l2norm", action="store_true", help="use_qk_l2norm_in_kernel=False")
    ap.add_argument("--initial-state", action="store_true", help="pass a zero initial state (float32)")
    ap.add_argument("--output-final-state", action="store_true")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--repeat", type=int, default=20, help="steady calls timed after the first (default 20)")
    ap.add_argument("--out", default="", help="manifest to write (--strict-run: the report)")
    ap.add_argument("--archive-prefix", default="", help="cache archives PREFIX-N.tar.gz (default: triton-cache "
                                                         "beside --out)")
    ap.add_argument("--keep-ir", action="store_true", help="archive every file of a binary's folder (PTX, LLIR, ...)")
    ap.add_argument("--fla-path", default="", help="folder that holds the 'fla' package (default: as installed)")
    ap.add_argument("--cache-dir", default="", help="Triton cache (default: $TRITON_CACHE_DIR, else ~/.triton/cache)")
    ap.add_argument("--fla-config-dir", default="", help="also write FLA's own choices as an FLA_CONFIG_DIR")
    ap.add_argument("--fla-config-from", default="", help="write --fla-config-dir from this manifest and exit "
                                                          "(no torch needed)")
    ap.add_argument("--strict-run", action="store_true", help="run the cases in this process's FLA_CACHE_MODE and "
                                                              "report how every launch got its config")
    ap.add_argument("--autotuned-run", action="store_true", help="as --strict-run, but FLA may autotune (its own "
                                                                 "picks: the reference for --compare-outputs)")
    ap.add_argument("--save-outputs", default="", help="(--strict-run/--autotuned-run) torch.save the outputs here")
    ap.add_argument("--compare-outputs", default="", help="(--strict-run/--autotuned-run) compare the outputs with "
                                                          "a --save-outputs file by FLA's own test rule")
    ap.add_argument("--tolerance", type=float, default=FLA_FORWARD_RATIO,
                    help=f"rms ratio bar for --compare-outputs (default {FLA_FORWARD_RATIO}: FLA's test_gdn forward)")
    ap.add_argument("--graph-replays", type=int, default=0, help="(--strict-run/--autotuned-run) also time N "
                                                                 "CUDA-graph replays of the op per case")
    a = ap.parse_args(argv)
    if a.strict_run and a.autotuned_run:
        ap.error("--strict-run and --autotuned-run exclude each other")
    if (a.save_outputs or a.compare_outputs or a.graph_replays) and not (a.strict_run or a.autotuned_run):
        ap.error("--save-outputs, --compare-outputs and --graph-replays need --strict-run or --autotuned-run")
    if a.graph_replays < 0 or not (0 < a.tolerance < 1):
        ap.error("--graph-replays must be >= 0 and --tolerance in (0, 1)")
    return a


def main(argv=None):
    try:
        return run(parse_args(argv))
    except Refused as e:
        print(e, file=sys.stderr)
        return 2


def run(a):
    if a.fla_config_from:
        if not a.fla_config_dir:
            fail("--fla-config-from needs --fla-config-dir")
        doc, errors = fmc.load_and_check(a.fla_config_from)
        if errors:
            fail(fmc.format_fault(a.fla_config_from, *errors[0]))
        for name, n in write_fla_config_dir(doc, a.fla_config_dir):
            print(f"fla_capture: {a.fla_config_dir}/{name}.json: FLA's own choice for {n} key(s)")
        return 0
    if a.spec_from:
        doc, errors = fmc.load_and_check(a.spec_from)
        if errors:
            fail(fmc.format_fault(a.spec_from, *errors[0]))
        spec, where = spec_of_cases(doc["cases"]), a.spec_from
    elif a.spec:
        try:
            with open(a.spec) as f:
                spec = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{a.spec}: {e}")
        where = a.spec
    else:
        spec, where = spec_from_flags(a), "flags"
    cases = resolve_spec(spec, where)
    if a.print_spec:
        print(json.dumps(spec_of_cases(cases), indent=1))
        return 0
    if a.cache_dir:
        os.environ["TRITON_CACHE_DIR"] = a.cache_dir
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".triton", "cache"))
    os.makedirs(os.environ["TRITON_CACHE_DIR"], exist_ok=True)
    if a.strict_run or a.autotuned_run:
        return strict_run(cases, a)
    if not a.out:
        fail("--out MANIFEST is required")
    capture(cases, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
