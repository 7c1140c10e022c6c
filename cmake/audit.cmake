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
