#!/usr/bin/env python3
"""Generates tests/data/bad-input/: mutations of the seed files, one folder per reader.

Usage: make_bad_input_corpus.py [OUT_DIR]   (default: tests/data/bad-input beside this script)

Every mutation is generated (fixed random seed, so reruns give the same bytes), never hand-picked. Kinds:
profile, report, fla, triton, results, envelope, grid, policy (cuBLASLt). tests/cli/bad_input.cmake runs every file-reading CLI
command over the corpus (docs/formats.md, "Bad input").
"""
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEEDS_DIR = os.path.join(HERE, "data", "bad-input-seeds")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def seeds():
    formats = os.path.join(HERE, "data", "formats")
    return {
        "profile": [read(os.path.join(ROOT, "profiles", "fla-l2norm-gfx942-profile.json"))],
        "report": [read(os.path.join(ROOT, "profiles", "cublaslt-gb10-nvfp4-fc2-report.json"))],
        "fla": [read(os.path.join(formats, "fla", "l2norm_fwd_kernel.json"))],
        "triton": [read(os.path.join(formats, "triton-cache", "ABCDEF234", "l2norm_fwd_kernel.autotune.json")),
                   read(os.path.join(formats, "triton-cache", "ALLINF111", "l2norm_fwd_kernel.autotune.json"))],
        "results": [read(os.path.join(SEEDS_DIR, "results.jsonl"))],
        "envelope": [read(os.path.join(SEEDS_DIR, "profile.json.sig.json"))],
        "grid": [b'[{"BT": 8, "num_warps": 1, "num_stages": 3}, {"BT": 32, "num_warps": 2, "num_stages": 3}]',
                 b'{"BT": [8, 32], "num_warps": [1], "num_stages": [3]}',
                 b"BT,num_warps,num_stages\n8,1,3\n32,2,3\n"],
        # Last, so that adding it left the other kinds' files (drawn from the same random sequence) as they were.
        "policy": [read(os.path.join(HERE, "data", "cublaslt-policy", "policy.json"))],
    }


def first_index(data, tokens):
    hits = [data.find(t) for t in tokens if data.find(t) >= 0]
    return min(hits) if hits else -1


def mutations(data, rng):
    """(name, bytes) pairs for one seed."""
    out = []
    n = len(data)
    for frac in (0, 1, 10, 50, 90, 99):
        out.append(("truncate%02d" % frac, data[: n * frac // 100]))
    out.append(("truncate-last-byte", data[:-1]))
    out.append(("empty", b""))
    out.append(("whitespace", b" \n\t \n"))
    out.append(("bom", b"\xef\xbb\xbf" + data))
    out.append(("nul-prefix", b"\x00" + data))
    out.append(("invalid-utf8-string", data.replace(b'"', b'"\xff\xfe', 2)))
    out.append(("invalid-utf8-raw", data[: n // 2] + b"\xc3\x28\xa0\xa1" + data[n // 2:]))
    for depth in (600,):
        pos = data.find(b":")
        if pos >= 0:
            out.append(("deep%d" % depth, data[: pos + 1] + b"[" * depth + b"]" * depth + b"," + data[pos + 1:]))
    out.append(("deep-alone", b"[" * 20000 + b"]" * 20000))
    out.append(("unclosed-deep", b"{" + b'"a":[' * 5000))
    num = first_index(data, [b": 1", b": 2", b": 3", b": 4", b": 8", b":1", b":2", b":3", b":8"])
    if num >= 0:
        colon = data.find(b":", num) + 1
        end = colon
        while end < n and data[end:end + 1] in b" 0123456789.-+eE":
            end += 1
        for label, value in (("huge-int", b" 99999999999999999999999999"), ("huge-neg", b" -9223372036854775809"),
                             ("huge-float", b" 1e400"), ("tiny-float", b" 1e-400"), ("nan", b" NaN"),
                             ("infinity", b" Infinity"), ("neg-infinity", b" -Infinity"), ("null", b" null"),
                             ("string", b' "8"'), ("array", b" [8]"), ("object", b' {"v": 8}'), ("bool", b" true"),
                             ("negative", b" -1"), ("zero", b" 0"), ("int64-max", b" 9223372036854775807")):
            out.append(("number-" + label, data[:colon] + value + data[end:]))
    # Every string value replaced by a wrong type, one kind per file.
    for label, value in (("null", b"null"), ("number", b"12345"), ("object", b"{}"), ("array", b"[]")):
        out.append(("strings-to-" + label, replace_string_values(data, value)))
    try:
        doc = json.loads(data.split(b"\n")[0] if data.lstrip().startswith(b'{"type"') else data)
    except Exception:
        doc = None
    if isinstance(doc, dict) and doc:
        first_key = next(iter(doc))
        text = data.decode("utf-8", "replace")
        brace = text.find("{")
        dup = text[: brace + 1] + json.dumps(first_key) + ": null, " + text[brace + 1:]
        out.append(("duplicate-key", dup.encode()))
        for key in list(doc)[:4]:
            for label, value in (("null", None), ("string", "x"), ("array", []), ("number", -1)):
                changed = dict(doc)
                changed[key] = value
                out.append(("member-%s-%s" % (safe(key), label), json.dumps(changed, separators=(",", ":")).encode()))
            removed = dict(doc)
            del removed[key]
            out.append(("member-%s-missing" % safe(key), json.dumps(removed, separators=(",", ":")).encode()))
        many = dict(doc)
        for i in range(5000):  # tests/cli/hardening checks 200,000 (generated there, not committed)
            many["k%d" % i] = i
        out.append(("many-keys", json.dumps(many, separators=(",", ":")).encode()))
    out.append(("top-level-array", b"[" + data + b"]"))
    out.append(("top-level-string", b'"just a string"'))
    out.append(("top-level-number", b"42"))
    for i in range(4):
        flipped = bytearray(data)
        for _ in range(1 + i * 3):
            if flipped:
                flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        out.append(("byteflip%d" % i, bytes(flipped)))
    return out


def replace_string_values(data, value):
    """Replaces every JSON string that follows a ':' with `value` (keys stay)."""
    out = bytearray()
    i, n = 0, len(data)
    after_colon = False
    while i < n:
        c = data[i:i + 1]
        if c == b'"':
            j = i + 1
            while j < n and data[j:j + 1] != b'"':
                j += 2 if data[j:j + 1] == b"\\" else 1
            if after_colon:
                out += value
            else:
                out += data[i:j + 1]
            i = j + 1
            after_colon = False
            continue
        if c == b":":
            after_colon = True
        elif c not in b" \t\r\n":
            after_colon = False
        out += c
        i += 1
    return bytes(out)


def safe(name):
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:24]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data", "bad-input")
    rng = random.Random(16)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    total = 0
    for kind, kind_seeds in seeds().items():
        folder = os.path.join(out_dir, kind)
        os.makedirs(folder)
        seen = set()
        for s, data in enumerate(kind_seeds):
            for name, mutated in mutations(data, rng):
                if mutated in seen:
                    continue
                seen.add(mutated)
                with open(os.path.join(folder, "s%d-%s" % (s, name)), "wb") as f:
                    f.write(mutated)
                total += 1
    print("wrote %d files to %s" % (total, out_dir))


if __name__ == "__main__":
    main()
