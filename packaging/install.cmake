# SPDX-License-Identifier: GPL-3.0-or-later
# Desktop integration is data installed by CMake.
include(GNUInstallDirs)
if(THROTTLELAB_BUILD_APP)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/org.throttlelab.ThrottleLab.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/org.throttlelab.ThrottleLab.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
endif()
set(CPACK_PACKAGE_NAME throttlelab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR TGZ)
include(CPack)
