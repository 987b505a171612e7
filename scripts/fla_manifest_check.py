#!/usr/bin/env python3
"""Checks a TuneScope FLA capture manifest (format tunescope-fla-capture-v1, docs/fla-capture.md).

Every rule of the format lives here, once: scripts/fla_capture.py writes manifests with these helpers (canonical
JSON, digest, FLA's key hash, the ops' input shapes), the tests feed it good and bad manifests, and the C++ reader
follows docs/fla-capture.md, which states the same rules. Python standard library only.

    fla_manifest_check.py MANIFEST.json [--cache DIR] [--archive-dir DIR]

Exit 0: the manifest is valid. Exit 2: it is not (each fault printed as `FILE: at /json/pointer: message`), or it
cannot be read. --cache DIR also checks every listed file of every binary in an extracted Triton cache (size and
SHA-256); --archive-dir DIR checks the listed cache archives (size and SHA-256) in that folder.
"""
import argparse
import decimal
import hashlib
import json
import math
import os
import re
import sys

FORMAT = "tunescope-fla-capture-v1"
DIGEST_ALGORITHM = "sha256-rfc8785"
CAPTURE_KINDS = ("device", "hand-made")
GRAD_MODES = ("no_grad",)
STEADY_TIMERS = ("cuda_events",)
SIGNATURE_SOURCES = ("compiled", "derived", "fla_source")
AUTOTUNE_SOURCES = ("benchmarked", "fla_config_file", "memory", "triton_disk_cache", "single_config", "not_run")
ARG_KINDS = ("tensor", "scalar", "none", "constexpr", "config")
ORIGIN_KINDS = ("op_input", "launch_arg", "new")
DISTRIBUTIONS = ("uniform", "normal", "zeros")
TRANSFORMS = ("none", "sigmoid", "logsigmoid")
NORMALIZE = ("none", "l2_last_dim")
BACKENDS = ("cuda", "hip")

# torch dtype (as str(tensor.dtype), the spelling FLA puts into its keys) -> (Triton pointee type, bytes per element)
TORCH_DTYPES = {
    "torch.bfloat16": ("bf16", 2), "torch.float16": ("fp16", 2), "torch.float32": ("fp32", 4),
    "torch.float64": ("fp64", 8), "torch.int8": ("i8", 1), "torch.int16": ("i16", 2), "torch.int32": ("i32", 4),
    "torch.int64": ("i64", 8), "torch.uint8": ("u8", 1), "torch.bool": ("i1", 1),
}
# Triton scalar argument types and the values they hold
SCALAR_TYPES = {
    "i1": "bool", "u1": "bool", "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
    "i64": (-2**63, 2**63 - 1), "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1), "fp16": "float", "bf16": "float", "fp32": "float", "fp64": "float",
}
JSON_SAFE_INT = 2**53 - 1

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
UTC = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
FLA_SOURCE = re.compile(r"^fla/[A-Za-z0-9_/-]+\.py$")
PLAIN_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=-]*$")
CUDA_ARCH = re.compile(r"^sm_[0-9]+[a-z]?$")
HIP_ARCH = re.compile(r"^gfx[0-9a-f]+$")
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
GPU_NAME = re.compile(r"^[0-9A-Za-z_]+$")  # FLA's sanitize_gpu_name


# ---------------------------------------------------------------------------------------------------------------
# The ops a capture runs: their parameters (all required in a manifest, with these defaults in a capture spec) and
# the op inputs they take, in order. One table for the capture (what to generate) and the check (what must be there).

def _gdr_inputs(p):
    B, T, H, HV, K, V = p["B"], p["T"], p["H"], p["HV"], p["K"], p["V"]
    inputs = [("q", [B, T, H, K]), ("k", [B, T, H, K]), ("v", [B, T, HV, V]), ("g", [B, T, HV]), ("beta", [B, T, HV])]
    if p["initial_state"]:
        inputs.append(("initial_state", [B, HV, K, V]))
    return inputs


def _gdr_outputs(p):
    return ["o"] + (["final_state"] if p["output_final_state"] else [])


def _l2norm_inputs(p):
    return [("x", [p["B"], p["T"], p["H"], p["D"]])]


# FLA's own test of the op (tests/ops/test_gdn.py, test_chunk) draws q, k, v from U[0,1) in the op's dtype, beta as
# sigmoid(U[0,1)) and g as logsigmoid(U[0,1)) in float32, and starts from a zero state; the capture does the same.
def _gen(distribution="uniform", transform="none", scale=1.0, normalize="none", **params):
    out = {"distribution": distribution}
    if distribution == "uniform":
        out.update(low=params.get("low", 0.0), high=params.get("high", 1.0))
    elif distribution == "normal":
        out.update(mean=params.get("mean", 0.0), std=params.get("std", 1.0))
    out.update(transform=transform, scale=scale, normalize=normalize)
    return out


OPS = {
    "chunk_gated_delta_rule": {
        "params": {"B": ("int", 1), "T": ("int", 4096), "H": ("int", 16), "HV": ("int", 16), "K": ("int", 128),
                   "V": ("int", 128), "chunk_size": ("chunk", 64), "use_qk_l2norm_in_kernel": ("bool", True),
                   "output_final_state": ("bool", False), "initial_state": ("bool", False),
                   "scale": ("number_or_null", None)},
        "inputs": _gdr_inputs,
        "outputs": _gdr_outputs,
        "default_inputs": {"q": ("op", _gen()), "k": ("op", _gen()), "v": ("op", _gen()),
                           "g": ("torch.float32", _gen(transform="logsigmoid")),
                           "beta": ("torch.float32", _gen(transform="sigmoid")),
                           "initial_state": ("torch.float32", _gen("zeros"))},
    },
    "l2norm_fwd": {
        "params": {"B": ("int", 1), "T": ("int", 4096), "H": ("int", 16), "D": ("int", 128), "eps": ("positive", 1e-6)},
        "inputs": _l2norm_inputs,
        "outputs": lambda p: ["y", "rstd"],
        "default_inputs": {"x": ("op", _gen("normal"))},
    },
}


def op_input_shapes(op, params):
    """[(name, shape)] of the op's inputs for these (complete, valid) parameters."""
    return OPS[op]["inputs"](params)


def op_output_names(op, params):
    """Names of the op's outputs, in the order the op returns them."""
    return OPS[op]["outputs"](params)


# ---------------------------------------------------------------------------------------------------------------
# Canonical JSON (RFC 8785), the digest over it, and FLA's config-cache entry id.

