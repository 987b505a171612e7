#!/usr/bin/env bash
# Records what tunescope-cli prints for the committed fixtures, so that a change meant to keep behaviour (a move,
# a split) can be shown to keep it:
#   scripts/cli-snapshot.sh BUILD/bin/tunescope-cli before.txt     (on the old commit)
#   scripts/cli-snapshot.sh BUILD/bin/tunescope-cli after.txt      (on the new one)
#   diff before.txt after.txt                                      (empty: byte-identical outputs)
# Per run: the command, its exit code, stdout, stderr and the SHA-256 of every file it wrote. Only commands whose
# output depends on their input alone (no timing): every --help, the profile/report/FLA/Triton commands over
# profiles/ and tests/data, signing checks, the results commands over committed H200 results, and the commands of
# the bad-input corpus (tests/cli/bad_input/run_corpus.cmake) but the measuring ones. The CLI's own version line
# is replaced by <version>, so two commits' snapshots compare. Run from anywhere; paths are printed relative to the
# repository root.
set -u
cli=$(realpath "${1:?usage: cli-snapshot.sh TUNESCOPE_CLI OUT_FILE}")
out=$(realpath -m "${2:?usage: cli-snapshot.sh TUNESCOPE_CLI OUT_FILE}")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$("$cli" --version 2>/dev/null | head -n 1)
: > "$out"

record() {  # record COMMAND ARGS...: run the CLI, append what it did to the snapshot
    rm -rf "$work/o" && mkdir -p "$work/o"
    local stdout stderr code
    stdout=$(cd "$PWD" && timeout 30 "$cli" "$@" 2> "$work/err"; echo "rc=$?")
    stderr=$(cat "$work/err")
    {
        echo "=== tunescope-cli $*"
        printf '%s\n' "$stdout"
        [ -n "$stderr" ] && printf -- '--- stderr\n%s\n' "$stderr"
        (cd "$work/o" && find . -type f | sort | while read -r f; do echo "wrote $f $(sha256sum < "$f" | cut -c1-16)"; done)
    } | sed "s|$work|<work>|g; s|$(pwd)/||g" | { if [ -n "$version" ]; then sed "s|$version|<version>|g"; else cat; fi; } >> "$out"
}

# Every command's help.
record --help
for sub in $("$cli" --help | awk 'tolower($0) ~ /^subcommands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
    record "$sub" --help
done

seed=profiles/fla-l2norm-gfx942-profile.json
report=profiles/cublaslt-gb10-nvfp4-fc2-report.json
for f in profiles/*.json tests/data/formats/*.json; do
    record validate "$f"
    record validate "$f" --json
    record hash "$f"
    record hash "$f" --canonical
    record convert "$f" --out "$work/o/converted.json"
done
for b in 1 2 8; do for l in 1 1000 65536 65537 2097152 2200000; do
    record lookup "$seed" --batch "$b" --padded-tokens "$l"
done; done
record diff "$seed" tests/data/formats/unknown-members.json
record diff "$seed" bench/results/h200-run7/promoted-profile.json
record export-fla "$seed" --out "$work/o/fla"
record export-fla bench/results/h200-run7/promoted-profile.json --out "$work/o/fla7"
record import-fla tests/data/formats/fla/l2norm_fwd_kernel.json --out "$work/o/imported.json"
record import-fla tests/data/formats/fla/l2norm_fwd_kernel.json --into "$seed" --out "$work/o/into.json"
record import-triton tests/data/formats/triton-cache --out "$work/o/triton.json"
record import-triton tests/data/formats/triton-cache --into "$seed" --out "$work/o/triton-into.json"
record verify tests/data/bad-input-seeds/profile.json --pubkey tests/data/bad-input-seeds/signer.pub.pem \
    --sig tests/data/bad-input-seeds/profile.json.sig.json
record verify "$seed" --pubkey tests/data/bad-input-seeds/signer.pub.pem --sig tests/data/bad-input-seeds/profile.json.sig.json

# Results: committed H200 runs (sweeps of run 6, 7 and 13, a confirm run on the CPU).
r6=bench/results/h200-run6/sweep.jsonl.gz
r7=bench/results/h200-run7/sweep.jsonl.gz
r13t=docs/screenshots/data/h200-run13-fla-triton.jsonl.gz
r13s=docs/screenshots/data/h200-run13-standin.jsonl.gz
record compare "$r6" "$r7"
record compare "$r13s" "$r13t"
record decisions "$r6" "$r7"
record decisions "$r13s" "$r13t"
record promote "$seed" --results "$r7" --out "$work/o/promoted.json"
record promote "$seed" --results "$r13t" --out "$work/o/promoted13.json"
record merge "$r6" --out "$work/o/merged.jsonl"
record confirm --results tests/data/formats/confirm-cpu.jsonl
record confirm --results tests/data/formats/confirm-cpu.jsonl --threshold 0.02

# The bad-input corpus, every command of run_corpus.cmake that measures nothing.
corpus=tests/data/bad-input
seeds=tests/data/bad-input-seeds
for kind in profile report fla triton results envelope; do
    for input in "$corpus/$kind"/*; do
        record hash "$input"
        record hash --canonical "$input"
        record validate "$input"
        case $kind in
            profile)
                record convert "$input" --out "$work/o/x.json"
                record lookup "$input" --batch 2 --padded-tokens 1000
                record diff "$seeds/profile.json" "$input"
                record export-fla "$input" --out "$work/o/fla" --force
                record import-fla tests/data/formats/fla/l2norm_fwd_kernel.json --into "$input" --out "$work/o/x.json" ;;
            report) record convert "$input" --out "$work/o/x.json" ;;
            fla)
                record import-fla "$input" --out "$work/o/x.json"
                record import-fla "$input" --into "$seeds/profile.json" --out "$work/o/x.json" ;;
            triton)
                record import-triton "$input" --out "$work/o/x.json"
                record import-triton "$input" --into "$seeds/profile.json" --out "$work/o/x.json" ;;
            results)
                record merge "$input" --out "$work/o/x.jsonl"
                record promote "$seeds/profile.json" --results "$input" --out "$work/o/x.json"
                record confirm --results "$input" ;;
            envelope)
                record verify "$seeds/profile.json" --pubkey "$seeds/signer.pub.pem" --sig "$input"
                record verify "$seeds/profile.json" --pubkey "$input" --sig "$seeds/profile.json.sig.json" ;;
        esac
    done
done
echo "cli-snapshot: $(grep -c '^=== ' "$out") runs into $out" >&2
