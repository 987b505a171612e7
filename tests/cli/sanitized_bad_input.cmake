# The bad-input corpus (tests/cli/bad_input.cmake) again, through a tunescope-cli built with AddressSanitizer +
# UndefinedBehaviorSanitizer (issue 16: "an ASan+UBSan build of the CLI runs the same corpus in CI with no
# report"). The fixture builds that CLI in a second build folder (bad_input/build_sanitized_cli.cmake: the Qt-free
# core and the CLI only, with clang when there is one: it compiles this code about twice as fast as g++ under the
# sanitizers); the tests start with asan_ so `ctest -R cli_` does not pull in that build. The canary tests show that
# a sanitizer report fails the run. -DTUNESCOPE_SANITIZED_CORPUS=OFF leaves them out (GPU nodes, quick local runs).
option(TUNESCOPE_SANITIZED_CORPUS "Run the bad-input corpus through an ASan+UBSan build of the CLI in ctest" ON)
if(TUNESCOPE_SANITIZED_CORPUS AND NOT TUNESCOPE_SANITIZED_SUBBUILD)
  find_program(TUNESCOPE_SANITIZER_CXX NAMES clang++-14 clang++ DOC "C++ compiler of the sanitized CLI build")
  if(NOT TUNESCOPE_SANITIZER_CXX)
    set(TUNESCOPE_SANITIZER_CXX "${CMAKE_CXX_COMPILER}")
  endif()
  set(sanitized_dir "${CMAKE_BINARY_DIR}/sanitized")
  set(sanitized_env
    # A report stops the run with exit 86, which the runner does not take for a documented code; leaks are not
    # checked (LeakSanitizer needs ptrace rights that containers often lack).
    "ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=0:abort_on_error=0"
    "UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1")
  cmake_host_system_information(RESULT sanitized_jobs QUERY NUMBER_OF_LOGICAL_CORES)
  add_test(NAME asan_build_cli
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DBUILD_DIR=${sanitized_dir}
            -DCXX=${TUNESCOPE_SANITIZER_CXX} -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER} -DJOBS=${sanitized_jobs}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/build_sanitized_cli.cmake)
  set_tests_properties(asan_build_cli PROPERTIES FIXTURES_SETUP sanitized_cli TIMEOUT 2400
                       PROCESSORS ${sanitized_jobs})
  set(corpus_args -DCORPUS=${CMAKE_CURRENT_SOURCE_DIR}/data/bad-input -DSEEDS=${CMAKE_CURRENT_SOURCE_DIR}/data/bad-input-seeds)
  foreach(kind profile report fla triton results envelope grid)
    add_test(NAME asan_bad_input_${kind}
      COMMAND ${CMAKE_COMMAND} -DCLI=${sanitized_dir}/bin/tunescope-cli ${corpus_args} -DKIND=${kind}
              -DWORK=${CMAKE_CURRENT_BINARY_DIR}/asan_bad_input/${kind} -DSANITIZED=ON
              -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/run_corpus.cmake)
    set_tests_properties(asan_bad_input_${kind} PROPERTIES FIXTURES_REQUIRED sanitized_cli TIMEOUT 900
                         ENVIRONMENT "${sanitized_env}")
  endforeach()
  foreach(mode_report "clean|" "heap|AddressSanitizer: heap-buffer-overflow" "signed|runtime error: signed integer overflow")
    string(REPLACE "|" ";" mode_report "${mode_report}")
    list(GET mode_report 0 mode)
    list(GET mode_report 1 report)
    add_test(NAME asan_canary_${mode}
      COMMAND ${CMAKE_COMMAND} -DCANARY=${sanitized_dir}/bin/sanitizer_canary -DMODE=${mode} -DREPORT=${report}
              -DRUNNER=${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/run_corpus.cmake ${corpus_args}
              -DWORK=${CMAKE_CURRENT_BINARY_DIR}/asan_canary/${mode}
              -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/expect_sanitizer_report.cmake)
    set_tests_properties(asan_canary_${mode} PROPERTIES FIXTURES_REQUIRED sanitized_cli TIMEOUT 300
                         ENVIRONMENT "${sanitized_env}")
  endforeach()
endif()
