#!/usr/bin/env python3
"""Writes the committed FLA capture fixtures (tests/data/fla-capture/), or checks that they are up to date.

The sample manifest is HAND-MADE FROM FLA 0.5.2's SOURCE, not captured on a device: the kernel names, signatures,
keys, config lists, launch arguments and grids below are read off the source of the gated-delta-rule forward chain
(`chunk_gated_delta_rule(..., use_qk_l2norm_in_kernel=True)`, B=1, T=4096, H=HV=16, K=V=128, bf16 q/k/v, float32 g
and beta as FLA's own test draws them) for an H200 (Hopper: the config lists that depend on the device are Hopper's).
It has no binaries and no timings; scripts/fla_capture.py writes the real thing on a GPU (docs/fla-capture.md).
The bad manifests are the sample with one planted fault each (and a valid digest, so only that fault is reported).

    tests/fla_capture_fixtures.py [--out DIR] [--check] [--fla PATH_TO_FLA_0.5.2]
--check compares the files in DIR with what this script writes (exit 1 when they differ); --fla also checks the
recorded SHA-256 of FLA's sources against that checkout.
"""
import argparse
import copy
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))
import fla_manifest_check as fmc  # noqa: E402

SAMPLE = "gdr-fwd-T4096-handmade.json"

# SHA-256 of the FLA v0.5.2 files the sample's kernels come from (and the loader, cache.py, and the op).
FLA_SOURCES = {
    "fla/modules/l2norm.py": "30f7feebdbfa87b8e90c143ec62a7fa0781bfd736c856c0ec69452f0c778be3f",
    "fla/ops/common/chunk_delta_h.py": "ff461bcc40e9cd0b2ca24af9ae9c3c6d99b2deae047c3737687c93b3fcd6ea57",
    "fla/ops/common/chunk_o.py": "f174d431ce67139204a0916f638b5af158dd5917e2cb37c0ca03f5ce735466a0",
    "fla/ops/gated_delta_rule/chunk.py": "fd4e01dc22a8c139c2a6eb61e47ae472a50322e4b4fff006cc5039a4602b310e",
    "fla/ops/gated_delta_rule/chunk_fwd.py": "1760a7dd26db2118bb1af7b9b7c115a27c97372e6a4d2e913d1542c9fedcda9e",
    "fla/ops/gated_delta_rule/wy_fast.py": "bf24a66524ea56383fe6c9a97ae6b060ebe9490589c8499fba06d6172dc4510f",
    "fla/ops/utils/cache.py": "a64b09ffd3f51aed547ad72559dee94cb9aeafd2a5f02c6c8e60a6e020147a9c",
    "fla/ops/utils/cumsum.py": "0405701c46cee331088bfee395b3bf37f8384829dace0aa3a55a509844bcf4cb",
}

B, T, H, HV, K, V, BT = 1, 4096, 16, 16, 128, 128, 64
NT = (T + BT - 1) // BT
BF16, FP32 = "torch.bfloat16", "torch.float32"
RCP_LN2 = 1.4426950216          # fla/ops/utils/constant.py
SCALE = K ** -0.5               # chunk_gated_delta_rule: scale = k.shape[-1] ** -0.5


def config(kwargs, num_warps, num_stages=3):
    """A triton.Config as FLA's config file holds it (Config.__dict__; Triton's defaults num_stages=3, num_ctas=1)."""
    return {"kwargs": kwargs, "num_warps": num_warps, "num_ctas": 1, "num_stages": num_stages, "maxnreg": None,
            "pre_hook": None, "ir_override": None}


def cdiv(a, b):
    return (a + b - 1) // b


def tensor(name, dtype, shape, origin):
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    itemsize = fmc.TORCH_DTYPES[dtype][1]
    return {"name": name, "kind": "tensor", "dtype": dtype, "triton_type": "*" + fmc.TORCH_DTYPES[dtype][0],
            "shape": shape, "strides": strides, "storage_offset": 0, "storage_bytes": step * itemsize,
            "aligned_16": True, "origin": origin}


def op_input(name):
    return {"kind": "op_input", "input": name}


def produced(sequence, arg):
    return {"kind": "launch_arg", "sequence": sequence, "arg": arg}


NEW = {"kind": "new"}


def scalar(name, triton_type, value, do_not_specialize=False):
    return {"name": name, "kind": "scalar", "triton_type": triton_type, "value": value,
            "do_not_specialize": do_not_specialize}


def const(name, value):
    return {"name": name, "kind": "constexpr", "value": value}


