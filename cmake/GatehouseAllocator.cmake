# The allocator the server binaries link (docs/BUILD.md, "The allocator").
#
# GATEHOUSE_ALLOCATOR:
#   tcmalloc  (default) gperftools' tcmalloc_minimal (Debian libgoogle-perftools-dev, which
#             scripts/install-deps.sh installs) for the `gatehouse` binary and the HTTP floor
#             (bench/http_floor.cc), so that the floor stays "the same server, no work";
#   system    glibc's malloc.
# Why: the front door allocates a request on an HTTP thread and frees much of it on the inbox
# writer's thread; glibc's per-thread arenas make those frees take the arena's lock and
# consolidate, ~20 us of CPU per webhook that tcmalloc's thread caches do not spend
# (docs/BENCHMARKS.md, "The front door's budget").
# Sanitizer and fuzz builds keep the system allocator: the sanitizers bring their own.
# Libraries and tests never link it; only gatehouse_use_allocator(<executable>) does.

set(GATEHOUSE_ALLOCATOR "tcmalloc" CACHE STRING "malloc for the server binaries: tcmalloc | system")
set_property(CACHE GATEHOUSE_ALLOCATOR PROPERTY STRINGS tcmalloc system)

if(NOT GATEHOUSE_ALLOCATOR MATCHES "^(tcmalloc|system)$")
  message(FATAL_ERROR "GATEHOUSE_ALLOCATOR must be tcmalloc or system, not \"${GATEHOUSE_ALLOCATOR}\"")
endif()
set(gatehouse_allocator_lib "")
if(GATEHOUSE_ALLOCATOR STREQUAL "tcmalloc")
  if(GATEHOUSE_SANITIZE OR GATEHOUSE_FUZZ)
    message(STATUS "allocator: system (sanitizer builds bring their own malloc)")
  else()
    find_library(GATEHOUSE_TCMALLOC_LIBRARY NAMES tcmalloc_minimal)
    if(NOT GATEHOUSE_TCMALLOC_LIBRARY)
      message(FATAL_ERROR "GATEHOUSE_ALLOCATOR=tcmalloc: libtcmalloc_minimal not found; install "
                          "libgoogle-perftools-dev (scripts/install-deps.sh) or configure with "
                          "-DGATEHOUSE_ALLOCATOR=system")
    endif()
    set(gatehouse_allocator_lib ${GATEHOUSE_TCMALLOC_LIBRARY})
    message(STATUS "allocator: tcmalloc (${GATEHOUSE_TCMALLOC_LIBRARY})")
  endif()
endif()

# Links `target` (an executable) with the chosen allocator. --no-as-needed keeps the library
# even where the linker would otherwise judge it unused: its malloc must replace glibc's.
function(gatehouse_use_allocator target)
  if(gatehouse_allocator_lib)
    target_link_libraries(${target} PRIVATE -Wl,--push-state,--no-as-needed
                          ${gatehouse_allocator_lib} -Wl,--pop-state)
  endif()
endfunction()
