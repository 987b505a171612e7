# Decisions that reproduce (issue 11, docs/sweep.md "Decisions"), from the command line and without Qt. The core
# cases (wandering state, drift, devices, resume) are the `decisions` test (tests/core/decisions_test.cpp).
add_test(NAME cli_cpu_aa_promotes_nothing
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli> -DWORK=${CMAKE_BINARY_DIR}
          -DPROFILES=${CMAKE_SOURCE_DIR}/profiles -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/cpu_aa.cmake)
set_tests_properties(cli_cpu_aa_promotes_nothing PROPERTIES TIMEOUT 900)
