# The generated bad-input corpus (tests/make_bad_input_corpus.py) through every file-reading CLI command, one test
# per file kind so they run in parallel. tests/cli/sanitized_bad_input.cmake runs the same corpus through an ASan+UBSan
# build of the CLI (docs/formats.md, "Bad input").
foreach(kind profile report fla triton results envelope grid policy capture-sweep)
  add_test(NAME cli_bad_input_${kind}
    COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tunescope-cli> -DCORPUS=${CMAKE_CURRENT_SOURCE_DIR}/data/bad-input
            -DSEEDS=${CMAKE_CURRENT_SOURCE_DIR}/data/bad-input-seeds -DKIND=${kind}
            -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli_bad_input/${kind}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/run_corpus.cmake)
  set_tests_properties(cli_bad_input_${kind} PROPERTIES TIMEOUT 900)
endforeach()
