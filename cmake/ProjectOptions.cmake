# SPDX-License-Identifier: GPL-3.0-or-later
# Options and INTERFACE targets that carry build policy (warnings, sanitizers).
option(THROTTLELAB_BUILD_TESTS "Build the GoogleTest suites" ${PROJECT_IS_TOP_LEVEL})
option(THROTTLELAB_BUILD_BENCHMARKS "Build the Google Benchmark executables" ${PROJECT_IS_TOP_LEVEL})
option(THROTTLELAB_BUILD_GUI "Build the Qt user interface" ON)
option(THROTTLELAB_BUILD_APP "Build the throttlelab executable (needs the GUI)" ON)
option(THROTTLELAB_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(THROTTLELAB_WERROR "Treat warnings as errors" OFF)
option(THROTTLELAB_CCACHE "Compile through ccache when it is installed" ON)

# A rebuild of an unchanged file costs nothing through ccache; without it nothing changes.
if(THROTTLELAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(THROTTLELAB_CCACHE_PROGRAM ccache)
  if(THROTTLELAB_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${THROTTLELAB_CCACHE_PROGRAM})
  endif()
endif()

if(THROTTLELAB_BUILD_APP AND NOT THROTTLELAB_BUILD_GUI)
  message(FATAL_ERROR "THROTTLELAB_BUILD_APP needs THROTTLELAB_BUILD_GUI; for an engine-only build set both OFF")
endif()

add_library(throttlelab_warnings INTERFACE)
add_library(throttlelab::warnings ALIAS throttlelab_warnings)
target_compile_options(throttlelab_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wpedantic -Wconversion -Wno-sign-conversion -Wnull-dereference
  -Wdouble-promotion -Wimplicit-fallthrough)
if(THROTTLELAB_WERROR)
  target_compile_options(throttlelab_warnings INTERFACE -Werror)
endif()

add_library(throttlelab_sanitizers INTERFACE)
add_library(throttlelab::sanitizers ALIAS throttlelab_sanitizers)
if(THROTTLELAB_SANITIZE)
  target_compile_options(throttlelab_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(throttlelab_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/TestHelper.cmake)
