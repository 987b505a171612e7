#!/usr/bin/env python3
"""Tests of the FLA capture's pure parts (no torch, no GPU): canonical JSON and the digest, FLA's key and its md5, the
manifest checker on the committed sample and on planted faults, the capture spec, FLA config files from a capture,
the cache archives and the file checks. With FLA's source (argument or $TUNESCOPE_FLA_SOURCE, else <repo>/.fla),
FLA's own fla/ops/utils/cache.py builds the keys of the sample's launches and loads the written config files in
strict mode (its torch/triton/packaging imports stood in for: the code that runs is FLA's key and lookup code).

    tests/fla_capture_test.py [FLA_SOURCE]     ($TUNESCOPE_FLA_SOURCE, when set, comes first)
"""
import contextlib
import copy
import hashlib
import importlib.util
import inspect
import io
import json
import os
import shutil
import struct
import sys
import tarfile
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)
import fla_capture  # noqa: E402
import fla_capture_fixtures as fixtures  # noqa: E402
import fla_manifest_check as fmc  # noqa: E402

SAMPLE = os.path.join(HERE, "data", "fla-capture", fixtures.SAMPLE)
FLA_SOURCE = ""


def load_sample():
    with open(SAMPLE) as f:
        return fmc.parse_manifest_text(f.read())


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class FakeTensor:
    """Only what the key rule looks at: a dtype whose str() is torch's spelling."""

    def __init__(self, dtype):
        self.dtype = FakeDtype(dtype)


class CanonicalJson(unittest.TestCase):
    # RFC 8785, Appendix B: IEEE-754 bits -> the canonical number text
    NUMBERS = [
        ("0000000000000000", "0"), ("8000000000000000", "0"), ("0000000000000001", "5e-324"),
        ("8000000000000001", "-5e-324"), ("7fefffffffffffff", "1.7976931348623157e+308"),
        ("ffefffffffffffff", "-1.7976931348623157e+308"), ("4340000000000000", "9007199254740992"),
        ("c340000000000000", "-9007199254740992"), ("4430000000000000", "295147905179352830000"),
        ("44b52d02c7e14af5", "9.999999999999997e+22"), ("44b52d02c7e14af6", "1e+23"),
        ("44b52d02c7e14af7", "1.0000000000000001e+23"), ("444b1ae4d6e2ef4e", "999999999999999700000"),
        ("444b1ae4d6e2ef4f", "999999999999999900000"), ("444b1ae4d6e2ef50", "1e+21"),
        ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"), ("3eb0c6f7a0b5ed8d", "0.000001"),
        ("41b3de4355555553", "333333333.3333332"), ("41b3de4355555554", "333333333.33333325"),
        ("41b3de4355555555", "333333333.3333333"), ("41b3de4355555556", "333333333.3333334"),
        ("41b3de4355555557", "333333333.33333343"), ("becbf647612f3696", "-0.0000033333333333333333"),
        ("43143ff3c1cb0959", "1424953923781206.2"),
    ]

    def test_numbers(self):
        for bits, want in self.NUMBERS:
            x = struct.unpack(">d", bytes.fromhex(bits))[0]
            self.assertEqual(fmc.canonical_json(x), want, bits)
        self.assertEqual(fmc.canonical_json(1e-6), "0.000001")
        self.assertEqual(fmc.canonical_json(1e-7), "1e-7")
        self.assertEqual(fmc.canonical_json(4.50), "4.5")
        self.assertEqual(fmc.canonical_json(1.0), "1")
        self.assertEqual(fmc.canonical_json(2 ** 53 - 1), "9007199254740991")
        for bad in (float("nan"), float("inf"), 2 ** 53):
            with self.assertRaises(ValueError):
                fmc.canonical_json(bad)

    def test_strings_and_key_order(self):
        self.assertEqual(fmc.canonical_json("\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/"),
                         '"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"')
        keys = ["\u20ac", "\r", "\ufb33", "1", "\U0001F600", "\u0080", "\u00f6"]
        text = fmc.canonical_json({k: 0 for k in keys})
        order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"]
        self.assertEqual(text, "{" + ",".join(fmc.canonical_json(k) + ":0" for k in order) + "}")

    def test_digest_ignores_layout_and_key_order(self):
        doc = load_sample()
        shuffled = json.loads(json.dumps(doc, indent=4), object_pairs_hook=lambda p: dict(reversed(p)))
        self.assertEqual(fmc.manifest_digest(shuffled), doc["digest"]["value"])
        shuffled["cases"][0]["seed"] += 1
        self.assertNotEqual(fmc.manifest_digest(shuffled), doc["digest"]["value"])


