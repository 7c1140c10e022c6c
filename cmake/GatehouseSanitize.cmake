# Sanitizer builds (issue 13, point 5; docs/TESTING.md "Sanitizers").
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
# The libFuzzer targets are cmake/GatehouseFuzz.cmake (GATEHOUSE_FUZZ), in a build of their own.
#
# Both are for clang (the version scripts/install-deps.sh installs, 14); g++ accepts the same
# -fsanitize flags, but only the clang builds are tested.

set(GATEHOUSE_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined | address | undefined | thread (empty: none)")

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
