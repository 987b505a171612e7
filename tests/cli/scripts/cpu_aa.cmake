# The CPU A/A of issue 11 (docs/sweep.md, "A/A"): every config runs the same code on the CPU backend, so promote
# must replace no incumbent. Runs the sweep and promote; fails when any of the 10 measured entries changes config
# (the single-measurement decision replaced 3 of 10 here).
include("${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake")
file(REMOVE ${WORK}/cpu-aa.jsonl ${WORK}/cpu-aa-promoted.json)
run_cli(0 out sweep --backend cpu --nb 14-17,19-24 --rows-per-nb 1024 --bt 8,32,128 --warps 1,4,16 --stages 2,3
                  --timeout 300 --profile ${PROFILES}/fla-l2norm-gfx942-profile.json --out ${WORK}/cpu-aa.jsonl)
message("${CLI_STDOUT}")
# CPU entries beside the profile's gfx942 production choices: two architectures, which this A/A accepts on purpose.
run_cli(0 out promote ${PROFILES}/fla-l2norm-gfx942-profile.json --results ${WORK}/cpu-aa.jsonl
                    --out ${WORK}/cpu-aa-promoted.json --allow-mixed-architectures)
message("${CLI_STDOUT}")
# Identical work must promote nothing: an incumbent replaced here is a decision made on noise.
expect_in("${CLI_STDOUT}" "replaced the config of 0 of 10 measured entries")
