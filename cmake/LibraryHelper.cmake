# SPDX-License-Identifier: GPL-3.0-or-later
# One helper declares each Qt-free library below the engine's level (traceio, host):
# throttlelab_NAME and its alias throttlelab::NAME, a static library whose include/ is public
# and src/ private, linking LIBS publicly and the project's warning and sanitizer flags
# privately.
function(throttlelab_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(throttlelab_${name} STATIC ${ARG_SOURCES})
  add_library(throttlelab::${name} ALIAS throttlelab_${name})
  target_include_directories(throttlelab_${name}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(throttlelab_${name} PUBLIC ${ARG_LIBS}
    PRIVATE throttlelab::warnings throttlelab::sanitizers)
endfunction()
