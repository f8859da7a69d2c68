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

# Every *_test.cpp of the calling directory as an executable PREFIX_NAME, registered by
# throttlelab_add_test with the other arguments (LIBS, LABELS, ...) plus EXTRA_SOURCES in each;
# each knows the source tree as THROTTLELAB_SOURCE_DIR, and DEFINITIONS and COMPILE_OPTIONS.
function(throttlelab_add_test_directory prefix)
  cmake_parse_arguments(ARG "" "" "EXTRA_SOURCES;DEFINITIONS;COMPILE_OPTIONS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp)
  foreach(src IN LISTS sources)
    get_filename_component(name ${src} NAME_WE)
    throttlelab_add_test(${prefix}_${name}
      SOURCES ${src} ${ARG_EXTRA_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
    target_compile_definitions(${prefix}_${name} PRIVATE
      THROTTLELAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ${ARG_DEFINITIONS})
    if(ARG_COMPILE_OPTIONS)
      target_compile_options(${prefix}_${name} PRIVATE ${ARG_COMPILE_OPTIONS})
    endif()
  endforeach()
endfunction()
