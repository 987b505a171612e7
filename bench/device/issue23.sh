#!/usr/bin/env bash
# Issue 23 on one H200 (<= 9 minutes a call): cuBLASLt selections a program loads (docs/cublaslt-policy.md).
#  1. explore each shape (default settings; tie sets declared): 8192^3 BF16 twice back to back, 1024x28672x5376 BF16,
#     the seed shape (M 37824, logical 37810, N 5376, K 14336) in BF16 and FP8;
#  2. export-cublaslt: one policy of every report (and one per 8192^3 run, to compare the two picks and tie sets);
#  3. examples policy_gemm on the policy: per entry the loader's choice, one launch hashed against the explorer's
#     output hash, and a paired A/B of the chosen algorithm against the heuristic's first choice (after 1 s of it,
#     AB_ROUNDS rounds of 0.5 s blocks back to back with an A/A control, the heuristic's choice again, in every order
#     and its reverse; "tie" when B's interval does not clear the A/A spread; 3 rounds after 1.5 s idle);
#  4. the Python loader (ctypes, real cuBLASLt) on the same entries;
#  5. the policy with its cuBLASLt version edited, then its GPU: policy_gemm --expect heuristic must run every GEMM on
#     the heuristic's first choice with the reason (other-cublaslt-version, other-gpu).
#
# Build here (Qt-free) and pack, from the repo root:
#   cmake -S . -B build-device -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNESCOPE_GUI=OFF -DTUNESCOPE_HIP=OFF \
#         -DTUNESCOPE_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build-device -j2 --target tunescope-cli tunescope_cublaslt policy_gemm
#   scripts/gpu-test-bundle.sh build-device          # -> build-gpu-tests
# Device call (carry build-gpu-tests), two calls to stay under 9 minutes each:
#   SHAPES="1 2 3" bash bench/device/issue23.sh        # 8192^3 twice, 1024x28672x5376
#   SHAPES="4 5" bash bench/device/issue23.sh          # the seed shape in BF16 and FP8
# (SHAPES unset runs all five and skips what no longer fits in LIMIT seconds, default 540.)
# Results: $OUT/issue23/ (reports, policies, example JSON, logs), $OUT/issue23.tar.gz, $OUT/summary.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
build=${TS_BUILD:-build-gpu-tests}
cli=$build/bin/tunescope-cli
example=$build/bin/policy_gemm
res=$OUT/issue23
mkdir -p "$res"
log=$res/run.log
for f in "$cli" "$example"; do [ -x "$f" ] || { echo "issue23: $f missing (build and pack first, see the header)" | tee "$OUT/summary.txt"; exit 2; }; done
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$res/card.txt" 2>&1
t_start=$(date +%s)
limit=${LIMIT:-540}
elapsed() { echo $(( $(date +%s) - t_start )); }

