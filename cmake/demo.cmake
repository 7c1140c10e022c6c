# gatehouse demo (issue 5): the simulator and the server as processes, a built-in world, the
# invariant verdict. Included at the end of the root CMakeLists.txt.
find_package(OpenSSL REQUIRED)
target_sources(gatehouse PRIVATE ${CMAKE_SOURCE_DIR}/app/cmd_demo.cc
                                 ${CMAKE_SOURCE_DIR}/app/demo_world.cc)
target_link_libraries(gatehouse PRIVATE OpenSSL::Crypto)
