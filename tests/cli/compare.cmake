# `tunescope-cli compare` on two real H200 sweeps (bench/results, gzipped): the same counts tests/tst_run_compare.cpp
# asserts through the core (docs/sweep.md). Skipped at configure time in trees without bench/results.
set(TUNESCOPE_RUN6 ${CMAKE_SOURCE_DIR}/bench/results/h200-run6/sweep.jsonl.gz)
set(TUNESCOPE_RUN7 ${CMAKE_SOURCE_DIR}/bench/results/h200-run7/sweep.jsonl.gz)
if(EXISTS ${TUNESCOPE_RUN6} AND EXISTS ${TUNESCOPE_RUN7})
  add_test(NAME cli_compare_h200_runs COMMAND tunescope-cli compare ${TUNESCOPE_RUN6} ${TUNESCOPE_RUN7})
  set_tests_properties(cli_compare_h200_runs PROPERTIES TIMEOUT 120
    PASS_REGULAR_EXPRESSION "2432 pairs compared \\(B against A\\): 11 FASTER, 9 SLOWER, 1798 SAME, 614 AMBIGUOUS")
  # --fail-on-slower turns the 9 SLOWER pairs into exit 1.
  add_test(NAME cli_compare_fail_on_slower
    COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>compare$<SEMICOLON>${TUNESCOPE_RUN6}$<SEMICOLON>${TUNESCOPE_RUN7}$<SEMICOLON>--fail-on-slower
            -DEXPECT_EXIT=1 "-DEXPECT_OUTPUT=9 SLOWER"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
endif()
add_test(NAME cli_compare_missing_file
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>compare$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-a.jsonl$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-b.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no-such-a.jsonl"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)

# Two capture sweeps (docs/fla-capture.md section 12): run 17's H100 sweep against itself agrees at every kernel and
# key; a capture sweep against a results file is refused with exit 2.
set(TUNESCOPE_CAPTURE_SWEEP ${CMAKE_CURRENT_SOURCE_DIR}/data/fla-capture/sweep-h100-run17.json)
add_test(NAME cli_compare_capture_sweeps
  COMMAND tunescope-cli compare ${TUNESCOPE_CAPTURE_SWEEP}
          ${CMAKE_CURRENT_SOURCE_DIR}/data/fla-capture/sweep-h100-run17-launch-runs.json --all)
set_tests_properties(cli_compare_capture_sweeps PROPERTIES
  PASS_REGULAR_EXPRESSION "8 decisions compared: 8 with the same choice")
add_test(NAME cli_compare_capture_sweep_with_results
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>compare$<SEMICOLON>${TUNESCOPE_CAPTURE_SWEEP}$<SEMICOLON>${CMAKE_CURRENT_SOURCE_DIR}/data/formats/confirm-cpu.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=is a capture sweep (sweep --manifest) and" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_compare_capture_sweep_bad
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>compare$<SEMICOLON>${TUNESCOPE_CAPTURE_SWEEP}$<SEMICOLON>${CMAKE_CURRENT_SOURCE_DIR}/data/fla-capture/sweep-files/chosen-not-lowest.json"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=chosen-not-lowest.json" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_compare_capture_sweeps_run17_run19
  COMMAND tunescope-cli compare ${TUNESCOPE_CAPTURE_SWEEP} ${CMAKE_CURRENT_SOURCE_DIR}/data/fla-capture/sweep-h100-run19.json)
set_tests_properties(cli_compare_capture_sweeps_run17_run19 PROPERTIES
  PASS_REGULAR_EXPRESSION "8 decisions compared: 6 with the same choice; keeping A's choices costs at most \\+0.03% on B")
