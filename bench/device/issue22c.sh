#!/usr/bin/env bash
# Issue 22, item 4: does the kernel-duration timer (CUPTI) change a cuBLASLt explorer decision? (docs/explorer.md,
# "Timers"). Per shape, in one stretch of time on one warm GPU:
#  1. explore with --timer events, then explore with --timer cupti (default settings otherwise): the two picks, their
#     gains and tie sets;
#  2. replay the events report's selection against its heuristic top, alternating the timers: events, cupti,
#     events, cupti (each replay: the confirm stage's sustained and burst rounds, with its A/A control), so the same
#     two algorithms are compared under both timers interleaved.
# Build here (Qt-free, CUDA) and pack as bench/device/PLAN.md says; carry build-gpu-min (bin/tunescope-cli, lib/*.so).
#   SHAPES="1" TS_BUILD=build-gpu-min bash bench/device/issue22c.sh         # 8192^3 BF16
#   SHAPES="2 3" TS_BUILD=build-gpu-min bash bench/device/issue22c.sh       # 1024x28672x5376, the seed shape BF16
# Results: $OUT/issue22c/ (reports, replay JSON, logs), $OUT/issue22c.tar.gz, $OUT/summary.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
build=${TS_BUILD:-build-gpu-min}
cli=$build/bin/tunescope-cli
res=$OUT/issue22c
mkdir -p "$res"
log=$res/run.log
summary=$OUT/summary.txt
[ -x "$cli" ] || { echo "issue22c: $cli missing (build and pack first)" | tee "$summary"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv >"$res/card.txt" 2>&1
cat "$res/card.txt" >"$summary"
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }

shapes=(
  "8192x8192x8192-bf16|--m 8192 --n 8192 --k 8192 --dtype bf16"
  "1024x28672x5376-bf16|--m 1024 --n 28672 --k 5376 --dtype bf16"
  "seed-bf16|--m 37824 --m-logical 37810 --n 5376 --k 14336 --dtype bf16"
)
for i in ${SHAPES:-1}; do
  entry=${shapes[$((i - 1))]}
  name=${entry%%|*}
  args=${entry#*|}
  for timer in events cupti; do
    echo "=== $name: explore --timer $timer ($(elapsed) s in)" | tee -a "$log" "$summary"
    # shellcheck disable=SC2086
    timeout 170 "$cli" explore $args --layout TN --timer $timer --out "$res/explore_${name}_$timer.json" \
      >"$res/explore_${name}_$timer.out" 2>"$res/explore_${name}_$timer.err"
    echo "--- exit $?" | tee -a "$log" "$summary"
    grep -E "^(heuristic top|selected|finalist|A/A|power)|tie" "$res/explore_${name}_$timer.out" | tee -a "$log" "$summary"
    grep -m1 "timer" "$res/explore_${name}_$timer.err" >>"$summary"
  done
  report=$res/explore_${name}_events.json
  [ -f "$report" ] || continue
  for round in 1 2; do
    for timer in events cupti; do
      echo "=== $name: replay of the events report, --timer $timer, round $round ($(elapsed) s in)" | tee -a "$log" "$summary"
      timeout 120 "$cli" replay "$report" --timer $timer --out "$res/replay_${name}_${timer}_$round.json" \
        >"$res/replay_${name}_${timer}_$round.out" 2>"$res/replay_${name}_${timer}_$round.err"
      echo "--- exit $?" | tee -a "$log" "$summary"
      grep -E "^(replayed|sustained|burst|report said)" "$res/replay_${name}_${timer}_$round.out" | tee -a "$log" "$summary"
    done
  done
done
echo "done in $(elapsed) s" | tee -a "$summary"
tar -C "$OUT" -czf "$OUT/issue22c.tar.gz" issue22c && rm -rf "$res"
