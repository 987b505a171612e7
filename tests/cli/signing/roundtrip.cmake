# cmake -DCLI=... -DPROFILE=... -DWORK=... -P roundtrip.cmake
# Signs a copy of the seed profile, checks that verify holds (exit 0), that one changed value breaks it
# (exit 1), that a missing signature is an I/O error (exit 2), and that hash prints the file's SHA-256.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(READ "${PROFILE}" seed)
file(WRITE "${WORK}/profile.json" "${seed}")

include("${CMAKE_CURRENT_LIST_DIR}/../scripts/cli_checks.cmake")

run_cli(0 out hash "${WORK}/profile.json")
file(SHA256 "${WORK}/profile.json" expected)
if(NOT CLI_STDOUT STREQUAL "${expected}\n")
  message(FATAL_ERROR "hash printed '${CLI_STDOUT}', expected ${expected}")
endif()

run_cli(0 out keygen --out "${WORK}/key")
string(REGEX MATCH "key id ([0-9a-f]+)" _ "${CLI_STDOUT}")
set(key_id "${CMAKE_MATCH_1}")
string(LENGTH "${key_id}" key_id_length)
if(NOT key_id_length EQUAL 16)
  message(FATAL_ERROR "keygen printed no 16-digit key id: ${CLI_STDOUT}")
endif()

run_cli(0 out sign "${WORK}/profile.json" --key "${WORK}/key.pem")
run_cli(0 out verify "${WORK}/profile.json" --pubkey "${WORK}/key.pub.pem")
if(NOT CLI_STDOUT STREQUAL "good signature, key id ${key_id}\n")
  message(FATAL_ERROR "verify printed '${CLI_STDOUT}'")
endif()

string(REPLACE "\"num_warps\": 8," "\"num_warps\": 4," changed "${seed}")
if(changed STREQUAL seed)
  message(FATAL_ERROR "the seed has no \"num_warps\": 8 to change")
endif()
file(WRITE "${WORK}/profile.json" "${changed}")
run_cli(1 out verify "${WORK}/profile.json" --pubkey "${WORK}/key.pub.pem")
run_cli(2 out verify "${WORK}/profile.json" --pubkey "${WORK}/key.pub.pem" --sig "${WORK}/none.sig.json")
