# The cluster path of docs/cluster.md on a real single-node SLURM (Debian's slurm-wlm and munge, installed by
# scripts/tunescope.sh): a 3-task CPU sweep array, a cancelled task re-run with sbatch --array=1, the dependent
# merge + promote. Exit 77 (skipped, with the reason) where slurmd cannot start, e.g. without root.
add_test(NAME cli_slurm_array
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/slurm_array.sh $<TARGET_FILE:tunescope-cli> ${CMAKE_SOURCE_DIR})
set_tests_properties(cli_slurm_array PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "PASS: ")

# --shard slurm and --devices slurm read the array task's environment; outside a task they say what is missing.
add_test(NAME cli_sweep_shard_slurm_outside_a_job
  COMMAND ${CMAKE_COMMAND} -E env --unset=SLURM_ARRAY_TASK_ID --unset=SLURM_ARRAY_TASK_COUNT
          ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--shard$<SEMICOLON>slurm$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=SLURM_ARRAY_TASK_ID is not set"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
add_test(NAME cli_sweep_shard_slurm_resubmitted_task
  COMMAND ${CMAKE_COMMAND} -E env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=1
          ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:tunescope-cli>$<SEMICOLON>sweep$<SEMICOLON>--shard$<SEMICOLON>slurm$<SEMICOLON>--out$<SEMICOLON>${CMAKE_BINARY_DIR}/unused-sweep.jsonl
          -DEXPECT_EXIT=2 "-DEXPECT_OUTPUT=must say the count: --shard slurm/N"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/expect_exit.cmake)
