# Webhook routing (issue 3): the pure router in the core library, the `gatehouse route`
# explain tool, and the router tests over the real GitHub payload fixtures.
target_sources(gatehouse_core PRIVATE ${CMAKE_SOURCE_DIR}/engine/router.cc
  ${CMAKE_SOURCE_DIR}/engine/route_payload.cc)
target_link_libraries(gatehouse_core PUBLIC Boost::json)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_route.cc)

if(GATEHOUSE_TESTS)
  gatehouse_test(router_test SOURCES engine/router_test.cc)
  # The fixtures live beside the checkout (../shared), in CI as on a workstation.
  target_compile_definitions(router_test PRIVATE
    GATEHOUSE_FIXTURES="${CMAKE_SOURCE_DIR}/../shared/fixtures/github-webhooks")
endif()
