# SPDX-License-Identifier: GPL-3.0-or-later
# Script mode (cmake -DSOURCE_DIR=... -DOUT=... -P make_seeds.cmake): the fuzzers' seed corpora,
# one directory per target under OUT, made from what the project already ships and tests with:
# the built-in scenarios and lessons (resources/), the traces and /proc copies of tests/data/, and the few
# hand-written seeds in fuzz/seeds/. Nothing is downloaded.
file(REMOVE_RECURSE ${OUT})
foreach(target scenario scenario_override lesson session session_branch trace host_proc cli)
  file(MAKE_DIRECTORY ${OUT}/${target})
  file(GLOB hand ${SOURCE_DIR}/fuzz/seeds/${target}/*)
  if(hand)
    file(COPY ${hand} DESTINATION ${OUT}/${target})
  endif()
endforeach()

# The built-in lessons as they are.
file(GLOB lessons ${SOURCE_DIR}/resources/lessons/*.json)
file(COPY ${lessons} DESTINATION ${OUT}/lesson)

# Scenarios as they are, and each wrapped into a session with a different window state.
file(GLOB scenarios ${SOURCE_DIR}/resources/scenarios/*.json)
list(SORT scenarios)
file(COPY ${scenarios} DESTINATION ${OUT}/scenario)
set(windows
  [=[{"historyWindow": "10min", "speed": 1, "running": true, "visiblePlots": ["dirty-pages", "pauses", "bandwidth", "memory", "throttle-curve"], "presenter": false, "unitsPages": false, "followLive": true, "selectedTask": -1, "dashboardLayout": "", "geometry": "", "state": ""}]=]
  [=[{"historyWindow": "60s", "speed": "max", "running": false, "visiblePlots": ["pauses"], "presenter": true, "unitsPages": true, "followLive": false, "selectedTask": 3, "dashboardLayout": "AAAA", "geometry": "AdnQywADAAA=", "state": "AAAA/wAAAAD9"}]=]
  [=[{"historyWindow": "everything", "speed": "2.5", "visiblePlots": []}]=])
list(LENGTH windows nwindows)
set(i 0)
foreach(f IN LISTS scenarios)
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} scenario)
  math(EXPR w "${i} % ${nwindows}")
  list(GET windows ${w} window)
  file(WRITE ${OUT}/session/${name}.session.json
    "{\"schemaVersion\": 1, \"kind\": \"throttlelab-session\",\n\"scenario\": ${scenario},\n\"window\": ${window}}\n")
  math(EXPR i "${i} + 1")
endforeach()

# Traces: the small ones whole; of each real capture its first 32 KiB. Every seed is cut into
# pieces of at most 4 KiB at line ends, so a fuzzing run mutates many short inputs instead of
# a few long ones (format detection, preambles and the first events are where the variety is).
file(GLOB traces ${SOURCE_DIR}/tests/data/*.txt ${SOURCE_DIR}/tests/data/kernel-6.18/*.txt)
list(SORT traces)
foreach(f IN LISTS traces)
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text LIMIT 32768)
  set(piece 0)
  string(LENGTH "${text}" left)
  while(left GREATER 0)
    string(SUBSTRING "${text}" 0 4096 chunk)
    string(LENGTH "${chunk}" n)
    if(left GREATER n)
      string(FIND "${chunk}" "\n" nl REVERSE)
      if(nl GREATER 0)
        math(EXPR n "${nl} + 1")
        string(SUBSTRING "${chunk}" 0 ${n} chunk)
      endif()
    endif()
    file(WRITE ${OUT}/trace/${name}.${piece}.txt "${chunk}")
    string(SUBSTRING "${text}" ${n} -1 text)
    string(LENGTH "${text}" left)
    math(EXPR piece "${piece} + 1")
  endwhile()
endforeach()

# /proc copies: every file of a snapshot as one "@@ proc/NAME" section (fuzz_host_proc.cpp),
# the whole snapshot and each file alone.
file(GLOB snapshots LIST_DIRECTORIES true ${SOURCE_DIR}/tests/data/proc-6.18/*)
foreach(dir IN LISTS snapshots)
  if(NOT IS_DIRECTORY ${dir})
    continue()
  endif()
  get_filename_component(snap ${dir} NAME)
  file(GLOB_RECURSE files RELATIVE ${dir} ${dir}/*)
  list(SORT files)
  set(all "")
  foreach(rel IN LISTS files)
    file(READ ${dir}/${rel} content)
    string(APPEND all "@@ proc/${rel}\n${content}")
    string(REPLACE "/" "_" flat ${rel})
    file(WRITE ${OUT}/host_proc/${snap}.${flat}.txt "@@ proc/${rel}\n${content}")
  endforeach()
  file(WRITE ${OUT}/host_proc/${snap}.all.txt "${all}")
endforeach()
