#!/usr/bin/env bash
# H200 run 10 (one device call): the GPU tests of the packed Qt-free build (scripts/gpu-test-bundle.sh ->
# build-gpu-tests), then issue 11 (bench/device/issue11.sh: two full sweeps + promote back to back, an A/A) and
# issue 13 (bench/device/issue13.sh: FLA's real Triton l2norm filled into a cache, launched and swept from C++,
# do_bench and FLA strict mode). Each writes its own folder under $OUT. Needs .fla/ (FLA v0.5.2 source) carried.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
[ -x /usr/bin/cmake ] || ln -sf "$(command -v cmake)" /usr/bin/cmake
date -u +%FT%TZ | tee "$OUT/ctest.log"
t0=$(date +%s)
ctest --test-dir build-gpu-tests -E 'cli_cpu_aa|slurm' --output-on-failure -j4 --timeout 150 >>"$OUT/ctest.log" 2>&1
echo "ctest exit $? after $(( $(date +%s) - t0 )) s" >>"$OUT/ctest.log"
grep -E "tests passed|Failed|\*\*\*|ctest exit" "$OUT/ctest.log"
mkdir -p "$OUT/i11" "$OUT/i13"
OUT=$OUT/i11 bash bench/device/issue11.sh >"$OUT/i11/stdout.txt" 2>&1
tail -n 25 "$OUT/i11/summary.txt"
TABLE_STAGES=${TABLE_STAGES:-3} OUT=$OUT/i13 bash bench/device/issue13.sh >"$OUT/i13/stdout.txt" 2>&1
tail -n 60 "$OUT/i13/summary.txt"
date -u +%FT%TZ
