# libFuzzer targets (GATEHOUSE_FUZZ=ON, clang only; docs/TESTING.md "Fuzzing").
#
# With the option on, every library of the tree is compiled with coverage instrumentation for
# libFuzzer plus AddressSanitizer and UndefinedBehaviorSanitizer (a UB finding aborts, so the
# fuzzer reports it as a crash). Each target is one `*_fuzz_test.cc` beside the code it fuzzes,
# declared with
#
#   gatehouse_fuzz_test(NAME SOURCES file... LIBS target... SEEDS dir... [ARGS flag...])
#
# which builds build/NAME and adds two CTest tests labelled `fuzz`:
#   NAME.regression  every file of the seed dirs and of fuzz/corpus/NAME/ once (-runs=0);
#   NAME.fuzz        GATEHOUSE_FUZZ_SECONDS (default 5) of fuzzing from those seeds, new
#                    inputs written to build/fuzz-work/NAME/ (never into the source tree).
# A crash in either fails the test; libFuzzer writes the input as build/fuzz-work/crash-*.
# scripts/fuzz.sh runs the same binaries for a long time.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "GATEHOUSE_FUZZ=ON needs clang (libFuzzer), but the C++ compiler is "
    "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}). Configure a separate build dir, e.g.\n"
    "  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DGATEHOUSE_FUZZ=ON")
endif()

set(GATEHOUSE_FUZZ_SECONDS 5 CACHE STRING "Seconds of fuzzing per target in CTest")
set(GATEHOUSE_FUZZ_RSS_MB 2048 CACHE STRING "libFuzzer -rss_limit_mb per target")
# The sanitizers the fuzz build adds to libFuzzer's coverage. CI keeps the default; a long run
# may choose `undefined` alone (no AddressSanitizer: several times the executions per second,
# docs/RELIABILITY.md "Fuzzing"), its corpus being replayed under both by the default build.
set(GATEHOUSE_FUZZ_SANITIZERS address,undefined CACHE STRING
    "Sanitizers of the fuzz build (comma-separated -fsanitize= list)")
add_compile_options(-fsanitize=fuzzer-no-link,${GATEHOUSE_FUZZ_SANITIZERS}
                    -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=${GATEHOUSE_FUZZ_SANITIZERS})

enable_testing()
set(GATEHOUSE_FUZZ_WORK "${CMAKE_BINARY_DIR}/fuzz-work")

function(gatehouse_fuzz_test name)
  cmake_parse_arguments(F "" "" "SOURCES;LIBS;SEEDS;ARGS" ${ARGN})
  add_executable(${name} ${F_SOURCES})
  target_compile_options(${name} PRIVATE ${GATEHOUSE_WARNINGS})
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set(in_repo "${PROJECT_SOURCE_DIR}/fuzz/corpus/${name}")
  set(seeds ${in_repo} ${F_SEEDS})
  set(work "${GATEHOUSE_FUZZ_WORK}/${name}")
  file(MAKE_DIRECTORY ${work})
  set(common -rss_limit_mb=${GATEHOUSE_FUZZ_RSS_MB} -timeout=10
             -artifact_prefix=${GATEHOUSE_FUZZ_WORK}/ ${F_ARGS})
  add_test(NAME ${name}.regression COMMAND ${name} -runs=0 ${common} ${seeds})
  add_test(NAME ${name}.fuzz
           COMMAND ${name} -max_total_time=${GATEHOUSE_FUZZ_SECONDS}
                   -print_final_stats=1 ${common} ${work} ${seeds})
  set_tests_properties(${name}.regression ${name}.fuzz PROPERTIES LABELS fuzz TIMEOUT 120)
  # What scripts/fuzz.sh needs to run the target on its own.
  file(WRITE "${GATEHOUSE_FUZZ_WORK}/${name}.seeds" "${in_repo}\n")
  foreach(dir ${F_SEEDS})
    file(APPEND "${GATEHOUSE_FUZZ_WORK}/${name}.seeds" "${dir}\n")
  endforeach()
  string(JOIN " " args_line ${F_ARGS})
  file(WRITE "${GATEHOUSE_FUZZ_WORK}/${name}.args" "${args_line}\n")
  set_property(GLOBAL APPEND PROPERTY GATEHOUSE_FUZZ_TARGETS ${name})
endfunction()

# The webhook fixtures carry their event in the folder name (as X-GitHub-Event would); the
# router target reads "EVENT\nPAYLOAD", so each fixture becomes one such seed file.
function(gatehouse_webhook_seeds out_dir)
  file(GLOB_RECURSE fixtures CONFIGURE_DEPENDS "${GATEHOUSE_WEBHOOK_FIXTURES}/*.json")
  if(NOT fixtures)
    message(WARNING "no webhook fixtures under ${GATEHOUSE_WEBHOOK_FIXTURES}: the router "
                    "fuzz target starts from its in-repo seeds only")
  endif()
  file(MAKE_DIRECTORY ${out_dir})
  foreach(fixture ${fixtures})
    get_filename_component(folder ${fixture} DIRECTORY)
    get_filename_component(event ${folder} NAME)
    get_filename_component(file ${fixture} NAME)
    file(READ ${fixture} payload)
    file(WRITE "${out_dir}/${event}__${file}" "${event}\n${payload}")
  endforeach()
endfunction()