def _ecmascript_number(x):
    """Number.prototype.toString of a finite double, from Python's shortest round-trip digits (RFC 8785 3.2.2.3)."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _ecmascript_number(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits_all = whole + fraction
    leading = len(digits_all) - len(digits_all.lstrip("0"))
    digits = digits_all.strip("0")
    n = len(whole) + (int(exponent) if exponent else 0) - leading  # x = 0.digits * 10^n
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"


def _canonical_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20:
            out.append({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}.get(o, f"\\u{o:04x}"))
        elif 0xD800 <= o <= 0xDFFF:
            raise ValueError("a string holds a lone UTF-16 surrogate")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical_json(value):
    """RFC 8785 (JCS) text of a JSON value: the bytes TuneScope hashes and signs (docs/signing.md)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if abs(value) > JSON_SAFE_INT:
            raise ValueError(f"integer {value} is outside I-JSON's exact range")
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and Infinity have no canonical form")
        return _ecmascript_number(value)
    if isinstance(value, str):
        return _canonical_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_canonical_string(k) + ":" + canonical_json(value[k]) for k in keys) + "}"
    raise ValueError(f"{type(value).__name__} is not a JSON value")


def manifest_digest(document):
    """SHA-256 (hex) of the canonical form of the manifest without its `digest` member."""
    body = {k: v for k, v in document.items() if k != "digest"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def fla_key_hash(key):
    """FLA's entry id (fla/ops/utils/cache.py, AutotuneKey.key_hash): md5 of the compact, key-sorted JSON."""
    return hashlib.md5(json.dumps(list(key), separators=(",", ":"), sort_keys=True).encode()).hexdigest()


def tensor_extent_bytes(shape, strides, itemsize):
    """Bytes from the first element of a strided view to one past its last (0 for an empty view)."""
    if any(s == 0 for s in shape):
        return 0
    return (1 + sum((n - 1) * st for n, st in zip(shape, strides))) * itemsize


# ---------------------------------------------------------------------------------------------------------------
# Reading: numbers are checked against their source text (as the C++ canonicaliser does), duplicates are kept.

class _SourcedFloat(float):
    problem = None


class _DuplicateKeys(dict):
    duplicates = ()


def _parse_float(text):
    value = _SourcedFloat(float(text))
    if not math.isfinite(value):
        value.problem = f"number {text} overflows a 64-bit double"
    elif value == 0 and decimal.Decimal(text) != 0:
        value.problem = f"number {text} underflows to 0 in a 64-bit double"
    elif decimal.Decimal(text) != decimal.Decimal(repr(float(value))):
        value.problem = (f"number {text} has more precision than a 64-bit double keeps (it would be read as "
                         f"{float(value)!r}); write it with the digits a double keeps")
    return value


def _parse_constant(name):
    value = _SourcedFloat(float(name))
    value.problem = f"{name} is not JSON (no NaN or Infinity in a manifest)"
    return value


def _object_pairs(pairs):
    out = _DuplicateKeys()
    duplicates = []
    for k, v in pairs:
        if k in out:
            duplicates.append(k)
        out[k] = v
    if duplicates:
        out.duplicates = tuple(duplicates)
    return out


def pointer_join(pointer, token):
    return pointer + "/" + str(token).replace("~", "~0").replace("/", "~1")


def parse_manifest_text(text):
    """The JSON value; raises ValueError with line and column on a syntax error."""
    try:
        return json.loads(text, parse_float=_parse_float, parse_constant=_parse_constant,
                          object_pairs_hook=_object_pairs)
    except json.JSONDecodeError as e:
        raise ValueError(f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None


def _scan_values(value, pointer, errors):
    """Faults any JSON reader must refuse before the schema is looked at: duplicate keys, numbers a double does not
    hold, integers outside I-JSON's range, nesting deeper than 512."""
    stack = [(value, pointer, 0)]
    while stack:
        v, ptr, depth = stack.pop()
        if depth > 512:
            errors.append((ptr, "nesting deeper than 512 levels"))
            continue
        if isinstance(v, dict):
            for k in getattr(v, "duplicates", ()):
                errors.append((pointer_join(ptr, k), "duplicate key (which value counts would be a guess)"))
            stack.extend((child, pointer_join(ptr, k), depth + 1) for k, child in v.items())
        elif isinstance(v, list):
            stack.extend((child, pointer_join(ptr, i), depth + 1) for i, child in enumerate(v))
        elif isinstance(v, _SourcedFloat) and v.problem:
            errors.append((ptr, v.problem))
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) > JSON_SAFE_INT:
            errors.append((ptr, f"integer {v} is outside -(2^53-1)..2^53-1; store it as a string"))


# ---------------------------------------------------------------------------------------------------------------
# The schema.

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_scalar(v):
    return v is None or isinstance(v, (bool, int, float, str))


def _kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if _is_number(v):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


class Checker:
    def __init__(self):
        self.errors = []

    def fail(self, pointer, message):
        self.errors.append((pointer, message))
        return False

    def members(self, v, ptr, required, optional=()):
        """True when v is an object holding every required member; unknown members are faults of their own."""
        if not isinstance(v, dict):
            return self.fail(ptr, f"must be an object, not {_kind(v)}")
        for name in v:
            if name not in required and name not in optional:
                self.fail(pointer_join(ptr, name), "unknown member")
        missing = [name for name in required if name not in v]
        for name in missing:
            self.fail(pointer_join(ptr, name), "is missing")
        return not missing

    def string(self, v, ptr, pattern=None, enum=None, null=False):
        if v is None and null:
            return True
        if not isinstance(v, str):
            return self.fail(ptr, f"must be a string{' or null' if null else ''}, not {_kind(v)}")
        if enum is not None and v not in enum:
            return self.fail(ptr, f"'{v}' is not one of {', '.join(enum)}")
        if pattern is not None and not pattern.fullmatch(v):
            return self.fail(ptr, f"'{v}' does not match {pattern.pattern}")
        return True

    def integer(self, v, ptr, lo=None, hi=None, null=False):
        if v is None and null:
            return True
        if not _is_int(v):
            return self.fail(ptr, f"must be an integer{' or null' if null else ''}, not {_kind(v)}")
        if lo is not None and v < lo:
            return self.fail(ptr, f"{v} is below the least legal value {lo}")
        if hi is not None and v > hi:
            return self.fail(ptr, f"{v} is above the largest legal value {hi}")
        return True

    def number(self, v, ptr, lo=None, positive=False, null=False):
        if v is None and null:
            return True
        if not _is_number(v):
            return self.fail(ptr, f"must be a number{' or null' if null else ''}, not {_kind(v)}")
        if positive and not v > 0:
            return self.fail(ptr, f"{v} must be greater than 0")
        if lo is not None and v < lo:
            return self.fail(ptr, f"{v} is below the least legal value {lo}")
        return True

    def boolean(self, v, ptr):
        return isinstance(v, bool) or self.fail(ptr, f"must be true or false, not {_kind(v)}")

    def array(self, v, ptr, min_len=0, max_len=None):
        if not isinstance(v, list):
            return self.fail(ptr, f"must be an array, not {_kind(v)}")
        if len(v) < min_len:
            return self.fail(ptr, f"must hold at least {min_len} element{'s' if min_len != 1 else ''}")
        if max_len is not None and len(v) > max_len:
            return self.fail(ptr, f"must hold at most {max_len} elements")
        return True

    def sha256(self, v, ptr):
        return self.string(v, ptr, HEX64)

    def int_list(self, v, ptr, lo=0, min_len=0, max_len=None):
        if not self.array(v, ptr, min_len, max_len):
            return False
        return all([self.integer(x, pointer_join(ptr, i), lo) for i, x in enumerate(v)])

    def names(self, v, ptr, allowed=None, unique=True):
        """An array of identifiers, optionally drawn from `allowed`."""
        if not self.array(v, ptr):
            return False
        ok = True
        for i, name in enumerate(v):
            p = pointer_join(ptr, i)
            if not self.string(name, p, IDENT):
                ok = False
            elif allowed is not None and name not in allowed:
                ok = self.fail(p, f"'{name}' is not an argument of the kernel")
            elif unique and v.index(name) != i:
                ok = self.fail(p, f"'{name}' is listed twice")
        return ok


def _check_tool_stack_device(c, doc):
    if c.members(doc["tool"], "/tool", ("name", "version")):
        c.string(doc["tool"]["name"], "/tool/name")
        c.string(doc["tool"]["version"], "/tool/version")
    stack = doc["stack"]
    if c.members(stack, "/stack", ("fla_version", "triton_version", "torch_version", "cuda_version", "hip_version",
                                   "python_version", "fla_sources")):
        for name in ("fla_version", "triton_version"):
            c.string(stack[name], f"/stack/{name}")
        for name in ("torch_version", "cuda_version", "hip_version", "python_version"):
            c.string(stack[name], f"/stack/{name}", null=True)
    device = doc["device"]
    if c.members(device, "/device", ("name", "fla_gpu_name", "backend", "arch", "capability", "warp_size",
                                     "multiprocessors", "max_shared_mem_bytes", "total_memory_bytes")):
        c.string(device["name"], "/device/name")
        c.string(device["fla_gpu_name"], "/device/fla_gpu_name", GPU_NAME)
        if c.string(device["backend"], "/device/backend", enum=BACKENDS):
            arch_rule = CUDA_ARCH if device["backend"] == "cuda" else HIP_ARCH
            c.string(device["arch"], "/device/arch", arch_rule)
        if device["capability"] is not None:
            c.int_list(device["capability"], "/device/capability", 0, 2, 2)
        if c.integer(device["warp_size"], "/device/warp_size") and device["warp_size"] not in (32, 64):
            c.fail("/device/warp_size", "must be 32 or 64")
        c.integer(device["multiprocessors"], "/device/multiprocessors", 1, null=True)
        c.integer(device["max_shared_mem_bytes"], "/device/max_shared_mem_bytes", 0, null=True)
        c.integer(device["total_memory_bytes"], "/device/total_memory_bytes", 0, null=True)
    env = doc["environment"]
    if isinstance(env, dict):
        for name, value in env.items():
            p = pointer_join("/environment", name)
            if not ENV_NAME.fullmatch(name):
                c.fail(p, f"'{name}' is not an environment variable name")
            c.string(value, p)
    else:
        c.fail("/environment", f"must be an object, not {_kind(env)}")


def _check_fla_sources(c, doc):
    sources = doc["stack"].get("fla_sources") if isinstance(doc["stack"], dict) else None
    if not isinstance(sources, dict):
        if isinstance(doc["stack"], dict) and "fla_sources" in doc["stack"]:
            c.fail("/stack/fla_sources", f"must be an object, not {_kind(sources)}")
        return {}
    for path, digest in sources.items():
        p = pointer_join("/stack/fla_sources", path)
        if not FLA_SOURCE.fullmatch(path) or ".." in path.split("/"):
            c.fail(p, f"'{path}' is not a path inside the fla package (fla/.../*.py)")
        c.sha256(digest, p)
    return sources


def check_generator(c, g, ptr):
    if not isinstance(g, dict) or "distribution" not in g:
        return c.members(g, ptr, ("distribution", "transform", "scale", "normalize"))
    dist = g["distribution"]
    extra = {"uniform": ("low", "high"), "normal": ("mean", "std")}.get(dist, ())
    if not c.members(g, ptr, ("distribution", "transform", "scale", "normalize") + extra):
        return False
    c.string(dist, ptr + "/distribution", enum=DISTRIBUTIONS)
    if dist == "uniform" and c.number(g["low"], ptr + "/low") and c.number(g["high"], ptr + "/high"):
        if not g["low"] < g["high"]:
            c.fail(ptr + "/high", "must be greater than low")
    if dist == "normal":
        c.number(g["mean"], ptr + "/mean")
        c.number(g["std"], ptr + "/std", positive=True)
    c.string(g["transform"], ptr + "/transform", enum=TRANSFORMS)
    c.number(g["scale"], ptr + "/scale")
    c.string(g["normalize"], ptr + "/normalize", enum=NORMALIZE)
    return True


def check_params(c, op, params, ptr):
    rules = OPS[op]["params"]
    if not c.members(params, ptr, tuple(rules)):
        return False
    ok = True
    for name, (rule, _default) in rules.items():
        v, p = params[name], pointer_join(ptr, name)
        if rule == "int":
            ok &= c.integer(v, p, 1)
        elif rule == "chunk":
            ok &= c.integer(v, p) and (v in (16, 32, 64) or c.fail(p, f"{v} is not one of 16, 32, 64"))
        elif rule == "bool":
            ok &= c.boolean(v, p)
        elif rule == "number_or_null":
            ok &= c.number(v, p, positive=True, null=True)
        elif rule == "positive":
            ok &= c.number(v, p, positive=True)
    if op == "chunk_gated_delta_rule" and ok and params["HV"] % params["H"] != 0:
        ok = c.fail(ptr + "/HV", f"HV={params['HV']} is not a multiple of H={params['H']} (FLA refuses it)")
    return ok


def _check_case(c, case, ptr, device_capture):
    required = ("id", "op", "params", "inputs", "outputs", "seed", "grad_mode", "timing", "autotune_benchmarks",
                "other_autotuned_kernels", "launch_count")
    if not c.members(case, ptr, required):
        return None
    c.string(case["id"], ptr + "/id", CASE_ID)
    c.integer(case["seed"], ptr + "/seed", 0)
    c.string(case["grad_mode"], ptr + "/grad_mode", enum=GRAD_MODES)
    c.integer(case["launch_count"], ptr + "/launch_count", 0)
    c.names(case["other_autotuned_kernels"], ptr + "/other_autotuned_kernels")
    timing, tp = case["timing"], ptr + "/timing"
    if c.members(timing, tp, ("first_call_s", "extra_compile_s", "repeat_calls", "steady_median_ms", "steady_timer")):
        c.number(timing["first_call_s"], tp + "/first_call_s", 0, null=not device_capture)
        c.number(timing["extra_compile_s"], tp + "/extra_compile_s", 0, null=True)
        if c.integer(timing["repeat_calls"], tp + "/repeat_calls", 0):
            timed = timing["repeat_calls"] > 0
            c.number(timing["steady_median_ms"], tp + "/steady_median_ms", 0, null=not timed)
            if not timed and timing["steady_median_ms"] is not None:
                c.fail(tp + "/steady_median_ms", "must be null when repeat_calls is 0")
            c.string(timing["steady_timer"], tp + "/steady_timer", enum=STEADY_TIMERS, null=not timed)
    bench, bp = case["autotune_benchmarks"], ptr + "/autotune_benchmarks"
    if c.members(bench, bp, ("fla_cache_kernels", "other_kernels")):
        c.integer(bench["fla_cache_kernels"], bp + "/fla_cache_kernels", 0, null=not device_capture)
        c.integer(bench["other_kernels"], bp + "/other_kernels", 0, null=not device_capture)
    if not c.string(case["op"], ptr + "/op", enum=tuple(OPS)):
        return None
    if not check_params(c, case["op"], case["params"], ptr + "/params"):
        return None
    expected = op_input_shapes(case["op"], case["params"])
    inputs, ip = case["inputs"], ptr + "/inputs"
    if not c.array(inputs, ip):
        return None
    if len(inputs) != len(expected):
        c.fail(ip, f"holds {len(inputs)} inputs; {case['op']} with these params takes {len(expected)}: "
                   f"{', '.join(n for n, _ in expected)}")
        return None
    for i, (entry, (name, shape)) in enumerate(zip(inputs, expected)):
        p = pointer_join(ip, i)
        if not c.members(entry, p, ("name", "shape", "dtype", "generator")):
            continue
        if entry["name"] != name:
            c.fail(p + "/name", f"must be '{name}' (input {i} of {case['op']})")
        if entry["shape"] != shape:
            c.fail(p + "/shape", f"must be {shape} for these params")
        c.string(entry["dtype"], p + "/dtype", enum=tuple(TORCH_DTYPES))
        check_generator(c, entry["generator"], p + "/generator")
    _check_outputs(c, case["outputs"], ptr + "/outputs", op_output_names(case["op"], case["params"]), device_capture)
    return case


def _check_outputs(c, outputs, ptr, names, device_capture):
    if not c.array(outputs, ptr):
        return
    if [o.get("name") if isinstance(o, dict) else None for o in outputs] != names:
        c.fail(ptr, f"must list the op's outputs {', '.join(names)}, in this order")
        return
    for i, out in enumerate(outputs):
        p = pointer_join(ptr, i)
        if c.members(out, p, ("name", "shape", "dtype", "sha256")):
            c.int_list(out["shape"], p + "/shape", 0, 0, 8)
            c.string(out["dtype"], p + "/dtype", enum=tuple(TORCH_DTYPES))
            if out["sha256"] is not None or device_capture:
                c.sha256(out["sha256"], p + "/sha256")


def _check_config(c, cfg, ptr, constexpr_names):
    if not c.members(cfg, ptr, ("kwargs", "num_warps", "num_ctas", "num_stages", "maxnreg", "pre_hook", "ir_override")):
        return False
    kwargs = cfg["kwargs"]
    if isinstance(kwargs, dict):
        for name, value in kwargs.items():
            p = pointer_join(ptr + "/kwargs", name)
            if name not in constexpr_names:
                c.fail(p, f"'{name}' is not a tl.constexpr argument of the kernel")
            elif not _is_scalar(value):
                c.fail(p, f"must be a JSON scalar, not {_kind(value)}")
    else:
        c.fail(ptr + "/kwargs", f"must be an object, not {_kind(kwargs)}")
    if c.integer(cfg["num_warps"], ptr + "/num_warps", 1, 32) and cfg["num_warps"] & (cfg["num_warps"] - 1):
        c.fail(ptr + "/num_warps", f"{cfg['num_warps']} is not a power of 2")
    c.integer(cfg["num_ctas"], ptr + "/num_ctas", 1, 16)
    c.integer(cfg["num_stages"], ptr + "/num_stages", 0, 16)
    c.integer(cfg["maxnreg"], ptr + "/maxnreg", 1, 255, null=True)
    if cfg["pre_hook"] is not None:
        c.fail(ptr + "/pre_hook", "must be null (a Python hook cannot be captured; FLA drops it on load)")
    c.string(cfg["ir_override"], ptr + "/ir_override", null=True)
    return True


def _check_arg(c, arg, ptr, name, kernel, config_names, case_inputs):
    """One launch argument; returns its kind or None."""
    if not isinstance(arg, dict) or "kind" not in arg or "name" not in arg:
        c.members(arg, ptr, ("name", "kind"))
        return None
    if arg["name"] != name:
        c.fail(ptr + "/name", f"must be '{name}': launch arguments follow the kernel's arg_names")
        return None
    kind = arg["kind"]
    if not c.string(kind, ptr + "/kind", enum=ARG_KINDS):
        return None
    constexpr = name in kernel["constexpr_names"]
    if (kind in ("constexpr", "config")) != constexpr:
        c.fail(ptr + "/kind", f"'{kind}' for {'a tl.constexpr' if constexpr else 'a runtime'} argument")
        return None
    if kind == "config" and name not in config_names:
        c.fail(ptr + "/kind", f"'config', but no config sets '{name}'")
        return None
    if kind != "config" and name in config_names:
        c.fail(ptr + "/kind", f"'{kind}', but every config sets '{name}': its kind is 'config'")
        return None
    if kind == "tensor":
        _check_tensor_arg(c, arg, ptr, case_inputs)
    elif kind == "scalar":
        if c.members(arg, ptr, ("name", "kind", "triton_type", "value", "do_not_specialize")):
            if c.string(arg["triton_type"], ptr + "/triton_type", enum=tuple(SCALAR_TYPES)):
                _check_scalar_value(c, arg["value"], ptr + "/value", arg["triton_type"])
            if c.boolean(arg["do_not_specialize"], ptr + "/do_not_specialize") and \
                    arg["do_not_specialize"] != (name in kernel["do_not_specialize"]):
                c.fail(ptr + "/do_not_specialize", "disagrees with the kernel's do_not_specialize")
    elif kind == "constexpr":
        if c.members(arg, ptr, ("name", "kind", "value")):
            v = arg["value"]
            if not _is_scalar(v) and not (isinstance(v, dict) and set(v) == {"repr"} and isinstance(v["repr"], str)):
                c.fail(ptr + "/value", "must be a JSON scalar or {\"repr\": string}")
    else:
        c.members(arg, ptr, ("name", "kind"))
    return kind


def _check_scalar_value(c, v, ptr, triton_type):
    rule = SCALAR_TYPES[triton_type]
    if rule == "bool":
        c.boolean(v, ptr)
    elif rule == "float":
        c.number(v, ptr)
    else:
        c.integer(v, ptr, rule[0], rule[1])


def _check_tensor_arg(c, arg, ptr, case_inputs):
    required = ("name", "kind", "dtype", "triton_type", "shape", "strides", "storage_offset", "storage_bytes",
                "aligned_16", "origin")
    if not c.members(arg, ptr, required):
        return
    dtype_ok = c.string(arg["dtype"], ptr + "/dtype", enum=tuple(TORCH_DTYPES))
    if dtype_ok and arg["triton_type"] != "*" + TORCH_DTYPES[arg["dtype"]][0]:
        c.fail(ptr + "/triton_type", f"must be '*{TORCH_DTYPES[arg['dtype']][0]}' for {arg['dtype']}")
    shape_ok = c.int_list(arg["shape"], ptr + "/shape", 0, 0, 8)
    strides_ok = c.int_list(arg["strides"], ptr + "/strides", 0, 0, 8)
    if shape_ok and strides_ok and len(arg["shape"]) != len(arg["strides"]):
        c.fail(ptr + "/strides", f"holds {len(arg['strides'])} strides for {len(arg['shape'])} dimensions")
        strides_ok = False
    offset_ok = c.integer(arg["storage_offset"], ptr + "/storage_offset", 0)
    if c.integer(arg["storage_bytes"], ptr + "/storage_bytes", 0) and dtype_ok and shape_ok and strides_ok \
            and offset_ok:
        itemsize = TORCH_DTYPES[arg["dtype"]][1]
        need = arg["storage_offset"] * itemsize + tensor_extent_bytes(arg["shape"], arg["strides"], itemsize)
        if arg["storage_bytes"] < need:
            c.fail(ptr + "/storage_bytes", f"{arg['storage_bytes']} bytes cannot hold the view ({need} bytes "
                                           "from the storage's start to one past the last element)")
    c.boolean(arg["aligned_16"], ptr + "/aligned_16")
    origin, op = arg["origin"], ptr + "/origin"
    if not isinstance(origin, dict) or "kind" not in origin:
        c.members(origin, op, ("kind",))
        return
    kind = origin["kind"]
    if not c.string(kind, op + "/kind", enum=ORIGIN_KINDS):
        return
    if kind == "op_input" and c.members(origin, op, ("kind", "input")):
        if case_inputs is not None and origin["input"] not in case_inputs:
            c.fail(op + "/input", f"'{origin['input']}' is not an input of the launch's case")
    elif kind == "launch_arg" and c.members(origin, op, ("kind", "sequence", "arg")):
        c.integer(origin["sequence"], op + "/sequence", 0)
        c.string(origin["arg"], op + "/arg", IDENT)
    elif kind == "new":
        c.members(origin, op, ("kind",))


def _check_key(c, launch, ptr, kernel, args_by_name):
    """The autotune key is FLA's: the present key arguments' values, then str(dtype) of every tensor argument in the
    order the call passed them; key_hash is FLA's md5 of it."""
    key, kp = launch["autotune_key"], ptr + "/autotune_key"
    if not c.array(key, kp):
        return
    ok = True
    for i, v in enumerate(key):
        if not _is_scalar(v):
            ok = c.fail(pointer_join(kp, i), f"must be a JSON scalar, not {_kind(v)}")
    key_args_ok = c.names(launch["key_arg_names"], ptr + "/key_arg_names", kernel["key_names"])
    dtype_args_ok = c.names(launch["dtype_arg_names"], ptr + "/dtype_arg_names", kernel["arg_names"])
    if key_args_ok:
        order = [kernel["key_names"].index(n) for n in launch["key_arg_names"]]
        if order != sorted(order):
            key_args_ok = c.fail(ptr + "/key_arg_names", "must follow the order of the kernel's key_names")
    if dtype_args_ok:
        tensors = {n for n, a in args_by_name.items() if a.get("kind") == "tensor"}
        if set(launch["dtype_arg_names"]) != tensors:
            dtype_args_ok = c.fail(ptr + "/dtype_arg_names", "must name every tensor argument exactly once "
                                                            f"({', '.join(sorted(tensors)) or 'none'})")
    if ok and key_args_ok and dtype_args_ok:
        expected = []
        for i, name in enumerate(launch["key_arg_names"]):
            arg = args_by_name[name]
            if arg["kind"] in ("tensor", "config"):
                c.fail(pointer_join(ptr + "/key_arg_names", i), f"'{name}' is a {arg['kind']} argument: FLA's key "
                       "holds the values of scalar, constexpr and None arguments the call passed")
                return
            expected.append(arg.get("value"))
        expected += [args_by_name[n].get("dtype") for n in launch["dtype_arg_names"]]
        if len(key) != len(expected):
            c.fail(kp, f"holds {len(key)} values; the key arguments and tensor dtypes make {len(expected)}")
        else:
            for i, (got, want) in enumerate(zip(key, expected)):
                if got != want or type(got) is not type(want):
                    c.fail(pointer_join(kp, i), f"{json.dumps(got)} is not the launch's "
                                                f"{'argument value' if i < len(launch['key_arg_names']) else 'dtype'} "
                                                f"{json.dumps(want)}")
                    break
    if c.string(launch["key_hash"], ptr + "/key_hash", HEX32) and ok:
        want = fla_key_hash(key)
        if launch["key_hash"] != want:
            c.fail(ptr + "/key_hash", f"is not FLA's md5 of the key ({want})")


def _check_autotune(c, at, ptr, n_configs, device_capture):
    if not c.members(at, ptr, ("source", "benchmarks", "seconds", "chosen_config", "timings_ms")):
        return
    if c.string(at["source"], ptr + "/source", enum=AUTOTUNE_SOURCES):
        if (at["source"] == "not_run") == device_capture:
            c.fail(ptr + "/source", "'not_run' belongs to hand-made manifests only" if device_capture
                   else "a hand-made manifest ran nothing: 'not_run'")
    if c.integer(at["benchmarks"], ptr + "/benchmarks", 0) and at.get("source") == "benchmarked" \
            and at["benchmarks"] < 1:
        c.fail(ptr + "/benchmarks", "a benchmarked launch ran at least one benchmark")
    c.number(at["seconds"], ptr + "/seconds", 0, null=True)
    c.integer(at["chosen_config"], ptr + "/chosen_config", 0, n_configs - 1, null=True)
    timings, tp = at["timings_ms"], ptr + "/timings_ms"
    if timings is None:
        return
    if c.array(timings, tp, n_configs, n_configs):
        for i, t in enumerate(timings):
            if t is not None and c.array(t, pointer_join(tp, i), 3, 3):
                for j, x in enumerate(t):
                    c.number(x, pointer_join(pointer_join(tp, i), j), 0)


def _check_variants(c, variants, ptr, n_configs, binaries, kernel_name, configs, device_capture):
    if not c.array(variants, ptr):
        return
    if len(variants) != n_configs:
        c.fail(ptr, f"holds {len(variants)} variants for {n_configs} configs: one per config, in config order")
        return
    for i, var in enumerate(variants):
        p = pointer_join(ptr, i)
        if not c.members(var, p, ("config", "grid", "binary", "compile_error")):
            continue
        if var["config"] != i:
            c.fail(p + "/config", f"must be {i}: variants follow the config order")
        c.int_list(var["grid"], p + "/grid", 1, 1, 3)
        c.string(var["compile_error"], p + "/compile_error", null=True)
        binary = var["binary"]
        if binary is None:
            if var["compile_error"] is None and device_capture:
                c.fail(p + "/binary", "is null without a compile_error")
            continue
        if not c.string(binary, p + "/binary", HEX64):
            continue
        if var["compile_error"] is not None:
            c.fail(p + "/compile_error", "must be null when the variant has a binary")
        entry = binaries.get(binary)
        if not isinstance(entry, dict):
            c.fail(p + "/binary", f"{binary} is not in /binaries")
            continue
        if entry.get("kernel_name") != kernel_name:
            c.fail(p + "/binary", f"{binary} is a binary of {entry.get('kernel_name')}, not of {kernel_name}")
        cfg = configs[i] if i < len(configs) and isinstance(configs[i], dict) else {}
        for name in ("num_warps", "num_stages", "num_ctas"):
            if name in cfg and name in entry and cfg[name] != entry[name]:
                c.fail(p + "/binary", f"{binary} was compiled with {name}={entry[name]}, config {i} has {cfg[name]}")


def _check_launch(c, launch, ptr, kernel, cases_by_id, binaries, device_capture, sequences):
    required = ("case", "sequence", "signature_source", "autotune_key", "key_hash", "key_arg_names", "dtype_arg_names",
                "args", "autotune", "variants")
    if not c.members(launch, ptr, required):
        return
    case = cases_by_id.get(launch["case"]) if isinstance(launch["case"], str) else None
    if case is None:
        c.fail(ptr + "/case", f"{json.dumps(launch['case'])} is not the id of a case")
    if c.integer(launch["sequence"], ptr + "/sequence", 0) and case is not None:
        seq = launch["sequence"]
        if _is_int(case.get("launch_count")) and seq >= case["launch_count"]:
            c.fail(ptr + "/sequence", f"{seq} is not below the case's launch_count {case.get('launch_count')}")
        elif (case["id"], seq) in sequences:
            c.fail(ptr + "/sequence", f"{seq} is also the sequence of {sequences[(case['id'], seq)]}")
        else:
            sequences[(case["id"], seq)] = ptr
    c.string(launch["signature_source"], ptr + "/signature_source", enum=SIGNATURE_SOURCES)
    configs = kernel["configs"] if isinstance(kernel["configs"], list) else []
    config_names = set()
    for cfg in configs:
        if isinstance(cfg, dict) and isinstance(cfg.get("kwargs"), dict):
            config_names |= set(cfg["kwargs"])
    args, ap = launch["args"], ptr + "/args"
    args_by_name = {}
    if c.array(args, ap):
        if len(args) != len(kernel["arg_names"]):
            c.fail(ap, f"holds {len(args)} arguments; the kernel has {len(kernel['arg_names'])}")
        else:
            case_inputs = {e.get("name") for e in case["inputs"] if isinstance(e, dict)} if case else None
            for i, (arg, name) in enumerate(zip(args, kernel["arg_names"])):
                if _check_arg(c, arg, pointer_join(ap, i), name, kernel, config_names, case_inputs):
                    args_by_name[name] = arg
    if len(args_by_name) == len(kernel["arg_names"]):
        _check_key(c, launch, ptr, kernel, args_by_name)
    _check_autotune(c, launch["autotune"], ptr + "/autotune", len(configs), device_capture)
    _check_variants(c, launch["variants"], ptr + "/variants", len(configs), binaries, kernel["kernel_name"], configs,
                    device_capture)


def _check_kernel(c, kernel, ptr, fla_sources):
    required = ("kernel_name", "source_file", "arg_names", "constexpr_names", "do_not_specialize", "key_names",
                "configs", "launches")
    if not c.members(kernel, ptr, required):
        return False
    ok = c.string(kernel["kernel_name"], ptr + "/kernel_name", IDENT)
    if c.string(kernel["source_file"], ptr + "/source_file", FLA_SOURCE) and kernel["source_file"] not in fla_sources:
        c.fail(ptr + "/source_file", f"'{kernel['source_file']}' has no SHA-256 in /stack/fla_sources")
    if not c.names(kernel["arg_names"], ptr + "/arg_names"):
        return False
    names = kernel["arg_names"]
    ok &= c.names(kernel["constexpr_names"], ptr + "/constexpr_names", names)
    ok &= c.names(kernel["do_not_specialize"], ptr + "/do_not_specialize", names)
    ok &= c.names(kernel["key_names"], ptr + "/key_names", names)
    if not ok:
        return False
    configs, cp = kernel["configs"], ptr + "/configs"
    if not c.array(configs, cp, 1):
        return False
    seen = {}
    kwarg_sets = set()
    for i, cfg in enumerate(configs):
        p = pointer_join(cp, i)
        if _check_config(c, cfg, p, kernel["constexpr_names"]):
            text = canonical_json(cfg)
            if text in seen:
                c.fail(p, f"is the same config as {seen[text]}")
            seen[text] = p
            if isinstance(cfg["kwargs"], dict):
                kwarg_sets.add(frozenset(cfg["kwargs"]))
    if len(kwarg_sets) > 1:
        c.fail(cp, "every config must set the same kwargs (Triton refuses a kwarg given by both call and config)")
    return True


def _check_binaries(c, binaries):
    if not isinstance(binaries, dict):
        c.fail("/binaries", f"must be an object, not {_kind(binaries)}")
        return {}
    required = ("kernel_name", "folder", "metadata_file", "binary_file", "files", "target", "num_warps",
                "num_stages", "num_ctas", "shared")
    for digest, entry in binaries.items():
        p = pointer_join("/binaries", digest)
        if not HEX64.fullmatch(digest):
            c.fail(p, f"'{digest}' is not a Triton metadata hash (64 lowercase hex digits)")
        if not c.members(entry, p, required):
            continue
        c.string(entry["kernel_name"], p + "/kernel_name", IDENT)
        c.string(entry["folder"], p + "/folder", PLAIN_FILE)
        names = set()
        if c.array(entry["files"], p + "/files", 2):
            for i, f in enumerate(entry["files"]):
                fp = pointer_join(p + "/files", i)
                if c.members(f, fp, ("name", "sha256", "bytes")):
                    if c.string(f["name"], fp + "/name", PLAIN_FILE):
                        if f["name"] in names:
                            c.fail(fp + "/name", f"'{f['name']}' is listed twice")
                        names.add(f["name"])
                    c.sha256(f["sha256"], fp + "/sha256")
                    c.integer(f["bytes"], fp + "/bytes", 0)
        kernel = entry["kernel_name"] if isinstance(entry["kernel_name"], str) else ""
        if c.string(entry["metadata_file"], p + "/metadata_file") and entry["metadata_file"] != kernel + ".json":
            c.fail(p + "/metadata_file", f"must be '{kernel}.json' (Triton's metadata file)")
        elif entry["metadata_file"] not in names:
            c.fail(p + "/metadata_file", f"'{entry['metadata_file']}' is not in files")
        if c.string(entry["binary_file"], p + "/binary_file") and \
                entry["binary_file"] not in (kernel + ".cubin", kernel + ".hsaco"):
            c.fail(p + "/binary_file", f"must be '{kernel}.cubin' or '{kernel}.hsaco'")
        elif entry["binary_file"] not in names:
            c.fail(p + "/binary_file", f"'{entry['binary_file']}' is not in files")
        t, tp = entry["target"], p + "/target"
        if c.members(t, tp, ("backend", "arch", "warp_size")):
            if c.string(t["backend"], tp + "/backend", enum=BACKENDS):
                if t["backend"] == "cuda":
                    c.integer(t["arch"], tp + "/arch", 1)
                else:
                    c.string(t["arch"], tp + "/arch", HIP_ARCH)
            if c.integer(t["warp_size"], tp + "/warp_size") and t["warp_size"] not in (32, 64):
                c.fail(tp + "/warp_size", "must be 32 or 64")
        c.integer(entry["num_warps"], p + "/num_warps", 1, 32)
        c.integer(entry["num_stages"], p + "/num_stages", 0, 16)
        c.integer(entry["num_ctas"], p + "/num_ctas", 1, 16)
        c.integer(entry["shared"], p + "/shared", 0)
    return binaries


def _check_origins(c, kernels, cases_by_id):
    """A launch_arg origin names an earlier launch of the same case and a tensor argument of it."""
    tensors = {}
    for kernel in kernels:
        if not isinstance(kernel, dict) or not isinstance(kernel.get("launches"), list):
            continue
        for launch in kernel["launches"]:
            if isinstance(launch, dict) and isinstance(launch.get("args"), list):
                names = {a.get("name") for a in launch["args"] if isinstance(a, dict) and a.get("kind") == "tensor"}
                tensors[(launch.get("case"), launch.get("sequence"))] = names
    for ki, kernel in enumerate(kernels):
        if not isinstance(kernel, dict) or not isinstance(kernel.get("launches"), list):
            continue
        for li, launch in enumerate(kernel["launches"]):
            if not isinstance(launch, dict) or not isinstance(launch.get("args"), list):
                continue
            for ai, arg in enumerate(launch["args"]):
                origin = arg.get("origin") if isinstance(arg, dict) else None
                if not isinstance(origin, dict) or origin.get("kind") != "launch_arg":
                    continue
                p = f"/kernels/{ki}/launches/{li}/args/{ai}/origin"
                seq = origin.get("sequence")
                if not _is_int(seq) or not _is_int(launch.get("sequence")):
                    continue
                if seq >= launch["sequence"]:
                    c.fail(p + "/sequence", f"{seq} is not an earlier launch than this one ({launch['sequence']})")
                elif (launch.get("case"), seq) not in tensors:
                    c.fail(p + "/sequence", f"the case has no launch {seq}")
                elif origin.get("arg") not in tensors[(launch.get("case"), seq)]:
                    c.fail(p + "/arg", f"'{origin.get('arg')}' is not a tensor argument of launch {seq}")


def _check_triton_cache(c, tc, device_capture):
    if not c.members(tc, "/triton_cache", ("archives",)):
        return
    if not c.array(tc["archives"], "/triton_cache/archives", 1 if device_capture else 0):
        return
    seen = set()
    for i, a in enumerate(tc["archives"]):
        p = pointer_join("/triton_cache/archives", i)
        if c.members(a, p, ("file", "sha256", "bytes")):
            if c.string(a["file"], p + "/file", PLAIN_FILE) and a["file"] in seen:
                c.fail(p + "/file", f"'{a['file']}' is listed twice")
            seen.add(a["file"])
            c.sha256(a["sha256"], p + "/sha256")
            c.integer(a["bytes"], p + "/bytes", 0)


def check_manifest(doc):
    """Every fault of a parsed manifest as (JSON Pointer, message), in document order of discovery."""
    c = Checker()
    _scan_values(doc, "", c.errors)
    if c.errors:
        return c.errors
    top = ("format", "capture_kind", "captured_by", "created_utc", "tool", "stack", "device", "environment", "cases",
           "kernels", "binaries", "triton_cache", "digest")
    if isinstance(doc, dict) and "format" in doc and doc["format"] != FORMAT:
        c.fail("/format", f"'{doc['format']}' is not {FORMAT}" if isinstance(doc["format"], str)
               else f"must be the string {FORMAT}")
        return c.errors
    if not c.members(doc, "", top):
        return c.errors
    c.string(doc["capture_kind"], "/capture_kind", enum=CAPTURE_KINDS)
    device_capture = doc["capture_kind"] == "device"
    c.string(doc["captured_by"], "/captured_by")
    c.string(doc["created_utc"], "/created_utc", UTC)
    _check_tool_stack_device(c, doc)
    fla_sources = _check_fla_sources(c, doc)
    cases_by_id = {}
    if c.array(doc["cases"], "/cases", 1):
        for i, case in enumerate(doc["cases"]):
            p = pointer_join("/cases", i)
            checked = _check_case(c, case, p, device_capture)
            if isinstance(case, dict) and isinstance(case.get("id"), str):
                if case["id"] in cases_by_id:
                    c.fail(p + "/id", f"'{case['id']}' is also the id of another case")
                elif checked is not None:
                    cases_by_id[case["id"]] = case
    binaries = _check_binaries(c, doc["binaries"])
    referenced = set()
    sequences = {}
    kernel_names = {}
    if c.array(doc["kernels"], "/kernels"):
        for i, kernel in enumerate(doc["kernels"]):
            p = pointer_join("/kernels", i)
            if not _check_kernel(c, kernel, p, fla_sources):
                continue
            name = kernel["kernel_name"]
            if name in kernel_names:
                c.fail(p + "/kernel_name", f"'{name}' is also {kernel_names[name]}: FLA reads one {name}.json for both")
            kernel_names[name] = p
            if c.array(kernel["launches"], p + "/launches", 1):
                for j, launch in enumerate(kernel["launches"]):
                    _check_launch(c, launch, pointer_join(p + "/launches", j), kernel, cases_by_id, binaries,
                                  device_capture, sequences)
                    if isinstance(launch, dict) and isinstance(launch.get("variants"), list):
                        referenced |= {v.get("binary") for v in launch["variants"] if isinstance(v, dict)}
        _check_origins(c, doc["kernels"], cases_by_id)
    for digest in binaries if isinstance(binaries, dict) else ():
        if digest not in referenced:
            c.fail(pointer_join("/binaries", digest), "no variant uses this binary")
    for case_id, case in cases_by_id.items():
        count = case.get("launch_count")
        have = sum(1 for (cid, _s) in sequences if cid == case_id)
        if _is_int(count) and have != count:
            c.fail(f"/cases/{doc['cases'].index(case)}/launch_count",
                   f"is {count}, but the kernels record {have} launches of case '{case_id}'")
    _check_bench_totals(c, doc, cases_by_id)
    _check_triton_cache(c, doc["triton_cache"], device_capture)
    if c.members(doc["digest"], "/digest", ("algorithm", "value")):
        c.string(doc["digest"]["algorithm"], "/digest/algorithm", enum=(DIGEST_ALGORITHM,))
        if c.sha256(doc["digest"]["value"], "/digest/value"):
            want = manifest_digest(doc)
            if doc["digest"]["value"] != want:
                c.fail("/digest/value", f"is not the SHA-256 of the manifest's canonical body ({want}): the "
                                        "manifest was changed after it was written")
    return c.errors


def _check_bench_totals(c, doc, cases_by_id):
    """A case's fla_cache_kernels count is the sum of its launches' benchmarks."""
    totals = {case_id: 0 for case_id in cases_by_id}
    for kernel in doc["kernels"] if isinstance(doc["kernels"], list) else ():
        for launch in kernel.get("launches", []) if isinstance(kernel, dict) else ():
            if isinstance(launch, dict) and launch.get("case") in totals and isinstance(launch.get("autotune"), dict) \
                    and _is_int(launch["autotune"].get("benchmarks")):
                totals[launch["case"]] += launch["autotune"]["benchmarks"]
    for i, case in enumerate(doc["cases"]):
        if not isinstance(case, dict) or case.get("id") not in totals:
            continue
        bench = case.get("autotune_benchmarks")
        count = bench.get("fla_cache_kernels") if isinstance(bench, dict) else None
        if _is_int(count) and count != totals[case["id"]]:
            c.fail(f"/cases/{i}/autotune_benchmarks/fla_cache_kernels",
                   f"is {count}, but the case's launches ran {totals[case['id']]} benchmarks")


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_files(doc, cache_dir=None, archive_dir=None):
    """Faults of the files a valid manifest lists: the extracted cache's binaries and the archives."""
    errors = []
    if cache_dir:
        for digest, entry in doc["binaries"].items():
            for i, f in enumerate(entry["files"]):
                path = os.path.join(cache_dir, entry["folder"], f["name"])
                p = f"{pointer_join('/binaries', digest)}/files/{i}"
                errors += _file_faults(path, f["bytes"], f["sha256"], p)
            md_path = os.path.join(cache_dir, entry["folder"], entry["metadata_file"])
            if os.path.isfile(md_path):
                try:
                    with open(md_path) as fh:
                        md_hash = json.load(fh).get("hash")
                except (OSError, ValueError, AttributeError) as e:
                    md_hash = f"unreadable ({e})"
                if md_hash != digest:
                    errors.append((pointer_join("/binaries", digest), f"{md_path} holds hash {md_hash}"))
    if archive_dir:
        for i, a in enumerate(doc["triton_cache"]["archives"]):
            errors += _file_faults(os.path.join(archive_dir, a["file"]), a["bytes"], a["sha256"],
                                   f"/triton_cache/archives/{i}")
    return errors


def _file_faults(path, size, digest, pointer):
    if not os.path.isfile(path):
        return [(pointer, f"{path} is missing")]
    if os.path.getsize(path) != size:
        return [(pointer + "/bytes", f"{path} has {os.path.getsize(path)} bytes, not {size}")]
    if _sha256_file(path) != digest:
        return [(pointer + "/sha256", f"{path} has another SHA-256")]
    return []


def load_and_check(path, cache_dir=None, archive_dir=None):
    """(document or None, [(pointer, message)]) for a manifest file; a read or syntax fault has pointer ''."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
    except OSError as e:
        return None, [("", f"cannot be read: {e.strerror or e}")]
    except UnicodeDecodeError as e:
        return None, [("", f"is not UTF-8 (byte {e.start})")]
    try:
        doc = parse_manifest_text(text)
    except ValueError as e:
        return None, [("", str(e))]
    errors = check_manifest(doc)
    if not errors and (cache_dir or archive_dir):
        errors = check_files(doc, cache_dir, archive_dir)
    return (doc if not errors else None), errors


def format_fault(file_name, pointer, message):
    return f"{file_name}: at {pointer}: {message}" if pointer else f"{file_name}: {message}"


def summary(doc):
    launches = sum(len(k["launches"]) for k in doc["kernels"])
    variants = sum(len(l["variants"]) for k in doc["kernels"] for l in k["launches"])
    return (f"{doc['capture_kind']} capture, {len(doc['cases'])} cases, {len(doc['kernels'])} kernels, "
            f"{launches} launches, {variants} variants, {len(doc['binaries'])} binaries")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest")
    ap.add_argument("--cache", default="", help="extracted Triton cache: check every listed file's size and SHA-256")
    ap.add_argument("--archive-dir", default="", help="folder of the cache archives: check their size and SHA-256")
    a = ap.parse_args(argv)
    doc, errors = load_and_check(a.manifest, a.cache or None, a.archive_dir or None)
    if errors:
        for pointer, message in errors:
            print(format_fault(a.manifest, pointer, message), file=sys.stderr)
        print(f"fla_manifest_check: {a.manifest}: refused, {len(errors)} fault{'s' if len(errors) != 1 else ''}",
              file=sys.stderr)
        return 2
    print(f"fla_manifest_check: {a.manifest}: valid ({summary(doc)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
