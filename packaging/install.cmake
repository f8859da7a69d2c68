# SPDX-License-Identifier: GPL-3.0-or-later
# What `cmake --install` and `cpack -G DEB` put on a system: the executable (app/), its desktop
# entry and AppStream metadata, the icon (the SVG, and PNGs rendered from it at the hicolor
# sizes), the man page (help2man over the built binary's --help and --version, so it cannot
# drift from them), and the copyright file. Debian's tools do the work: rsvg-convert
# (librsvg2-bin), help2man, dpkg-shlibdeps for the package's dependencies.
include(GNUInstallDirs)
set(THROTTLELAB_APP_ID org.throttlelab.ThrottleLab)
set(THROTTLELAB_ICON_SIZES 16 22 24 32 48 64 128 256)

if(THROTTLELAB_BUILD_APP)
  find_program(THROTTLELAB_RSVG_CONVERT rsvg-convert)
  find_program(THROTTLELAB_HELP2MAN help2man)
  find_program(THROTTLELAB_GZIP gzip)
  foreach(tool RSVG_CONVERT HELP2MAN GZIP)
    if(NOT THROTTLELAB_${tool})
      message(FATAL_ERROR "${tool} not found (rsvg-convert, help2man, gzip): run packaging/setup-deps.sh")
    endif()
  endforeach()

  set(icon_svg ${PROJECT_SOURCE_DIR}/packaging/icons/${THROTTLELAB_APP_ID}.svg)
  set(icon_pngs "")
  foreach(size IN LISTS THROTTLELAB_ICON_SIZES)
    set(png ${PROJECT_BINARY_DIR}/packaging/icons/${size}x${size}/${THROTTLELAB_APP_ID}.png)
    add_custom_command(OUTPUT ${png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging/icons/${size}x${size}
      COMMAND ${THROTTLELAB_RSVG_CONVERT} --width=${size} --height=${size} --output=${png} ${icon_svg}
      DEPENDS ${icon_svg}
      COMMENT "Rendering the ${size}x${size} icon")
    list(APPEND icon_pngs ${png})
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
  endforeach()
  add_custom_target(throttlelab_icons ALL DEPENDS ${icon_pngs})
  install(FILES ${icon_svg} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

  # help2man runs the binary; SOURCE_DATE_EPOCH (the date in the page) is the project's last
  # change when the tree is a git checkout, so rebuilding the same source gives the same page.
  set(man ${PROJECT_BINARY_DIR}/packaging/throttlelab.1)
  add_custom_command(OUTPUT ${man}.gz
    COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${THROTTLELAB_HELP2MAN} -DGZIP=${THROTTLELAB_GZIP}
            -DEXE=$<TARGET_FILE:throttlelab> -DOUT=${man} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -P ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
    DEPENDS throttlelab ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
            ${PROJECT_SOURCE_DIR}/packaging/throttlelab.h2m
    COMMENT "Man page from throttlelab --help")
  add_custom_target(throttlelab_manpage ALL DEPENDS ${man}.gz)
  install(FILES ${man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

  install(FILES ${PROJECT_SOURCE_DIR}/packaging/${THROTTLELAB_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/${THROTTLELAB_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/throttlelab)
endif()

set(CPACK_PACKAGE_NAME throttlelab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The ThrottleLab developers")
set(CPACK_PACKAGE_CONTACT "The ThrottleLab developers <throttlelab@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The libraries the binary links come from dpkg-shlibdeps; Qt's platform plugins are loaded at
# run time, so no tool can see them: the window needs xcb (or wayland) from qt6-qpa-plugins.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${PROJECT_DESCRIPTION}
 ThrottleLab is an interactive lab in which you watch the Linux VM decide when a
 process that dirties page cache must wait. A deterministic simulation of the
 kernel's writeback machinery (page cache, flusher threads, a block device, CPUs
 and the dirty-throttling controller of mm/page-writeback.c) feeds live plots;
 every setting can be changed while it runs. It also reads kernel traces of the
 writeback tracepoints, and has a headless command line for scripted runs.")
include(CPack)
