# SPDX-License-Identifier: GPL-3.0-or-later
# One helper registers every GoogleTest executable; ctest sees each TEST as its own entry.
function(throttlelab_add_test name)
  cmake_parse_arguments(ARG "" "WORKING_DIRECTORY" "SOURCES;LIBS;ENVIRONMENT;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main
    throttlelab::warnings throttlelab::sanitizers)
  # tests/support: helpers every suite may share (a directory per test, /proc/self/status).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
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
