#!/usr/bin/env bash
# Issue 24, "the export's regret against a same-run Python table" (~4.5 min on one H100/H200): in one call,
#  1. the C++ replay of the H100 capture (run 14: chunk_gated_delta_rule forward at T=4096, 16384, 65536):
#     tunescope-cli sweep --manifest, CUPTI, cold L2, ROUNDS rounds (default 2) -> choices.json;
#  2. bench/fla_kernel_cupti_table.py: every config of every kernel and key timed by CUPTI on the op's real
#     arguments in FLA's own autotuner objects (cold L2, 20 shuffled rounds x 2), FLA in strict mode with its own
#     picks loaded (so the op itself does not autotune); the regret of step 1's choices and of FLA's picks, with
#     the table's split-half noise.
# Both read the capture's Triton cache (triton-cache-1.tar.gz). Carry build-gpu-pack (bench/device/pack-bundles.sh):
#   bash bench/device/unpack-bundles.sh && TS_BUILD=build-gpu-rp bash bench/device/issue24d.sh
# CHOICES=FILE skips step 1 and tables FILE's choices (an earlier replay on the same card type).
# Results: $OUT/issue24d.tar.gz (sweep, choices, table, logs), $OUT/summary.txt.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
build=${TS_BUILD:-build-gpu-rp}
cli=$build/bin/tunescope-cli
capture_dir=bench/results/h100-run14/issue24a
manifest=$capture_dir/fla-capture.json
res=$OUT/issue24d
summary=$OUT/summary.txt
fla=$PWD/.fla
mkdir -p "$res"
[ -x "$cli" ] || { echo "issue24d: $cli missing" | tee "$summary"; exit 2; }
[ -f "$fla/fla/ops/utils/cache.py" ] || { echo "issue24d: no FLA source in $fla" | tee "$summary"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$summary" 2>&1
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
cache=$(mktemp -d /tmp/issue24d-triton-cache.XXXXXX)
tar -xzf "$capture_dir/triton-cache-1.tar.gz" -C "$cache"
if [ -n "${CHOICES:-}" ]; then  # an earlier replay's choices (e.g. run 17's, same card type): step 1 skipped
  echo "=== 1. skipped: the choices of $CHOICES" | tee -a "$summary"
  cp "$CHOICES" "$res/choices.json"
else
  echo "=== 1. sweep --manifest, rounds ${ROUNDS:-2}, timer cupti ($(elapsed) s in)" | tee -a "$summary"
  timeout 270 "$cli" sweep --manifest "$manifest" --backend cuda --triton-cache "$cache" --rounds "${ROUNDS:-2}" \
    --timer cupti --out "$res/sweep.json" --choices-out "$res/choices.json" >"$res/sweep.out" 2>"$res/sweep.err"
  echo "--- exit $? ($(elapsed) s in)" | tee -a "$summary"
  tail -n 14 "$res/sweep.out" >>"$summary"
fi
echo "=== 2. Python CUPTI table, FLA strict with its own picks ($(elapsed) s in)" | tee -a "$summary"
python3 scripts/fla_capture.py --fla-config-from "$manifest" --fla-config-dir "$res/fla-own" >/dev/null 2>&1
choices=()
[ -f "$res/choices.json" ] && choices=(--choices "$res/choices.json")
[ -f "$res/sweep.json" ] && choices+=(--sweep "$res/sweep.json")
env FLA_CACHE_MODE=strict FLA_CONFIG_DIR="$res/fla-own" FLA_CACHE_RESULTS=0 TRITON_CACHE_DIR="$cache" PYTHONUNBUFFERED=1 \
  timeout 200 python3 bench/fla_kernel_cupti_table.py --fla-path "$fla" --manifest "$manifest" "${choices[@]}" \
  --rounds "${TABLE_ROUNDS:-20}" --samples 2 --json "$res/table.json" >"$res/table.log" 2>&1
echo "--- exit $? ($(elapsed) s in)" | tee -a "$summary"
tail -n 24 "$res/table.log" >>"$summary"
rm -rf "$cache"
tar -C "$OUT" -czf "$OUT/issue24d.tar.gz" issue24d && rm -rf "$res"
cat "$summary"
