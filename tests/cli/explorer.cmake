# The cuBLASLt explorer from the command line (docs/explorer.md). GPU runs exit 77 where there is no CUDA device
# (or no cuBLASLt plugin); ctest then reports them as skipped. Bad input is a usage error (2) on any machine.
set(TUNESCOPE_EXPLORE_REPORT ${CMAKE_BINARY_DIR}/explore-small-report.json)
add_test(NAME cli_explore_small
  COMMAND tunescope-cli explore --m 1000 --n 768 --k 512 --m-logical 990 --dtype bf16 --layout TN
          --workspace 0,4,32 --budget 20 --out ${TUNESCOPE_EXPLORE_REPORT})
set_tests_properties(cli_explore_small PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "heuristic top: .*report: " FIXTURES_SETUP explore_small_report)

add_test(NAME cli_replay_small
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli> -DREPORT=${TUNESCOPE_EXPLORE_REPORT}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/explore_replay.cmake)
set_tests_properties(cli_replay_small PROPERTIES TIMEOUT 300
  SKIP_REGULAR_EXPRESSION "the exploration did not run here" FIXTURES_REQUIRED explore_small_report)

add_test(NAME cli_explore_small_cupti
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli> -DREPORT=${CMAKE_BINARY_DIR}/explore-small-cupti.json
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/explore_timer.cmake)
set_tests_properties(cli_explore_small_cupti PROPERTIES TIMEOUT 300
  SKIP_REGULAR_EXPRESSION "the exploration did not run here")

# name | arguments after "explore" (;-separated by |) | expected message
foreach(bad IN ITEMS
    "m|--m|0|--n|64|--k|64|M must be at least 1"
    "dtype|--m|64|--n|64|--k|64|--dtype|fp16|unknown dtype 'fp16'"
    "layout|--m|64|--n|64|--k|64|--layout|TT|unknown layout 'TT'"
    "workspace|--m|64|--n|64|--k|64|--workspace|4,4|listed twice"
    "logical|--m|64|--m-logical|65|--n|64|--k|64|larger than the descriptor size"
    "config|--m|64|--n|64|--k|64|--config|tile=428|names no algo"
    "timer|--m|64|--n|64|--k|64|--timer|clock|--timer: clock not in")
  string(REPLACE "|" ";" parts "${bad}")
  list(POP_FRONT parts name)
  list(POP_BACK parts expected)
  list(JOIN parts "$<SEMICOLON>" joined)
  add_test(NAME cli_explore_bad_${name}
    COMMAND ${CMAKE_COMMAND}
            "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>explore$<SEMICOLON>${joined}$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused.json"
            -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=${expected}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
endforeach()

add_test(NAME cli_replay_missing_report
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>replay$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-report.json"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no-such-report.json" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
