# The pass (act/pr_pass.cc and its steps: policy source, app login, live state, history,
# decision, audit, settling open intents, schedule), the sweeper (engine/sweeper.cc) and the
# delivery resolver (engine/delivery_resolver.cc), which need the GitHub client, the decision
# layer and the executor. Included at the end of the root
# CMakeLists.txt, after cmake/act.cmake.
add_library(gatehouse_pass STATIC
  act/pr_pass.cc
  act/policy_source.cc
  act/app_login.cc
  act/live_state.cc
  act/pass_history.cc
  act/pass_decision.cc
  act/pass_audit.cc
  act/settle_intents.cc
  act/pass_schedule.cc
  engine/sweeper.cc
  engine/delivery_resolver.cc)
target_compile_options(gatehouse_pass PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_pass PUBLIC gatehouse_act gatehouse_decide gatehouse_github
  gatehouse_core Boost::json)
target_link_libraries(gatehouse PRIVATE gatehouse_pass)

# gatehouse serve's wiring (app/gatehouse_server.cc): a library, so that its test starts the
# whole server in-process.
add_library(gatehouse_server STATIC app/gatehouse_server.cc)
target_compile_options(gatehouse_server PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_server PUBLIC gatehouse_pass gatehouse_http gatehouse_github
  gatehouse_core)
target_link_libraries(gatehouse PRIVATE gatehouse_server)

if(GATEHOUSE_TESTS)
  # The pass against a real SQLite store and the in-process simulator; the returning-head
  # scenarios also route the simulator's webhooks through the real router (engine/router.h),
  # so they live in tests/.
  gatehouse_test(pr_pass_test SOURCES act/pr_pass_test.cc tests/returning_head_test.cc
                 LIBS gatehouse_pass gatehouse_sim gatehouse_http gatehouse_github Boost::json
                      OpenSSL::Crypto)
  # Issue 5's scenarios end to end: gatehouse-sim run (a process) against gatehouse serve (a
  # process) acting as the App; then gatehouse's ledger and audit log are checked.
  gatehouse_test(decide_act_e2e_test TIMEOUT 600 SOURCES tests/decide_act_e2e_test.cc
                 LIBS gatehouse_github Boost::json OpenSSL::Crypto)
  target_compile_definitions(decide_act_e2e_test PRIVATE
    GATEHOUSE_BIN="$<TARGET_FILE:gatehouse>"
    GATEHOUSE_SIM_BIN="$<TARGET_FILE:gatehouse-sim>"
    GATEHOUSE_SCENARIOS="${CMAKE_SOURCE_DIR}/tests/scenarios"
    GATEHOUSE_SIM_SCENARIOS="${CMAKE_SOURCE_DIR}/sim/scenarios")
  add_dependencies(decide_act_e2e_test gatehouse gatehouse-sim)
  # GatehouseServer in-process on port 0, against the in-process simulator and a temporary
  # SQLite file: one signed webhook over loopback, and the PR acted on.
  gatehouse_test(gatehouse_server_test SOURCES app/gatehouse_server_test.cc
                 LIBS gatehouse_server gatehouse_sim gatehouse_http gatehouse_github Boost::json
                      OpenSSL::Crypto)
  # The sweeper and the delivery resolver against a real SqliteStore and the real simulator
  # served in-process, reached through GitHubClient over loopback (the act_test fixture).
  gatehouse_test(sweeper_test SOURCES engine/sweeper_test.cc
    LIBS gatehouse_pass gatehouse_github gatehouse_sim gatehouse_http Boost::json OpenSSL::Crypto)
  gatehouse_test(delivery_resolver_test SOURCES engine/delivery_resolver_test.cc
    LIBS gatehouse_pass gatehouse_github gatehouse_sim gatehouse_http Boost::json OpenSSL::Crypto)
  target_compile_definitions(delivery_resolver_test PRIVATE
    GATEHOUSE_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks")
endif()
