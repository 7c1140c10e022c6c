# gatehouse-sim (issue 4): an in-memory GitHub simulator serving the REST subset gatehouse
# uses, a control API under /_sim/, and signed webhooks. Included at the end of the root
# CMakeLists.txt.

add_library(gatehouse_sim STATIC
  sim/app_identity.cc
  sim/faults.cc
  sim/model.cc
  sim/model_actions.cc
  sim/model_reviews.cc
  sim/jwt.cc
  sim/render.cc
  sim/rest.cc
  sim/rest_repo.cc
  sim/control.cc
  sim/webhooks.cc
  sim/expectations.cc
  sim/invariants.cc
  sim/scenario.cc
)
target_compile_options(gatehouse_sim PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_sim
  PUBLIC gatehouse_core gatehouse_http gatehouse_github Boost::json OpenSSL::Crypto CURL::libcurl)

add_executable(gatehouse-sim sim/main.cc app/flags.cc)
target_compile_options(gatehouse-sim PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse-sim PRIVATE gatehouse_sim gatehouse_http gatehouse_github
                      Boost::json)

if(GATEHOUSE_TESTS)
  gatehouse_test(sim_test SOURCES sim/model_test.cc sim/model_reviews_test.cc sim/rest_test.cc
                 sim/faults_test.cc sim/control_test.cc sim/scenario_test.cc sim/invariants_test.cc
                 sim/webhooks_test.cc sim/webhook_rules_test.cc
                 LIBS gatehouse_sim gatehouse_http gatehouse_github Boost::json OpenSSL::Crypto)
  target_compile_definitions(sim_test PRIVATE
    SIM_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks"
    SIM_SCENARIOS="${CMAKE_SOURCE_DIR}/sim/scenarios")
endif()

if(GATEHOUSE_TESTS)
  # gatehouse and gatehouse-sim as real processes: webhooks from the simulator through the
  # ingress, and the GitHub client against the simulator's REST API.
  gatehouse_test(sim_e2e_test TIMEOUT 120 SOURCES tests/sim_e2e_test.cc
                 LIBS gatehouse_github gatehouse_http Boost::json)
  target_compile_definitions(sim_e2e_test PRIVATE
    GATEHOUSE_BIN="$<TARGET_FILE:gatehouse>"
    GATEHOUSE_SIM_BIN="$<TARGET_FILE:gatehouse-sim>")
  add_dependencies(sim_e2e_test gatehouse gatehouse-sim)

  # `gatehouse-sim run SCENARIO` against `gatehouse serve`: the verdict, and gatehouse's
  # store showing every webhook the scenario sent received and routed.
  gatehouse_test(sim_scenario_e2e_test TIMEOUT 120 SOURCES tests/sim_scenario_e2e_test.cc
                 LIBS gatehouse_http Boost::json)
  target_compile_definitions(sim_scenario_e2e_test PRIVATE
    GATEHOUSE_BIN="$<TARGET_FILE:gatehouse>"
    GATEHOUSE_SIM_BIN="$<TARGET_FILE:gatehouse-sim>")
  add_dependencies(sim_scenario_e2e_test gatehouse gatehouse-sim)
endif()