def none(name):
    return {"name": name, "kind": "none"}


def from_config(name):
    return {"name": name, "kind": "config"}


# The kernels in launch order, each with its FLA source, @triton.jit signature, key= list and config list.
KERNELS = [
    {  # fla/modules/l2norm.py: @fla_cache_autotune(configs=[Config({"BT": BT}, num_warps) for num_warps in
       # [1, 2, 4, 8, 16] for BT in BT_LIST], key=["D", "NB"]), @triton.jit(do_not_specialize=["T"])
        "kernel_name": "l2norm_fwd_kernel", "source_file": "fla/modules/l2norm.py",
        "arg_names": ["x", "y", "rstd", "eps", "T", "D", "BD", "NB", "BT"],
        "constexpr_names": ["D", "BD", "NB", "BT"], "do_not_specialize": ["T"], "key_names": ["D", "NB"],
        "configs": [config({"BT": bt}, w) for w in [1, 2, 4, 8, 16] for bt in [8, 16, 32, 64, 128]],
    },
    {  # fla/ops/utils/cumsum.py: configs [Config({}, num_warps) for num_warps in [1, 2, 4, 8]],
       # key=['B', 'H', 'BT', 'IS_VARLEN', 'REVERSE'], heuristics HAS_SCALE, IS_VARLEN
        "kernel_name": "chunk_local_cumsum_scalar_kernel", "source_file": "fla/ops/utils/cumsum.py",
        "arg_names": ["s", "o", "scale", "cu_seqlens", "chunk_indices", "T", "B", "H", "BT", "REVERSE", "HAS_SCALE",
                      "IS_VARLEN", "HEAD_FIRST"],
        "constexpr_names": ["B", "H", "BT", "REVERSE", "HAS_SCALE", "IS_VARLEN", "HEAD_FIRST"],
        "do_not_specialize": ["T"], "key_names": ["B", "H", "BT", "IS_VARLEN", "REVERSE"],
        "configs": [config({}, w) for w in [1, 2, 4, 8]],
    },
    {  # fla/ops/gated_delta_rule/chunk_fwd.py: configs [Config({'BK': BK}, num_warps) for BK in [32, 64] for
       # num_warps in [1, 2, 4]], key=['H', 'HV', 'K', 'BC'], heuristics USE_G, IS_VARLEN
        "kernel_name": "chunk_gated_delta_rule_fwd_kkt_solve_kernel",
        "source_file": "fla/ops/gated_delta_rule/chunk_fwd.py",
        "arg_names": ["k", "g", "beta", "A", "cu_seqlens", "chunk_indices", "T", "H", "HV", "K", "BT", "BC", "BK",
                      "USE_G", "IS_VARLEN"],
        "constexpr_names": ["H", "HV", "K", "BT", "BC", "BK", "USE_G", "IS_VARLEN"], "do_not_specialize": ["T"],
        "key_names": ["H", "HV", "K", "BC"],
        "configs": [config({"BK": bk}, w) for bk in [32, 64] for w in [1, 2, 4]],
    },
    {  # fla/ops/gated_delta_rule/wy_fast.py: configs [Config({}, num_warps, num_stages) for num_warps in [2, 4, 8]
       # for num_stages in [2, 3, 4]], key=['H', 'HV', 'K', 'V', 'BT', 'BK', 'BV', 'IS_VARLEN']
        "kernel_name": "recompute_w_u_fwd_kernel", "source_file": "fla/ops/gated_delta_rule/wy_fast.py",
        "arg_names": ["k", "v", "beta", "w", "u", "A", "g", "cu_seqlens", "chunk_indices", "T", "H", "HV", "K", "V",
                      "BT", "BK", "BV", "USE_G", "IS_VARLEN"],
        "constexpr_names": ["H", "HV", "K", "V", "BT", "BK", "BV", "USE_G", "IS_VARLEN"], "do_not_specialize": ["T"],
        "key_names": ["H", "HV", "K", "V", "BT", "BK", "BV", "IS_VARLEN"],
        "configs": [config({}, w, s) for w in [2, 4, 8] for s in [2, 3, 4]],
    },
    {  # fla/ops/common/chunk_delta_h.py: configs [Config({'BV': BV}, num_warps, num_stages) for num_warps in
       # GATED_DELTA_RULE_FWD_H_NUM_WARPS ([2, 4] but on Blackwell) for num_stages in ([2, 3, 4] if
       # check_shared_mem('ampere') else [2, 1]) for BV in ([32, 64] if check_shared_mem('ada') else [32])]:
       # on an H200 (232448 bytes of shared memory) 2 x 3 x 2 = 12; key=['H', 'HV', 'K', 'V', 'BT', 'STATE_V_FIRST']
        "kernel_name": "chunk_gated_delta_rule_fwd_kernel_h_blockdim64",
        "source_file": "fla/ops/common/chunk_delta_h.py",
        "arg_names": ["k", "v", "w", "v_new", "g", "gk", "h", "h0", "ht", "cu_seqlens", "chunk_offsets", "T", "H", "HV",
                      "K", "V", "BT", "BV", "USE_G", "USE_GK", "USE_INITIAL_STATE", "STORE_FINAL_STATE",
                      "SAVE_NEW_VALUE", "STATE_V_FIRST", "IS_VARLEN"],
        "constexpr_names": ["H", "HV", "K", "V", "BT", "BV", "USE_G", "USE_GK", "USE_INITIAL_STATE",
                            "STORE_FINAL_STATE", "SAVE_NEW_VALUE", "STATE_V_FIRST", "IS_VARLEN"],
        "do_not_specialize": ["T"], "key_names": ["H", "HV", "K", "V", "BT", "STATE_V_FIRST"],
        "configs": [config({"BV": bv}, w, s) for w in [2, 4] for s in [2, 3, 4] for bv in [32, 64]],
    },
    {  # fla/ops/common/chunk_o.py: three explicit configs, key=['H', 'HV', 'K', 'V', 'BT', 'STATE_V_FIRST']
        "kernel_name": "chunk_fwd_kernel_o", "source_file": "fla/ops/common/chunk_o.py",
        "arg_names": ["q", "k", "v", "h", "g", "g_gamma", "o", "cu_seqlens", "chunk_indices", "scale", "T", "H", "HV",
                      "K", "V", "BT", "BK", "BV", "USE_G", "USE_G_GAMMA", "STATE_V_FIRST", "IS_VARLEN"],
        "constexpr_names": ["H", "HV", "K", "V", "BT", "BK", "BV", "USE_G", "USE_G_GAMMA", "STATE_V_FIRST",
                            "IS_VARLEN"],
        "do_not_specialize": ["T"], "key_names": ["H", "HV", "K", "V", "BT", "STATE_V_FIRST"],
        "configs": [config({"BK": 128, "BV": 128}, 8), config({"BK": 64, "BV": 64}, 4),
                    config({"BK": 32, "BV": 32}, 2)],
    },
]


