# Runs COMMAND (a ;-list) and passes only if it exits with EXPECT_EXIT and its output contains EXPECT_OUTPUT.
include("${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE exit_code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT exit_code STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit code ${exit_code}, expected ${EXPECT_EXIT}")
endif()
expect_in("${out}${err}" "${EXPECT_OUTPUT}")
