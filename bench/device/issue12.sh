#!/usr/bin/env bash
# Issue 12 on one H200 (one device call, <= 9 minutes): does the explorer report the gain a user gets, and does it
# select the same way twice? For each shape: `tunescope-cli explore` (default settings: screen, confirm with an A/A
# control, sustained and burst regimes; docs/explorer.md), then right away bench/gemm_ab's independent paired A/B
# of the report's selection (or, when it selected nothing, its best confirmed alternative) against the heuristic
# top: AB_ROUNDS (default 16) rounds of ~0.5 s bursts back to back, order rotated, plus 3 rounds of 5-launch bursts after 1.5 s idle.
# Shapes: 8192^3 BF16 TN twice back to back, 1024x28672x5376, 64x5376x14336, the seed shape (M 37824, logical
# 37810, N 5376, K 14336) in BF16 and FP8.
#
# Build here (Qt-free) and pack, from the repo root:
#   cmake -S . -B build-device -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNESCOPE_GUI=OFF -DTUNESCOPE_HIP=OFF \
#         -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc
#   cmake --build build-device -j2 --target tunescope-cli tunescope_cublaslt gemm_ab
#   scripts/gpu-test-bundle.sh build-device          # -> build-gpu-tests
# Device call (carry build-gpu-tests):  bash bench/device/issue12.sh
# Results: $OUT/issue12/*.json (reports, A/B results), explore/AB logs, $OUT/issue12.tar.gz, $OUT/summary.txt (the
# table: shape, explore gain [95% interval], A/B gain [interval], |difference| <= 1 pp, exploration wall time).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
build=${TS_BUILD:-build-gpu-tests}
cli=$build/bin/tunescope-cli
ab=$build/bin/gemm_ab
res=$OUT/issue12
mkdir -p "$res"
log=$res/run.log
for f in "$cli" "$ab"; do [ -x "$f" ] || { echo "issue12: $f missing (build and pack first, see the header)" | tee "$OUT/summary.txt"; exit 2; }; done
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$res/card.txt" 2>&1
nvidia-smi dmon -s pc -d 1 -o T >"$res/dmon.txt" 2>&1 &
dmon=$!
t_start=$(date +%s)

# name | explore arguments
shapes=(
  "8192x8192x8192-bf16-1|--m 8192 --n 8192 --k 8192 --dtype bf16"
  "8192x8192x8192-bf16-2|--m 8192 --n 8192 --k 8192 --dtype bf16"
  "1024x28672x5376|--m 1024 --n 28672 --k 5376 --dtype bf16"
  "64x5376x14336|--m 64 --n 5376 --k 14336 --dtype bf16"
  "seed-bf16|--m 37824 --m-logical 37810 --n 5376 --k 14336 --dtype bf16"
  "seed-fp8|--m 37824 --m-logical 37810 --n 5376 --k 14336 --dtype fp8"
)
# SHAPES="1 2 3" runs only those entries (1-based), so the six can be split over two device calls.
picked=()
for i in ${SHAPES:-1 2 3 4 5 6}; do picked+=("${shapes[$((i - 1))]}"); done
ab_rounds=${AB_ROUNDS:-16}
for entry in "${picked[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  # Leave time for the summary inside one device call (LIMIT seconds in all; an exploration + A/B takes ~90 s).
  if [ $(( $(date +%s) - t_start + 95 )) -gt "${LIMIT:-575}" ]; then
    echo "=== $name: skipped, not enough time left in this call" | tee -a "$log"; continue
  fi
  echo "=== $name: explore $args ($(date -u +%T), $(( $(date +%s) - t_start )) s in)" | tee -a "$log"
  # shellcheck disable=SC2086
  timeout 150 "$cli" explore $args --layout TN --out "$res/explore_$name.json" >"$res/explore_$name.out" 2>"$res/explore_$name.err"
  echo "--- explore exit $?" | tee -a "$log"
  tail -n 12 "$res/explore_$name.out" >>"$log"
  echo "=== $name: gemm_ab" | tee -a "$log"
  timeout 60 "$ab" --report "$res/explore_$name.json" --rounds "$ab_rounds" --idle-rounds 3 --json "$res/ab_$name.json" \
      >"$res/ab_$name.out" 2>&1
  echo "--- gemm_ab exit $?" | tee -a "$log"
  cat "$res/ab_$name.out" >>"$log"
