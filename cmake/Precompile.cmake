# SPDX-License-Identifier: GPL-3.0-or-later
# Precompiled headers: the library headers most files of a target include (Qt's, GoogleTest's,
# the standard library's), parsed once per target instead of once per file. What that saves,
# and how it was measured, is in docs/performance.md ("Building").
#
# throttlelab_precompile(TARGET header...) precompiles the headers for TARGET; a header is
# <name> or a group: STD (the standard headers most files include), QT (the Qt Widgets headers
# most of ui/ includes), QCUSTOMPLOT (<qcustomplot.h>, 7,700 lines).
# Every file of the target then sees these headers, whether it includes them or not; build with
# -DTHROTTLELAB_PRECOMPILE=OFF to check that each file includes what it uses.
#
# Targets that compile with the same flags share one precompiled header instead of making one
# each (a Qt one costs about 40 s of CPU): throttlelab_precompile_host(NAME HEADERS header...
# LIBS ... [OPTIONS ...]) makes a target that only builds the header, with the flags and
# definitions LIBS and OPTIONS give; throttlelab_precompile(TARGET REUSE_FROM NAME) lets TARGET
# use it. GCC uses a precompiled header only if it was built with the same code generation
# options (-O, -g, -f...) and no macro the user defines before it is defined otherwise in the
# header; CMake passes -Winvalid-pch, so a mismatch is a warning, not a silent slow build.
option(THROTTLELAB_PRECOMPILE "Precompile the common library headers of each target" ON)

set(THROTTLELAB_PRECOMPILE_STD
  <algorithm> <array> <chrono> <cmath> <cstdint> <functional> <map> <memory> <optional> <set>
  <sstream> <string> <string_view> <utility> <variant> <vector>)
set(THROTTLELAB_PRECOMPILE_QT
  <QAction> <QApplication> <QComboBox> <QEvent> <QFile> <QHBoxLayout> <QLabel> <QObject>
  <QPushButton> <QString> <QStringList> <QTimer> <QVBoxLayout> <QWidget>)
set(THROTTLELAB_PRECOMPILE_QCUSTOMPLOT <qcustomplot.h>)

function(throttlelab_precompile target)
  if(NOT THROTTLELAB_PRECOMPILE)
    return()
  endif()
  set(headers "")
  foreach(h IN LISTS ARGN)
    if(DEFINED THROTTLELAB_PRECOMPILE_${h})
      list(APPEND headers ${THROTTLELAB_PRECOMPILE_${h}})
    else()
      list(APPEND headers ${h})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES headers)
  if(headers MATCHES "^REUSE_FROM;")
    list(GET headers 1 host)
    target_precompile_headers(${target} REUSE_FROM ${host})
  else()
    target_precompile_headers(${target} PRIVATE ${headers})
  endif()
  # Through ccache (cmake/ProjectOptions.cmake), GCC must name the precompiled header in the
  # preprocessed output that ccache hashes, instead of expanding the headers without it.
  if(CMAKE_CXX_COMPILER_LAUNCHER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  endif()
endfunction()

function(throttlelab_precompile_host name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "HEADERS;LIBS;OPTIONS")
  set(source ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT
    "// Generated: ${name} builds the precompiled header its users share.\n")
  add_library(${name} OBJECT ${source})
  set_target_properties(${name} PROPERTIES AUTOMOC OFF AUTORCC OFF AUTOUIC OFF)
  target_link_libraries(${name} PRIVATE ${arg_LIBS})
  target_compile_options(${name} PRIVATE ${arg_OPTIONS})
  throttlelab_precompile(${name} ${arg_HEADERS})
endfunction()
