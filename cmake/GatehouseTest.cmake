# gatehouse_test(NAME [TIMEOUT SECONDS] [DISCOVER_AT_TEST_TIME] SOURCES file... LIBS target...)
#
# A GoogleTest executable (in build/, like every binary) whose tests CTest discovers one by one.
# SOURCES are relative to the calling folder; LIBS are the layers (and system libraries) the
# test itself includes: nothing is linked implicitly. TIMEOUT defaults to 120 s per test.
# DISCOVER_AT_TEST_TIME lists the tests when CTest runs rather than after the build, for
# binaries whose tests depend on the environment (the contract suites gain a postgres instance
# when GATEHOUSE_TEST_PG_URL is set).
#
# Every test carries its binary's name as a CTest label (`ctest -L '^engine_test$'` runs one
# binary's tests). Under a sanitizer (GATEHOUSE_SANITIZE) every TIMEOUT is multiplied by
# GATEHOUSE_TEST_TIMEOUT_SCALE (default 4): instrumented code runs 2-5x slower, and a per-test
# TIMEOUT is not changed by `ctest --timeout`.
#
# A test's own sources compile at -O0 in an optimized build (RelWithDebInfo, Release; the
# sanitizer builds keep their own flags). The code under test is in the layer libraries, which
# keep the build type's flags, while a test file is mostly GoogleTest macros, whose
# optimization took about 2.7x the compile time for nothing the tests measure (docs/TESTING.md,
# "Build time"). -DGATEHOUSE_TEST_OPT=-O2 puts it back.
#
# A test's own sources also get line tables only (-g1, in every build type): file and line in a
# backtrace or a sanitizer report, no variable info, about 18% less compile time per test file
# than -g. -DGATEHOUSE_TEST_DEBUG=-g gives them full debug info, for stepping through a test.
include(GoogleTest)

set(GATEHOUSE_TEST_OPT "-O0" CACHE STRING "Optimization of the tests' own sources")
set(GATEHOUSE_TEST_DEBUG "-g1" CACHE STRING "Debug info of the tests' own sources")

if(NOT DEFINED GATEHOUSE_TEST_TIMEOUT_SCALE)  # -DGATEHOUSE_TEST_TIMEOUT_SCALE=N overrides
  if(GATEHOUSE_SANITIZE)
    set(GATEHOUSE_TEST_TIMEOUT_SCALE 4)
  else()
    set(GATEHOUSE_TEST_TIMEOUT_SCALE 1)
  endif()
endif()

function(gatehouse_test name)
  cmake_parse_arguments(T "DISCOVER_AT_TEST_TIME" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_compile_options(${name} PRIVATE ${GATEHOUSE_WARNINGS}
                         $<$<CONFIG:RelWithDebInfo,Release,MinSizeRel>:${GATEHOUSE_TEST_OPT}>
                         $<$<CONFIG:RelWithDebInfo,Debug>:${GATEHOUSE_TEST_DEBUG}>)
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${GATEHOUSE_TEST_TIMEOUT_SCALE}")
  set(mode POST_BUILD)
  if(T_DISCOVER_AT_TEST_TIME)
    set(mode PRE_TEST)
  endif()
  gtest_discover_tests(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS ${name}
                       DISCOVERY_TIMEOUT 60 DISCOVERY_MODE ${mode})
endfunction()
