# Triton binaries from the command line (docs/triton-kernels.md), on the committed fixture cache. The CUDA runs exit
# 77 where there is no CUDA device; the refusals need no device.
set(TUNESCOPE_TRITON_FIXTURE ${CMAKE_CURRENT_SOURCE_DIR}/data/triton-cache-l2norm)
set(TUNESCOPE_EXPECT_EXIT ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)

add_test(NAME cli_selftest_triton_cuda
  COMMAND tunescope-cli selftest --backend cuda --kernel triton --triton-cache ${TUNESCOPE_TRITON_FIXTURE})
set_tests_properties(cli_selftest_triton_cuda PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "selftest: PASS")

add_test(NAME cli_bench_triton_cuda
  COMMAND tunescope-cli bench-l2norm --backend cuda --kernel triton --triton-cache ${TUNESCOPE_TRITON_FIXTURE}
          --nb 1,2 --samples 10)
set_tests_properties(cli_bench_triton_cuda PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "bench-l2norm: Triton binaries")

# The CPU cannot run a cubin: every binary is listed as refused with the reason, and the self-test fails.
add_test(NAME cli_selftest_triton_cpu_refuses
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>selftest$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}"
          -DEXPECT_EXIT=1 "-DEXPECT_OUTPUT=is a CUDA cubin, and device 0 is a cpu device" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_bench_triton_cpu_refuses
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>bench-l2norm$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no binary targets this device" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_selftest_triton_missing_cache
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>selftest$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-cache"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no-such-cache: is not a folder" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_bench_unknown_kernel
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>bench-l2norm$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>cutlass"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=--kernel must be native or triton" -P ${TUNESCOPE_EXPECT_EXIT})

# sweep --kernel triton: a cache missing a (config, NB) binary, and a device the binaries do not target, are refused
# before anything runs; on a CUDA machine the fixture's 4 configs x NB 1,2 are swept.
add_test(NAME cli_sweep_triton_missing_variant
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}$<SEMICOLON>--nb$<SEMICOLON>3$<SEMICOLON>--bt$<SEMICOLON>8$<SEMICOLON>--warps$<SEMICOLON>1$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/triton-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no unambiguous l2norm_fwd_kernel binary for BT=8 num_warps=1 num_stages=3 NB=3"
          -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_sweep_triton_wrong_target
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--bt$<SEMICOLON>8$<SEMICOLON>--warps$<SEMICOLON>1$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/triton-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=is a CUDA cubin, and device 0 is a cpu device" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_sweep_triton_cuda
  COMMAND tunescope-cli sweep --backend cuda --skip-if-unavailable --kernel triton
          --triton-cache ${TUNESCOPE_TRITON_FIXTURE} --nb 1,2 --bt 8,128 --warps 1,4
          --out ${CMAKE_BINARY_DIR}/triton-sweep.jsonl)
set_tests_properties(cli_sweep_triton_cuda PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)

# sweep --kernel both: --standin-out alone is a usage error; the CPU device is refused for FLA's binaries before a
# results file is written; on a CUDA machine both kernels are swept shape by shape and compared (a rerun resumes).
add_test(NAME cli_sweep_standin_out_alone
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--standin-out$<SEMICOLON>${CMAKE_BINARY_DIR}/standin-unused.jsonl$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/standin-unused2.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=--standin-out goes with --kernel both" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_sweep_both_wrong_target
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--backend$<SEMICOLON>cpu$<SEMICOLON>--kernel$<SEMICOLON>both$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--bt$<SEMICOLON>8$<SEMICOLON>--warps$<SEMICOLON>1$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/both-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=is a CUDA cubin, and device 0 is a cpu device" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_sweep_both_cuda
  COMMAND tunescope-cli sweep --backend cuda --skip-if-unavailable --kernel both
          --triton-cache ${TUNESCOPE_TRITON_FIXTURE} --nb 1,2 --bt 8,128 --warps 1,4
          --out ${CMAKE_BINARY_DIR}/both-sweep.jsonl)
set_tests_properties(cli_sweep_both_cuda PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "stand-in vs FLA's Triton kernel, per NB")