# name | explore arguments
shapes=(
  "8192x8192x8192-bf16-1|--m 8192 --n 8192 --k 8192 --dtype bf16"
  "8192x8192x8192-bf16-2|--m 8192 --n 8192 --k 8192 --dtype bf16"
  "1024x28672x5376-bf16|--m 1024 --n 28672 --k 5376 --dtype bf16"
  "seed-bf16|--m 37824 --m-logical 37810 --n 5376 --k 14336 --dtype bf16"
  "seed-fp8|--m 37824 --m-logical 37810 --n 5376 --k 14336 --dtype fp8"
)
reports=()
for i in ${SHAPES:-1 2 3 4 5}; do
  entry=${shapes[$((i - 1))]}
  name=${entry%%|*}
  args=${entry#*|}
  # An exploration takes 60-95 s; keep ~40 s per shape for the checks below.
  if [ $(( $(elapsed) + 95 + 40 * (${#reports[@]} + 1) )) -gt "$limit" ]; then
    echo "=== $name: skipped, not enough time left in this call" | tee -a "$log"; continue
  fi
  echo "=== $name: explore $args ($(elapsed) s in)" | tee -a "$log"
  # shellcheck disable=SC2086
  timeout 150 "$cli" explore $args --layout TN --out "$res/explore_$name.json" >"$res/explore_$name.out" 2>"$res/explore_$name.err"
  echo "--- explore exit $?" | tee -a "$log"
  tail -n 8 "$res/explore_$name.out" >>"$log"
  [ -f "$res/explore_$name.json" ] && reports+=("$res/explore_$name.json")
done
[ ${#reports[@]} -gt 0 ] || { echo "issue23: no report" | tee "$OUT/summary.txt"; exit 1; }

echo "=== export-cublaslt ($(elapsed) s in)" | tee -a "$log"
# The two 8192^3 runs hold the same matmul: one policy each, and one of everything else.
rest=()
for r in "${reports[@]}"; do
  case "$r" in
    *8192x8192x8192-bf16-*) n=${r##*-bf16-}; n=${n%.json}; "$cli" export-cublaslt "$r" --out "$res/policy_8192_$n.json" >>"$log" 2>&1 ;;
    *) rest+=("$r") ;;
  esac
done
main=("${rest[@]}")
[ -f "$res/explore_8192x8192x8192-bf16-1.json" ] && main+=("$res/explore_8192x8192x8192-bf16-1.json")
if [ ${#main[@]} -gt 0 ]; then
  "$cli" export-cublaslt "${main[@]}" --out "$res/policy.json" >>"$log" 2>&1
  echo "--- export exit $?" | tee -a "$log"
  "$cli" validate "$res/policy.json" >>"$log" 2>&1
fi
policies=()
[ -f "$res/policy.json" ] && policies+=("$res/policy.json")
[ -f "$res/policy_8192_2.json" ] && policies+=("$res/policy_8192_2.json")

for p in "${policies[@]}"; do
  base=$(basename "$p" .json)
  echo "=== policy_gemm $base ($(elapsed) s in)" | tee -a "$log"
  timeout 200 "$example" "$p" --rounds "${AB_ROUNDS:-10}" --block-seconds 0.5 --idle-rounds 3 --json "$res/example_$base.json" \
      >"$res/example_$base.out" 2>&1
  echo "--- policy_gemm exit $?" | tee -a "$log"
  cat "$res/example_$base.out" >>"$log"
done

if [ -f "$res/policy.json" ]; then
  echo "=== Python loader ($(elapsed) s in)" | tee -a "$log"
  timeout 60 python3 - "$res/policy.json" >"$res/python_loader.out" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, "python")
import tunescope_cublaslt_policy as tcp
policy = tcp.Policy.from_file(sys.argv[1])
doc = json.load(open(sys.argv[1]))
for i, e in enumerate(policy.entries):
    if e.matmul is None or e.library != "cublaslt":
        continue
    choice = policy.select(e.matmul)
    words = [int(w, 16) for w in (doc["entries"][i]["algo"].get("data_words") or [])]
    same = bool(words) and choice.algo == words
    print("entry %d: %s (%s) %s; algorithm %s the policy's data words" % (
        i, choice.source, choice.reason, choice.detail, "equals" if same else "differs from"))
PY
  echo "--- python exit $?" | tee -a "$log"
  cat "$res/python_loader.out" >>"$log"

  # The fallbacks: another cuBLASLt version, then another GPU; the program still runs every GEMM.
  for what in version gpu; do
    python3 - "$res/policy.json" "$res/policy_other_$what.json" "$what" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["entries"]:
    if sys.argv[3] == "version" and e["environment"].get("cublaslt_version"):
        e["environment"]["cublaslt_version"] += 1
    if sys.argv[3] == "gpu":
        e["environment"]["gpu"] = "NVIDIA GB10"  # a GPU this machine is not
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
    echo "=== policy_gemm --expect heuristic on policy_other_$what ($(elapsed) s in)" | tee -a "$log"
    "$cli" validate "$res/policy_other_$what.json" >"$res/validate_other_$what.out" 2>&1  # entries-digest: edited by hand
    timeout 120 "$example" "$res/policy_other_$what.json" --expect heuristic --rounds 2 --block-seconds 0.05 \
        --json "$res/example_other_$what.json" >"$res/example_other_$what.out" 2>&1
    echo "--- policy_gemm exit $?" | tee -a "$log"
    cat "$res/example_other_$what.out" >>"$log"
  done
fi
echo "total $(elapsed) s" >>"$log"

python3 - "$res" >"$OUT/summary.txt" 2>&1 <<'PY'
import json, os, sys
res = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(res, name)) as f:
            return json.load(f)
    except Exception:
        return None
def fmt(g, iv):
    return "-" if g is None else "%+.2f%% [%+.2f, %+.2f]" % (g, iv[0], iv[1]) if iv else "%+.2f%%" % g
rows = [["entry", "shape", "loader", "bitwise vs explorer", "policy gain (report)", "A/B sustained", "A/A sustained",
         "verdict", "|diff|<=1pp", "A/B after idle", "heuristic = baseline", "same algo bytes"]]
for name in ("example_policy.json", "example_policy_8192_2.json"):
    results = load(name) or []
    policy = load(name.replace("example_", "")) or {"entries": []}
    for r in results:
        e = policy["entries"][r["entry"]] if r.get("entry") is not None and r["entry"] < len(policy["entries"]) else {}
        shape = (e.get("matmul", {}).get("row_major_problem") or {})
        shape = "%sx%sx%s %s" % (shape.get("m"), shape.get("n"), shape.get("k"), shape.get("dtype")) if shape else r.get("matmul", "?")
        g = e.get("gain", {})
        ab = (r.get("ab") or {})
        s, idle, aa = ab.get("sustained") or {}, ab.get("after_idle") or {}, ab.get("aa_sustained") or {}
        diff = r.get("difference_pp")
        rows.append(["%s#%d" % (name[8:-5], r["entry"]), shape, "%s (%s)" % (r.get("source"), r.get("reason")),
                     {True: "yes", False: "NO"}.get(r.get("bitwise_equal_to_explorer"), "-"),
                     fmt(g.get("percent"), g.get("interval_95_percent")),
                     fmt(s.get("gain_percent"), s.get("interval_95_percent")) + (" %s/%s" % (s.get("rounds_faster"), s.get("rounds")) if s else ""),
                     fmt(aa.get("gain_percent"), aa.get("interval_95_percent")), ab.get("verdict", "-"),
                     "-" if diff is None else ("yes" if diff <= 1.0 else "NO (%.2f)" % diff),
                     fmt(idle.get("gain_percent"), idle.get("interval_95_percent")),
                     {True: "yes", False: "NO"}.get(r.get("heuristic_first_is_the_explorers_baseline"), "-"),
                     {True: "yes", False: "no"}.get(r.get("same_algorithm_bytes"), "-")])
widths = [max(len(str(x)) for x in col) for col in zip(*rows)]
for row in rows:
    print(" | ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())

# Ties: the two 8192^3 explorations export the same algorithm, or each pick is in the other's tie set.
a, b = load("policy_8192_1.json"), load("policy_8192_2.json")
def attrs(x):
    return json.dumps(x, sort_keys=True)
if a and b and a["entries"] and b["entries"]:
    ea, eb = a["entries"][0], b["entries"][0]
    pa, pb = attrs(ea["algo"]["attributes"]), attrs(eb["algo"]["attributes"])
    ta = [attrs(m["attributes"]) for m in (ea.get("ties") or {}).get("members", [])]
    tb = [attrs(m["attributes"]) for m in (eb.get("ties") or {}).get("members", [])]
    print("\n8192^3 run 1 picked %s (gain %s, tie set %d), run 2 %s (gain %s, tie set %d)" % (
        ea["algo"]["names"], ea["gain"]["percent"], len(ta), eb["algo"]["names"], eb["gain"]["percent"], len(tb)))
    print("same algorithm: %s; run 1's pick in run 2's tie set: %s; run 2's pick in run 1's: %s" % (
        pa == pb, pa in tb, pb in ta))
for what in ("version", "gpu"):
    results = load("example_other_%s.json" % what) or []
    print("\npolicy with another %s: %s" % (what, "; ".join("#%d %s (%s)" % (r["entry"], r.get("source"), r.get("reason"))
                                                             for r in results) or "-"))
PY
grep -E "^total" "$log" >>"$OUT/summary.txt"
for out in "$res"/python_loader.out "$res"/validate_other_version.out; do
  [ -f "$out" ] && { echo "== $(basename "$out")"; tail -n 12 "$out"; } >>"$OUT/summary.txt"
done
tar czf "$OUT/issue23.tar.gz" -C "$OUT" issue23 && rm -rf "$res"
cat "$OUT/summary.txt"
