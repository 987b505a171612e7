#!/usr/bin/env bash
# Issue 24 item 4 (confirm of a whole FLA_CONFIG_DIR) and issue 22/24's NB 1-2 question (~5 min on one H100/H200):
#  1. capture export-fla of CHOICES (default: run 18's C++ choices, bench/results/h100-run18/issue24d) into an
#     FLA_CONFIG_DIR, from the H100 capture of run 14;
#  2. tunescope-cli confirm EXPORT --manifest (baseline: FLA's own picks recorded in the capture), CUPTI, cold L2,
#     ROUNDS rounds (default 8), each config twice per round (A/A);
#  3. the same with the sides swapped: the verdicts must mirror (FASTER <-> SLOWER, TIE and same config stay);
#  4. selftest: the engine's native l2norm family against the CPU reference (the build's fill kernel);
#  5. bench/l2_gap_probe.py --allocations 4 at NB 1, 2 (placement or launch: the cold NB 1-2 per-config spread).
# Carry build-gpu-pack (bench/device/pack-bundles.sh):
#   bash bench/device/unpack-bundles.sh && TS_BUILD=build-gpu-rp bash bench/device/issue24e.sh
# Results: $OUT/issue24e.tar.gz, $OUT/summary.txt.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
build=${TS_BUILD:-build-gpu-rp}
cli=$PWD/$build/bin/tunescope-cli
capture_dir=bench/results/h100-run14/issue24a
manifest=$capture_dir/fla-capture.json
fla=$PWD/.fla
res=$OUT/issue24e
summary=$OUT/summary.txt
mkdir -p "$res"
[ -x "$cli" ] || { echo "issue24e: $cli missing" | tee "$summary"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$summary" 2>&1
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
cache=$(mktemp -d /tmp/issue24e-triton-cache.XXXXXX)
tar -xzf "$capture_dir/triton-cache-1.tar.gz" -C "$cache"
choices=${CHOICES:-}
if [ -z "$choices" ]; then
  tar -xzf bench/results/h100-run18/issue24d/issue24d.tar.gz -C "$res" issue24d/choices.json
  choices=$res/issue24d/choices.json
fi
{
echo "=== 1. export-fla of $choices ($(elapsed) s in)"
"$cli" capture export-fla "$manifest" --choices "$choices" --out "$res/export" 2>&1 | tail -3
echo "=== 2. confirm EXPORT --manifest, baseline FLA's own picks ($(elapsed) s in)"
timeout 200 "$cli" confirm "$res/export" --manifest "$manifest" --backend cuda --triton-cache "$cache" \
  --rounds "${ROUNDS:-8}" --timer cupti --out "$res/confirm.json" >"$res/confirm.out" 2>"$res/confirm.err"
echo "--- exit $? ($(elapsed) s in)"; cat "$res/confirm.out"; tail -3 "$res/confirm.err"
echo "=== 3. sides swapped ($(elapsed) s in)"
timeout 200 "$cli" confirm captured --baseline "$res/export" --manifest "$manifest" --backend cuda \
  --triton-cache "$cache" --rounds "${ROUNDS:-8}" --timer cupti --out "$res/confirm-swapped.json" \
  >"$res/confirm-swapped.out" 2>"$res/confirm-swapped.err"
echo "--- exit $? ($(elapsed) s in)"; cat "$res/confirm-swapped.out"; tail -3 "$res/confirm-swapped.err"
echo "=== 4. selftest ($(elapsed) s in)"
timeout 60 "$cli" selftest --backend cuda 2>&1 | tail -3
if [ -d "$fla/fla" ]; then
  echo "=== 5. l2_gap_probe --allocations 4, NB 1,2 ($(elapsed) s in)"
  tc=/tmp/tc24e; rm -rf "$tc"
  env TRITON_CACHE_DIR=$tc PYTHONUNBUFFERED=1 timeout 90 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
    --nb 1,2 --jobs 16 >"$res/fill.log" 2>&1; echo "fill exit $?"
  env TRITON_CACHE_DIR=$tc PYTHONUNBUFFERED=1 timeout 120 python3 bench/l2_gap_probe.py --fla-path "$fla" --nb 1,2 \
    --allocations 4 --rounds 40 --json "$res/alloc.json" >"$res/alloc.log" 2>&1; echo "probe exit $?"
  tail -n 30 "$res/alloc.log"
fi
echo "=== done ($(elapsed) s in)"
} >>"$summary" 2>&1
rm -rf "$cache"
tar -C "$OUT" -czf "$OUT/issue24e.tar.gz" issue24e && rm -rf "$res"
cat "$summary"
