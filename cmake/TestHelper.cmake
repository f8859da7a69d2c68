# SPDX-License-Identifier: GPL-3.0-or-later
# The GoogleTest executables. A test directory's *_test.cpp files join one executable,
# PREFIX_tests, by a glob: a new file joins by being there. Each TEST stays its own ctest entry
# (PREFIX_tests.Suite.Name, run in a process of its own), so a failure names its test as before.
# One executable per directory instead of one per file links each directory once instead of
# once per file (docs/performance.md, "Building").

# Test code is GoogleTest's macros around calls into the libraries: in RelWithDebInfo it is
# compiled with -O1 and line tables (-g1), which keep a failure's file and line and cost about
# 40 % less to compile than -O2 -g. The libraries under test keep their own flags.
set(THROTTLELAB_TEST_CODE_OPTIONS
  $<$<CONFIG:RelWithDebInfo>:-O1> $<$<CONFIG:RelWithDebInfo>:-g1>)

# throttlelab_add_test(NAME SOURCES ... [LIBS ...] [ENVIRONMENT ...] [LABELS ...]
#                      [WORKING_DIRECTORY DIR] [PRECOMPILE header ...])
# One executable and its ctest entries, one per TEST. PRECOMPILE: headers (<gtest/gtest.h> is
# always one) compiled once for the executable, or REUSE_FROM TARGET: the precompiled header of
# another test executable or of a throttlelab_precompile_host (cmake/Precompile.cmake).
function(throttlelab_add_test name)
  cmake_parse_arguments(ARG "" "WORKING_DIRECTORY"
    "SOURCES;LIBS;ENVIRONMENT;LABELS;PRECOMPILE" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main
    throttlelab::warnings throttlelab::sanitizers)
  # tests/support: helpers every suite may share (a directory per test, /proc/self/status).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  if(ARG_PRECOMPILE MATCHES "^REUSE_FROM;")
    throttlelab_precompile(${name} ${ARG_PRECOMPILE})
  else()
    throttlelab_precompile(${name} <gtest/gtest.h> ${ARG_PRECOMPILE})
  endif()
  target_compile_options(${name} PRIVATE ${THROTTLELAB_TEST_CODE_OPTIONS})
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  # Properties are name/value pairs: an empty ENVIRONMENT would shift every pair after it.
  set(props "")
  if(ARG_ENVIRONMENT)
    list(APPEND props ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
  if(ARG_LABELS)
    list(APPEND props LABELS "${ARG_LABELS}")
  endif()
  # Prefix each test with its executable so `ctest -R engine_` or `-R cli_` selects a suite.
  # The sanitized CI build compiles every suite but the window's (see sanitized_checks).
  if(NOT "ui" IN_LIST ARG_LABELS)
    set_property(GLOBAL APPEND PROPERTY THROTTLELAB_HEADLESS_TESTS ${name})
  endif()
  gtest_discover_tests(${name}
    TEST_PREFIX "${name}."
    WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY}
    DISCOVERY_TIMEOUT 60
    PROPERTIES ${props})
endfunction()

# throttlelab_add_test_directory(PREFIX [ALONE file.cpp ...] [EXTRA_SOURCES ...]
#                                [DEFINITIONS ...] [COMPILE_OPTIONS ...] <throttlelab_add_test args>)
# Every *_test.cpp of the calling directory in one executable PREFIX_tests, but for the ALONE
# files: each of those is an executable of its own, PREFIX_NAME (a file that replaces operator
# new for the whole process, or one a sanitizer preset builds by itself). EXTRA_SOURCES go into
# each executable; each knows the source tree as THROTTLELAB_SOURCE_DIR, and DEFINITIONS and
# COMPILE_OPTIONS.
function(throttlelab_add_test_directory prefix)
  cmake_parse_arguments(ARG "" "WORKING_DIRECTORY"
    "ALONE;EXTRA_SOURCES;DEFINITIONS;COMPILE_OPTIONS;LIBS;ENVIRONMENT;LABELS;PRECOMPILE" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "throttlelab_add_test_directory(${prefix}): unknown ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(pass LIBS ${ARG_LIBS} ENVIRONMENT ${ARG_ENVIRONMENT} LABELS ${ARG_LABELS})
  if(ARG_WORKING_DIRECTORY)
    list(APPEND pass WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY})
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp)
  list(SORT sources)
  set(shared "")
  set(alone "")
  foreach(src IN LISTS sources)
    get_filename_component(file ${src} NAME)
    if(file IN_LIST ARG_ALONE)
      list(APPEND alone ${src})
      list(REMOVE_ITEM ARG_ALONE ${file})
    else()
      list(APPEND shared ${src})
    endif()
  endforeach()
  if(ARG_ALONE)
    message(FATAL_ERROR "throttlelab_add_test_directory(${prefix}): no ${ARG_ALONE} here")
  endif()
  if(NOT shared)
    message(FATAL_ERROR "throttlelab_add_test_directory(${prefix}): no test but ALONE ones")
  endif()
  throttlelab_add_test(${prefix}_tests SOURCES ${shared} ${ARG_EXTRA_SOURCES} ${pass}
    PRECOMPILE ${ARG_PRECOMPILE})
  set(executables ${prefix}_tests)
  # The ALONE executables compile with the directory's flags: they use its precompiled header.
  set(alone_precompile REUSE_FROM ${prefix}_tests)
  if(ARG_PRECOMPILE MATCHES "^REUSE_FROM;")
    set(alone_precompile ${ARG_PRECOMPILE})
  endif()
  foreach(src IN LISTS alone)
    get_filename_component(name ${src} NAME_WE)
    throttlelab_add_test(${prefix}_${name} SOURCES ${src} ${ARG_EXTRA_SOURCES} ${pass}
      PRECOMPILE ${alone_precompile})
    list(APPEND executables ${prefix}_${name})
  endforeach()
  foreach(exe IN LISTS executables)
    target_compile_definitions(${exe} PRIVATE
      THROTTLELAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ${ARG_DEFINITIONS})
    if(ARG_COMPILE_OPTIONS)
      target_compile_options(${exe} PRIVATE ${ARG_COMPILE_OPTIONS})
    endif()
  endforeach()
endfunction()
