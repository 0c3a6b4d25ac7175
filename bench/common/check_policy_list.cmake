# cmake -DBIN=<weft binary> -P check_policy_list.cmake
# `BIN --policy list` must exit 0 and print at least one name, one a line; every name must be one
# the binary accepts: `BIN --kernel fib --size test --workers 1 --policy NAME` exits 0
# (one worker: the policy "serial" accepts no other count).
execute_process(COMMAND ${BIN} --policy list RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "--policy list: exit code '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
string(STRIP "${out}" out)
if(out STREQUAL "")
  message(FATAL_ERROR "--policy list printed nothing")
endif()
string(REPLACE "\n" ";" names "${out}")
foreach(name IN LISTS names)
  execute_process(COMMAND ${BIN} --kernel fib --size test --workers 1 --policy ${name}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE run_out ERROR_VARIABLE run_err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "listed policy '${name}' is not accepted: exit code '${rc}'\n${run_err}")
  endif()
endforeach()
message(STATUS "policies: ${names}")