class FlaKey(unittest.TestCase):
    def test_key_hash_matches_flas_entry_ids(self):
        # FLA's ids of l2norm_fwd_kernel's keys (docs/formats.md): (D, NB, x, y, rstd dtypes)
        for nb, want in ((1, "878a9638751a7375a0fb15d3a7767659"), (2, "eca743e0790be43b6867d648e9430f67"),
                         (32, "801422dba59f6c5e144328aabdd135a3")):
            self.assertEqual(fmc.fla_key_hash([128, nb, "torch.bfloat16", "torch.bfloat16", "torch.float32"]), want)

    def test_describe_key_order_and_absent_arguments(self):
        names = ["x", "y", "rstd", "eps", "T", "D", "BD", "NB", "BT"]
        x, y, r = FakeTensor("torch.bfloat16"), FakeTensor("torch.float16"), FakeTensor("torch.float32")
        key, key_args, dtype_args = fla_capture.describe_key(names, ["D", "NB"], (x,), {"rstd": r, "y": y, "eps": 1e-6,
                                                                                       "T": 5, "D": 128, "NB": 1})
        self.assertEqual(key, [128, 1, "torch.bfloat16", "torch.float32", "torch.float16"])  # dtypes in call order
        self.assertEqual((key_args, dtype_args), (["D", "NB"], ["x", "rstd", "y"]))
        key, key_args, _ = fla_capture.describe_key(names, ["NB", "D", "BT"], (), {"D": 64, "grid": (1,)})
        self.assertEqual((key, key_args), ([64], ["D"]))  # NB and BT not passed: not in the key; grid is no argument
        key, _, dtype_args = fla_capture.describe_key(["a", "b"], ["b"], (None,), {"b": None})
        self.assertEqual((key, dtype_args), ([None], []))


class Checker(unittest.TestCase):
    def test_sample_is_valid(self):
        doc, errors = fmc.load_and_check(SAMPLE)
        self.assertEqual(errors, [])
        self.assertEqual(doc["capture_kind"], "hand-made")
        names = [k["kernel_name"] for k in doc["kernels"]]
        self.assertEqual(names, ["l2norm_fwd_kernel", "chunk_local_cumsum_scalar_kernel",
                                 "chunk_gated_delta_rule_fwd_kkt_solve_kernel", "recompute_w_u_fwd_kernel",
                                 "chunk_gated_delta_rule_fwd_kernel_h_blockdim64", "chunk_fwd_kernel_o"])
        self.assertEqual([len(k["configs"]) for k in doc["kernels"]], [25, 4, 6, 9, 12, 3])

    def test_committed_bad_manifests_fail_at_their_pointer(self):
        for name, pointer, content in fixtures.bad_manifests(load_sample()):
            with self.subTest(name):
                try:
                    errors = fmc.check_manifest(fmc.parse_manifest_text(content))
                except ValueError as e:
                    errors = [("", str(e))]
                self.assertTrue(errors, name)
                self.assertEqual(errors[0][0], pointer, errors)

    def fault(self, change):
        doc = copy.deepcopy(load_sample())
        change(doc)
        doc = fixtures.with_digest(doc)
        return fmc.check_manifest(fmc.parse_manifest_text(json.dumps(doc)))

    def test_more_planted_faults(self):
        def tensor_type(d):
            d["kernels"][0]["launches"][0]["args"][0]["triton_type"] = "*fp16"
        self.assertEqual(self.fault(tensor_type)[0][0], "/kernels/0/launches/0/args/0/triton_type")

        def tensor_in_key(d):
            launch = d["kernels"][0]["launches"][0]
            launch["key_arg_names"] = ["D"]
            d["kernels"][0]["key_names"] = ["D", "x"]
            launch["key_arg_names"] = ["D", "x"]
        self.assertEqual(self.fault(tensor_in_key)[0][0], "/kernels/0/launches/0/key_arg_names/1")

        def missing_dtype(d):
            d["kernels"][0]["launches"][0]["dtype_arg_names"].pop()
        self.assertEqual(self.fault(missing_dtype)[0][0], "/kernels/0/launches/0/dtype_arg_names")

        def scalar_range(d):
            d["kernels"][0]["launches"][0]["args"][4]["value"] = 2 ** 31
        self.assertEqual(self.fault(scalar_range)[0][0], "/kernels/0/launches/0/args/4/value")

        def hv_not_multiple(d):
            d["cases"][0]["params"]["HV"] = 24
        self.assertIn("/cases/0/params/HV", [p for p, _ in self.fault(hv_not_multiple)])

        def wrong_input_shape(d):
            d["cases"][0]["inputs"][2]["shape"] = [1, 4096, 16, 64]
        self.assertEqual(self.fault(wrong_input_shape)[0][0], "/cases/0/inputs/2/shape")

        def device_without_timing(d):
            d["capture_kind"] = "device"
        self.assertIn("/cases/0/timing/first_call_s", [p for p, _ in self.fault(device_without_timing)])

        def same_config_twice(d):
            d["kernels"][1]["configs"][1] = copy.deepcopy(d["kernels"][1]["configs"][0])
        self.assertEqual(self.fault(same_config_twice)[0][0], "/kernels/1/configs/1")

        def unknown_op(d):
            d["cases"][0]["op"] = "chunk_kda"
        self.assertEqual(self.fault(unknown_op)[0][0], "/cases/0/op")

    def test_precision_and_range_of_numbers(self):
        with open(SAMPLE) as f:
            text = f.read()
        for planted, pointer in (('"seed": 0.10000000000000001', "/cases/0/seed"),
                                 ('"seed": 1e400', "/cases/0/seed"), ('"seed": 9007199254740993', "/cases/0/seed")):
            errors = fmc.check_manifest(fmc.parse_manifest_text(text.replace('"seed": 42', planted, 1)))
            self.assertEqual(errors[0][0], pointer, planted)

    def test_command_line_exit_codes(self):
        self.assertEqual(fmc.main([SAMPLE]), 0)
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.json")
            with open(bad, "w") as f:
                f.write("{\"format\": ")
            self.assertEqual(fmc.main([bad]), 2)
            self.assertEqual(fmc.main([os.path.join(tmp, "missing.json")]), 2)


