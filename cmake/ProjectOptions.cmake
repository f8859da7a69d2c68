# SPDX-License-Identifier: GPL-3.0-or-later
# Options and INTERFACE targets that carry build policy (warnings, sanitizers).
option(THROTTLELAB_BUILD_TESTS "Build the GoogleTest suites" ${PROJECT_IS_TOP_LEVEL})
option(THROTTLELAB_BUILD_BENCHMARKS "Build the Google Benchmark executables" ${PROJECT_IS_TOP_LEVEL})
option(THROTTLELAB_BUILD_GUI "Build the Qt user interface" ON)
option(THROTTLELAB_BUILD_APP "Build the throttlelab executable (needs the GUI)" ON)
option(THROTTLELAB_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(THROTTLELAB_TSAN "Build with ThreadSanitizer (not together with THROTTLELAB_SANITIZE)" OFF)
option(THROTTLELAB_FUZZ "Build the libFuzzer targets in fuzz/ (clang; ASan+UBSan come with it)" OFF)
option(THROTTLELAB_WERROR "Treat warnings as errors" OFF)
option(THROTTLELAB_CCACHE "Compile through ccache when it is installed" ON)

# A rebuild of an unchanged file costs nothing through ccache; without it nothing changes.
# Paths under the source tree are hashed relative to it and the build directory is left out of
# the hash, so another clone of the same commit (CI's clean clone, a git worktree) reuses the
# objects; their debug information then names the directory they were first compiled in.
# Precompiled headers (cmake/Precompile.cmake) need two more things for ccache to reuse the
# files that use them: the sloppiness its manual asks for (pch_defines, time_macros), and,
# with GCC, -fpch-preprocess, so that the preprocessed form ccache hashes names the
# precompiled header instead of being expanded without it.
if(THROTTLELAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(THROTTLELAB_CCACHE_PROGRAM ccache)
  if(THROTTLELAB_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1
                                    CCACHE_SLOPPINESS=pch_defines,time_macros
                                    ${THROTTLELAB_CCACHE_PROGRAM})
  endif()
endif()

# lld links the program in about a fifth of the CPU time of GNU ld (docs/performance.md,
# "Building"); packaging/setup-deps.sh installs it, and without it GNU ld links as before.
# Not for Release: there the engine is built with link-time optimisation (engine/CMakeLists.txt),
# and GCC's LTO objects are read only by GNU ld's linker plugin; lld finds no symbols in them.
option(THROTTLELAB_LLD "Link with lld when it is installed" ON)
if(THROTTLELAB_LLD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_BUILD_TYPE STREQUAL "Release")
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld THROTTLELAB_HAVE_LLD)
  if(THROTTLELAB_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()

# RelWithDebInfo (the README's build) carries line tables (-g1), not full debug information:
# backtraces, perf and the sanitizers still name each function, file and line, and a cold build
# compiles in about a third less time (docs/performance.md, "Building"). For a debugger's view
# of variables, configure with -DTHROTTLELAB_FULL_DEBUG_INFO=ON or build Debug.
option(THROTTLELAB_FULL_DEBUG_INFO "RelWithDebInfo with full debug information (-g), not -g1" OFF)
if(NOT THROTTLELAB_FULL_DEBUG_INFO)
  string(REGEX REPLACE "(^| )-g( |$)" "\\1-g1\\2" CMAKE_CXX_FLAGS_RELWITHDEBINFO
         "${CMAKE_CXX_FLAGS_RELWITHDEBINFO}")
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

if(THROTTLELAB_TSAN AND (THROTTLELAB_SANITIZE OR THROTTLELAB_FUZZ))
  message(FATAL_ERROR "THROTTLELAB_TSAN cannot be combined with ASan (THROTTLELAB_SANITIZE, THROTTLELAB_FUZZ)")
endif()
if(THROTTLELAB_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "THROTTLELAB_FUZZ needs clang for -fsanitize=fuzzer (cmake --preset fuzz uses clang++-16)")
endif()

add_library(throttlelab_sanitizers INTERFACE)
add_library(throttlelab::sanitizers ALIAS throttlelab_sanitizers)
if(THROTTLELAB_SANITIZE OR THROTTLELAB_FUZZ)
  target_compile_options(throttlelab_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(throttlelab_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(THROTTLELAB_FUZZ)
  # Coverage feedback for every library the fuzzers reach; the fuzz executables themselves
  # link the fuzzer runtime (fuzz/CMakeLists.txt).
  target_compile_options(throttlelab_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()
if(THROTTLELAB_TSAN)
  target_compile_options(throttlelab_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(throttlelab_sanitizers INTERFACE -fsanitize=thread)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/Precompile.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/TestHelper.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LibraryHelper.cmake)
