#!/usr/bin/env bash
# Issue 22 on the H200, call B (~6-8 min): each regime's export against FLA's own autotune, head to head in C++.
# Builds nothing. Carry, as for issue22a.sh: build-gpu-tests (or TS_BUILD) and .fla/; and, to skip the sweep here,
# call A's results unpacked in the working tree with A_DIR set to the folder holding export-cold/ and export-warm/
# (e.g. tar xzf issue22a.tar.gz -C bench/results/h200-run14 && A_DIR=bench/results/h200-run14/issue22a); without
# A_DIR this call sweeps --l2 both and promotes once itself (~1.5 min more). Writes $OUT/issue22b.tar.gz, summary.txt.
#   (a) fill the Triton cache (~65 s)
#   (b) FLA's own autotune (FLA_CACHE_MODE off: what a user's first calls do) picks a config per NB (~2-5 min)
#   (c) confirm EXPORT --baseline FLA's picks, per regime: --l2 cold with the cold export, --l2 warm with the warm
#       one (acceptance: warm FASTER at NB 1 and SLOWER nowhere; cold SLOWER nowhere), CUPTI timer
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/out}
res=$OUT/issue22b
mkdir -p "$res"
build=${TS_BUILD:-build-gpu-tests}
cli=$PWD/$build/bin/tunescope-cli
fla=$PWD/.fla
cache=/tmp/tc22b
rm -rf "$cache"
# On the machine call A ran on, its filled cache and exports are still there: use them.
if [ -d /tmp/tc22 ] && [ -z "${FRESH_CACHE:-}" ]; then cache=/tmp/tc22; fi
[ -z "${A_DIR:-}" ] && [ -d /tmp/keep22/export-cold ] && A_DIR=/tmp/keep22
step() { echo "=== $* ($(date +%T))" | tee -a "$res/steps.log"; }
timed() {
    local t0 t1 rc
    t0=$(date +%s.%N); "$@"; rc=$?; t1=$(date +%s.%N)
    echo "--- exit $rc, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s: $*" | tee -a "$res/steps.log"
    return $rc
}
[ -x "$cli" ] || { echo "issue22b: no $cli (pack the build with scripts/gpu-test-bundle.sh)"; exit 2; }
[ -d "$fla/fla" ] || { echo "issue22b: no FLA source in $fla"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$res/card.txt"
python3 -c "import triton,torch;print('triton',triton.__version__,'torch',torch.__version__)" >>"$res/card.txt" 2>&1
cat "$res/card.txt"
triton_args=(--backend cuda --kernel triton --triton-cache "$cache")
# PLACEMENTS=K (default 1): the confirms rotate K copies of the buffers over 3K rounds (docs/sweep.md, "Placements").
confirm_args=()
[ "${PLACEMENTS:-1}" -gt 1 ] && confirm_args=(--placements "$PLACEMENTS" --rounds $((3 * PLACEMENTS)))

step "(a) fill the Triton cache: NB 1-32 x 25 configs, default num_stages ($cache)"
[ "$cache" = /tmp/tc22 ] && echo "reusing call A's cache" || timed env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 200 python3 scripts/fill_triton_cache.py --fla-path "$fla" \
    --nb 1-32 --jobs 16 >"$res/fill.log" 2>&1
tail -1 "$res/fill.log"

exports=${A_DIR:-}
if [ -z "$exports" ] || [ ! -d "$exports/export-cold" ] || [ ! -d "$exports/export-warm" ]; then
    step "no A_DIR with export-cold/ and export-warm/: sweep --l2 both and promote here"
    exports=$res
    timed timeout 240 "$cli" sweep "${triton_args[@]}" --nb 1-32 --l2 both --out "$res/sweep.jsonl" >"$res/sweep.log" 2>&1
    for regime in cold warm; do
        timed "$cli" promote profiles/fla-l2norm-gfx942-profile.json --results "$res/sweep.jsonl" --l2 $regime \
            --all-bases --fla 0.5.2 --out "$res/promoted-$regime.json" >"$res/promote-$regime.log" 2>&1
        rm -rf "$res/export-$regime"
        timed "$cli" export-fla "$res/promoted-$regime.json" --out "$res/export-$regime" >>"$res/promote-$regime.log" 2>&1
    done
fi

step "(b) FLA's own autotune: the baseline"
timed env TRITON_CACHE_DIR=$cache PYTHONUNBUFFERED=1 timeout 400 python3 bench/fla_own_autotune.py --fla-path "$fla" \
    --nb 1-32 --out "$res/fla-autotune" >"$res/fla-autotune.log" 2>&1
tail -1 "$res/fla-autotune.log"

for regime in cold warm; do
    step "(c) confirm the $regime export vs FLA's own autotune, --l2 $regime (CUPTI)"
    timed timeout 200 "$cli" confirm "$exports/export-$regime" --baseline "$res/fla-autotune" "${triton_args[@]}" \
        --l2 $regime "${confirm_args[@]}" --out "$res/confirm-$regime.jsonl" >"$res/confirm-$regime.log" 2>&1
    tail -3 "$res/confirm-$regime.log"
done

{
  echo "== card"; cat "$res/card.txt"
  echo "== steps"; cat "$res/steps.log"
  echo "== exports from"; echo "$exports"; grep -h triton_version "$exports"/export-*/l2norm_fwd_kernel.json
  echo "== FLA's own autotune"; grep -E "^NB|fla_own_autotune" "$res/fla-autotune.log"
  for regime in cold warm; do echo "== confirm $regime"; grep -vE "^\[|^tunescope-cli: \[" "$res/confirm-$regime.log"; done
} >"$OUT/summary.txt" 2>&1
gzip -f "$res"/*.jsonl 2>/dev/null
tar czf "$OUT/issue22b.tar.gz" -C "$OUT" issue22b
rm -rf "$res"
cat "$OUT/summary.txt"
