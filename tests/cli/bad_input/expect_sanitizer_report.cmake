# cmake -DCANARY=... -DMODE=clean|heap|signed -DREPORT=regex -DRUNNER=run_corpus.cmake -DCORPUS=... -DSEEDS=...
#       -DWORK=... -P expect_sanitizer_report.cmake
# The sanitized corpus run's self-test: runs the corpus runner exactly as the sanitized tests do, with the sanitizer
# canary (sanitizer_canary.cpp) in place of the CLI. MODE clean must pass; heap and signed plant a bug and must
# fail, naming the sanitizer's report (REPORT). The results kind: its runner checks need no JSON Pointer, which the
# canary cannot give, and the issue-25 repros' expected messages are not checked (NO_EXPECTATIONS).
set(ENV{TUNESCOPE_CANARY} "")
if(NOT MODE STREQUAL "clean")
  set(ENV{TUNESCOPE_CANARY} "${MODE}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -DCLI=${CANARY} -DCORPUS=${CORPUS} -DSEEDS=${SEEDS} -DKIND=results
                        -DWORK=${WORK} -DSANITIZED=ON -DMAX_FILES=8 -DNO_EXPECTATIONS=ON -P "${RUNNER}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(MODE STREQUAL "clean")
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "the runner failed on the canary without a planted bug:\n${out}")
  endif()
  message("clean canary: the runner passes (${out})")
  return()
endif()
if(code EQUAL 0)
  message(FATAL_ERROR "the runner passed although the canary planted a ${MODE} bug: sanitizer reports go unnoticed")
endif()
if(NOT out MATCHES "sanitizer report" OR NOT out MATCHES "${REPORT}")
  message(FATAL_ERROR "the runner failed, but not on the expected sanitizer report (${REPORT}):\n${out}")
endif()
string(SUBSTRING "${out}" 0 600 shown)
message("${MODE} canary: the runner fails on the report as it should:\n${shown}")
