# The audit log and what routing learns besides signals (issue 5): the store's repositories,
# PR facts and audit tables (SQLite migration 4), their contract tests, and `gatehouse audit`.
target_sources(gatehouse_core PRIVATE
  ${CMAKE_SOURCE_DIR}/store/sqlite/sqlite_repos.cc
  ${CMAKE_SOURCE_DIR}/store/sqlite/sqlite_audit.cc
)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_audit.cc)

if(GATEHOUSE_TESTS)
  # Part of the one Store contract suite that every backend runs.
  target_sources(store_test PRIVATE ${CMAKE_SOURCE_DIR}/store/learned_contract_test.cc
                 ${CMAKE_SOURCE_DIR}/store/audit_contract_test.cc)
endif()

if(GATEHOUSE_TESTS)
  # The inbox router against a real store: what payloads teach lands with their routing.
  gatehouse_test(inbox_router_test SOURCES engine/inbox_router_test.cc LIBS Boost::json)
  target_compile_definitions(inbox_router_test PRIVATE
    GATEHOUSE_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks")
endif()
