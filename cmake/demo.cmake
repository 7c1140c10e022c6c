# gatehouse demo (issue 5): the simulator and the server as processes, a built-in world, the
# invariant verdict. Included at the end of the root CMakeLists.txt.
find_package(OpenSSL REQUIRED)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_demo.cc
                                 ${CMAKE_SOURCE_DIR}/app/demo_checks.cc
                                 ${CMAKE_SOURCE_DIR}/app/demo_sim.cc
                                 ${CMAKE_SOURCE_DIR}/app/demo_world.cc)
target_link_libraries(gatehouse PRIVATE OpenSSL::Crypto)

if(GATEHOUSE_TESTS)
  # The demo from the README, smaller: it must end with `verdict: ok` (and exit 0).
  add_test(NAME demo_test COMMAND bash -c
    "set -o pipefail; '$<TARGET_FILE:gatehouse>' demo --prs 6 --sim '$<TARGET_FILE:gatehouse-sim>' | tee /dev/stderr | tail -n 1 | grep -q '^verdict: ok deliveries='")
  set_tests_properties(demo_test PROPERTIES TIMEOUT 300)
endif()
