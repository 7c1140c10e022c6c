# gatehouse_test(NAME [TIMEOUT SECONDS] SOURCES file... LIBS target...)
#
# A GoogleTest executable (in build/, like every binary) whose tests CTest discovers one by one.
# SOURCES are relative to the calling folder; LIBS are the layers (and system libraries) the
# test itself includes: nothing is linked implicitly. TIMEOUT defaults to 120 s per test.
include(GoogleTest)

function(gatehouse_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_compile_options(${name} PRIVATE ${GATEHOUSE_WARNINGS})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  gtest_discover_tests(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} DISCOVERY_TIMEOUT 60)
endfunction()