def launches():
    """(kernel index, args, grid of config -> list) of the op's forward, in launch order (the call sites in
    fla/ops/gated_delta_rule/chunk.py, chunk_fwd.py, wy_fast.py, common/chunk_delta_h.py, common/chunk_o.py)."""
    rows = T * H  # l2norm_fwd: x.view(-1, D)
    qk = [B, T, H, K]
    seq = []
    for which in ("q", "k"):  # ChunkGatedDeltaRuleFunction.forward: q, q_rstd = l2norm_fwd(q); then k
        seq.append((0, [tensor("x", BF16, [rows, K], op_input(which)), tensor("y", BF16, [rows, K], NEW),
                        tensor("rstd", FP32, [rows], NEW), scalar("eps", "fp32", 1e-6), scalar("T", "i32", rows, True),
                        const("D", K), const("BD", 128), const("NB", cdiv(rows, 65536)), from_config("BT")],
                    lambda cfg: [cdiv(rows, cfg["kwargs"]["BT"])]))
    # chunk_local_cumsum(g, chunk_size=64, scale=RCP_LN2): g is [B, T, HV] -> the scalar kernel, output float32
    seq.append((1, [tensor("s", FP32, [B, T, HV], op_input("g")), tensor("o", FP32, [B, T, HV], NEW),
                    scalar("scale", "fp32", RCP_LN2), none("cu_seqlens"), none("chunk_indices"),
                    scalar("T", "i32", T, True), const("B", B), const("H", HV),  # H of g's [B, T, H]: HV
                    const("BT", BT), const("REVERSE", False),
                    const("HAS_SCALE", True), const("IS_VARLEN", False), const("HEAD_FIRST", False)],
                lambda cfg: [NT, B * HV]))
    # chunk_gated_delta_rule_fwd_intra, chunk_size 64: the fused kkt + solve_tril kernel, A = zeros(B, T, HV, BT)
    seq.append((2, [tensor("k", BF16, qk, produced(1, "y")), tensor("g", FP32, [B, T, HV], produced(2, "o")),
                    tensor("beta", FP32, [B, T, HV], op_input("beta")), tensor("A", BF16, [B, T, HV, BT], NEW),
                    none("cu_seqlens"), none("chunk_indices"), scalar("T", "i32", T, True), const("H", H),
                    const("HV", HV), const("K", K), const("BT", BT), const("BC", 16), from_config("BK"),
                    const("USE_G", True), const("IS_VARLEN", False)],
                lambda cfg: [NT, B * HV]))
    # recompute_w_u_fwd: w = k.new_empty(B, T, HV, K), u = empty_like(v), BK = BV = 64
    seq.append((3, [tensor("k", BF16, qk, produced(1, "y")), tensor("v", BF16, [B, T, HV, V], op_input("v")),
                    tensor("beta", FP32, [B, T, HV], op_input("beta")), tensor("w", BF16, [B, T, HV, K], NEW),
                    tensor("u", BF16, [B, T, HV, V], NEW), tensor("A", BF16, [B, T, HV, BT], produced(3, "A")),
                    tensor("g", FP32, [B, T, HV], produced(2, "o")), none("cu_seqlens"), none("chunk_indices"),
                    scalar("T", "i32", T, True), const("H", H), const("HV", HV), const("K", K), const("V", V),
                    const("BT", BT), const("BK", 64), const("BV", 64), const("USE_G", True),
                    const("IS_VARLEN", False)],
                lambda cfg: [NT, B * HV]))
    # chunk_gated_delta_rule_fwd_h: h = k.new_empty(B, NT, HV, K, V), v_new = empty_like(u), no initial/final state
    seq.append((4, [tensor("k", BF16, qk, produced(1, "y")), tensor("v", BF16, [B, T, HV, V], produced(4, "u")),
                    tensor("w", BF16, [B, T, HV, K], produced(4, "w")), tensor("v_new", BF16, [B, T, HV, V], NEW),
                    tensor("g", FP32, [B, T, HV], produced(2, "o")), none("gk"),
                    tensor("h", BF16, [B, NT, HV, K, V], NEW), none("h0"), none("ht"), none("cu_seqlens"),
                    none("chunk_offsets"), scalar("T", "i32", T, True), const("H", H), const("HV", HV), const("K", K),
                    const("V", V), const("BT", BT), from_config("BV"), const("USE_G", True), const("USE_GK", False),
                    const("USE_INITIAL_STATE", False), const("STORE_FINAL_STATE", False),
                    const("SAVE_NEW_VALUE", True), const("STATE_V_FIRST", False), const("IS_VARLEN", False)],
                lambda cfg: [cdiv(V, cfg["kwargs"]["BV"]), B * HV]))
    # chunk_fwd_o: o = empty_like(v_new), scale = K ** -0.5
    seq.append((5, [tensor("q", BF16, qk, produced(0, "y")), tensor("k", BF16, qk, produced(1, "y")),
                    tensor("v", BF16, [B, T, HV, V], produced(5, "v_new")),
                    tensor("h", BF16, [B, NT, HV, K, V], produced(5, "h")),
                    tensor("g", FP32, [B, T, HV], produced(2, "o")), none("g_gamma"),
                    tensor("o", BF16, [B, T, HV, V], NEW), none("cu_seqlens"), none("chunk_indices"),
                    scalar("scale", "fp32", SCALE), scalar("T", "i32", T, True), const("H", H), const("HV", HV),
                    const("K", K), const("V", V), const("BT", BT), from_config("BK"), from_config("BV"),
                    const("USE_G", True), const("USE_G_GAMMA", False), const("STATE_V_FIRST", False),
                    const("IS_VARLEN", False)],
                lambda cfg: [cdiv(V, cfg["kwargs"]["BV"]), NT, B * HV]))
    return seq


