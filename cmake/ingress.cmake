# Webhook ingress, engine side: the inbox writer (group-committed durable acceptance) and the
# inbox router (deliveries -> work items). The HTTP side is in cmake/http.cmake.
target_sources(gatehouse_core PRIVATE
  ${CMAKE_SOURCE_DIR}/engine/inbox_writer.cc
  ${CMAKE_SOURCE_DIR}/engine/inbox_router.cc
)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_status.cc)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/webhook_secrets.cc)
target_link_libraries(gatehouse PRIVATE gatehouse_http)

if(GATEHOUSE_TESTS)
  # The front door end to end on loopback, over the real fixtures; and the SIGKILL test
  # against the real binary.
  gatehouse_test(ingress_test SOURCES tests/ingress_test.cc
                 LIBS gatehouse_http gatehouse_github Boost::json)
  target_compile_definitions(ingress_test PRIVATE
    GATEHOUSE_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks")
endif()

if(GATEHOUSE_TESTS)
  gatehouse_test(ingress_crash_test TIMEOUT 300 SOURCES tests/ingress_crash_test.cc
                 LIBS gatehouse_github)
  target_compile_definitions(ingress_crash_test PRIVATE
    GATEHOUSE_BIN="$<TARGET_FILE:gatehouse>"
    GATEHOUSE_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks")
  add_dependencies(ingress_crash_test gatehouse)
endif()
