# Decide (issue 5): the pure policy model and parser, the gate and the planner, plus their unit
# tests.
# decide/ performs no I/O and reads no clock (DESIGN.md §5), except CheckPolicyFile, which
# reads a file for `gatehouse config check`; yaml-cpp parses the policy file.
find_package(yaml-cpp REQUIRED)

add_library(gatehouse_decide STATIC
  ${CMAKE_SOURCE_DIR}/decide/glob.cc
  ${CMAKE_SOURCE_DIR}/decide/options.cc
  ${CMAKE_SOURCE_DIR}/decide/policy.cc
  ${CMAKE_SOURCE_DIR}/decide/yaml_reader.cc
  ${CMAKE_SOURCE_DIR}/decide/labels.cc
  ${CMAKE_SOURCE_DIR}/decide/reviews.cc
  ${CMAKE_SOURCE_DIR}/decide/digest.cc
  ${CMAKE_SOURCE_DIR}/decide/gate.cc
  ${CMAKE_SOURCE_DIR}/decide/policy_check.cc
  ${CMAKE_SOURCE_DIR}/decide/planner.cc
  # The pass's decisions (docs/PASS.md): key generations, the closure history, an invalid
  # policy, background work and when to look again.
  ${CMAKE_SOURCE_DIR}/decide/generations.cc
  ${CMAKE_SOURCE_DIR}/decide/closure_history.cc
  ${CMAKE_SOURCE_DIR}/decide/invalid_policy.cc
  ${CMAKE_SOURCE_DIR}/decide/reasons.cc
  ${CMAKE_SOURCE_DIR}/decide/recheck.cc
)
target_compile_options(gatehouse_decide PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_decide PUBLIC gatehouse_core PRIVATE yaml-cpp)

if(GATEHOUSE_TESTS)
  gatehouse_test(decide_test SOURCES decide/glob_test.cc decide/policy_test.cc
                 decide/options_test.cc decide/labels_test.cc decide/reviews_test.cc
                 decide/digest_test.cc decide/gate_test.cc decide/policy_check_test.cc
                 decide/planner_test.cc decide/generations_test.cc
                 decide/closure_history_test.cc decide/invalid_policy_test.cc
                 decide/reasons_test.cc decide/recheck_test.cc
                 LIBS gatehouse_decide)
  # base/ascii.h (header-only: the case folding decide/ and act/ share) is tested with the
  # rest of base/.
  target_sources(base_test PRIVATE ${CMAKE_SOURCE_DIR}/base/ascii_test.cc)
endif()

# `gatehouse config check FILE`.
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_config.cc)
target_link_libraries(gatehouse PRIVATE gatehouse_decide)
