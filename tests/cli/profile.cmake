# Profile commands from the command line, without Qt (these also run on GPU nodes built without the GUI).
# The full CLI suite is tests/tst_cli_profile.cpp; docs/cli-profile.md has the exit codes.
set(TUNESCOPE_FORMATS_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/formats)
set(TUNESCOPE_SEED_PROFILE ${CMAKE_SOURCE_DIR}/profiles/fla-l2norm-gfx942-profile.json)

# name | expected exit | expected output | arguments... (| separates fields: a ; would split the list)
set(TUNESCOPE_PROFILE_CLI_CASES
  "validate_seed|0|valid profile (0 errors, 20 warnings, 0 infos)|validate|${TUNESCOPE_SEED_PROFILE}"
  "validate_report|0|valid cublaslt-report|validate|${CMAKE_SOURCE_DIR}/profiles/cublaslt-gb10-nvfp4-fc2-report.json"
  "validate_invalid|1|error [nb-coverage] /per_NB_policy: no entry for NB 20|validate|${TUNESCOPE_FORMATS_DATA}/invalid-rules.json"
  "validate_malformed|2|line 3, column 17|validate|${TUNESCOPE_FORMATS_DATA}/malformed.json"
  "validate_folder|2|is a folder, not a file|validate|${TUNESCOPE_FORMATS_DATA}"
  "lookup_nb32|0|config BT=32 num_warps=8 num_stages=3 num_ctas=1|lookup|${TUNESCOPE_SEED_PROFILE}|--batch|8|--padded-tokens|16384"
  "lookup_outside|1|unknown key: batch 9 is outside the supported 1..8|lookup|${TUNESCOPE_SEED_PROFILE}|--batch|9|--padded-tokens|16384"
  "diff_identical|0|identical|diff|${TUNESCOPE_SEED_PROFILE}|${TUNESCOPE_SEED_PROFILE}"
  "convert_wrong_type|2|at /per_NB_policy/13/config/num_warps|convert|${TUNESCOPE_FORMATS_DATA}/wrong-type-num-warps.json|--out|${CMAKE_BINARY_DIR}/unused-convert.json")
foreach(case IN LISTS TUNESCOPE_PROFILE_CLI_CASES)
  string(REPLACE "|" ";" fields "${case}")
  list(POP_FRONT fields name exit_code expected)
  list(JOIN fields "$<SEMICOLON>" joined)
  add_test(NAME cli_profile_${name}
    COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>${joined}" -DEXPECT_EXIT=${exit_code}
            "-DEXPECT_OUTPUT=${expected}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
endforeach()