CASE_ID = "chunk_gated_delta_rule-B1-T4096-H16-HV16-K128-V128"


def key_of(kernel, args):
    """FLA's key rule (fla/ops/utils/cache.py, AutotuneKey.build) over keyword-only calls in signature order."""
    by_name = {a["name"]: a for a in args}
    passed = [a for a in args if a["kind"] != "config"]
    key_arg_names = [n for n in kernel["key_names"] if by_name[n]["kind"] != "config"]
    key = [by_name[n].get("value") for n in key_arg_names]
    dtype_arg_names = [a["name"] for a in passed if a["kind"] == "tensor"]
    return key + [by_name[n]["dtype"] for n in dtype_arg_names], key_arg_names, dtype_arg_names


def sample():
    kernels = [dict(k, launches=[]) for k in KERNELS]
    for sequence, (ki, args, grid) in enumerate(launches()):
        kernel = kernels[ki]
        key, key_arg_names, dtype_arg_names = key_of(kernel, args)
        kernel["launches"].append({
            "case": CASE_ID, "sequence": sequence, "signature_source": "fla_source", "autotune_key": key,
            "key_hash": fmc.fla_key_hash(key), "key_arg_names": key_arg_names, "dtype_arg_names": dtype_arg_names,
            "args": args,
            "autotune": {"source": "not_run", "benchmarks": 0, "seconds": None, "chosen_config": None,
                         "timings_ms": None},
            "variants": [{"config": i, "grid": grid(cfg), "binary": None, "compile_error": None}
                         for i, cfg in enumerate(kernel["configs"])]})
    params = {"B": B, "T": T, "H": H, "HV": HV, "K": K, "V": V, "chunk_size": BT, "use_qk_l2norm_in_kernel": True,
              "output_final_state": False, "initial_state": False, "scale": None}
    defaults = fmc.OPS["chunk_gated_delta_rule"]["default_inputs"]
    inputs = [{"name": n, "shape": shape, "dtype": BF16 if defaults[n][0] == "op" else defaults[n][0],
               "generator": defaults[n][1]}
              for n, shape in fmc.op_input_shapes("chunk_gated_delta_rule", params)]
    case = {"id": CASE_ID, "op": "chunk_gated_delta_rule", "params": params, "inputs": inputs,
            "outputs": [{"name": "o", "shape": [B, T, HV, V], "dtype": BF16, "sha256": None}], "seed": 42,
            "grad_mode": "no_grad",
            "timing": {"first_call_s": None, "extra_compile_s": None, "repeat_calls": 0, "steady_median_ms": None,
                       "steady_timer": None},
            "autotune_benchmarks": {"fla_cache_kernels": None, "other_kernels": None},
            "other_autotuned_kernels": [], "launch_count": len(launches())}
    body = {
        "format": fmc.FORMAT, "capture_kind": "hand-made",
        "captured_by": "hand-made from FLA 0.5.2 source, not a device capture (tests/fla_capture_fixtures.py)",
        "created_utc": "2026-12-05T00:00:00Z",
        "tool": {"name": "tests/fla_capture_fixtures.py", "version": "1"},
        "stack": {"fla_version": "0.5.2", "triton_version": "3.6.0", "torch_version": None, "cuda_version": None,
                  "hip_version": None, "python_version": None, "fla_sources": FLA_SOURCES},
        "device": {"name": "NVIDIA H200", "fla_gpu_name": "NVIDIA_H200", "backend": "cuda", "arch": "sm_90",
                   "capability": [9, 0], "warp_size": 32, "multiprocessors": 132, "max_shared_mem_bytes": 232448,
                   "total_memory_bytes": None},
        "environment": {}, "cases": [case], "kernels": kernels, "binaries": {}, "triton_cache": {"archives": []},
    }
    return with_digest(body)


