# The checks the CLI test scripts (cmake -P) share: include(.../cli_checks.cmake), with -DCLI=<tunescope-cli>.
#
# run_cli(<expected_exit> <out_var> ARGS...) runs ${CLI} ARGS and fails, showing what it printed, unless it exits
# with <expected_exit> (ANY: any exit). <out_var> gets stdout and stderr together; ${CLI_STDOUT} stdout alone and
# ${CLI_EXIT} the exit code. Set CLI_TIMEOUT (seconds) to fail runs that take longer: a hang is then a failure.
function(run_cli expected_exit out_var)
  set(timeout "")
  if(CLI_TIMEOUT)
    set(timeout TIMEOUT ${CLI_TIMEOUT})
  endif()
  execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err ${timeout})
  if(NOT expected_exit STREQUAL "ANY" AND NOT code STREQUAL "${expected_exit}")
    message(FATAL_ERROR "tunescope-cli ${ARGN}: exit ${code}, expected ${expected_exit}\n${out}${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(CLI_STDOUT "${out}" PARENT_SCOPE)
  set(CLI_EXIT "${code}" PARENT_SCOPE)
endfunction()

function(expect_in text needle)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "output lacks '${needle}':\n${text}")
  endif()
endfunction()

function(expect_not_in text needle)
  string(FIND "${text}" "${needle}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "output has '${needle}':\n${text}")
  endif()
endfunction()

function(expect_same_file a b)
  file(SHA256 "${a}" ha)
  file(SHA256 "${b}" hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${a} changed")
  endif()
endfunction()
