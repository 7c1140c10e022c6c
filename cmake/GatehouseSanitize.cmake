# Sanitizer and fuzzing builds (issue 13, points 4 and 5; docs/TESTING.md "Sanitizers").
#
# GATEHOUSE_SANITIZE (a string, empty by default) instruments every target of the build, the
# libraries, the tests, and the binaries the tests start (build/gatehouse, build/gatehouse-sim,
# build/storm_child), so a child process is checked like the test that runs it:
#   address,undefined   AddressSanitizer (with LeakSanitizer) + UndefinedBehaviorSanitizer
#   address | undefined one of the two
#   thread              ThreadSanitizer (cannot be combined with address)
# Every finding aborts the process (-fno-sanitize-recover=all), so a test with a finding fails
# instead of printing a report nobody reads. Frame pointers stay, for readable stacks.
#
# GATEHOUSE_FUZZ (OFF) is the place for the libFuzzer targets (`*_fuzz_test.cc`): it needs clang
# and instruments every target for coverage (-fsanitize=fuzzer-no-link), so that a fuzz target,
# linked with -fsanitize=fuzzer, sees the coverage of the code it calls. scripts/test.sh's clang
# build (build-clang/: ASan + UBSan) is where it is meant to be turned on.
#
# Both are for clang (the version scripts/install-deps.sh installs, 14); g++ accepts the same
# -fsanitize flags, but only the clang builds are tested.

set(GATEHOUSE_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined | address | undefined | thread (empty: none)")
option(GATEHOUSE_FUZZ "Instrument for libFuzzer targets (clang only)" OFF)

if(GATEHOUSE_SANITIZE)
  string(REPLACE "," ";" gatehouse_sanitizers "${GATEHOUSE_SANITIZE}")
  foreach(s IN LISTS gatehouse_sanitizers)
    if(NOT s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "GATEHOUSE_SANITIZE: unknown sanitizer \"${s}\" in "
                          "\"${GATEHOUSE_SANITIZE}\" (address, undefined or thread)")
    endif()
  endforeach()
  if("thread" IN_LIST gatehouse_sanitizers AND "address" IN_LIST gatehouse_sanitizers)
    message(FATAL_ERROR "GATEHOUSE_SANITIZE: thread and address cannot be combined")
  endif()
  set(gatehouse_sanitize_flags -fsanitize=${GATEHOUSE_SANITIZE} -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  add_compile_options(${gatehouse_sanitize_flags})
  add_link_options(${gatehouse_sanitize_flags})
  # For code that must know (a test that cannot run under a sanitizer, or a timeout that must
  # allow for one); a plain string, e.g. "thread".
  add_compile_definitions(GATEHOUSE_SANITIZE="${GATEHOUSE_SANITIZE}")
  message(STATUS "gatehouse: sanitizers ${GATEHOUSE_SANITIZE}")
endif()

if(GATEHOUSE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GATEHOUSE_FUZZ needs clang (libFuzzer); this is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if("thread" IN_LIST gatehouse_sanitizers)
    message(FATAL_ERROR "GATEHOUSE_FUZZ goes with address,undefined, not thread")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "gatehouse: fuzzing instrumentation (libFuzzer targets may be added)")
endif()
