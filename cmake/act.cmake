# act/ (issue 5): the executor, which turns a plan into fenced, SHA-bound GitHub calls
# through the action ledger (DESIGN.md §3), the head occurrences it binds them to, the ledger
# as decide/ sees it, and PassOutcome with the GitHub-error mapping (act/ depends on decide/,
# github/, store/ and base/, never on engine/: docs/PASS.md, "Layering"). Included at the end
# of the root CMakeLists.txt.

add_library(gatehouse_act STATIC act/executor.cc act/reconcile.cc act/head_occurrence.cc act/prior_actions.cc
  act/github_outcome.cc)
target_compile_options(gatehouse_act PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_act PUBLIC gatehouse_decide gatehouse_github gatehouse_core)

if(GATEHOUSE_TESTS)
  # The executor against a real SqliteStore and the real simulator served in-process on our
  # HttpServer, reached through GitHubClient (App JWT -> installation token) over loopback.
  gatehouse_test(act_test SOURCES act/executor_test.cc act/prior_actions_test.cc
    act/head_occurrence_test.cc
    LIBS gatehouse_act gatehouse_github gatehouse_sim gatehouse_http Boost::json OpenSSL::Crypto)
endif()
