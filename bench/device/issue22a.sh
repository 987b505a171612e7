#!/usr/bin/env bash
# Issue 22 on the H200, call A (~6.5 min): the CUPTI timer and both L2 regimes against an independent same-run
# measurement. Builds nothing. Needs, carried from the build machine: the packed Qt-free CUDA build
# (scripts/gpu-test-bundle.sh build-device -> build-gpu-tests, or TS_BUILD) and FLA's source in .fla/ (git archive of
# tag v0.5.2; never committed). Python: stdlib + torch + triton. Writes $OUT/issue22a.tar.gz and $OUT/summary.txt.
#   (a) fill a Triton cache: NB 1-32 x FLA's 25 configs at Triton's default num_stages (~65 s)
#   (b) bench-l2norm --kernel triton at NB 1, 2 with --timer cupti and --timer events (the timer notes, ~15 s)
#   (c) sweep --kernel triton --l2 both (CUPTI, the default) twice: the two sweeps' decisions per regime; each
#       regime's promote --all-bases -> export-fla (the runtime block and the export's triton_version)
#   (d) the same sweep cold with --timer events (EVENTS_SWEEP=0 skips it, ~35 s)
#   (e) bench/triton_l2norm_cupti_table.py: torch.profiler CUPTI durations of the same binaries, 40 shuffled rounds
#       x 2 samples, cold and warm, after FLA loads the cold export in strict mode (autotune benchmarks counted)
#   (f) bench/issue22_compare.py: per NB engine vs table (%, us), Spearman, and each export's regret with the
#       table's split-half noise
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
res=$OUT/issue22a
mkdir -p "$res"
build=${TS_BUILD:-build-gpu-tests}
cli=$PWD/$build/bin/tunescope-cli
fla=$PWD/.fla
cache=/tmp/tc22
[ -f "$cache/tunescope-triton-index.json" ] && [ -n "${REUSE_CACHE:-}" ] || rm -rf "$cache"
step() { echo "=== $* ($(date +%T))" | tee -a "$res/steps.log"; }
timed() {
    local t0 t1 rc
    t0=$(date +%s.%N); "$@"; rc=$?; t1=$(date +%s.%N)
    echo "--- exit $rc, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s: $*" | tee -a "$res/steps.log"
    return $rc
}
[ -x "$cli" ] || { echo "issue22a: no $cli (pack the build with scripts/gpu-test-bundle.sh)"; exit 2; }
[ -d "$fla/fla" ] || { echo "issue22a: no FLA source in $fla"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$res/card.txt"
python3 -c "import triton,torch;print('triton',triton.__version__,'torch',torch.__version__)" >>"$res/card.txt" 2>&1
"$cli" devices >>"$res/card.txt" 2>&1
cat "$res/card.txt"
triton_args=(--backend cuda --kernel triton --triton-cache "$cache")
# PLACEMENTS=K (default 1): the sweeps and the Python table rotate K copies of the buffers over their rounds
# (docs/sweep.md, "Placements"); the sweeps then run 2K rounds.
placement_args=()
[ "${PLACEMENTS:-1}" -gt 1 ] && placement_args=(--placements "$PLACEMENTS" --rounds $((2 * PLACEMENTS)))

step "(a) fill the Triton cache: NB 1-32 x 25 configs, default num_stages"
timed env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 200 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
    --nb 1-32 --jobs 16 >"$res/fill.log" 2>&1
tail -2 "$res/fill.log"

step "(b) bench-l2norm at NB 1, 2: --timer cupti, then --timer events"
for timer in cupti events; do
    timed timeout 90 "$cli" bench-l2norm "${triton_args[@]}" --nb 1,2 --samples 25 --timer $timer \
        --json "$res/bench-$timer.json" >"$res/bench-$timer.log" 2>&1
    rc=$?; [ $timer = cupti ] && cupti_rc=$rc
    grep -E "timer|^ +[12] " "$res/bench-$timer.log" | head -8
done
# The CUPTI path has to work before the rest is worth the device time: stop here with its log when it does not.
if [ "${cupti_rc:-1}" != 0 ] || ! grep -qE "timer:? cupti" "$res/bench-cupti.log"; then
    echo "issue22a: the CUPTI timer did not run; its log:"; cat "$res/bench-cupti.log"
    cp "$res/bench-cupti.log" "$OUT/summary.txt"; exit 3
fi

for run in 1 2; do
    step "(c) sweep $run: --l2 both, default timer (acceptance: each regime < 60 s)"
    timed timeout 240 "$cli" sweep "${triton_args[@]}" --nb 1-32 --l2 both "${placement_args[@]}" --out "$res/sweep$run.jsonl" \
        >"$res/sweep$run.log" 2>&1
    grep -E "timer|measured|position effect" "$res/sweep$run.log" | head -5
done
step "(c) decisions of the two sweeps, per regime"
timed "$cli" decisions "$res/sweep1.jsonl" "$res/sweep2.jsonl" >"$res/decisions.log" 2>&1
for regime in cold warm; do
    grep -c " $regime: .*\(same config\|tie set\)" "$res/decisions.log" | sed "s/^/$regime: same decision at /; s/$/ of 32 NBs/"
done | tee "$res/decisions-per-regime.txt"
tail -1 "$res/decisions.log"
for regime in cold warm; do
    step "(c) promote --l2 $regime --all-bases -> export-fla"
    timed "$cli" promote profiles/fla-l2norm-gfx942-profile.json --results "$res/sweep1.jsonl" --l2 $regime --all-bases \
        --fla 0.5.2 --out "$res/promoted-$regime.json" >"$res/promote-$regime.log" 2>&1
    grep -E "^runtime|refused|warning|promoted" "$res/promote-$regime.log" | head -4
    rm -rf "$res/export-$regime"
    timed "$cli" export-fla "$res/promoted-$regime.json" --out "$res/export-$regime" >>"$res/promote-$regime.log" 2>&1
    python3 tests/fla_strict_check.py "$res/export-$regime" 128 16 8 16384 >"$res/strict-$regime.log" 2>&1
    tail -1 "$res/strict-$regime.log"
done

if [ "${EVENTS_SWEEP:-1}" = 1 ]; then
    step "(d) sweep cold with --timer events (the old timer, same binaries)"
    timed timeout 150 "$cli" sweep "${triton_args[@]}" --nb 1-32 --l2 cold --timer events \
        --out "$res/sweep-events.jsonl" >"$res/sweep-events.log" 2>&1
    grep -E "timer|measured" "$res/sweep-events.log" | head -3
fi

step "(e) the CUPTI table in Python (torch.profiler), cold and warm, FLA strict mode on the cold export"
timed env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 300 python3 bench/triton_l2norm_cupti_table.py \
    --fla-path "$fla" --nb 1-32 --rounds "${ROUNDS:-40}" --samples "${SAMPLES:-2}" --regimes cold,warm --placements "${PLACEMENTS:-1}" \
    --export "$res/export-cold" --json "$res/table.json" >"$res/table.log" 2>&1
tail -3 "$res/table.log"

step "(f) compare"
sweeps=(--sweep "$res/sweep1.jsonl" --sweep "$res/sweep2.jsonl")
[ -s "$res/sweep-events.jsonl" ] && sweeps+=(--sweep "$res/sweep-events.jsonl")
timed python3 bench/issue22_compare.py --table "$res/table.json" "${sweeps[@]}" --export cold="$res/export-cold" \
    --export warm="$res/export-warm" --json "$res/compare.json" >"$res/compare.log" 2>&1

{
  echo "== card"; cat "$res/card.txt"
  echo "== steps"; cat "$res/steps.log"
  echo "== bench-l2norm"; for t in cupti events; do grep -E "timer|^ +[12] " "$res/bench-$t.log" | head -8; done
  echo "== sweeps"; for f in "$res"/sweep*.log; do echo "-- $(basename "$f")"; grep -vE "^\[|^tunescope-cli: \[" "$f" | head -90; done
  echo "== decisions"; cat "$res/decisions-per-regime.txt"; tail -1 "$res/decisions.log"
  echo "== promote"; for r in cold warm; do grep -E "^runtime|refused|promoted" "$res/promote-$r.log"; tail -1 "$res/strict-$r.log"; done
  echo "== export triton_version"; grep -h triton_version "$res"/export-*/l2norm_fwd_kernel.json
  echo "== table"; grep -vE "^  (cold|warm) NB" "$res/table.log" | tail -5
  echo "== compare"; cat "$res/compare.log"
} >"$OUT/summary.txt" 2>&1
# Call B on the same warm machine reuses the exports and the filled Triton cache (KEEP_DIR, /tmp outlives $OUT).
keep=${KEEP_DIR:-/tmp/keep22}
rm -rf "$keep" && mkdir -p "$keep" && cp -a "$res/export-cold" "$res/export-warm" "$keep"/ 2>/dev/null
gzip -f "$res"/*.jsonl 2>/dev/null
tar czf "$OUT/issue22a.tar.gz" -C "$OUT" issue22a
rm -rf "$res"
cat "$OUT/summary.txt"
