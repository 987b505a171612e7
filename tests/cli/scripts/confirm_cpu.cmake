# confirm on the CPU backend (docs/sweep.md, "Head to head"), where every config runs the same code: an A/A at the
# level of whole policies. Fails on any FASTER or SLOWER verdict between identical work, and checks that FLA's
# exported folder reads as the profile it came from (every NB "same config").
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(seed ${PROFILES}/fla-l2norm-gfx942-profile.json)
set(tiny --backend cpu --nb 1-2 --rows-per-nb 512 --hot --rounds 4 --min-samples 5 --min-time 0.2 --timeout 300
         --device-warmup 0)

include("${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake")

# 1. The exported folder (what FLA loads) against the profile it was exported from.
run_cli(0 out export-fla ${seed} --out ${WORK}/exported --force)
run_cli(0 out confirm ${WORK}/exported --baseline ${seed} ${tiny} --out ${WORK}/same.jsonl)
expect_in("${CLI_STDOUT}" "2 NBs: 2 same config")

# 2. Other configs at NB 1 and 2, identical work on the CPU: never FASTER or SLOWER. NOISY (the A/A control saw the
#    machine move) is an allowed outcome on a busy machine, with exit 1; a verdict either way is not.
file(READ ${seed} profile)
string(JSON profile SET "${profile}" per_NB_policy 0 config kwargs BT 128)
string(JSON profile SET "${profile}" per_NB_policy 0 config num_warps 1)
string(JSON profile SET "${profile}" per_NB_policy 1 config kwargs BT 8)
string(JSON profile SET "${profile}" per_NB_policy 1 config num_warps 16)
file(WRITE ${WORK}/baseline.json "${profile}")
run_cli(ANY out confirm ${seed} --baseline ${WORK}/baseline.json ${tiny} --out ${WORK}/other.jsonl)
expect_in("${CLI_STDOUT}" "0 FASTER")
expect_in("${CLI_STDOUT}" "0 SLOWER")
string(FIND "${CLI_STDOUT}" "0 NOISY" quiet)
if(NOT CLI_EXIT EQUAL 0 AND NOT (CLI_EXIT EQUAL 1 AND quiet EQUAL -1))
  message(FATAL_ERROR "confirm exited ${CLI_EXIT} without a NOISY NB:\n${out}")
endif()

# 3. The finished file judged again, at another threshold, without measuring.
run_cli(0 out confirm --results ${WORK}/other.jsonl --threshold 0.5)
expect_in("${CLI_STDOUT}" "0 SLOWER")
