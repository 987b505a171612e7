# An FLA_CONFIG_DIR through tunescope-cli (docs/fla-capture.md section 9, "The folder"): capture export-fla writes
# one from CI's H100 fixture; validate, lookup, sign, verify and diff it; then copies with one planted fault each.
#   -DCLI=<tunescope-cli> -DCAPTURE=<manifest> -DCHOICES=<choices file> -DPROFILE=<a profile> -DWORK=<dir>
#   [-DPYTHON=<python3> -DCHECK=<fla_config_dir_check.py>]: the signed folder must still pass the Python check
include("${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(cfg "${WORK}/cfg")
set(manifest "${cfg}/tunescope-fla-config-dir.json")
run_cli(0 out capture export-fla "${CAPTURE}" --choices "${CHOICES}" --out "${cfg}")

# The folder and its manifest validate alike.
run_cli(0 out validate "${cfg}")
expect_in("${out}" "cfg: valid (FLA_CONFIG_DIR, 6 kernels, 6 entries, 0 keys without a choice, scripted choices")
run_cli(0 out validate "${manifest}")
expect_in("${out}" "valid (FLA_CONFIG_DIR, 6 kernels")

# lookup: the kernel's keys, the entry by key hash and by FLA's key, a miss of each kind.
run_cli(0 out lookup "${cfg}" --kernel chunk_fwd_kernel_o)
expect_in("${out}" "c88ad8908ca2ff0b77ca9e84aafdcf53")
run_cli(0 out lookup "${cfg}" --kernel chunk_fwd_kernel_o --key c88ad8908ca2ff0b77ca9e84aafdcf53)
expect_in("${out}" "config BK=32 BV=32 num_warps=2 num_ctas=1 num_stages=3")
run_cli(0 out lookup "${cfg}" --kernel l2norm_fwd_kernel --key "[128,1,\"torch.bfloat16\",\"torch.bfloat16\",\"torch.float32\"]")
expect_in("${out}" "key_hash 878a9638751a7375a0fb15d3a7767659")
run_cli(0 out lookup "${cfg}" --kernel l2norm_fwd_kernel --key 878a9638751a7375a0fb15d3a7767659 --json)
expect_in("${out}" "\"outcome\": \"found\"")
run_cli(1 out lookup "${cfg}" --kernel chunk_kda_fwd_kernel)
expect_in("${out}" "no kernel 'chunk_kda_fwd_kernel' in the folder")
run_cli(1 out lookup "${cfg}" --kernel chunk_fwd_kernel_o --key 00000000000000000000000000000000)
expect_in("${out}" "has no entry for key hash 00000000000000000000000000000000")
run_cli(2 out lookup "${cfg}")
expect_in("${out}" "needs --kernel")

# sign / verify round trip; the signature file in the folder is expected, not an unlisted file.
run_cli(0 out keygen --out "${WORK}/key")
run_cli(0 out keygen --out "${WORK}/other")
run_cli(0 out sign "${cfg}" --key "${WORK}/key.pem")
expect_in("${out}" "tunescope-fla-config-dir.json.sig.json")
run_cli(0 out validate "${cfg}")
expect_not_in("${out}" "warning")
run_cli(0 out verify "${cfg}" --pubkey "${WORK}/key.pub.pem")
expect_in("${out}" "good signature")
expect_in("${out}" "6 kernel files match the signed manifest")
run_cli(0 out verify "${manifest}" --pubkey "${WORK}/key.pub.pem")
run_cli(1 out verify "${cfg}" --pubkey "${WORK}/other.pub.pem")
expect_in("${out}" "BAD signature")
if(PYTHON)
  execute_process(COMMAND "${PYTHON}" "${CHECK}" "${cfg}" --capture "${CAPTURE}" --choices "${CHOICES}"
                  RESULT_VARIABLE code OUTPUT_VARIABLE checked ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "fla_config_dir_check.py on the signed folder: exit ${code}\n${checked}${err}")
  endif()
endif()

# Cross-kind: a profile's signature does not pass for the folder's, nor the folder's for a profile's.
file(COPY "${PROFILE}" DESTINATION "${WORK}")
get_filename_component(profile_name "${PROFILE}" NAME)
set(profile "${WORK}/${profile_name}")
run_cli(0 out sign "${profile}" --key "${WORK}/key.pem")
run_cli(1 out verify "${cfg}" --pubkey "${WORK}/key.pub.pem" --sig "${profile}.sig.json")
expect_in("${out}" "a signature made for another kind of document")
run_cli(1 out verify "${profile}" --pubkey "${WORK}/key.pub.pem" --sig "${manifest}.sig.json")
expect_in("${out}" "a signature made for another kind of document")

# A changed kernel file (same size): validate names it (exit 2), verify is BAD naming it (exit 1).
macro(copy_folder name)
  file(REMOVE_RECURSE "${WORK}/${name}")
  file(COPY "${cfg}/" DESTINATION "${WORK}/${name}")
endmacro()
copy_folder(changed)
file(READ "${WORK}/changed/chunk_fwd_kernel_o.json" text)
string(REPLACE "\"num_warps\": 2" "\"num_warps\": 4" changed "${text}")
if(changed STREQUAL text)
  message(FATAL_ERROR "chunk_fwd_kernel_o.json has no \"num_warps\": 2 to change")
endif()
file(WRITE "${WORK}/changed/chunk_fwd_kernel_o.json" "${changed}")
run_cli(2 out validate "${WORK}/changed")
expect_in("${out}" "changed/chunk_fwd_kernel_o.json: has SHA-256 ")
expect_in("${out}" "(at /files/5/sha256)")
run_cli(1 out verify "${WORK}/changed" --pubkey "${WORK}/key.pub.pem")
expect_in("${out}" "BAD ${WORK}/changed/chunk_fwd_kernel_o.json: has SHA-256 ")

# The manifest edited (its digest no longer holds): validate exit 2 at /digest/value, verify BAD.
copy_folder(digest)
file(READ "${WORK}/digest/tunescope-fla-config-dir.json" text)
string(REPLACE "\"source\": \"scripted\"" "\"source\": \"captured\"" edited "${text}")
file(WRITE "${WORK}/digest/tunescope-fla-config-dir.json" "${edited}")
run_cli(2 out validate "${WORK}/digest")
expect_in("${out}" "tunescope-fla-config-dir.json: at /digest/value: ")
run_cli(1 out verify "${WORK}/digest" --pubkey "${WORK}/key.pub.pem")
expect_in("${out}" "the manifest has changed since it was signed")

# An unlisted kernel file is a fault (FLA would load it); another unlisted file a warning.
copy_folder(unlisted)
file(WRITE "${WORK}/unlisted/chunk_kda_fwd_kernel.json" "{}\n")
run_cli(2 out validate "${WORK}/unlisted")
expect_in("${out}" "unlisted/chunk_kda_fwd_kernel.json: is not listed in tunescope-fla-config-dir.json, yet FLA loads it")
run_cli(1 out verify "${WORK}/unlisted" --pubkey "${WORK}/key.pub.pem")
expect_in("${out}" "BAD ${WORK}/unlisted/chunk_kda_fwd_kernel.json")
copy_folder(readme)
file(WRITE "${WORK}/readme/README.md" "notes\n")
run_cli(0 out validate "${WORK}/readme")
expect_in("${out}" "warning: ${WORK}/readme/README.md: not listed in tunescope-fla-config-dir.json")

# A listed file missing.
copy_folder(missing)
file(REMOVE "${WORK}/missing/recompute_w_u_fwd_kernel.json")
run_cli(2 out validate "${WORK}/missing")
expect_in("${out}" "missing/recompute_w_u_fwd_kernel.json: is missing, but tunescope-fla-config-dir.json lists it (at /files/3)")
run_cli(1 out verify "${WORK}/missing" --pubkey "${WORK}/key.pub.pem")

# A folder that does not validate is not signed; a folder without a manifest is refused.
run_cli(2 out sign "${WORK}/changed" --key "${WORK}/key.pem" --out "${WORK}/changed.sig.json")
if(EXISTS "${WORK}/changed.sig.json")
  message(FATAL_ERROR "sign wrote a signature for a folder that does not validate")
endif()
file(MAKE_DIRECTORY "${WORK}/empty")
run_cli(2 out validate "${WORK}/empty")
expect_in("${out}" "empty: is a folder, not a file, and no FLA_CONFIG_DIR: it holds no tunescope-fla-config-dir.json")

# diff: identical, FLA's own choices against the scripted ones, and a folder against a file.
run_cli(0 out diff "${cfg}" "${WORK}/readme")
expect_in("${out}" "identical")
run_cli(0 out capture export-fla "${CAPTURE}" --captured-choices --out "${WORK}/captured")
run_cli(1 out diff "${cfg}" "${WORK}/captured")
expect_in("${out}" "l2norm_fwd_kernel key 878a9638751a7375a0fb15d3a7767659: config BT=128 num_warps=2 num_ctas=1 num_stages=3 -> BT=64")
expect_in("${out}" "other: /choices differs")
run_cli(2 out diff "${cfg}" "${profile}")
expect_in("${out}" "not an FLA_CONFIG_DIR while the other is")
