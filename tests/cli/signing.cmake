# Qt-free round trip of hash / keygen / sign / verify, so GPU nodes without Qt still test signing.
add_test(NAME cli_signing_roundtrip
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:tunescope-cli>
    -DPROFILE=${CMAKE_SOURCE_DIR}/profiles/fla-l2norm-gfx942-profile.json
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cli_signing_roundtrip
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/signing/roundtrip.cmake)