done
kill "$dmon" 2>/dev/null
echo "total $(( $(date +%s) - t_start )) s" >>"$log"

python3 - "$res" >"$OUT/summary.txt" 2>&1 <<'PY'
import json, os, sys
res = sys.argv[1]
def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:
        return {"_error": str(e)}
def fmt(g, lo, hi):
    return "-" if g is None else f"{g:+.2f}% [{lo:+.2f}, {hi:+.2f}]"
rows = []
for name in ["8192x8192x8192-bf16-1", "8192x8192x8192-bf16-2", "1024x28672x5376", "64x5376x14336", "seed-bf16", "seed-fp8"]:
    if not os.path.exists(os.path.join(res, f"explore_{name}.json")) and not os.path.exists(os.path.join(res, f"ab_{name}.json")):
        continue
    r = load(os.path.join(res, f"explore_{name}.json"))
    a = load(os.path.join(res, f"ab_{name}.json"))
    sel = r.get("selected") or {}
    left = bool(sel.get("left_baseline"))
    eg = elo = ehi = None
    what = "none"
    if left:
        eg = sel.get("improvement_percent"); elo, ehi = sel.get("improvement_interval_95_percent") or [None, None]
        what = f"#{sel.get('candidate_index')} {sel.get('tile')} custom {sel.get('custom_option')} cluster {sel.get('cluster')}"
    elif ((r.get("confirm") or {}).get("verification") or {}).get("gain"):
        # Selected, then not verified: the fresh rounds' gain is what the explorer says of it.
        ver = r["confirm"]["verification"]
        eg = ver["gain"].get("gain_percent"); elo, ehi = ver["gain"].get("interval_95_percent")
        what = f"none (#{ver.get('candidate_index')} not verified)"
    else:
        alt = ((r.get("confirm") or {}).get("best_alternative") or {}).get("sustained") or {}
        if alt:
            eg = alt.get("gain_percent"); elo, ehi = alt.get("interval_95_percent")
        what = "none (" + ("too noisy" if (r.get("confirm") or {}).get("too_noisy") else "best alt. shown") + ")"
    s = a.get("sustained") or {}
    ag = s.get("gain_percent"); alo, ahi = (s.get("interval_95_percent") or [None, None])
    idle = a.get("after_idle") or {}
    ig = idle.get("gain_percent"); ilo, ihi = (idle.get("interval_95_percent") or [None, None])
    diff = None if eg is None or ag is None else abs(eg - ag)
    ok = "-" if diff is None else ("yes" if diff <= 1.0 else "NO")
    if not left and alo is not None and alo > 1.0: ok += " (A/B finds >1% where nothing was selected)"
    elif not left and ag is not None and ag > 1.0: ok += " (A/B point >1%, interval not)"
    ext = (r.get("confirm") or {}).get("extended") or {}
    if ext.get("sustained"): what += f" [extended: {ext['sustained']}]"
    if left and ag is not None and ag < 0: ok += " (SELECTION SLOWER in A/B)"
    aa = ((r.get("confirm") or {}).get("aa_control") or {}).get("sustained") or {}
    aag = (aa.get("vs_top") or {})
    rows.append([name, what, fmt(eg, elo, ehi), fmt(ag, alo, ahi) + (f" {s.get('rounds_faster')}/{s.get('rounds')}" if s else ""),
                 fmt(ig, ilo, ihi), ok, f"{r.get('wall_seconds', 0):.1f} s",
                 fmt(aag.get("gain_percent"), *(aag.get("interval_95_percent") or [0, 0])) if aag else "-",
                 r.get("_error") or a.get("_error") or ""])
head = ["shape", "selected", "explore gain [95%]", "A/B sustained [95%] faster", "A/B after idle [95%]",
        "|diff|<=1pp", "explore wall", "A/A (explore)", "error"]
widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
for row in [head] + rows:
    print(" | ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
PY
grep -E "^total" "$log" >>"$OUT/summary.txt"
for out in "$res"/explore_*.out "$res"/ab_*.out; do
  [ -f "$out" ] && { echo "== $(basename "$out")"; grep -vE "^(A|B) \(|^B is|^outputs" "$out" | tail -n 14; } >>"$OUT/summary.txt"
done
tar czf "$OUT/issue12.tar.gz" -C "$OUT" issue12 && rm -rf "$res"
cat "$OUT/summary.txt"
