# confirm: two policies head to head (docs/sweep.md, "Head to head"), from the command line and without Qt. The core
# cases (real gaps found, identical speed never called, the A/A control, every policy form) are in the `decisions`
# test (tests/core/decisions_test.cpp).
set(TUNESCOPE_EXPECT_EXIT ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)

# On the CPU every config runs the same code: the seed profile against FLA's file exported from it (the same configs)
# and against a copy with other configs at NB 1-2 must find no FASTER or SLOWER, and --results judges the file again.
add_test(NAME cli_confirm_cpu
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli> -DWORK=${CMAKE_BINARY_DIR}/cli-confirm
          -DPROFILES=${CMAKE_SOURCE_DIR}/profiles -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/confirm_cpu.cmake)
set_tests_properties(cli_confirm_cpu PROPERTIES TIMEOUT 600)

# Bad input names the file (and the JSON Pointer) and exits 2 before anything is measured.
set(TUNESCOPE_SEED_PROFILE ${CMAKE_SOURCE_DIR}/profiles/fla-l2norm-gfx942-profile.json)
add_test(NAME cli_confirm_missing_baseline
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>${TUNESCOPE_SEED_PROFILE}$<SEMICOLON>--baseline$<SEMICOLON>${CMAKE_BINARY_DIR}/no-such-baseline.json$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/confirm-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no-such-baseline.json" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_confirm_nb_not_in_policy
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>${TUNESCOPE_SEED_PROFILE}$<SEMICOLON>--baseline$<SEMICOLON>${TUNESCOPE_SEED_PROFILE}$<SEMICOLON>--nb$<SEMICOLON>33$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/confirm-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=/per_NB_policy: has no config for NB 33" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_confirm_needs_both_policies
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>${TUNESCOPE_SEED_PROFILE}$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/confirm-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=confirm needs CANDIDATE, --baseline and --out" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_confirm_results_of_a_sweep
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>--results$<SEMICOLON>${CMAKE_BINARY_DIR}/cli-sweep-cpu.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=/plan/baseline: is missing" -P ${TUNESCOPE_EXPECT_EXIT})
set_tests_properties(cli_confirm_results_of_a_sweep PROPERTIES DEPENDS cli_sweep_cpu)

# GPU: the seed profile against itself with a shuffled baseline is run by bench/device scripts; here, the CUDA path
# at two NBs (skipped without a GPU).
add_test(NAME cli_confirm_cuda
  COMMAND tunescope-cli confirm ${TUNESCOPE_SEED_PROFILE} --baseline ${TUNESCOPE_SEED_PROFILE} --backend cuda
          --skip-if-unavailable --nb 1,32 --rounds 3 --out ${CMAKE_BINARY_DIR}/cli-confirm-cuda.jsonl)
set_tests_properties(cli_confirm_cuda PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "2 same config")

# FLA's Triton kernel (the committed fixture cache: BT 8/128 x 1/4 warps at NB 1, 2). On the CPU the binaries are
# refused before anything runs; a config the cache lacks is named. On a CUDA GPU the fast policy (BT=8, 4 warps)
# against the slow one (BT=128, 1 warp: 2.4x slower on the H200) is FASTER at both NBs and exits 0, and the other
# way round SLOWER, exit 1 (skipped without a GPU).
set(TUNESCOPE_CONFIRM_TRITON ${CMAKE_CURRENT_SOURCE_DIR}/data/formats/confirm-triton)
set(TUNESCOPE_TRITON_FIXTURE ${CMAKE_CURRENT_SOURCE_DIR}/data/triton-cache-l2norm)
add_test(NAME cli_confirm_triton_cpu_refuses
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>${TUNESCOPE_CONFIRM_TRITON}/fast$<SEMICOLON>--baseline$<SEMICOLON>${TUNESCOPE_CONFIRM_TRITON}/slow$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/confirm-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=is a CUDA cubin, and device 0 is a cpu device" -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_confirm_triton_missing_variant
  COMMAND ${CMAKE_COMMAND}
          "-DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>confirm$<SEMICOLON>${TUNESCOPE_CONFIRM_TRITON}/fast$<SEMICOLON>--baseline$<SEMICOLON>${TUNESCOPE_SEED_PROFILE}$<SEMICOLON>--nb$<SEMICOLON>1$<SEMICOLON>--kernel$<SEMICOLON>triton$<SEMICOLON>--triton-cache$<SEMICOLON>${TUNESCOPE_TRITON_FIXTURE}$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/confirm-unused.jsonl"
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=no unambiguous l2norm_fwd_kernel binary for BT=32 num_warps=8 num_stages=3 NB=1"
          -P ${TUNESCOPE_EXPECT_EXIT})
add_test(NAME cli_confirm_triton_cuda_faster
  COMMAND tunescope-cli confirm ${TUNESCOPE_CONFIRM_TRITON}/fast --baseline ${TUNESCOPE_CONFIRM_TRITON}/slow
          --backend cuda --skip-if-unavailable --kernel triton --triton-cache ${TUNESCOPE_TRITON_FIXTURE}
          --out ${CMAKE_BINARY_DIR}/cli-confirm-triton-faster.jsonl)
set_tests_properties(cli_confirm_triton_cuda_faster PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "2 NBs: 0 same config, 2 FASTER")
add_test(NAME cli_confirm_triton_cuda_slower
  COMMAND tunescope-cli confirm ${TUNESCOPE_CONFIRM_TRITON}/slow --baseline ${TUNESCOPE_CONFIRM_TRITON}/fast
          --backend cuda --skip-if-unavailable --kernel triton --triton-cache ${TUNESCOPE_TRITON_FIXTURE}
          --out ${CMAKE_BINARY_DIR}/cli-confirm-triton-slower.jsonl)
# The output decides (the regex ignores the exit code, which is 1 when the line below is printed).
set_tests_properties(cli_confirm_triton_cuda_slower PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "the candidate is NOT shown at least as fast at every NB: SLOWER at 2 NB")
