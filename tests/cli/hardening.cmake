# Bad input and data safety (issue 16): one test per finding, Qt-free so GPU nodes run them too.
foreach(case results_deep_header nesting_location many_keys sweep_out_not_results sweep_lock export_over_input
             export_bad_manifest_name compact_unknown_member nb_overflow minor_messages convert_keeps_mode secret_files
             triton_nan_timing fla_failed_entry)
  add_test(NAME cli_hardening_${case}
    COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli>
            -DSEED=${CMAKE_SOURCE_DIR}/profiles/fla-l2norm-gfx942-profile.json -DFORMATS=${CMAKE_CURRENT_SOURCE_DIR}/data/formats
            -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli_hardening/${case} -DCASE=${case}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/hardening/checks.cmake)
  set_tests_properties(cli_hardening_${case} PROPERTIES TIMEOUT 120)
endforeach()
