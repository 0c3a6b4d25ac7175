# cmake -DBIN=<binary with policies> -DKERNEL=<kernel> [-DWORKERS="1;2;8"] -P check_every_policy.cmake
# `BIN --policy list` must exit 0 and print at least one name, one a line; then
# `BIN --kernel KERNEL --size test --workers P --policy NAME` runs for every listed NAME and every P
# of WORKERS (the policy "serial" at one worker only): each must exit 0, i.e. its checksum equals
# the serial oracle's (KERNELS.md).  A failing command fails the test (COMMAND_ERROR_IS_FATAL) with
# its exit code and output.  Used by the NAR kernels (a policy added to the library is checked
# without editing the tests) and, with KERNEL=fib WORKERS=1, by every binary's policy-list test.
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
