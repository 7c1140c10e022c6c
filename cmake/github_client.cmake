# The GitHub REST client (issue 4): typed errors, App auth, libcurl transport, the client.
# Included at the end of the root CMakeLists.txt, after cmake/http.cmake (which defines
# gatehouse_github with the webhook signature code).

target_sources(gatehouse_github PRIVATE
  github/base64.cc
  github/errors.cc
  github/reply_error.cc
  github/app_auth.cc
  github/auth_config.cc
  github/transport.cc
  github/client.cc
  github/client_endpoints.cc
)
target_link_libraries(gatehouse_github PUBLIC CURL::libcurl Boost::json)

# The pass's view of github/'s errors (ToPassOutcome) is act/github_outcome.cc, in gatehouse_act
# (cmake/act.cmake); this name stays for the tests that link it.
add_library(gatehouse_github_engine INTERFACE)
target_link_libraries(gatehouse_github_engine INTERFACE gatehouse_act)

if(GATEHOUSE_TESTS)
  # A fake GitHub on our own HttpServer at 127.0.0.1:0, driven through the real CurlTransport.
  gatehouse_test(github_client_test
    SOURCES github/app_auth_test.cc github/client_test.cc
    LIBS gatehouse_github gatehouse_github_engine gatehouse_http)

  # GitHubClient against the real simulator library (sim/), served in-process on our
  # HttpServer, with the App flow (JWT -> installation token) and a simulated clock.
  gatehouse_test(github_sim_test SOURCES github/client_sim_test.cc
    LIBS gatehouse_github gatehouse_sim gatehouse_http Boost::json OpenSSL::Crypto)
endif()
