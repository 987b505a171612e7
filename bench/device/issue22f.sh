#!/usr/bin/env bash
# Issue 22, the context effect of BENCHMARKS.md run 19 (~5-6 min): at NB 24 cold the sweep read 8/1/3 and 32/16/3
# as a tie (262.75 vs 263.27 us) and the confirm read 8/1/3 1.2% slower (265.14 vs 262.14), each steady over all of
# its rounds. What differs between the two runs: the items per round (25 configs vs 4), the copy ceiling (the sweep
# allocates and times a device copy, the confirm does not), the NBs before it (buffers grow with NB, so x and y sit
# elsewhere), the regimes in the run (the sweep ran --l2 both). This call times the same pair in each context,
# alternating, twice, in C++ and in Python across buffer allocations:
#   (a) fill the Triton cache for NB 8, 9, 24
#   (b) two passes of: sweep --nb 24 (25 configs), sweep --nb 24 --no-copy, sweep --nb 24 --grid pair,
#       confirm --nb 24, the same with x/y/rstd placed elsewhere (TUNESCOPE_PLACEMENT_PAD_KB = 4, 2048, 6148,
#       65540), confirm --nb 1-32 (the run-19 context), sweep --nb 1-32 --l2 cold (the run-19 context)
#       and with --placements 3 (sweep --rounds 6, confirm --rounds 9, also over NB 1-32): do rotated placements make
#       processes agree, and is NB 24 still SLOWER?
#   (c) the same for NB 8-9 warm (8/2/3 vs 32/16/3), one pass
#   (d) bench/l2_gap_probe.py --allocations 6 at NB 24 cold and NB 8, 9 warm: do the pair's times move between
#       buffer allocations as much as between the contexts?
# Carry build-gpu-pack (bench/device/pack-bundles.sh); run bench/device/unpack-bundles.sh first. Writes
# $OUT/issue22f.tar.gz and $OUT/summary.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
res=$OUT/issue22f
mkdir -p "$res"
build=${TS_BUILD:-build-gpu-rp}
cli=$PWD/$build/bin/tunescope-cli
fla=$PWD/.fla
cache=/tmp/tc22f
exports=${EXPORTS:-bench/results/h100-run19/issue22a-exports}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
[ -x "$cli" ] || { echo "issue22f: no $cli"; exit 2; }
[ -d "$fla/fla" ] || { echo "issue22f: no FLA source in $fla"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$res/card.txt"
cat "$res/card.txt"

# The baseline: run 19's FLA autotune picks (H100), kept in its tarball.
base=/tmp/r19/issue22b/fla-autotune
mkdir -p /tmp/r19 && tar xzf bench/results/h100-run19/issue22b/issue22b.tar.gz -C /tmp/r19 issue22b/fla-autotune
printf '[{"BT": 8, "num_warps": 1, "num_stages": 3}, {"BT": 32, "num_warps": 16, "num_stages": 3}]\n' >"$res/pair24.json"
printf '[{"BT": 8, "num_warps": 2, "num_stages": 3}, {"BT": 32, "num_warps": 16, "num_stages": 3}]\n' >"$res/pair89.json"

echo "=== (a) fill ($(elapsed) s)"
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 150 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
    --nb 8,9,24 --jobs 16 >"$res/fill.log" 2>&1
tail -1 "$res/fill.log"
full=$cache
if [ -z "${SKIP_FULL:-}" ]; then
    full=/tmp/tc22f-all
    env TRITON_CACHE_DIR=$full PYTHONUNBUFFERED=1 timeout 150 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
        --nb 1-32 --jobs 16 >"$res/fill-all.log" 2>&1
    tail -1 "$res/fill-all.log"
fi
t=(--backend cuda --kernel triton)
run() {  # name, then the command's arguments after the CLI
    local name=$1; shift
    local t0=$(date +%s.%N)
    timeout 120 "$cli" "$@" >"$res/$name.log" 2>&1
    echo "$name exit $? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a "$res/steps.log"
}
for pass in 1 2; do
    echo "=== (b) pass $pass NB 24 cold ($(elapsed) s)"
    run p$pass-sweep24 sweep "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --out "$res/p$pass-sweep24.jsonl"
    run p$pass-sweep24-nocopy sweep "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --no-copy --out "$res/p$pass-sweep24-nocopy.jsonl"
    run p$pass-sweep24-pair sweep "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --grid "$res/pair24.json" --out "$res/p$pass-sweep24-pair.jsonl"
    run p$pass-confirm24 confirm "$exports/export-cold" --baseline $base "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --out "$res/p$pass-confirm24.jsonl"
    for pad in 4 2048 6148 65540; do  # KiB before x: a sub-page shift, then other pages
        TUNESCOPE_PLACEMENT_PAD_KB=$pad run p$pass-confirm24-pad$pad confirm "$exports/export-cold" --baseline $base "${t[@]}" \
            --triton-cache $cache --nb 24 --l2 cold --out "$res/p$pass-confirm24-pad$pad.jsonl"
    done
    # The same with the buffers' placement rotated over the rounds (docs/sweep.md, "Placements").
    run p$pass-sweep24-pl3 sweep "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --placements 3 --rounds 6 --out "$res/p$pass-sweep24-pl3.jsonl"
    run p$pass-confirm24-pl3 confirm "$exports/export-cold" --baseline $base "${t[@]}" --triton-cache $cache --nb 24 --l2 cold --placements 3 --rounds 9 --out "$res/p$pass-confirm24-pl3.jsonl"
    run p$pass-confirm-all-pl3 confirm "$exports/export-cold" --baseline $base "${t[@]}" --triton-cache $full --l2 cold --placements 3 --rounds 9 --out "$res/p$pass-confirm-all-pl3.jsonl"
    run p$pass-confirm-all confirm "$exports/export-cold" --baseline $base "${t[@]}" --triton-cache $full --l2 cold --out "$res/p$pass-confirm-all.jsonl"
    [ -z "${SKIP_FULL:-}" ] && run p$pass-sweep-all sweep "${t[@]}" --triton-cache $full --nb 1-32 --l2 cold --out "$res/p$pass-sweep-all.jsonl"
done
echo "=== (c) NB 8-9 warm ($(elapsed) s)"
run warm-sweep89 sweep "${t[@]}" --triton-cache $cache --nb 8,9 --l2 warm --out "$res/warm-sweep89.jsonl"
run warm-sweep89-pair sweep "${t[@]}" --triton-cache $cache --nb 8,9 --l2 warm --grid "$res/pair89.json" --out "$res/warm-sweep89-pair.jsonl"
run warm-confirm89 confirm "$exports/export-warm" --baseline $base "${t[@]}" --triton-cache $cache --nb 8,9 --l2 warm --out "$res/warm-confirm89.jsonl"
run warm-confirm89-pl3 confirm "$exports/export-warm" --baseline $base "${t[@]}" --triton-cache $cache --nb 8,9 --l2 warm --placements 3 --rounds 9 --out "$res/warm-confirm89-pl3.jsonl"

echo "=== (d) Python across allocations ($(elapsed) s)"
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 150 python3 bench/l2_gap_probe.py --fla-path "$fla" --nb 24 \
    --regimes cold --allocations 6 --rounds 36 --json "$res/alloc24.json" >"$res/alloc24.log" 2>&1
tail -4 "$res/alloc24.log"
env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 150 python3 bench/l2_gap_probe.py --fla-path "$fla" --nb 8,9 \
    --regimes warm --allocations 6 --rounds 36 --json "$res/alloc89.json" >"$res/alloc89.log" 2>&1
tail -4 "$res/alloc89.log"

{
  echo "== card"; cat "$res/card.txt"
  echo "== steps"; cat "$res/steps.log"
  python3 bench/context_probe_summary.py --nb 24 --l2 cold --pair 8/1/3,32/16/3 "$res"/p*.jsonl
  python3 bench/context_probe_summary.py --nb 8,9 --l2 warm --pair 8/2/3,32/16/3 "$res"/warm-*.jsonl
  python3 bench/context_probe_summary.py --nb 24 --l2 cold --pair 8/1/3,32/16/3 --alloc "$res/alloc24.json"
  python3 bench/context_probe_summary.py --nb 8,9 --l2 warm --pair 8/2/3,32/16/3 --alloc "$res/alloc89.json"
} >"$OUT/summary.txt" 2>&1
gzip -f "$res"/*.jsonl 2>/dev/null
tar czf "$OUT/issue22f.tar.gz" -C "$OUT" issue22f
rm -rf "$res"
cat "$OUT/summary.txt"
echo "issue22f: $(elapsed) s"
