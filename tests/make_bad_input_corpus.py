#!/usr/bin/env python3
"""Generates tests/data/bad-input/: mutations of the seed files, one folder per reader.

Usage: make_bad_input_corpus.py [OUT_DIR]   (default: tests/data/bad-input beside this script)

Every mutation is generated (fixed random seed, so reruns give the same bytes), never hand-picked. Kinds:
profile, report, fla, triton, results, envelope, grid, policy (cuBLASLt). The results folder also holds the repros of
issue 25 (r-*: results files that cannot be true), whose expected outcome is in results-expected.txt.
tests/cli/bad_input.cmake runs every file-reading CLI
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
        # After policy for the same reason: the capture sweep's results file (sweep --manifest --out).
        "capture-sweep": [read(os.path.join(HERE, "data", "fla-capture", "sweep-files", "good-small.json"))],
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


# --- results files that cannot be true (issue 25) ------------------------------------------------------------------
# Each repro is well-formed JSON Lines, mutated from a head-to-head results file (so that every command that reads
# results, confirm --results included, gets past the header), with the outcome every command must give: exit 2 and
# the file, line and JSON Pointer in the message, or (code "*") a warning that names the file and line. The runner
# (tests/cli/bad_input/run_corpus.cmake) and the GUI's test (tests/tst_ui_workbench.cpp) read RESULTS_EXPECTED.

RESULTS_EXPECTED = "results-expected.txt"
HEAD_TO_HEAD_SEED = os.path.join(HERE, "data", "formats", "confirm-cpu.jsonl")


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode()


def with_record(lines, index, change):
    """lines with line `index` (0-based: 0 is the header) parsed, changed in place by change(obj), re-encoded."""
    out = list(lines)
    obj = json.loads(out[index])
    change(obj)
    out[index] = compact(obj)
    return out


def setter(path, value):
    def change(obj):
        target = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def results_repros():
    """(name, bytes, code, needles) for each repro; '{file}' in a needle stands for the file's path."""
    data = read(HEAD_TO_HEAD_SEED)
    lines = data.rstrip(b"\n").split(b"\n")
    joined = lambda ls: b"\n".join(ls) + b"\n"
    out = []

    def refused(name, index, change, pointer, *more):
        out.append((name, joined(with_record(lines, index, change)), "2",
                    ["{file}", "line %d, %s" % (index + 1, pointer)] + list(more)))

    # 1. times that cannot be: round medians of -1, 0, null, 1e308; a record median of -1; raw samples of 0 and -1;
    # a minimum over an hour; a negative count.
    refused("r-round-median-negative", 2, setter(["rounds", 1, "median_ms"], -1), "/rounds/1/median_ms", "is -1")
    refused("r-round-median-zero", 2, setter(["rounds", 1, "median_ms"], 0), "/rounds/1/median_ms", "is 0")
    refused("r-round-median-null", 2, setter(["rounds", 1, "median_ms"], None), "/rounds/1/median_ms", "is null")

    def huge(obj):
        for r in obj["rounds"]:
            r["median_ms"] = 1e308
    refused("r-round-medians-huge", 2, huge, "/rounds/0/median_ms", "at most")
    refused("r-record-median-negative", 2, setter(["median_ms"], -1), "/median_ms", "is -1")
    refused("r-raw-sample-zero", 2, setter(["raw_ms", 5], 0), "/raw_ms/5", "is 0")
    refused("r-raw-sample-negative", 2, setter(["raw_ms", 5], -0.016), "/raw_ms/5", "is -0.016")
    refused("r-min-over-an-hour", 2, setter(["min_ms"], 4e6), "/min_ms", "at most")
    refused("r-count-negative", 2, setter(["throttled_samples"], -1), "/throttled_samples", "is -1")
    # 2. a record of another device; the header of another machine over these records; an error line of another
    # device.
    refused("r-device-other", 3, setter(["device", "name"], "NVIDIA H200"), "/device", "not one of the devices")

    def other_devices(obj):
        obj["devices"][0]["name"] = "NVIDIA H200"
        obj["devices"][0]["backend"] = "cuda"
    swapped = with_record(lines, 0, other_devices)
    out.append(("r-header-swapped", joined(swapped), "2", ["{file}", "line 2, /device", "not one of the devices"]))
    error = {"type": "error", "kind": "l2norm", "nb": 2, "rows": 1024,
             "config": {"BT": 16, "num_warps": 1, "num_stages": 3, "num_ctas": 1},
             "device": {"backend": "cuda", "index": 0, "name": "NVIDIA H200"}, "message": "made up"}
    out.append(("r-error-device-other", joined(lines + [compact(error)]), "2",
                ["{file}", "line %d, /device" % (len(lines) + 1), "not one of the devices"]))
    # 3. shapes and configs outside the plan: NB 0, -1, 33, 2^31; T of no shape; BT 0; a legal config the plan does
    # not have at that NB; a replica the plan does not measure.
    refused("r-nb-zero", 4, setter(["nb"], 0), "/nb", "not a shape of the file's plan")
    refused("r-nb-negative", 4, setter(["nb"], -1), "/nb", "not a shape of the file's plan")
    refused("r-nb-33", 4, setter(["nb"], 33), "/nb", "not a shape of the file's plan")
    refused("r-nb-2pow31", 4, setter(["nb"], 2 ** 31), "/nb", "out of the range of an int")
    refused("r-rows-other", 4, setter(["rows"], 999), "/rows", "not a shape of the file's plan")
    refused("r-bt-zero", 4, setter(["config", "BT"], 0), "/config", "not a config of the file's plan")
    refused("r-config-other", 4, setter(["config", "BT"], 64), "/config", "not a config of the file's plan")
    refused("r-replica-other", 4, setter(["replica"], 5), "/replica", "is 5")
    # A round that names a buffer placement in a plan of one placement (docs/sweep.md, "Placements").
    refused("r-placement-in-one-placement-plan", 2, setter(["rounds", 1, "placement"], 1), "/rounds/1/placement",
            "has one buffer placement")
    # 4. a NUL byte after a record's JSON (alone, and with more text after it).
    for name, tail in (("r-nul-after-json", b"\x00"), ("r-nul-then-text", b"\x00 {}")):
        changed = list(lines)
        column = len(changed[2]) + 1
        changed[2] = changed[2] + tail
        out.append((name, joined(changed), "2", ["{file}", "line 3, column %d" % column, "NUL byte"]))
    # 5. a truncated last line (a kill mid-write): ignored, and flagged by every command.
    truncated = b"\n".join(lines)[:-200]
    out.append(("r-truncated-last-line", truncated, "*",
                ["warning: {file} line %d: ignored an incomplete last line" % len(lines)]))
    # 6. no header; a 300 KB gzip file that inflates to 300 MB.
    out.append(("r-no-header", joined(lines[1:]), "2", ["{file}", "line 1", "the first line is not a results header"]))
    out.append(("r-gzip-bomb.jsonl.gz", gzip_bomb(lines[0] + b"\n", 300 * 1000 * 1000), "2",
                ["{file}", "decompresses to more than 128 MiB", "--max-inflated-mib"]))
    return out


def gzip_bomb(head, size):
    """A gzip stream of `head` and then blanks up to `size` bytes, compressed in pieces (never all in memory)."""
    import zlib
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
    parts = [packer.compress(head)]
    chunk = b" " * (1 << 20)
    left = size - len(head)
    while left > 0:
        piece = chunk[: min(left, len(chunk))]
        parts.append(packer.compress(piece))
        left -= len(piece)
    parts.append(packer.flush())
    return b"".join(parts)


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
    expected = []
    for name, data, code, needles in results_repros():
        with open(os.path.join(out_dir, "results", name), "wb") as f:
            f.write(data)
        expected.append("\t".join([name, code] + needles))
        total += 1
    with open(os.path.join(out_dir, RESULTS_EXPECTED), "w") as f:
        f.write("# name<TAB>exit code (* = any of 0, 1)<TAB>text every command's output must hold ({file}: the file)\n")
        f.write("\n".join(expected) + "\n")
    print("wrote %d files to %s" % (total, out_dir))


if __name__ == "__main__":
    main()
