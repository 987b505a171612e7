#!/usr/bin/env bash
# Issue 24, "FLA strict mode with the export" (~4-5 minutes on one H100): the C++ replay's choices of run 17
# (bench/results/h100-run17/issue24b/choices.json, made from the H100 capture of run 14) exported by tunescope-cli as
# an FLA_CONFIG_DIR, and FLA v0.5.2's chunk_gated_delta_rule forward at the capture's three lengths:
#  1. autotuned: a fresh process and Triton cache, FLA autotunes (its own picks; first calls timed, benchmarks
#     counted); the outputs are saved as the reference;
#  2. strict with the export: FLA_CACHE_MODE=strict (a miss fails), first calls timed, the outputs compared with
#     step 1's by FLA's own test rule (max abs <= 1e-6, else rms ratio < 0.005: tests/ops/test_gdn.py's forward bar);
#  3. the whole op's time, export vs FLA's own picks (its choices from the capture, as an FLA_CONFIG_DIR, strict):
#     CUDA-graph replays (300 per case, median), in four processes alternating own, export, own, export on a
#     Triton cache filled by steps 1-2, so drift between processes shows as a difference between the pairs.
# FLA's source travels in .fla/ (git archive of tag v0.5.2); carry build-gpu-rp (bin/tunescope-cli):
#   TS_BUILD=build-gpu-rp bash bench/device/issue24c.sh
# Results: $OUT/issue24c.tar.gz (the folders, run reports, logs), $OUT/summary.txt.
set -uo pipefail
build=${TS_BUILD:-build-gpu-rp}
cli=$build/bin/tunescope-cli
capture=bench/results/h100-run14/issue24a/fla-capture.json
choices=${CHOICES:-bench/results/h100-run17/issue24b/choices.json}
res=$OUT/issue24c
mkdir -p "$res"
fla=$PWD/.fla
[ -x "$cli" ] || { echo "issue24c: $cli missing" | tee "$OUT/summary.txt"; exit 2; }
[ -f "$fla/fla/ops/utils/cache.py" ] || { echo "issue24c: no FLA source in $fla" | tee "$OUT/summary.txt"; exit 2; }
export PYTHONPATH=$fla${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$res/card.txt" 2>&1
cat "$res/card.txt" >"$OUT/summary.txt"
"$cli" capture export-fla "$capture" --choices "$choices" --out "$res/fla-config" >"$res/export.out" 2>&1
echo "--- export exit $?" >>"$OUT/summary.txt"
"$cli" validate "$res/fla-config" >>"$OUT/summary.txt" 2>&1
python3 scripts/fla_capture.py --fla-config-from "$capture" --fla-config-dir "$res/fla-own" >>"$res/export.out" 2>&1
cache=$(mktemp -d /tmp/issue24c-triton.XXXXXX)
spec=(--spec-from "$capture" --repeat 20)
echo "--- 1. autotuned (FLA's own picks, fresh Triton cache)" >>"$OUT/summary.txt"
env -u FLA_CONFIG_DIR -u FLA_CACHE_MODE TRITON_CACHE_DIR="$cache" \
    timeout 200 python3 scripts/fla_capture.py --autotuned-run "${spec[@]}" --save-outputs "$cache.autotuned.pt" \
    --out "$res/autotuned-run.json" >"$res/autotuned.log" 2>&1
echo "exit $?" >>"$OUT/summary.txt"; tail -5 "$res/autotuned.log" >>"$OUT/summary.txt"
echo "--- 2. strict with the export (fresh Triton cache), outputs vs step 1 by FLA's test rule" >>"$OUT/summary.txt"
cache2=$(mktemp -d /tmp/issue24c-triton2.XXXXXX)
env FLA_CACHE_MODE=strict FLA_CONFIG_DIR="$res/fla-config" FLA_CACHE_RESULTS=0 TRITON_CACHE_DIR="$cache2" \
    timeout 150 python3 scripts/fla_capture.py --strict-run "${spec[@]}" --compare-outputs "$cache.autotuned.pt" \
    --out "$res/strict-run.json" >"$res/strict.log" 2>&1
echo "exit $? (1: a launch missed the folder, or an output is not close to the autotuned run's)" >>"$OUT/summary.txt"
tail -8 "$res/strict.log" >>"$OUT/summary.txt"
rm -rf "$cache2"
echo "--- 3. whole op, CUDA-graph replays: own, export, own, export (strict, shared Triton cache)" >>"$OUT/summary.txt"
i=0
for folder in fla-own fla-config fla-own fla-config; do
    i=$((i + 1))
    env FLA_CACHE_MODE=strict FLA_CONFIG_DIR="$res/$folder" FLA_CACHE_RESULTS=0 TRITON_CACHE_DIR="$cache" \
        timeout 90 python3 scripts/fla_capture.py --strict-run "${spec[@]}" --graph-replays 300 \
        --out "$res/graph-$i-$folder.json" >"$res/graph-$i-$folder.log" 2>&1
    echo "$i $folder exit $?" >>"$OUT/summary.txt"
    grep -o "^[^:]*: first call [0-9.]* s\|graph replay median [0-9.]* ms" "$res/graph-$i-$folder.log" | paste - - >>"$OUT/summary.txt"
done
python3 - "$res" >>"$OUT/summary.txt" 2>&1 <<'PY'
import json, os, sys
res = sys.argv[1]
runs = {}
for i, folder in enumerate(["fla-own", "fla-config", "fla-own", "fla-config"], 1):
    try:
        doc = json.load(open(os.path.join(res, f"graph-{i}-{folder}.json")))
    except (OSError, ValueError):
        continue
    for c in doc["cases"]:
        runs.setdefault(c["id"], {}).setdefault(folder, []).append(c.get("graph_replay_median_ms"))
print("whole op (graph replay medians, ms): case, own x2, export x2, export/own per pair")
for case, r in runs.items():
    own, exp = r.get("fla-own", []), r.get("fla-config", [])
    ratios = [e / o for o, e in zip(own, exp) if o and e]
    print(case, own, exp, [round(x, 4) for x in ratios])
PY
rm -rf "$cache" "$cache.autotuned.pt"  # the saved outputs (256 MB at T=65536) stay out of the tarball
tar -C "$OUT" -czf "$OUT/issue24c.tar.gz" issue24c && rm -rf "$res"
cat "$OUT/summary.txt"
