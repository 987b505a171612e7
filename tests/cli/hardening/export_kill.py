#!/usr/bin/env python3
"""Issue 16 finding 5: `export-fla` killed (SIGKILL) at random moments never leaves a new l2norm_fwd_kernel.json
beside a manifest that does not describe it (FLA would load configs no manifest or signature names).

Each round: the folder holds a complete export of profile A; an export of profile B (other configs) is started and
killed after a random delay within its measured run time; then the folder must be in one of the states the
staged writes allow: (A's manifest, A's config), (B's manifest, A's config) or (B's manifest, B's config), each file
complete JSON. Usage: export_kill.py CLI SEED_PROFILE WORK_DIR [ROUNDS]."""
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def manifest_config_sha(path):
    with open(path) as f:
        doc = json.load(f)  # a torn manifest fails here
    for entry in doc.get("files", []):
        if entry.get("file") == "l2norm_fwd_kernel.json":
            return entry.get("sha256")
    raise SystemExit(f"FAIL: {path} lists no l2norm_fwd_kernel.json")


def main():
    cli, seed, work = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(seed) as f:
        doc = json.load(f)
    profile_a = os.path.join(work, "a.json")
    profile_b = os.path.join(work, "b.json")
    shutil.copy(seed, profile_a)
    for entry in doc["per_NB_policy"]:  # B: every NB with another num_warps
        entry["config"]["num_warps"] = 4 if entry["config"]["num_warps"] != 4 else 8
    with open(profile_b, "w") as f:
        json.dump(doc, f, indent=2)
    out = os.path.join(work, "out")
    manifest = os.path.join(out, "profile.json")
    config = os.path.join(out, "l2norm_fwd_kernel.json")

    def export(profile):
        subprocess.run([cli, "export-fla", profile, "--out", out, "--manifest-name", "profile.json", "--force"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sha256(config), manifest_config_sha(manifest)

    config_b, _ = export(profile_b)
    t0 = time.monotonic()
    config_a, listed_a = export(profile_a)
    run_s = time.monotonic() - t0
    assert config_a == listed_a and config_a != config_b, "the two profiles must export different configs"
    rng = random.Random(20261203)
    states = {}
    for i in range(rounds):
        export(profile_a)
        child = subprocess.Popen([cli, "export-fla", profile_b, "--out", out, "--manifest-name", "profile.json",
                                  "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3 * run_s, 1.1 * run_s))  # the renames come at the end
        child.send_signal(signal.SIGKILL)
        child.wait()
        have_config = sha256(config)
        listed = manifest_config_sha(manifest)
        if have_config not in (config_a, config_b):
            raise SystemExit(f"FAIL round {i}: the config is neither A's nor B's (torn write)")
        if have_config == config_b and listed != config_b:
            raise SystemExit(f"FAIL round {i}: B's config sits beside a manifest that lists {listed[:12]} (A's)")
        state = ("manifest B" if listed == config_b else "manifest A") + ", " + \
                ("config B" if have_config == config_b else "config A")
        states[state] = states.get(state, 0) + 1
    print(f"{rounds} kills over a {1000 * run_s:.0f} ms export: " +
          ", ".join(f"{k}: {v}" for k, v in sorted(states.items())))


if __name__ == "__main__":
    main()
