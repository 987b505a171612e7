#!/usr/bin/env bash
# Run 5+ (one device call): the committed kernel through the product CLI (selftest, bench-l2norm over NB 1..32, the
# full default sweep, promote, validate) and the same-process probe against Triton's cubins and the copy.
# Needs the carried build in .device (bin/tunescope-cli, lib/*.so, probe/probe). Results under $OUT.
set -u
TS_BUILD=.device SKIP_SELFTEST= scripts/device-benchmark.sh l2norm
gzip -f "$OUT/sweep.jsonl"
PROBE_BIN=.device/probe/probe bench/l2norm_probe/run.sh "$OUT"
# Calibration: triton.testing.do_bench itself (the reference table's method) on a few NB, same machine.
python3 bench/triton_l2norm_same_run.py --nb 1,2,3,8,16,32 --samples 25 --do-bench --configs 8/4,16/4,32/4,64/2,64/8 > "$OUT/triton.txt" 2>&1
