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

if(GATEHOUSE_TESTS)
  # A fake GitHub on our own HttpServer at 127.0.0.1:0, driven through the real CurlTransport.
  gatehouse_test(github_client_test
    SOURCES github/app_auth_test.cc github/client_test.cc
    LIBS gatehouse_github gatehouse_http)
endif()
