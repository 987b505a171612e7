# The installed tree (cmake --install): binaries, GPU plugins in lib/tunescope, sample profiles.
set(tunescope_installed_plugins "")
set(tunescope_installed_cublaslt OFF)
if(TUNESCOPE_HAVE_CUDA)
  list(APPEND tunescope_installed_plugins libtunescope_backend_cuda.so)
  set(tunescope_installed_cublaslt ON)
endif()
if(TUNESCOPE_HAVE_HIP)
  list(APPEND tunescope_installed_plugins libtunescope_backend_hip.so)
endif()
# Comma-separated: a semicolon list does not survive the trip through add_test into -D.
string(REPLACE ";" "," tunescope_installed_plugins "${tunescope_installed_plugins}")
add_test(NAME cli_install
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DPREFIX=${CMAKE_BINARY_DIR}/test-install
          "-DEXPECT_PLUGINS=${tunescope_installed_plugins}" -DEXPECT_CUBLASLT=${tunescope_installed_cublaslt}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/scripts/install_tree.cmake)
set_tests_properties(cli_install PROPERTIES TIMEOUT 300)
