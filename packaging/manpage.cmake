# SPDX-License-Identifier: GPL-3.0-or-later
# Script mode: OUT(.gz), the man page of EXE made by HELP2MAN from its --help and --version.
# The page's date is the last commit's (SOURCE_DATE_EPOCH, which help2man honours) when the
# source is a git checkout, so the same source gives the same page; gzip -n leaves out the
# file name and time.
if(NOT DEFINED ENV{SOURCE_DATE_EPOCH})
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} log -1 --format=%ct
                    OUTPUT_VARIABLE epoch OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE git_result ERROR_QUIET)
    if(git_result EQUAL 0 AND epoch MATCHES "^[0-9]+$")
      set(ENV{SOURCE_DATE_EPOCH} ${epoch})
    endif()
  endif()
endif()
# No display is needed: --help and --version print and exit before any window exists.
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1
          "--name=an interactive lab for Linux dirty-page throttling"
          --include=${SOURCE_DIR}/packaging/throttlelab.h2m --output=${OUT} ${EXE}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "help2man failed (${result}) on ${EXE}")
endif()
execute_process(COMMAND ${GZIP} -n -9 -f ${OUT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "gzip failed (${result}) on ${OUT}")
endif()
