#!/usr/bin/env bash
# Issue 24, part "replay from C++", on one H100 (<= 5 minutes): every kernel and key of the H100 capture
# (bench/results/h100-run14/issue24a: FLA's chunk_gated_delta_rule forward at T=4096, 16384, 65536, Triton 3.6)
# launched from its real Triton binaries by the generic launcher, each config's outputs checked against config 0's on
# identical inputs, every config timed in shuffled rounds, and the fastest checked config per kernel and key written
# as a choices file that `capture export-fla --choices` reads (docs/fla-capture.md, section 10).
#  1. unpack triton-cache-1.tar.gz into a fresh temporary Triton cache folder;
#  2. tunescope-cli sweep --manifest ... --triton-cache DIR --out sweep.json --choices-out choices.json;
#  3. capture export-fla with those choices into an FLA_CONFIG_DIR (what a user would then load in strict mode).
# Build here (Qt-free, CUDA) and pack as bench/device/PLAN.md says; carry build-gpu-min (bin/tunescope-cli,
# lib/libtunescope_backend_cuda.so, lib/libtunescope_cupti.so):
#   TS_BUILD=build-gpu-min bash bench/device/issue24b.sh
# ROUNDS (default 3) and TIMER (default auto: CUPTI where it loads) change the sweep.
# Results: $OUT/issue24b/ (sweep.json, choices.json, the FLA_CONFIG_DIR, logs), $OUT/issue24b.tar.gz, $OUT/summary.txt.
set -euo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
build=${TS_BUILD:-build-gpu-min}
cli=$build/bin/tunescope-cli
capture_dir=bench/results/h100-run14/issue24a
manifest=$capture_dir/fla-capture.json
res=$OUT/issue24b
summary=$OUT/summary.txt
mkdir -p "$res"
[ -x "$cli" ] || { echo "issue24b: $cli missing (build and pack first)" | tee "$summary"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$res/card.txt" 2>&1 || true
cat "$res/card.txt" >"$summary"
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }

cache=$(mktemp -d /tmp/issue24b-triton-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
tar -xzf "$capture_dir/triton-cache-1.tar.gz" -C "$cache"
echo "=== unpacked $(ls "$cache" | wc -l) cache folders into $cache ($(elapsed) s in)" | tee -a "$summary"
"$cli" devices >>"$summary" 2>&1 || true

echo "=== sweep --manifest, rounds ${ROUNDS:-3}, timer ${TIMER:-auto} ($(elapsed) s in)" | tee -a "$summary"
rc=0
timeout 270 "$cli" sweep --manifest "$manifest" --backend cuda --triton-cache "$cache" --rounds "${ROUNDS:-3}" \
  --timer "${TIMER:-auto}" --out "$res/sweep.json" --choices-out "$res/choices.json" \
  >"$res/sweep.out" 2>"$res/sweep.err" || rc=$?
echo "--- exit $rc ($(elapsed) s in)" | tee -a "$summary"
# Per kernel and key: the chosen config, FLA's own choice beside it, and the output check of every launch.
cat "$res/sweep.out" >>"$summary"
grep -E "timer|refused|error" "$res/sweep.err" | head -20 >>"$summary" || true
tail -n 5 "$res/sweep.err" >>"$summary"

if [ -f "$res/choices.json" ]; then
  echo "=== capture export-fla --choices ($(elapsed) s in)" | tee -a "$summary"
  erc=0
  "$cli" capture export-fla "$manifest" --choices "$res/choices.json" --out "$res/fla-config" \
    >"$res/export.out" 2>&1 || erc=$?
  echo "--- exit $erc" | tee -a "$summary"
  cat "$res/export.out" >>"$summary"
fi
echo "done in $(elapsed) s" | tee -a "$summary"
tar -C "$OUT" -czf "$OUT/issue24b.tar.gz" issue24b
exit "$rc"
