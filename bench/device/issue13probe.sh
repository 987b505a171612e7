#!/usr/bin/env bash
# Issue 13, the C++ vs do_bench offset at small NB (one device call, ~3 minutes): fills a Triton cache for NB 1-8,
# sweeps it from C++, then times every config at PROBE_NB under measurement variants (slack:stream:inputs:timing,
# bench/triton_l2norm_dobench.py section 3b), interleaved per config, each against the C++ sweep.
# Carry build-gpu-tests (scripts/gpu-test-bundle.sh) and .fla (FLA v0.5.2 source, never committed).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
res=$OUT/issue13probe
mkdir -p "$res"
cli=$PWD/${TS_BUILD:-build-gpu-tests}/bin/tunescope-cli
fla=$PWD/.fla
cache=/tmp/tc13p
rm -rf "$cache"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$res/card.txt"
cat "$res/card.txt"
t0=$(date +%s)
nbs=${NBS:-1-8}
env TRITON_CACHE_DIR=$cache python3 scripts/fill_triton_cache.py --fla-path "$fla" --nb "$nbs" --jobs 16 >"$res/fill.log" 2>&1
echo "fill exit $? ($(( $(date +%s) - t0 )) s)"; tail -1 "$res/fill.log"
# The sweep at its default for Triton (16 samples queued per wait) and at 1 (the host waits for every sample).
timeout 100 "$cli" sweep --backend cuda --kernel triton --triton-cache "$cache" --nb "$nbs" --out "$res/sweep.jsonl" >"$res/sweep.log" 2>&1
echo "sweep exit $? ($(( $(date +%s) - t0 )) s)"
timeout 100 "$cli" sweep --backend cuda --kernel triton --triton-cache "$cache" --nb "$nbs" --pipeline 1 \
    --out "$res/sweep-wait-each.jsonl" >"$res/sweep-wait-each.log" 2>&1
echo "sweep --pipeline 1 exit $? ($(( $(date +%s) - t0 )) s)"
variants=${PROBE_VARIANTS:-spin1:default:slice:dobench,spin1:side:slice:dobench,spin1:default:exact:dobench,spin1:side:exact:dobench,spin1:side:exact:sync,none:side:exact:sync}
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 400 python3 bench/triton_l2norm_dobench.py --fla-path "$fla" \
    --nb "$nbs" --stages 3 --rounds "${TABLE_ROUNDS:-1}" --warmup 5 --rep 20 --slack spin1 --probe-nb "${PROBE_NB:-1,2,4,6,8}" \
    --probe-variants "$variants" --sweep "$res/sweep.jsonl" --json "$res/probe.json" >"$res/probe.log" 2>&1
echo "probe exit $? ($(( $(date +%s) - t0 )) s)"
gzip -f "$res"/*.jsonl
grep -vE "^  NB +[0-9]+: fastest" "$res/probe.log" | tail -30 | tee "$OUT/summary.txt"
tar czf "$OUT/issue13probe.tar.gz" -C "$OUT" issue13probe && rm -rf "$res"
