#!/usr/bin/env python3
"""Writes tests/data/fla-capture/h100-gdr-fwd-T4096.json, CI's small device capture: the first device capture of
issue 24 (bench/results/h100-run14/issue24a/fla-capture.json: chunk_gated_delta_rule forward, B=1, H=HV=16,
K=V=128, bf16, T=4096/16384/65536, NVIDIA H100 80GB HBM3, FLA 0.5.2, Triton 3.6.0) trimmed to its cases in CASES.

Trimming keeps a valid manifest: the other cases go, with their launches and the binaries only they used; each kept
case keeps its launches, sequences, origins and counts as captured; captured_by says where the file came from; the
digest is recomputed. triton_cache.archives still names the full capture's archive (triton-cache-1.tar.gz beside the
full capture), which holds these binaries among others.

    make_h100_capture_fixture.py           write the fixture
    make_h100_capture_fixture.py --check   exit 1 when the committed fixture is not what this script writes
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fla_manifest_check as fmc  # noqa: E402

SOURCE = os.path.join(REPO, "bench", "results", "h100-run14", "issue24a", "fla-capture.json")
TARGET = os.path.join(HERE, "data", "fla-capture", "h100-gdr-fwd-T4096.json")
CASES = ("chunk_gated_delta_rule-B1-T4096-H16-HV16-K128-V128",)


def trimmed():
    with open(SOURCE) as f:
        doc = json.load(f)
    doc["cases"] = [c for c in doc["cases"] if c["id"] in CASES]
    for kernel in doc["kernels"]:
        kernel["launches"] = [launch for launch in kernel["launches"] if launch["case"] in CASES]
    doc["kernels"] = [k for k in doc["kernels"] if k["launches"]]
    used = {v["binary"] for k in doc["kernels"] for launch in k["launches"] for v in launch["variants"]}
    doc["binaries"] = {h: b for h, b in doc["binaries"].items() if h in used}
    doc["captured_by"] = (doc["captured_by"] + "; trimmed to case " + ", ".join(CASES) +
                          " from bench/results/h100-run14/issue24a/fla-capture.json by tests/make_h100_capture_fixture.py")
    doc["digest"]["value"] = fmc.manifest_digest(doc)
    errors = fmc.check_manifest(fmc.parse_manifest_text(json.dumps(doc)))
    if errors:
        raise SystemExit(f"make_h100_capture_fixture: the trimmed manifest is not valid: {errors[:5]}")
    return json.dumps(doc, indent=1) + "\n"


def main(argv):
    text = trimmed()
    if "--check" in argv:
        with open(TARGET) as f:
            same = f.read() == text
        print(f"make_h100_capture_fixture: {TARGET} {'is up to date' if same else 'differs: run the script'}")
        return 0 if same else 1
    with open(TARGET, "w") as f:
        f.write(text)
    print(f"make_h100_capture_fixture: wrote {TARGET} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