class Spec(unittest.TestCase):
    def test_command_line_refusals_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "spec.json")
            with open(spec, "w") as f:
                json.dump({"format": fla_capture.SPEC_FORMAT, "cases": [{"op": "l2norm_fwd", "params": {"D": 0}}]}, f)
            self.assertEqual(fla_capture.main(["--spec", spec, "--print-spec"]), 2)
            self.assertEqual(fla_capture.main(["--fla-config-from", SAMPLE]), 2)  # needs --fla-config-dir
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(fla_capture.main(["--print-spec", "--T", "8192"]), 0)
            self.assertEqual(json.loads(out.getvalue())["cases"][0]["params"]["T"], 8192)

    def test_defaults_and_round_trip(self):
        cases = fla_capture.resolve_spec({"format": fla_capture.SPEC_FORMAT, "cases": [
            {"op": "chunk_gated_delta_rule", "params": {"T": 16384}}, {"op": "l2norm_fwd", "params": {"T": 8192}}]})
        self.assertEqual(cases[0]["id"], "chunk_gated_delta_rule-B1-T16384-H16-HV16-K128-V128")
        self.assertEqual([(i["name"], i["dtype"]) for i in cases[0]["inputs"]],
                         [("q", "torch.bfloat16"), ("k", "torch.bfloat16"), ("v", "torch.bfloat16"),
                          ("g", "torch.float32"), ("beta", "torch.float32")])
        self.assertEqual(cases[1]["inputs"][0]["shape"], [1, 8192, 16, 128])
        self.assertEqual(fla_capture.resolve_spec(fla_capture.spec_of_cases(cases)), cases)

    def test_sample_cases_are_what_the_capture_would_run(self):
        doc = load_sample()
        cases = fla_capture.resolve_spec(fla_capture.spec_of_cases(doc["cases"]))
        for case, recorded in zip(cases, doc["cases"]):
            for name in ("id", "op", "params", "inputs", "seed"):
                self.assertEqual(case[name], recorded[name], name)

    def test_refusals(self):
        for spec, text in (({"cases": []}, "not a capture spec"),
                           ({"format": fla_capture.SPEC_FORMAT, "cases": [{"op": "chunk_kda"}]}, "/cases/0/op"),
                           ({"format": fla_capture.SPEC_FORMAT, "cases": [
                               {"op": "l2norm_fwd", "params": {"NB": 2}}]}, "unknown parameter(s) NB"),
                           ({"format": fla_capture.SPEC_FORMAT, "cases": [
                               {"op": "chunk_gated_delta_rule", "params": {"chunk_size": 128}}]}, "/params/chunk_size"),
                           ({"format": fla_capture.SPEC_FORMAT, "cases": [
                               {"op": "chunk_gated_delta_rule", "inputs": {"z": {}}}]}, "/cases/0/inputs"),
                           ({"format": fla_capture.SPEC_FORMAT, "cases": [
                               {"op": "l2norm_fwd", "dtype": "float8"}]}, "dtype 'float8'")):
            with self.assertRaises(fla_capture.Refused) as cm:
                fla_capture.resolve_spec(spec)
            self.assertIn(text, str(cm.exception))


def device_like(doc, tmp):
    """The sample as a device capture would write it: choices, timings, a fake Triton cache and its archives."""
    doc = copy.deepcopy(doc)
    doc["capture_kind"], doc["captured_by"] = "device", "tests/fla_capture_test.py"
    cache = os.path.join(tmp, "cache")
    binaries = {}
    case = doc["cases"][0]
    case["timing"] = {"first_call_s": 42.0, "extra_compile_s": 0.5, "repeat_calls": 3, "steady_median_ms": 0.192,
                      "steady_timer": "cuda_events"}
    case["outputs"][0]["sha256"] = "0" * 64
    bench = 0
    for ki, kernel in enumerate(doc["kernels"]):
        for launch in kernel["launches"]:
            n = len(kernel["configs"])
            first = launch["sequence"] != 1
            launch["autotune"] = {"source": "benchmarked" if first else "memory", "benchmarks": n if first else 0,
                                  "seconds": 1.5, "chosen_config": (ki + 1) % n,
                                  "timings_ms": [[0.1 + i, 0.09 + i, 0.11 + i] for i in range(n)] if first else None}
            bench += launch["autotune"]["benchmarks"]
            for var in launch["variants"]:
                cfg = kernel["configs"][var["config"]]
                digest = fmc.fla_key_hash([kernel["kernel_name"], var["config"]]) * 2
                folder = os.path.join(cache, digest[:20].upper())
                os.makedirs(folder, exist_ok=True)
                name = kernel["kernel_name"]
                md = {"hash": digest, "name": name, "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
                      "num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"], "num_ctas": 1, "shared": 1024}
                with open(os.path.join(folder, f"{name}.json"), "w") as f:
                    json.dump(md, f)
                with open(os.path.join(folder, f"{name}.cubin"), "wb") as f:
                    f.write(digest.encode() * 50)
                with open(os.path.join(folder, f"{name}.ptx"), "w") as f:
                    f.write("// not archived without --keep-ir\n")
                var["binary"] = digest
    case["autotune_benchmarks"] = {"fla_cache_kernels": bench, "other_kernels": 0}
    known = fla_capture.index_cache(cache)
    for kernel in doc["kernels"]:
        for launch in kernel["launches"]:
            for var in launch["variants"]:
                folder, md = known[var["binary"]]
                binaries[var["binary"]] = fla_capture.binary_entry(cache, folder, md, keep_ir=False)
    doc["binaries"] = dict(sorted(binaries.items()))
    doc["triton_cache"] = {"archives": fla_capture.write_archives(cache, binaries, os.path.join(tmp, "tc"),
                                                                  budget=200_000)}
    body = {k: v for k, v in doc.items() if k != "digest"}
    return fla_capture.finish_manifest(body), cache


