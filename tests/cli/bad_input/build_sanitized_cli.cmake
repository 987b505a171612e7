# cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DCXX=... [-DLAUNCHER=ccache] [-DJOBS=2] -P build_sanitized_cli.cmake
# Configures a second build of this source tree with AddressSanitizer + UndefinedBehaviorSanitizer (no GUI, no GPU
# backends), builds only tunescope-cli in it, and next to it the sanitizer canary (sanitizer_canary.cpp) with the
# same flags. Then checks that the CLI really carries both sanitizers: a build that silently lost its flags would
# pass the corpus and prove nothing. The fixture of tests/cli/sanitized_bad_input.cmake.
set(flags -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined)
list(JOIN flags " " flag_string)
if(NOT JOBS)
  set(JOBS 2)
endif()
set(configure_args -S "${SOURCE_DIR}" -B "${BUILD_DIR}" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_COMPILER=${CXX}"
    "-DCMAKE_CXX_FLAGS=${flag_string}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined"
    -DTUNESCOPE_GUI=OFF -DTUNESCOPE_CUDA=OFF -DTUNESCOPE_HIP=OFF -DTUNESCOPE_FUZZ=OFF -DTUNESCOPE_SANITIZED_SUBBUILD=ON)
if(LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
function(configure_and_build unity result_var log_var)
  # Without the unity include the cached one is removed (an empty -DCMAKE_PROJECT_INCLUDE= is taken for a folder).
  set(project_include -UCMAKE_PROJECT_INCLUDE)
  if(unity)
    set(project_include "-DCMAKE_PROJECT_INCLUDE=${CMAKE_CURRENT_LIST_DIR}/sanitized_unity.cmake")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" ${configure_args} ${project_include}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "configuring the sanitized build in ${BUILD_DIR} failed:\n${out}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" -j ${JOBS} --target tunescope-cli
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(${result_var} ${code} PARENT_SCOPE)
  set(${log_var} "${out}" PARENT_SCOPE)
endfunction()
configure_and_build(ON code out)
if(NOT code EQUAL 0)
  # Two of the core's sources with same-named file-local helpers break only the unity build: say so, and build
  # file by file, so that CI stays green and merely slower.
  string(REGEX MATCHALL "[^\n]*error:[^\n]*" errors "${out}")
  list(JOIN errors "\n" errors)
  message(WARNING "the unity build of the sanitized core failed; building it file by file instead:\n${errors}")
  configure_and_build(OFF code out)
endif()
if(NOT code EQUAL 0)
  message(FATAL_ERROR "building the sanitized tunescope-cli failed:\n${out}")
endif()
string(REGEX MATCHALL "[^\n]*warning:[^\n]*" warnings "${out}")
if(warnings)
  list(JOIN warnings "\n" warnings)
  message(WARNING "the sanitized build has compiler warnings:\n${warnings}")
endif()
set(canary "${BUILD_DIR}/bin/sanitizer_canary")
execute_process(COMMAND "${CXX}" -std=c++20 -Wall -Wextra -Wpedantic -Werror ${flags}
                        "${CMAKE_CURRENT_LIST_DIR}/sanitizer_canary.cpp" -o "${canary}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "building the sanitizer canary failed:\n${out}")
endif()

# AddressSanitizer answers help=1 only from an instrumented program; UBSan's handlers (__ubsan_handle_*) are linked
# only with -fsanitize=undefined. (A report that would recover still fails the run: the runner looks for it.)
set(cli "${BUILD_DIR}/bin/tunescope-cli")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env ASAN_OPTIONS=help=1 "${cli}" --version
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${out}${err}" MATCHES "AddressSanitizer")
  message(FATAL_ERROR "${cli} is not built with AddressSanitizer (ASAN_OPTIONS=help=1 printed no ASan flags)")
endif()
file(STRINGS "${cli}" ubsan_handlers REGEX "__ubsan_handle_[a-z_]+_abort" LIMIT_COUNT 1)
if(NOT ubsan_handlers)
  message(FATAL_ERROR "${cli} has no UBSan handlers (-fsanitize=undefined)")
endif()
message("sanitized tunescope-cli: ${cli}\nsanitizer canary: ${canary}")
