#!/usr/bin/env bash
# Issue 24, first device call (H200 or H100, expected ~2.5-3.5 minutes, at most ~5.5): capture every
# fla_cache_autotune kernel of FLA v0.5.2's chunk_gated_delta_rule forward (use_qk_l2norm_in_kernel=True, B=1,
# H=HV=16, K=V=128, bf16 q/k/v, float32 g/beta as FLA's own test draws them) at T = 4096, 16384, 65536 with
# scripts/fla_capture.py (docs/fla-capture.md): FLA's first call per length timed and its autotune benchmarks
# counted (FLA_CACHE_MODE unset: FLA autotunes, as a user's first call does, into a fresh Triton cache), every config
# of every launch compiled into that cache, the manifest written and checked against the files. Then FLA's own
# choices are written as an FLA_CONFIG_DIR and the same op runs in a fresh process in FLA_CACHE_MODE=strict with an
# empty Triton cache: how each launch got its config (expected: FLA's config file, 0 benchmarks), the first-call
# times beside the autotuned ones, and whether the outputs are bit-equal to the capture's.
#
# Builds nothing and installs nothing: Python 3 + torch + Triton as on the device; FLA's source travels in .fla/ of
# the repository root (git archive of tag v0.5.2; never committed) and is imported through PYTHONPATH=.fla.
# T_LIST (default 4096,16384,65536) and REPEAT (steady calls timed per length, default 20) may be set.
# Writes to $OUT (the device returns at most 8 files of <= 16 MiB each):
#   fla-capture.json            the manifest (tunescope-fla-capture-v1)
#   triton-cache-N.tar.gz       the binaries' folders it lists (N = 1, 2, ...; extract all into one folder)
#   issue24a-logs.tar.gz        card, step times, the capture, check and strict-run logs, strict-run.json, fla-own/
#   summary.txt                 what the lead reads first (also printed)
set -u
OUT=${OUT:-/tmp/out}
work=/tmp/issue24a
rm -rf "$work"
mkdir -p "$work" "$OUT"
fla=$PWD/.fla
cache=$work/tc-capture        # fresh: FLA must autotune, and Triton must not find earlier autotune results
cache_strict=$work/tc-strict  # fresh again: the strict run's first calls include their compiles, as a new job's do
T_LIST=${T_LIST:-4096,16384,65536}
REPEAT=${REPEAT:-20}
step() { echo "=== $* ($(date +%T))" | tee -a "$work/steps.log"; }
timed() {
    local t0 t1 rc
    t0=$(date +%s.%N); "$@"; rc=$?; t1=$(date +%s.%N)
    echo "--- exit $rc, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s: $*" | tee -a "$work/steps.log"
    return $rc
}
[ -f "$fla/fla/ops/utils/cache.py" ] || { echo "issue24a: no FLA source in $fla (git archive of FLA v0.5.2)"; exit 2; }
export PYTHONPATH=$fla${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
unset FLA_CACHE_MODE FLA_CONFIG_DIR

{ nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,memory.total --format=csv 2>&1
  python3 -c "import sys,torch,triton,fla;print('python',sys.version.split()[0],'torch',torch.__version__,
'cuda',torch.version.cuda,'triton',triton.__version__,'fla',fla.__version__,fla.__file__)" 2>&1
} >"$work/card.txt"
cat "$work/card.txt"

step "(a) capture: chunk_gated_delta_rule forward at T=$T_LIST, FLA autotuning into a fresh Triton cache"
timed env TRITON_CACHE_DIR="$cache" timeout 210 python3 scripts/fla_capture.py --T "$T_LIST" --repeat "$REPEAT" \
    --out "$OUT/fla-capture.json" --archive-prefix "$OUT/triton-cache" --fla-config-dir "$work/fla-own" \
    >"$work/capture.log" 2>&1
tail -40 "$work/capture.log"

step "(b) check the manifest, the cache's files and the archives"
timed python3 scripts/fla_manifest_check.py "$OUT/fla-capture.json" --cache "$cache" --archive-dir "$OUT" \
    >"$work/check.log" 2>&1
tail -5 "$work/check.log"

step "(c) strict: FLA's own choices as FLA_CONFIG_DIR, a fresh process and Triton cache, FLA_CACHE_MODE=strict"
if [ -s "$OUT/fla-capture.json" ] && [ -d "$work/fla-own" ]; then
    timed env FLA_CACHE_MODE=strict FLA_CONFIG_DIR="$work/fla-own" FLA_CACHE_RESULTS=0 TRITON_CACHE_DIR="$cache_strict" \
        timeout 100 python3 scripts/fla_capture.py --strict-run --spec-from "$OUT/fla-capture.json" \
        --repeat "$REPEAT" --out "$work/strict-run.json" >"$work/strict.log" 2>&1
    tail -8 "$work/strict.log"
else
    echo "no manifest: the strict run is skipped" | tee "$work/strict.log"
fi

{
  echo "== card"; cat "$work/card.txt"
  echo "== steps"; cat "$work/steps.log"
  echo "== capture (first call per length, FLA's autotune benchmarks, each launch's key, source and choice)"
  grep -vE "^fla_capture: note" "$work/capture.log" | tail -60
  echo "== check"; tail -5 "$work/check.log"
  echo "== strict run (FLA's own choices loaded from FLA_CONFIG_DIR)"; tail -12 "$work/strict.log"
  echo "== files"; ls -l "$OUT"; du -sh "$cache" 2>/dev/null
} >"$work/summary.txt" 2>&1
tar czf "$OUT/issue24a-logs.tar.gz" -C "$work" card.txt steps.log capture.log check.log strict.log \
    $( [ -f "$work/strict-run.json" ] && echo strict-run.json ) $( [ -d "$work/fla-own" ] && echo fla-own ) 2>/dev/null
cp "$work/summary.txt" "$OUT/summary.txt"
cat "$work/summary.txt"