class OutputTolerance(unittest.TestCase):
    """The strict run's outputs against an autotuned run's: FLA's own assert_close rule."""

    def test_flas_rule(self):
        close = fla_capture.fla_close
        self.assertTrue(close(0.0, 0.0, 0.005))
        self.assertTrue(close(1e-6, 0.9, 0.005))         # tiny absolute differences pass whatever the ratio
        self.assertTrue(close(0.03, 0.0049, 0.005))
        self.assertFalse(close(0.03, 0.005, 0.005))      # the bar is strict, as FLA's `error_rate < ratio`
        self.assertFalse(close(2e-6, 0.01, 0.005))
        self.assertFalse(close(float("nan"), 0.0, 0.005))
        self.assertFalse(close(0.0, float("nan"), 0.005))

    def test_flags(self):
        for argv in (["--save-outputs", "a.pt"], ["--graph-replays", "10"], ["--strict-run", "--autotuned-run"],
                     ["--strict-run", "--graph-replays", "-1"], ["--strict-run", "--tolerance", "0"]):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as raised:
                fla_capture.parse_args(argv)
            self.assertEqual(raised.exception.code, 2, argv)
        a = fla_capture.parse_args(["--autotuned-run", "--save-outputs", "a.pt"])
        self.assertEqual(a.tolerance, 0.005)

    def test_constants_are_flas(self):
        if not FLA_SOURCE:
            self.skipTest("FLA's source is not here (pass its folder, set TUNESCOPE_FLA_SOURCE or put it in .fla/)")
        import ast
        with open(os.path.join(FLA_SOURCE, "fla", "utils", "_testing.py")) as f:
            tree = ast.parse(f.read())
        rule = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "assert_close")
        defaults = dict(zip([x.arg for x in rule.args.args][-len(rule.args.defaults):],
                            [ast.literal_eval(d) for d in rule.args.defaults]))
        self.assertEqual(defaults["err_atol"], fla_capture.FLA_ERR_ATOL)
        with open(os.path.join(FLA_SOURCE, "tests", "ops", "test_gdn.py")) as f:
            text = f.read()
        self.assertIn(f"assert_close('o', ref, tri, {fla_capture.FLA_FORWARD_RATIO})", text)


