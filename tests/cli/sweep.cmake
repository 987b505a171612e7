# Sweep, merge and promote from the command line, without Qt (these also run on GPU nodes built without the GUI).
# The full suites are tests/tst_sweep.cpp and tests/tst_promote.cpp; docs/sweep.md has the exit codes.
set(TUNESCOPE_SWEEP_TINY --nb 1-2 --rows-per-nb 512 --bt 8,32 --warps 1,2 --stages 3 --min-samples 5 --min-time 0.2
    --timeout 300 --device-warmup 0)

# A tiny CPU sweep end to end (a rerun resumes the same file and measures nothing new).
add_test(NAME cli_sweep_cpu
  COMMAND tunescope-cli sweep --backend cpu --hot ${TUNESCOPE_SWEEP_TINY} --out ${CMAKE_BINARY_DIR}/cli-sweep-cpu.jsonl)
set_tests_properties(cli_sweep_cpu PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "best BT/warps/stages")

# Bad input is refused before anything runs, with exit 2 and a message naming the problem.
add_test(NAME cli_sweep_illegal_grid
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--bt$<SEMICOLON>12$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=grid config BT=12 num_warps=1 num_stages=2 is illegal"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_sweep_zero_rows
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--rows-per-nb$<SEMICOLON>0$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=T = 0"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_sweep_unknown_backend
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>opencl$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=opencl"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)

# GPU sweeps: a small grid at NB 1, 8 and 32 on each GPU backend; skipped (77) where the backend has no device.
foreach(gpu_backend cuda hip)
  add_test(NAME cli_sweep_${gpu_backend}
    COMMAND tunescope-cli sweep --backend ${gpu_backend} --skip-if-unavailable --nb 1,8,32 --bt 8,32 --warps 1,4
            --stages 3 --out ${CMAKE_BINARY_DIR}/cli-sweep-${gpu_backend}.jsonl)
  set_tests_properties(cli_sweep_${gpu_backend} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

# Timers and regimes on the CPU: steady_clock is its one timer (the records say so), --timer cupti is refused with
# exit 2, and --l2 both writes records of both regimes. On CUDA: the CUPTI timer and both regimes on a tiny grid,
# then the same plan with events (skipped where there is no CUDA device).
add_test(NAME cli_sweep_cpu_timer_refused
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--rows-per-nb$<SEMICOLON>64$<SEMICOLON>--timer$<SEMICOLON>cupti$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-timer.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=--timer cupti is not offered by this device"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_sweep_cpu_both_regimes
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--rows-per-nb$<SEMICOLON>64$<SEMICOLON>--bt$<SEMICOLON>8$<SEMICOLON>--warps$<SEMICOLON>1,2$<SEMICOLON>--stages$<SEMICOLON>2$<SEMICOLON>--l2$<SEMICOLON>both$<SEMICOLON>--device-warmup$<SEMICOLON>0$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/cli-sweep-cpu-both.jsonl
          -DEXPECT_EXIT=0 "-DEXPECT_OUTPUT=timer steady_clock, L2 cold+warm"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
set_tests_properties(cli_sweep_cpu_both_regimes PROPERTIES TIMEOUT 300)
foreach(timer cupti events)
  add_test(NAME cli_sweep_cuda_${timer}
    COMMAND tunescope-cli sweep --backend cuda --skip-if-unavailable --nb 1,2 --bt 8,32 --warps 1,4 --stages 3
            --l2 both --timer ${timer} --out ${CMAKE_BINARY_DIR}/cli-sweep-cuda-${timer}.jsonl)
  set_tests_properties(cli_sweep_cuda_${timer} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()

# Buffer placements (docs/sweep.md, "Placements"): the CPU keeps one copy, says so once, and its rounds record
# placement 0 in a plan that records placements 3; out-of-range counts and a capture sweep are refused with exit 2.
add_test(NAME cli_sweep_cpu_placements_fresh
  COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_BINARY_DIR}/cli-sweep-cpu-placements.jsonl)  # a file left over is resumed
set_tests_properties(cli_sweep_cpu_placements_fresh PROPERTIES FIXTURES_SETUP cli_sweep_placements_file)
add_test(NAME cli_sweep_cpu_placements
  COMMAND tunescope-cli sweep --backend cpu --hot ${TUNESCOPE_SWEEP_TINY} --rounds 3 --placements 3
          --out ${CMAKE_BINARY_DIR}/cli-sweep-cpu-placements.jsonl)
set_tests_properties(cli_sweep_cpu_placements PROPERTIES TIMEOUT 300 FIXTURES_REQUIRED cli_sweep_placements_file
  PASS_REGULAR_EXPRESSION "keeps 1 buffer placement\\(s\\) of the 3 asked for")
add_test(NAME cli_sweep_placements_out_of_range
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--placements$<SEMICOLON>9$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=--placements must be between 1 and 8"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_sweep_placements_not_for_a_capture
  COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--manifest$<SEMICOLON>${CMAKE_CURRENT_SOURCE_DIR}/data/fla-capture/h100-gdr-fwd-T4096.json$<SEMICOLON>--placements$<SEMICOLON>2$<SEMICOLON>--dry-run
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=--placements is for the l2norm sweep and confirm"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
