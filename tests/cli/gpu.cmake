# Device-level CLI tests (no Qt needed, so they also run on GPU nodes). GPU selftests exit 77 where the backend
# has no device; ctest then reports them as skipped and prints the reason ("no CUDA device (...)").
add_test(NAME cli_selftest_cpu COMMAND tunescope-cli selftest --backend cpu)
set_tests_properties(cli_selftest_cpu PROPERTIES TIMEOUT 900 PASS_REGULAR_EXPRESSION "selftest: PASS")

foreach(gpu_backend cuda hip)
  add_test(NAME cli_selftest_${gpu_backend} COMMAND tunescope-cli selftest --backend ${gpu_backend})
  set_tests_properties(cli_selftest_${gpu_backend} PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()

add_test(NAME cli_version COMMAND tunescope-cli --version)
set_tests_properties(cli_version PROPERTIES PASS_REGULAR_EXPRESSION "^tunescope-cli [0-9]+\\.[0-9]+\\.[0-9]+ \\(([0-9a-f]+|unknown)\\)")
add_test(NAME cli_devices COMMAND tunescope-cli devices)
set_tests_properties(cli_devices PROPERTIES PASS_REGULAR_EXPRESSION "cpu: available")
add_test(NAME cli_devices_json COMMAND tunescope-cli devices --json)
set_tests_properties(cli_devices_json PROPERTIES PASS_REGULAR_EXPRESSION "\"backends\"")

# Bad input: an unknown backend is a usage error (2) with a message; a missing device index too.
add_test(NAME cli_selftest_unknown_backend
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>selftest$<SEMICOLON>--backend$<SEMICOLON>opencl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=unknown backend 'opencl'"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_selftest_missing_device
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>selftest$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--device$<SEMICOLON>3
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no CPU device 3"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_bench_bad_nb
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>bench-l2norm$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--nb$<SEMICOLON>0
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=NB must be between 1 and 4096"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
# The CPU bench runs end to end on a small NB and prints its table.
add_test(NAME cli_bench_cpu COMMAND tunescope-cli bench-l2norm --backend cpu --grid one --nb 1 --samples 3 --warmup 1)
set_tests_properties(cli_bench_cpu PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "bench-l2norm: .*\\(cpu\\)")