class DeviceShaped(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.doc, self.cache = device_like(load_sample(), self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_valid_with_files(self):
        self.assertEqual(fmc.check_manifest(self.doc), [])
        self.assertGreater(len(self.doc["triton_cache"]["archives"]), 1)  # the budget splits the archives
        self.assertEqual(fmc.check_files(self.doc, self.cache, self.tmp), [])
        first = next(iter(self.doc["binaries"].values()))
        self.assertEqual([f["name"] for f in first["files"]], [f"{first['kernel_name']}.cubin",
                                                               f"{first['kernel_name']}.json"])

    def test_archives_hold_the_listed_files_and_repeat_byte_for_byte(self):
        members = set()
        for a in self.doc["triton_cache"]["archives"]:
            with tarfile.open(os.path.join(self.tmp, a["file"])) as tar:
                members |= set(tar.getnames())
        listed = {f"{b['folder']}/{f['name']}" for b in self.doc["binaries"].values() for f in b["files"]}
        self.assertEqual(members, listed)
        again = fla_capture.write_archives(self.cache, self.doc["binaries"], os.path.join(self.tmp, "again"),
                                           budget=200_000)
        self.assertEqual([a["sha256"] for a in again], [a["sha256"] for a in self.doc["triton_cache"]["archives"]])

    def test_file_faults(self):
        entry = next(iter(self.doc["binaries"].values()))
        with open(os.path.join(self.cache, entry["folder"], entry["binary_file"]), "r+b") as f:
            f.write(b"X")
        faults = fmc.check_files(self.doc, self.cache, None)
        self.assertEqual(len(faults), 1)
        self.assertTrue(faults[0][0].endswith("/sha256"), faults)
        os.remove(os.path.join(self.tmp, self.doc["triton_cache"]["archives"][0]["file"]))
        self.assertEqual(fmc.check_files(self.doc, None, self.tmp)[0][0], "/triton_cache/archives/0")

    def test_unreferenced_binary_and_wrong_binary_kernel(self):
        doc = copy.deepcopy(self.doc)
        other = doc["kernels"][1]["launches"][0]["variants"][0]["binary"]
        for launch in doc["kernels"][0]["launches"]:  # both l2norm launches use the same binaries
            launch["variants"][0]["binary"] = other
        pointers = [p for p, _ in fmc.check_manifest(fixtures.with_digest(doc))]
        self.assertIn("/kernels/0/launches/0/variants/0/binary", pointers)
        self.assertTrue(any(p.startswith("/binaries/") for p in pointers))

    def test_fla_config_documents(self):
        docs = fla_capture.fla_config_documents(self.doc)
        self.assertEqual(sorted(docs), sorted(k["kernel_name"] for k in self.doc["kernels"]))
        l2 = docs["l2norm_fwd_kernel"]
        self.assertEqual(list(l2["autotune_entries"]), ["878a9638751a7375a0fb15d3a7767659"])  # q and k share a key
        entry = l2["autotune_entries"]["878a9638751a7375a0fb15d3a7767659"]
        self.assertEqual(entry["config"], self.doc["kernels"][0]["configs"][1])
        self.assertEqual(entry["best_timing"], [1.1, 1.09, 1.11])
        self.assertEqual(l2["default_config"], {k: entry["config"][k] for k in ("kwargs", "num_warps", "num_ctas",
                                                                                  "num_stages")})


def load_fla_cache_module(fla_source, config_dir, mode="strict", triton_parts=None):
    """FLA's own fla/ops/utils/cache.py in FLA_CACHE_MODE `mode`, its imports of torch, triton and packaging stood in
    for (triton_parts: the Autotuner and Config it is to use)."""
    saved = {name: sys.modules.get(name) for name in ("torch", "triton", "triton.runtime",
                                                      "triton.runtime.autotuner", "packaging", "packaging.version")}
    torch = types.ModuleType("torch")
    triton = types.ModuleType("triton")
    triton.__version__ = "3.6.0"
    triton.Config = type("Config", (), {"__init__": lambda self, kwargs, **kw: setattr(self, "kwargs", kwargs)})
    runtime = types.ModuleType("triton.runtime")
    autotuner = types.ModuleType("triton.runtime.autotuner")
    autotuner.Autotuner = type("Autotuner", (), {})
    if triton_parts:
        autotuner.Autotuner, triton.Config = triton_parts["Autotuner"], triton_parts["Config"]
    packaging = types.ModuleType("packaging")
    version = types.ModuleType("packaging.version")
    version.parse = lambda text: tuple(int(p) for p in text.split(".")[:3])
    packaging.version = version
    sys.modules.update({"torch": torch, "triton": triton, "triton.runtime": runtime,
                        "triton.runtime.autotuner": autotuner, "packaging": packaging, "packaging.version": version})
    old_env = {k: os.environ.get(k) for k in ("FLA_CACHE_MODE", "FLA_CONFIG_DIR")}
    os.environ.update({"FLA_CACHE_MODE": mode, "FLA_CONFIG_DIR": config_dir})
    try:
        spec = importlib.util.spec_from_file_location("fla_cache_under_test",
                                                      os.path.join(fla_source, "fla", "ops", "utils", "cache.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class FlasOwnCode(unittest.TestCase):
    def setUp(self):
        if not FLA_SOURCE:
            self.skipTest("FLA's source is not here (pass its folder, set TUNESCOPE_FLA_SOURCE or put it in .fla/)")
        self.tmp = tempfile.mkdtemp()
        self.fla = load_fla_cache_module(FLA_SOURCE, self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def call(self, kernel, launch):
        """The launch as FLA's call site makes it: keyword arguments in signature order, the configs' own left out."""
        kwargs = {}
        for arg in launch["args"]:
            if arg["kind"] == "tensor":
                kwargs[arg["name"]] = FakeTensor(arg["dtype"])
            elif arg["kind"] in ("scalar", "constexpr"):
                kwargs[arg["name"]] = arg["value"]
            elif arg["kind"] == "none":
                kwargs[arg["name"]] = None
        return kwargs

    def test_sample_keys_are_flas(self):
        doc = load_sample()
        for kernel in doc["kernels"]:
            for launch in kernel["launches"]:
                kwargs = self.call(kernel, launch)
                key = self.fla.AutotuneKey.build(kernel["arg_names"], kernel["key_names"], (), kwargs)
                self.assertEqual(list(key.autotune_key), launch["autotune_key"], kernel["kernel_name"])
                self.assertEqual(self.fla.AutotuneKey.key_hash(key.autotune_key), launch["key_hash"])
                ours = fla_capture.describe_key(kernel["arg_names"], kernel["key_names"], (), kwargs)
                self.assertEqual(ours, (launch["autotune_key"], launch["key_arg_names"], launch["dtype_arg_names"]))

    def test_describe_key_equals_flas_build_with_positional_arguments(self):
        names = ["a", "b", "c", "d", "N", "M"]
        cases = [((FakeTensor("torch.float32"), None), {"d": FakeTensor("torch.int64"), "N": 3, "c": 2.5, "M": True}),
                 ((), {"M": False, "a": FakeTensor("torch.bfloat16"), "N": 7, "grid": (1,), "warmup": False}),
                 ((1, 2, 3, FakeTensor("torch.float16"), 4), {})]
        for args, kwargs in cases:
            for key_names in (["N", "M"], ["M", "N", "c"], [], ["a"]):
                want = self.fla.AutotuneKey.build(names, key_names, args, kwargs).autotune_key
                got = fla_capture.describe_key(names, key_names, args, kwargs)[0]
                if any(isinstance(v, FakeTensor) for v in want):
                    continue  # a tensor-valued key argument: FLA could not serialise that key either
                self.assertEqual(got, list(want))

    def test_flas_strict_lookup_finds_every_choice(self):
        doc, _cache = device_like(load_sample(), self.tmp)
        folder = os.path.join(self.tmp, "fla-config")
        os.makedirs(folder)
        fla = load_fla_cache_module(FLA_SOURCE, folder)
        written = fla_capture.write_fla_config_dir(doc, folder)
        self.assertEqual(len(written), 6)
        old = os.environ.get("FLA_CONFIG_DIR")
        os.environ["FLA_CONFIG_DIR"] = folder  # FLA reads it at lookup time (get_fla_config_dir)
        self.addCleanup(lambda: os.environ.pop("FLA_CONFIG_DIR") if old is None else
                        os.environ.__setitem__("FLA_CONFIG_DIR", old))
        for kernel in doc["kernels"]:
            for launch in kernel["launches"]:
                key = fla.AutotuneKey(tuple(launch["autotune_key"]))
                cfg = fla.load_cached_config(kernel["kernel_name"], key)
                self.assertIsNotNone(cfg, kernel["kernel_name"])
                self.assertEqual(cfg, kernel["configs"][launch["autotune"]["chosen_config"]])
                for field in ("kwargs", "num_warps", "num_stages", "num_ctas"):  # what maybe_load_cached_config reads
                    self.assertIn(field, cfg)
                other = list(launch["autotune_key"])
                other[0] = other[0] + 1 if isinstance(other[0], int) else other[0]
                self.assertIsNone(fla.load_cached_config(kernel["kernel_name"], fla.AutotuneKey(tuple(other))))


KERNEL_SOURCE = """
def fake_scale_kernel(x, y, n, scale, BLOCK: "constexpr", FLAG: "constexpr", unused=None):
    pass
"""


class TensorStandIn:
    """What the recorder reads of a torch tensor."""

    def __init__(self, dtype, shape, ptr):
        self.dtype, self.shape, self._ptr = FakeDtype(dtype), list(shape), ptr

    def data_ptr(self):
        return self._ptr

    def stride(self):
        out, step = [], 1
        for n in reversed(self.shape):
            out.insert(0, step)
            step *= n
        return tuple(out)

    def storage_offset(self):
        return 0

    def untyped_storage(self):
        nbytes = fmc.TORCH_DTYPES[str(self.dtype)][1]
        for n in self.shape:
            nbytes *= n
        return types.SimpleNamespace(nbytes=lambda: nbytes)


def triton_stand_in(cache_dir, timings_by_block):
    """Triton's JITFunction, Autotuner and Config as far as the recorder and FLA's cache.py use them: the Autotuner
    builds Triton 3.6's key, benchmarks every config of an unseen key through _bench and keeps the fastest; warmup
    writes a metadata file and a binary into cache_dir as Triton's compiler does."""
    class Param:
        def __init__(self, name, constexpr, dns):
            self.name, self.is_constexpr, self.do_not_specialize = name, constexpr, dns

    class JIT:
        def __init__(self, fn, do_not_specialize=()):
            self.fn, self.__name__ = fn, fn.__name__
            self.signature = inspect.signature(fn)
            self.arg_names = list(self.signature.parameters)
            self.params = [Param(n, p.annotation == "constexpr", n in do_not_specialize)
                           for n, p in self.signature.parameters.items()]

        def warmup(self, *args, grid, **kwargs):
            values = {**dict(zip(self.arg_names, args)), **kwargs}
            spec = {n: repr(values.get(n)) for n in self.arg_names if self.params[self.arg_names.index(n)].is_constexpr}
            spec.update({k: kwargs[k] for k in ("num_warps", "num_stages", "num_ctas") if k in kwargs})
            digest = hashlib.sha256(json.dumps([self.__name__, spec], sort_keys=True).encode()).hexdigest()
            folder = os.path.join(cache_dir, digest[:16].upper())
            os.makedirs(folder, exist_ok=True)
            md = {"hash": digest, "name": self.__name__, "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
                  "num_warps": kwargs["num_warps"], "num_stages": kwargs["num_stages"],
                  "num_ctas": kwargs["num_ctas"], "shared": 0}
            with open(os.path.join(folder, self.__name__ + ".json"), "w") as f:
                json.dump(md, f)
            with open(os.path.join(folder, self.__name__ + ".cubin"), "wb") as f:
                f.write(digest.encode())
            sig = {}
            for n in self.arg_names:
                v = values.get(n)
                sig[n] = ("constexpr" if self.params[self.arg_names.index(n)].is_constexpr or v is None else
                          "*" + fmc.TORCH_DTYPES[str(v.dtype)][0] if hasattr(v, "dtype") else
                          "fp32" if isinstance(v, float) else "i32")
            return types.SimpleNamespace(metadata=types.SimpleNamespace(hash=digest),
                                         src=types.SimpleNamespace(signature=sig))

    class Config:
        def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                     ir_override=None):
            self.kwargs, self.num_warps, self.num_stages, self.num_ctas = kwargs, num_warps, num_stages, num_ctas
            self.maxnreg, self.pre_hook, self.ir_override = maxnreg, pre_hook, ir_override

        def all_kwargs(self):
            return {**self.kwargs, "num_warps": self.num_warps, "num_ctas": self.num_ctas,
                    "num_stages": self.num_stages}

    class Autotuner:
        def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, cache_results=False, **kw):
            self.fn, self.arg_names, self.configs, self.keys = fn, arg_names, configs, key
            self.cache, self.cache_results = {}, cache_results
            self.reset_to_zero, self.restore_value = reset_to_zero or [], restore_value or []
            self.user_defined_pre_hook = self.user_defined_post_hook = False

        def _bench(self, *args, config, **meta):
            t = timings_by_block[config.kwargs["BLOCK"]]
            return [t, t * 0.9, t * 1.1]

        def run(self, *args, **kwargs):
            config = self.configs[0]
            if len(self.configs) > 1:
                all_args = {**dict(zip(self.arg_names, args)), **kwargs}
                tracked = {k: v for k, v in all_args.items() if k in self.arg_names}
                key = [tracked[k] for k in self.keys if k in tracked]
                key += [str(v.dtype) for v in tracked.values() if hasattr(v, "dtype")]
                key = tuple(key)
                if key not in self.cache:
                    timings = {c: self._bench(*args, config=c, **kwargs) for c in self.configs}
                    self.cache[key] = min(timings, key=timings.get)
                    self.configs_timings = timings
                config = self.cache[key]
            self.best_config = config
            return config

    return JIT, Config, Autotuner


class RecorderBase(unittest.TestCase):
    """The recorder between FLA's real CachedAutotuner (fla/ops/utils/cache.py) and a stand-in for Triton."""

    def setUp(self):
        if not FLA_SOURCE:
            self.skipTest("FLA's source is not here (pass its folder, set TUNESCOPE_FLA_SOURCE or put it in .fla/)")
        self.tmp = tempfile.mkdtemp()
        self.cache = os.path.join(self.tmp, "triton-cache")
        self.root = os.path.join(self.tmp, "src")
        os.makedirs(os.path.join(self.root, "fla", "ops", "utils"))
        shutil.copy(os.path.join(FLA_SOURCE, "fla", "ops", "utils", "cache.py"),
                    os.path.join(self.root, "fla", "ops", "utils", "cache.py"))
        self.kernel_file = os.path.join(self.root, "fla", "ops", "fake_scale.py")
        with open(self.kernel_file, "w") as f:
            f.write(KERNEL_SOURCE)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def kernel(self, mode, config_dir=""):
        JIT, Config, Autotuner = triton_stand_in(self.cache, {32: 2.0, 64: 1.0, 128: 1.5})
        fla = load_fla_cache_module(FLA_SOURCE, config_dir, mode, {"Autotuner": Autotuner, "Config": Config})
        namespace = {}
        exec(compile(KERNEL_SOURCE, self.kernel_file, "exec"), namespace)
        configs = [Config({"BLOCK": 32}, num_warps=2), Config({"BLOCK": 64}, num_warps=4),
                   Config({"BLOCK": 128}, num_warps=4, num_stages=2)]
        tuner = fla.fla_cache_autotune(configs, key=["n", "FLAG"])(JIT(namespace["fake_scale_kernel"], ["n"]))
        rec = fla_capture.Recorder(None, fla, Autotuner, JIT, self.root)
        rec.install()
        return tuner, rec, fla

    def calls(self, tuner, rec):
        x = TensorStandIn("torch.float32", [1, 4096, 16, 128], 4096)
        y = TensorStandIn("torch.bfloat16", [1, 4096, 16, 128], 1 << 30)
        rec.begin_case("l2norm_fwd-B1-T4096-H16-D128", {"x": x}, record=True)
        for n in (1000, 1000, 2000):
            tuner.run(x, y, n=n, scale=0.5, FLAG=True, grid=lambda meta, n=n: (-(-n // meta["BLOCK"]),), warmup=False)
        rec.watching = rec.recording = False
        tuner.run(x, y, n=3000, scale=0.5, FLAG=True, grid=(1,), warmup=False)  # not watched: passes through


class RecorderOnFlasCode(RecorderBase):
    def test_capture_records_flas_keys_sources_and_variants_into_a_valid_manifest(self):
        tuner, rec, fla = self.kernel("disabled")
        self.calls(tuner, rec)
        rec.compile_pending()
        kernel = rec.kernels["fake_scale_kernel"]
        self.assertEqual(kernel["source_file"], "fla/ops/fake_scale.py")
        self.assertEqual((kernel["constexpr_names"], kernel["do_not_specialize"], kernel["key_names"]),
                         (["BLOCK", "FLAG"], ["n"], ["n", "FLAG"]))
        l0, l1, l2 = kernel["launches"]  # the unwatched fourth call is not recorded
        self.assertEqual(rec.bench_fla, 9)  # but its benchmarks are counted
        self.assertEqual(l0["autotune_key"], [1000, True, "torch.float32", "torch.bfloat16"])
        self.assertEqual(l0["key_hash"], fla.AutotuneKey.key_hash(tuple(l0["autotune_key"])))
        self.assertEqual([(l["autotune"]["source"], l["autotune"]["benchmarks"]) for l in (l0, l1, l2)],
                         [("benchmarked", 3), ("memory", 0), ("benchmarked", 3)])
        self.assertEqual(l0["autotune"]["chosen_config"], 1)  # BLOCK=64 is the stand-in's fastest
        self.assertEqual(l0["autotune"]["timings_ms"][1], [1.0, 0.9, 1.1])
        args = {a["name"]: a for a in l1["args"]}
        self.assertEqual(args["x"]["origin"], {"kind": "op_input", "input": "x"})
        self.assertEqual(args["y"]["origin"], {"kind": "launch_arg", "sequence": 0, "arg": "y"})
        self.assertEqual((args["n"]["triton_type"], args["n"]["do_not_specialize"]), ("i32", True))
        self.assertEqual((args["BLOCK"]["kind"], args["FLAG"]["value"], args["unused"]["kind"]),
                         ("config", True, "none"))
        self.assertEqual([v["grid"] for v in l2["variants"]], [[63], [32], [16]])
        self.assertEqual(l0["signature_source"], "compiled")
        self.assertEqual([v["binary"] for v in l0["variants"]], [v["binary"] for v in l2["variants"]])  # n: not
        binaries = fla_capture.collect_binaries(rec.kernels.values(), self.cache, keep_ir=False)  # specialised
        self.assertEqual(len(binaries), 3)
        archives = fla_capture.write_archives(self.cache, binaries, os.path.join(self.tmp, "tc"))
        case = fla_capture.resolve_spec({"format": fla_capture.SPEC_FORMAT, "cases": [{"op": "l2norm_fwd"}]})[0]
        record = dict(case, outputs=[{"name": "y", "shape": [1, 4096, 16, 128], "dtype": "torch.bfloat16",
                                      "sha256": "1" * 64}, {"name": "rstd", "shape": [1, 4096, 16],
                                                            "dtype": "torch.float32", "sha256": "2" * 64}],
                      grad_mode="no_grad", timing={"first_call_s": 3.0, "extra_compile_s": 0.1, "repeat_calls": 0,
                                                   "steady_median_ms": None, "steady_timer": None},
                      autotune_benchmarks={"fla_cache_kernels": 6, "other_kernels": 0},
                      other_autotuned_kernels=[], launch_count=rec.sequence)
        device = load_sample()["device"]
        stack = {"fla_version": "0.5.2", "triton_version": "3.6.0", "torch_version": None, "cuda_version": None,
                 "hip_version": None, "python_version": None}
        doc = fla_capture.finish_manifest(fla_capture.manifest_body(stack, self.root, device, [record],
                                                                    rec.kernels.values(), binaries, archives))
        self.assertEqual(fmc.check_manifest(fmc.parse_manifest_text(json.dumps(doc))), [])
        self.assertEqual(fmc.check_files(doc, self.cache, self.tmp), [])

        # FLA's own choices as an FLA_CONFIG_DIR, and the same calls in strict mode: FLA loads them, nothing benchmarks
        folder = os.path.join(self.tmp, "fla-config")
        fla_capture.write_fla_config_dir(doc, folder)
        os.environ["FLA_CONFIG_DIR"] = folder
        self.addCleanup(os.environ.pop, "FLA_CONFIG_DIR", None)
        tuner, rec, _fla = self.kernel("strict", folder)
        self.calls(tuner, rec)
        self.assertEqual([(e["source"], e["benchmarks"]) for e in rec.events],
                         [("fla_config_file", 0), ("memory", 0), ("fla_config_file", 0)])
        self.assertEqual(rec.bench_fla, 3)  # the unwatched call's new key (n=3000) is not in FLA's files: benchmarked
        self.assertEqual(tuner.cache[(1000, True, "torch.float32", "torch.bfloat16")].kwargs, {"BLOCK": 64})


class RecorderOthers(RecorderBase):
    def test_plain_autotune_and_unkeyable_kernels_are_named_not_recorded(self):
        JIT, Config, Autotuner = triton_stand_in(self.cache, {32: 2.0, 64: 1.0, 128: 1.5})
        fla = load_fla_cache_module(FLA_SOURCE, "", "disabled", {"Autotuner": Autotuner, "Config": Config})
        namespace = {}
        exec(compile(KERNEL_SOURCE, self.kernel_file, "exec"), namespace)
        configs = [Config({"BLOCK": 32}), Config({"BLOCK": 64})]
        unkeyable = fla.fla_cache_autotune(configs, key=["scale"])(JIT(namespace["fake_scale_kernel"]))
        plain = Autotuner(JIT(namespace["fake_scale_kernel"]), ["x", "y", "n", "scale", "BLOCK", "FLAG", "unused"],
                          configs, ["n"], None, None)
        rec = fla_capture.Recorder(None, fla, Autotuner, JIT, self.root)
        rec.install()
        x = TensorStandIn("torch.float32", [4], 64)
        rec.begin_case("c", {"x": x}, record=True)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            unkeyable.run(x, x, n=4, scale=object(), FLAG=False, grid=(1,), warmup=False)
        plain.run(x, x, n=4, scale=1.0, FLAG=False, grid=(1,), warmup=False)
        self.assertIn("is not JSON", out.getvalue())
        self.assertEqual(rec.kernels, {})
        self.assertEqual(rec.other_kernels, {"fake_scale_kernel"})
        self.assertEqual((rec.bench_fla, rec.bench_other), (0, 4))


def main():
    global FLA_SOURCE
    args = sys.argv[1:]
    given = args.pop(0) if args and not args[0].startswith("-") else ""
    candidates = [c for c in (os.environ.get("TUNESCOPE_FLA_SOURCE"), given, os.path.join(REPO, ".fla")) if c]
    FLA_SOURCE = next((c for c in candidates if os.path.isfile(os.path.join(c, "fla", "ops", "utils", "cache.py"))), "")
    if not FLA_SOURCE:
        print(f"fla_capture_test: no FLA source in {', '.join(candidates)}: FLA's own key and lookup tests are skipped")
    unittest.main(argv=[sys.argv[0]] + args, verbosity=1)


if __name__ == "__main__":
    main()
