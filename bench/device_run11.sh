#!/usr/bin/env bash
# H200 run 11, second call (after bench/device/issue12.sh): issue 11 again with the fastest-first tie rule (two full
# sweeps + promote back to back, A/A), issue 13 again with the do_bench reference fixed (GPU spin after the flush,
# 3 shuffled rounds), and FLA's own loader (tests/fla_own_loader_check.py) on an export of the seed profile.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
date -u +%FT%TZ
mkdir -p "$OUT/i11" "$OUT/i13"
OUT=$OUT/i11 bash bench/device/issue11.sh >"$OUT/i11/stdout.txt" 2>&1
head -n 12 "$OUT/i11/summary.txt"
TABLE_STAGES=${TABLE_STAGES:-3} OUT=$OUT/i13 bash bench/device/issue13.sh >"$OUT/i13/stdout.txt" 2>&1
grep -E "^(compare|regret|strict|do_bench)" "$OUT/i13/summary.txt"
exp=/tmp/fla-own-export; rm -rf "$exp"
build-gpu-tests/bin/tunescope-cli export-fla profiles/fla-l2norm-gfx942-profile.json --out "$exp" --force >"$OUT/fla-own.txt" 2>&1
python3 tests/fla_own_loader_check.py "$exp/fla-l2norm-gfx942-profile.json" --fla-root "$PWD/.fla" >>"$OUT/fla-own.txt" 2>&1
echo "fla_own_loader_check exit $?" >>"$OUT/fla-own.txt"
tail -n 8 "$OUT/fla-own.txt"
date -u +%FT%TZ
