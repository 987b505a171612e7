# CMAKE_PROJECT_INCLUDE of the sanitized CLI build (build_sanitized_cli.cmake): compiles the core as a unity build,
# a few sources per compiler run. Its sources share heavy headers (nlohmann/json), and under the sanitizers that
# halves the build's CPU time. Only the core: the CLI's sources have same-named helpers that a unity build would
# put into one file. The call waits until the whole tree is read, when the target exists.
cmake_language(DEFER CALL set_target_properties tunescope_core PROPERTIES UNITY_BUILD ON)
# version.cpp alone sees the git sha, so each commit recompiles it: on its own, not with a whole batch.
cmake_language(DEFER CALL set_source_files_properties "${CMAKE_SOURCE_DIR}/core/src/base/version.cpp"
               DIRECTORY "${CMAKE_SOURCE_DIR}/core" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
