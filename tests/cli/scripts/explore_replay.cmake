# Replays the small exploration's report. Without it (no GPU here) it prints the phrase the test's
# SKIP_REGULAR_EXPRESSION turns into "skipped".
if(NOT EXISTS "${REPORT}")
  message("no report at ${REPORT}: the exploration did not run here")
  return()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake")
run_cli(0 out replay ${REPORT})
message("${out}")
expect_in("${CLI_STDOUT}" "matches the report")  # the replayed output's SHA-256
