#!/usr/bin/env bash
# Run 7 (one device call) from this commit's Qt-free build, packed by scripts/gpu-test-bundle.sh into
# build-gpu-tests and carried: every CLI test on the GPU (ctest), the l2norm bench over NB 1..32 + the full default
# sweep + promote, and the cuBLASLt explorer on the seed shape in BF16 and FP8 with power windows and the
# reference's winners requested, with `nvidia-smi dmon` (power, clocks) alongside. Results: $OUT/run7.tar.gz
# (everything) and $OUT/summary.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
res=$OUT/run7
mkdir -p "$res"
# The bundled CTest files call cmake by the path it has on the build machine.
[ -x /usr/bin/cmake ] || ln -sf "$(command -v cmake)" /usr/bin/cmake
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE >"$res/nvidia-smi-before.txt" 2>&1
nvidia-smi dmon -s pc -d 1 -o T >"$res/dmon.txt" 2>&1 &
dmon=$!
t0=$(date +%s)
ctest --test-dir build-gpu-tests --output-on-failure -j4 --timeout 300 >"$res/ctest.log" 2>&1
echo "ctest exit $? after $(( $(date +%s) - t0 )) s" >>"$res/ctest.log"
OUT=$res TS_BUILD=build-gpu-tests SKIP_SELFTEST=1 scripts/device-benchmark.sh l2norm
OUT=$res TS_BUILD=build-gpu-tests EXPLORE_BUDGET=${EXPLORE_BUDGET:-100} scripts/device-benchmark.sh explorer
kill "$dmon" 2>/dev/null
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE >"$res/nvidia-smi-after.txt" 2>&1
gzip -f "$res"/*.jsonl "$res"/explore_*.json 2>/dev/null
{
  echo "== ctest"; grep -E "tests passed|Skipped|Failed|\*\*\*|ctest exit" "$res/ctest.log"
  echo "== l2norm"; grep -E "^===|^--- exit" "$res/l2norm.log"
  awk '/%copy = copy time/{n=34} n-->0' "$res/l2norm.log"
  echo "== explorer"; grep -E "^===|--- exit|power|finalist #|selected|heuristic top|replay|baseline #|requested #|took" "$res/explorer.log"
} >"$OUT/summary.txt" 2>&1
tar czf "$OUT/run7.tar.gz" -C "$OUT" run7
rm -rf "$res"
cat "$OUT/summary.txt"
