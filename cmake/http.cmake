# The HTTP front door (issue 3): webhook signatures, the Beast server, the webhook handler.
# Included at the end of the root CMakeLists.txt.

# GitHub's webhook signature scheme (OpenSSL HMAC-SHA256). Later GitHub client code joins it.
add_library(gatehouse_github STATIC
  github/signature.cc
)
target_compile_options(gatehouse_github PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_github PUBLIC gatehouse_core OpenSSL::Crypto)

# Only http/connection.cc compiles Beast's HTTP code, and only it and http/server.cc compile
# Asio (all header-only); the public headers are Boost-free, so Boost stays private.
# Boost::headers is an imported target, so its include directory is a system one and
# Boost's own warnings do not trip -Werror.
add_library(gatehouse_http STATIC
  http/connection.cc
  http/handler.cc
  http/server.cc
  http/webhook_handler.cc
)
target_compile_options(gatehouse_http PRIVATE ${GATEHOUSE_WARNINGS})
target_link_libraries(gatehouse_http
  PUBLIC gatehouse_core gatehouse_github Threads::Threads
  PRIVATE Boost::headers Boost::json)
# GCC 12's -Wnull-dereference runs after inlining and reports false positives inside Asio's
# own internals (scheduler thread_info, strand comparison), which the system-header rule
# cannot silence. Only the two files that compile Asio drop that one warning.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(http/connection.cc http/server.cc
                              PROPERTIES COMPILE_OPTIONS -Wno-null-dereference)
endif()

if(GATEHOUSE_TESTS)
  # Real servers on 127.0.0.1:0 driven over loopback by a small blocking client.
  gatehouse_test(http_test
    SOURCES github/signature_test.cc http/server_test.cc http/webhook_handler_test.cc
    LIBS gatehouse_http gatehouse_github)
endif()
