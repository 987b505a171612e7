# cuBLASLt policies from the command line (docs/cublaslt-policy.md): export from explorer reports, validate, convert,
# lookup, diff, sign and verify (with a tampered copy), bad policies and reports (exit 2 with the JSON Pointer), and
# hipBLASLt's override file against its golden file. Qt-free: runs on GPU nodes too.
add_test(NAME cli_cublaslt_policy
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:tunescope-cli>
    -DDATA=${CMAKE_CURRENT_SOURCE_DIR}/data/cublaslt-policy
    -DSEEDS=${CMAKE_SOURCE_DIR}/profiles
    -DOLD_REPORT=${CMAKE_SOURCE_DIR}/docs/screenshots/data/h200-explore-bf16.json.gz
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli_cublaslt_policy
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/cublaslt_policy/policy_cli.cmake)
set_tests_properties(cli_cublaslt_policy PROPERTIES TIMEOUT 300)
