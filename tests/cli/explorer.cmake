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

foreach(bad IN ITEMS "m;0;M must be at least 1" "dtype;fp16;unknown dtype 'fp16'" "layout;TT;unknown layout 'TT'"
                     "workspace;4,4;listed twice")
  list(GET bad 0 option)
  list(GET bad 1 value)
  list(GET bad 2 expected)
  set(args explore --m 64 --n 64 --k 64 --out ${CMAKE_BINARY_DIR}/unused.json --${option} ${value})
  list(JOIN args "$<SEMICOLON>" joined)
  add_test(NAME cli_explore_bad_${option}
    COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>${joined}" -DEXPECT_EXIT=2
            "-DEXPECT_OUTPUT=${expected}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
endforeach()

add_test(NAME cli_replay_missing_report
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>replay$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-report.json"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no-such-report.json" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
