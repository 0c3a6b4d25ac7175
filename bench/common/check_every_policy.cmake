# cmake -DBIN=<weft binary> -DKERNEL=<kernel> [-DWORKERS="1;2;8"] -P check_every_policy.cmake
# Runs `BIN --kernel KERNEL --size test --workers P --policy NAME` for every NAME that
# `BIN --policy list` prints and every P of WORKERS (the policy "serial" at one worker only):
# each must exit 0, i.e. its checksum equals the serial oracle's (KERNELS.md).  The NAR kernels
# use it, so a policy added to the library (adf, dfd, fifo) is checked without editing the tests.
if(NOT WORKERS)
  set(WORKERS 1 2 8)
endif()
execute_process(COMMAND ${BIN} --policy list OUTPUT_VARIABLE listing COMMAND_ERROR_IS_FATAL ANY)
string(STRIP "${listing}" listing)
if(listing STREQUAL "")
  message(FATAL_ERROR "--policy list printed nothing")
endif()
string(REPLACE "\n" ";" names "${listing}")
foreach(name IN LISTS names)
  foreach(p IN LISTS WORKERS)
    if(name STREQUAL "serial" AND NOT p EQUAL 1)
      continue()
    endif()
    message(STATUS "${KERNEL} --policy ${name} --workers ${p}")
    execute_process(COMMAND ${BIN} --kernel ${KERNEL} --size test --workers ${p} --policy ${name}
                    OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  endforeach()
endforeach()
