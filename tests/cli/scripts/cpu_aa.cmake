# The CPU A/A of issue 11 (docs/sweep.md, "A/A"): every config runs the same code on the CPU backend, so promote
# must replace no incumbent. Runs the sweep and promote; fails when any of the 10 measured entries changes config
# (the single-measurement decision replaced 3 of 10 here).
file(REMOVE ${WORK}/cpu-aa.jsonl ${WORK}/cpu-aa-promoted.json)
execute_process(COMMAND ${CLI} sweep --backend cpu --nb 14-17,19-24 --rows-per-nb 1024 --bt 8,32,128 --warps 1,4,16
                        --stages 2,3 --timeout 300 --profile ${PROFILES}/fla-l2norm-gfx942-profile.json
                        --out ${WORK}/cpu-aa.jsonl
                RESULT_VARIABLE sweep_exit OUTPUT_VARIABLE sweep_out ERROR_VARIABLE sweep_err)
message("${sweep_out}")
if(NOT sweep_exit EQUAL 0)
  message(FATAL_ERROR "the sweep exited ${sweep_exit}: ${sweep_err}")
endif()
execute_process(COMMAND ${CLI} promote ${PROFILES}/fla-l2norm-gfx942-profile.json --results ${WORK}/cpu-aa.jsonl
                        --out ${WORK}/cpu-aa-promoted.json
                RESULT_VARIABLE promote_exit OUTPUT_VARIABLE promote_out ERROR_VARIABLE promote_err)
message("${promote_out}")
if(NOT promote_exit EQUAL 0)
  message(FATAL_ERROR "promote exited ${promote_exit}: ${promote_err}")
endif()
string(FIND "${promote_out}" "replaced the config of 0 of 10 measured entries" found)
if(found EQUAL -1)
  message(FATAL_ERROR "the CPU A/A replaced an incumbent (identical work must promote nothing)")
endif()