def with_digest(doc):
    doc = {k: v for k, v in doc.items() if k != "digest"}
    doc["digest"] = {"algorithm": fmc.DIGEST_ALGORITHM, "value": fmc.manifest_digest(doc)}
    return doc


def text(doc):
    return json.dumps(doc, indent=1) + "\n"


def kernel_index(doc, name):
    return next(i for i, k in enumerate(doc["kernels"]) if k["kernel_name"] == name)


# Each bad manifest: file name, what it plants, the JSON Pointer the checker must name (tests/cli/fla_capture.cmake).
def bad_manifests(good):
    out = []

    def planted(name, pointer, change, redigest=True):
        doc = copy.deepcopy(good)
        change(doc)
        out.append((name, pointer, text(with_digest(doc)) if redigest else text(doc)))

    kkt = kernel_index(good, "chunk_gated_delta_rule_fwd_kkt_solve_kernel")
    h = kernel_index(good, "chunk_gated_delta_rule_fwd_kernel_h_blockdim64")
    o = kernel_index(good, "chunk_fwd_kernel_o")

    def edited_after_writing(d):
        d["cases"][0]["seed"] = 7
    planted("bad-digest.json", "/digest/value", edited_after_writing, redigest=False)

    def wrong_format(d):
        d["format"] = "tunescope-fla-capture-v9"
    planted("bad-format.json", "/format", wrong_format)

    def key_hash(d):
        d["kernels"][0]["launches"][0]["key_hash"] = fmc.fla_key_hash([128, 1])
    planted("bad-key-hash.json", "/kernels/0/launches/0/key_hash", key_hash)

    def key_dtype(d):  # beta is float32 in the launch, the key says bfloat16
        launch = d["kernels"][kkt]["launches"][0]
        launch["autotune_key"][6] = BF16
        launch["key_hash"] = fmc.fla_key_hash(launch["autotune_key"])
    planted("bad-key-dtype.json", f"/kernels/{kkt}/launches/0/autotune_key/6", key_dtype)

    def num_warps(d):
        d["kernels"][h]["configs"][3]["num_warps"] = 3
    planted("bad-num-warps.json", f"/kernels/{h}/configs/3/num_warps", num_warps)

    def unknown_member(d):
        d["kernels"][o]["launches"][0]["stream"] = 0
    planted("bad-unknown-member.json", f"/kernels/{o}/launches/0/stream", unknown_member)

    def missing_variant(d):
        d["kernels"][h]["launches"][0]["variants"].pop()
    planted("bad-variants.json", f"/kernels/{h}/launches/0/variants", missing_variant)

    def case_ref(d):
        d["kernels"][1]["launches"][0]["case"] = "chunk_gated_delta_rule-T999"
    planted("bad-case-ref.json", "/kernels/1/launches/0/case", case_ref)

    def storage(d):
        d["kernels"][o]["launches"][0]["args"][3]["storage_bytes"] -= 2
    planted("bad-storage.json", f"/kernels/{o}/launches/0/args/3/storage_bytes", storage)

    def later_origin(d):
        d["kernels"][kkt]["launches"][0]["args"][0]["origin"] = {"kind": "launch_arg", "sequence": 5, "arg": "v_new"}
    planted("bad-origin.json", f"/kernels/{kkt}/launches/0/args/0/origin/sequence", later_origin)

    def grid(d):
        d["kernels"][0]["launches"][1]["variants"][2]["grid"] = [0]
    planted("bad-grid.json", "/kernels/0/launches/1/variants/2/grid/0", grid)

    def config_arg(d):  # BT is set by every l2norm config: it cannot also be a constexpr of the call
        d["kernels"][0]["launches"][0]["args"][8] = {"name": "BT", "kind": "constexpr", "value": 8}
    planted("bad-config-arg.json", "/kernels/0/launches/0/args/8/kind", config_arg)

    good_text = text(good)
    out.append(("bad-syntax.json", "", good_text[: len(good_text) // 2]))
    dup = good_text.replace('"capture_kind": "hand-made",',
                            '"capture_kind": "hand-made",\n "capture_kind": "device",', 1)
    out.append(("bad-duplicate.json", "/capture_kind", dup))
    out.append(("bad-nan.json", "/cases/0/seed", good_text.replace('"seed": 42', '"seed": NaN', 1)))
    return out


def files():
    good = sample()
    result = [(SAMPLE, text(good))]
    result += [(os.path.join("bad", name), content) for name, _pointer, content in bad_manifests(good)]
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "data", "fla-capture"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--fla", default="", help="an FLA 0.5.2 checkout: check the recorded SHA-256 of its sources")
    ap.add_argument("--list", action="store_true", help="print each bad manifest with the pointer it must fail at")
    a = ap.parse_args(argv)
    if a.list:
        for name, pointer, _ in bad_manifests(sample()):
            print(f"{name}\t{pointer}")
        return 0
    if a.fla:
        for path, digest in FLA_SOURCES.items():
            with open(os.path.join(a.fla, path), "rb") as f:
                got = hashlib.sha256(f.read()).hexdigest()
            if got != digest:
                print(f"fla_capture_fixtures: {path} in {a.fla} has SHA-256 {got}, the sample records {digest}")
                return 1
    stale = []
    for rel, content in files():
        path = os.path.join(a.out, rel)
        if a.check:
            try:
                with open(path) as f:
                    if f.read() != content:
                        stale.append(rel)
            except OSError:
                stale.append(rel)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
    if stale:
        print(f"fla_capture_fixtures: {len(stale)} fixture(s) differ from what this script writes: {', '.join(stale)}"
              f" (run tests/fla_capture_fixtures.py to rewrite them)")
        return 1
    print(f"fla_capture_fixtures: {len(files())} fixtures {'up to date' if a.check else 'written'} in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
