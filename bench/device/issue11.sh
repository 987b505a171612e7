#!/usr/bin/env bash
# Issue 11 on one GPU (docs/sweep.md, "Decisions" and "A/A"): two full default sweeps + promote back to back on one
# card, the agreement of their decisions per NB, and an A/A of identical work (every config measured twice per
# round as separate items) counted by verdict. Uses the packed Qt-free build (scripts/gpu-test-bundle.sh ->
# build-gpu-tests). Device time: about 2.5 minutes, at most 4 (the sweeps are cut at 80, 80 and 60 s).
# Results: $OUT/issue11.tar.gz and $OUT/summary.txt; the summary table is printed last.
# A dry run without a GPU: TS_CLI=build/bin/tunescope-cli TS_BACKEND=cpu TS_SWEEP_ARGS="--nb 14-15 --rows-per-nb 256
#   --bt 8,32 --warps 1,4 --stages 3" TS_AA_ARGS="--nb 1-2 --rows-per-nb 256 --bt 8,32 --warps 1 --stages 3" OUT=/tmp/x
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cli=${TS_CLI:-build-gpu-tests/bin/tunescope-cli}
backend=${TS_BACKEND:-cuda}
sweep_args=${TS_SWEEP_ARGS:-}
aa_args=${TS_AA_ARGS:---bt 8,16,32,64,128 --warps 4,8 --stages 3}
profile=profiles/fla-l2norm-gfx942-profile.json
res=$OUT/issue11
mkdir -p "$res"
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >"$res/nvidia-smi-before.txt" 2>&1
"$cli" devices >"$res/devices.txt" 2>&1

sweep_wall=()
for run in 1 2; do
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # the extra arguments are words
  timeout 80 "$cli" sweep --backend "$backend" $sweep_args --profile "$profile" --out "$res/run$run.jsonl" \
    >"$res/sweep$run.log" 2>&1
  echo "--- exit $?" >>"$res/sweep$run.log"
  sweep_wall+=("$(( ($(date +%s%N) - t0) / 1000000 ))")
  "$cli" promote "$profile" --results "$res/run$run.jsonl" --out "$res/promoted$run.json" >"$res/promote$run.log" 2>&1
  echo "--- exit $?" >>"$res/promote$run.log"
done
"$cli" decisions "$res/run1.jsonl" "$res/run2.jsonl" >"$res/decisions-results.txt" 2>&1
"$cli" decisions "$res/promoted1.json" "$res/promoted2.json" >"$res/decisions-profiles.txt" 2>&1

# A/A: identical work, paired exactly as promote pairs configs (10 configs x 2 replicas x NB 1-32, 3 rounds).
t0=$(date +%s%N)
# shellcheck disable=SC2086
timeout 60 "$cli" sweep --backend "$backend" $aa_args --aa-replicas 2 --out "$res/aa.jsonl" >"$res/aa-sweep.log" 2>&1
echo "--- exit $?" >>"$res/aa-sweep.log"
aa_wall=$(( ($(date +%s%N) - t0) / 1000000 ))
"$cli" decisions "$res/aa.jsonl" >"$res/aa.txt" 2>&1
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >"$res/nvidia-smi-after.txt" 2>&1

# Throttle accounting over all samples of the three sweeps (stdlib only).
python3 - "$res"/run1.jsonl "$res"/run2.jsonl "$res"/aa.jsonl >"$res/throttle.txt" 2>&1 <<'PY'
import json, sys
for path in sys.argv[1:]:
    samples = throttled = capped = records = raced = 0
    power = []
    try:
        with open(path) as f:
            next(f)
            for line in f:
                r = json.loads(line)
                if r.get("type") != "measurement":
                    continue
                records += 1
                raced += 1 if r.get("raced_out") else 0
                samples += r["samples"]
                throttled += r.get("throttled_samples", 0)
                capped += r.get("power_cap_samples", 0)
                power += [w for w in (r.get("raw_power_w") or []) if w >= 0]
    except (OSError, StopIteration, ValueError) as e:
        print(f"{path}: {e}")
        continue
    mean_power = sum(power) / len(power) if power else -1
    print(f"{path.split('/')[-1]}: {records} records ({raced} raced out), {samples} samples, {throttled} throttled "
          f"(dropped), {capped} under the SW power cap (kept), mean power {mean_power:.0f} W")
PY

gzip -f "$res"/*.jsonl 2>/dev/null
{
  echo "== issue 11: decisions that reproduce ($(grep -m1 -o 'NVIDIA[^,(]*' "$res/devices.txt" || echo cuda))"
  for run in 1 2; do
    printf 'sweep %s: %s ms wall, %s\n' "$run" "${sweep_wall[$((run-1))]}" \
      "$(grep -m1 -E 'measured \(' "$res/sweep$run.log" | sed 's/^tunescope-cli: //')"
    echo "  $(grep -E '^--- exit' "$res/sweep$run.log")  promote: $(grep -E '^replaced the config' "$res/promote$run.log")"
  done
  echo "run 1 vs run 2, fastest config and tie sets: $(tail -n 1 "$res/decisions-results.txt")"
  echo "run 1 vs run 2, promoted profiles:           $(tail -n 1 "$res/decisions-profiles.txt")"
  printf 'A/A sweep: %s ms wall; %s\n' "$aa_wall" "$(tail -n 1 "$res/aa.txt")"
  cat "$res/throttle.txt"
  echo "(acceptance: sweep < 60 s, same decision >= 95% of 32 NBs, A/A FASTER/SLOWER <= 1%)"
} >"$OUT/summary.txt" 2>&1
tar czf "$OUT/issue11.tar.gz" -C "$OUT" issue11
rm -rf "$res"
cat "$OUT/summary.txt"
