# cmake -DCLI=... -DCORPUS=tests/data/bad-input -DSEEDS=tests/data/bad-input-seeds -DKIND=profile -DWORK=...
#       [-DSANITIZED=ON] [-DMAX_FILES=N] -P run_corpus.cmake
# Runs every CLI command that reads a file of KIND over each file of the generated bad-input corpus
# (tests/make_bad_input_corpus.py). Passes when no run crashes, none takes over 5 s, every exit code is a documented
# one (0, 1, 2) and every exit-2 message names the file it is about. Where the corpus changed the type of one
# member (files named *-member-KEY-null|array|number|string), a run that refuses or flags the file (exit 1 or 2)
# must also name that member's JSON Pointer, /KEY. Results files are left out of that: their mutated header is a
# one-line file without its newline, which the reader rightly takes for a header torn by a kill.
# The results folder also holds the repros of issue 25 (r-*: results files that cannot be true). For each,
# ${CORPUS}/results-expected.txt gives the outcome every command that reads results (merge, promote, confirm --results,
# compare, decisions of two files and of one) must give: its exit code (* = 0 or 1) and texts its output must hold,
# {file} standing for the file's path (the file, line and JSON Pointer, or a warning naming the file and line).
# With -DSANITIZED=ON (a CLI built with ASan + UBSan, tests/cli/sanitized_bad_input.cmake) any sanitizer report in a
# run's output is a failure too, whatever the exit code: a report that ends in exit 1 would otherwise pass as a
# documented code.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(GLOB inputs "${CORPUS}/${KIND}/*")
if(MAX_FILES)  # the first MAX_FILES files only (the sanitizer canary tests: each report takes a second to print)
  list(SUBLIST inputs 0 ${MAX_FILES} inputs)
endif()
list(LENGTH inputs count)
if(count EQUAL 0)
  message(FATAL_ERROR "no corpus files in ${CORPUS}/${KIND}")
endif()
set(failures "")
set(runs 0)
# confirm of a policy against itself on the CPU, one tiny round: a loadable file is "same config" at NB 1 (exit 0),
# anything else must be refused naming the file.
set(confirm_tiny --backend cpu --hot --nb 1 --rows-per-nb 64 --rounds 1 --no-aa --min-samples 1 --max-samples 1
    --min-time 0 --warmup 1 --timeout 100 --device-warmup 0)

# name -> "code;needle;..." of the issue-25 repros.
set(expected_names "")
if(KIND STREQUAL "results")
  file(STRINGS "${CORPUS}/results-expected.txt" expected_lines)
  foreach(entry IN LISTS expected_lines)
    if(entry MATCHES "^#")
      continue()
    endif()
    string(REPLACE "\t" ";" fields "${entry}")
    list(POP_FRONT fields name)
    set(expected_${name} "${fields}")
    list(APPEND expected_names "${name}")
    if(NOT EXISTS "${CORPUS}/results/${name}")
      message(FATAL_ERROR "results-expected.txt names ${name}, which is not in ${CORPUS}/results")
    endif()
  endforeach()
  list(LENGTH expected_names expected_count)
  if(expected_count LESS 20)
    message(FATAL_ERROR "results-expected.txt lists ${expected_count} repros; regenerate the corpus")
  endif()
endif()

function(check_run file named)
  execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 5)
  math(EXPR next "${runs} + 1")
  set(runs ${next} PARENT_SCOPE)
  set(problem "")
  if(SANITIZED AND "${out}${err}" MATCHES "(ERROR: [A-Za-z]+Sanitizer|runtime error:)")
    set(problem "sanitizer report (exit '${code}')")
  elseif(NOT code MATCHES "^[012]$")
    set(problem "exit '${code}' (crash, hang over 5 s or undocumented code)")
  elseif(code EQUAL 2)
    string(FIND "${out}${err}" "${named}" at)
    if(at EQUAL -1)
      set(problem "exit 2 without naming ${named}")
    endif()
  endif()
  if(NOT problem AND pointer AND named STREQUAL input AND code MATCHES "^[${pointer_exits}]$")
    string(FIND "${out}${err}" "${pointer}" at)
    if(at EQUAL -1)
      set(problem "exit ${code} without naming the member's JSON Pointer ${pointer}")
    endif()
  endif()
  if(NOT problem AND expectation)  # an issue-25 repro through a command that reads results
    list(GET expectation 0 want)
    list(SUBLIST expectation 1 -1 needles)
    if(want STREQUAL "*" AND NOT code MATCHES "^[01]$")
      set(problem "exit ${code}, expected 0 or 1 (the file is readable, with a warning)")
    elseif(NOT want STREQUAL "*" AND NOT code EQUAL want)
      set(problem "exit ${code}, expected ${want}")
    endif()
    foreach(needle IN LISTS needles)
      string(REPLACE "{file}" "${named}" needle "${needle}")
      string(FIND "${out}${err}" "${needle}" at)
      if(NOT problem AND at EQUAL -1)
        set(problem "output without \"${needle}\"")
      endif()
    endforeach()
  endif()
  if(problem)
    if(SANITIZED)
      string(SUBSTRING "${out}${err}" 0 3000 shown)  # the report's first frames
    else()
      string(SUBSTRING "${out}${err}" 0 300 shown)
    endif()
    set(failures "${failures}\n${file}: tunescope-cli ${ARGN}: ${problem}\n    ${shown}" PARENT_SCOPE)
  endif()
endfunction()

