# cmake -DBIN=<weft binary> -P check_policy_list.cmake
# `BIN --policy list` must exit 0 and print at least one name, one a line; every name must be one
# the binary accepts: `BIN --kernel fib --size test --workers 1 --policy NAME` exits 0
# (one worker: the policy "serial" accepts no other count).  A failing command fails the test
# (COMMAND_ERROR_IS_FATAL) with its exit code and output.
execute_process(COMMAND ${BIN} --policy list OUTPUT_VARIABLE listing COMMAND_ERROR_IS_FATAL ANY)
string(STRIP "${listing}" listing)
if(listing STREQUAL "")
  message(FATAL_ERROR "--policy list printed nothing")
endif()
string(REPLACE "\n" ";" names "${listing}")
foreach(name IN LISTS names)
  message(STATUS "policy ${name}")
  execute_process(COMMAND ${BIN} --kernel fib --size test --workers 1 --policy ${name}
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
endforeach()