set(pointer_exits 12)  # the exits that must name a mutated member's pointer (2 only where 1 is an answer)
foreach(input IN LISTS inputs)
  get_filename_component(base "${input}" NAME)
  set(member_pointer "")
  if(NOT KIND STREQUAL "results" AND base MATCHES "-member-([A-Za-z0-9_]+)-(null|array|number|string)$")
    set(member_pointer "/${CMAKE_MATCH_1}")
  endif()
  set(pointer "")  # hash and validate read every kind, but know the members of profiles, reports, policies and sweeps only
  if(KIND MATCHES "^(profile|report|policy|capture-sweep)$")
    set(pointer "${member_pointer}")
  endif()
  set(scratch "${WORK}/out")
  file(REMOVE_RECURSE "${scratch}" "${scratch}.json" "${scratch}.jsonl")
  check_run("${base}" "${input}" hash "${input}")
  check_run("${base}" "${input}" hash --canonical "${input}")
  check_run("${base}" "${input}" validate "${input}")
  set(pointer "${member_pointer}")  # the commands below read the file as its kind
  if(KIND STREQUAL "profile")
    check_run("${base}" "${input}" convert "${input}" --out "${scratch}.json")
    check_run("${base}" "${input}" lookup "${input}" --batch 2 --padded-tokens 1000)
    check_run("${base}" "${input}" diff "${SEEDS}/profile.json" "${input}")
    check_run("${base}" "${input}" export-fla "${input}" --out "${scratch}" --force)
    check_run("${base}" "${input}" import-fla "${CORPUS}/../formats/fla/l2norm_fwd_kernel.json" --into "${input}"
              --out "${scratch}.json")
    check_run("${base}" "${input}" confirm "${input}" --baseline "${input}" ${confirm_tiny} --out "${scratch}.jsonl")
  elseif(KIND STREQUAL "report")
    check_run("${base}" "${input}" convert "${input}" --out "${scratch}.json")
    check_run("${base}" "${input}" export-cublaslt "${input}" --out "${scratch}.json")
  elseif(KIND STREQUAL "policy")
    # --batch/--padded-tokens too: a mutation that is no policy any more is read as a profile.
    check_run("${base}" "${input}" convert "${input}" --out "${scratch}.json")
    # Exit 1 is an answer here (the loaders fall back, the policies differ, no entry is for hipBLASLt): only an
    # exit 2 must name the member.
    set(pointer_exits 2)
    check_run("${base}" "${input}" lookup "${input}" --m 64 --n 5376 --k 14336 --batch 2 --padded-tokens 1000)
    check_run("${base}" "${input}" diff "${SEEDS}/cublaslt-policy.json" "${input}")
    check_run("${base}" "${input}" export-hipblaslt "${input}" --out "${scratch}.txt")
    set(pointer_exits 12)
  elseif(KIND STREQUAL "fla")
    check_run("${base}" "${input}" import-fla "${input}" --out "${scratch}.json")
    check_run("${base}" "${input}" import-fla "${input}" --into "${SEEDS}/profile.json" --out "${scratch}.json")
    check_run("${base}" "${input}" confirm "${input}" --baseline "${input}" ${confirm_tiny} --out "${scratch}.jsonl")
  elseif(KIND STREQUAL "triton")
    # Triton's cache layout: <hash>/<kernel>.autotune.json, read from a folder as import-triton does.
    set(cache "${WORK}/cache/${base}")
    file(REMOVE_RECURSE "${WORK}/cache")
    file(MAKE_DIRECTORY "${cache}")
    file(COPY_FILE "${input}" "${cache}/l2norm_fwd_kernel.autotune.json")
    check_run("${base}" "${input}" import-triton "${input}" --out "${scratch}.json")
    check_run("${base}" "${cache}/l2norm_fwd_kernel.autotune.json" import-triton "${WORK}/cache" --out "${scratch}.json")
    check_run("${base}" "${input}" import-triton "${input}" --into "${SEEDS}/profile.json" --out "${scratch}.json")
    check_run("${base}" "${cache}/l2norm_fwd_kernel.autotune.json" confirm "${WORK}/cache" --baseline "${WORK}/cache"
              ${confirm_tiny} --out "${scratch}.jsonl")
  elseif(KIND STREQUAL "results")
    set(expectation "${expected_${base}}")  # empty for the generated mutations: any documented outcome
    if(NO_EXPECTATIONS)  # the sanitizer canary stands in for the CLI and cannot print the repros' messages
      set(expectation "")
    endif()
    check_run("${base}" "${input}" merge "${input}" --out "${scratch}.jsonl")
    check_run("${base}" "${input}" promote "${SEEDS}/profile.json" --results "${input}" --out "${scratch}.json")
    check_run("${base}" "${input}" confirm --results "${input}")
    check_run("${base}" "${input}" compare "${SEEDS}/results.jsonl" "${input}")
    check_run("${base}" "${input}" decisions "${input}" "${SEEDS}/results.jsonl")
    check_run("${base}" "${input}" decisions "${input}")
    set(expectation "")
  elseif(KIND STREQUAL "envelope")
    check_run("${base}" "${input}" verify "${SEEDS}/profile.json" --pubkey "${SEEDS}/signer.pub.pem" --sig "${input}")
    set(pointer "")  # read as a PEM public key, not as JSON
    check_run("${base}" "${input}" verify "${SEEDS}/profile.json" --pubkey "${input}" --sig "${SEEDS}/profile.json.sig.json")
  elseif(KIND STREQUAL "grid")
    check_run("${base}" "${input}" sweep --grid "${input}" --backend cpu --hot --nb 1 --rows-per-nb 64 --min-samples 1
              --max-samples 1 --min-time 0 --warmup 1 --timeout 100 --device-warmup 0 --no-copy --out "${scratch}.jsonl")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "${KIND}: problems in ${runs} runs over ${count} files:${failures}")
endif()
message("${KIND}: ${runs} runs over ${count} files, all clean")
