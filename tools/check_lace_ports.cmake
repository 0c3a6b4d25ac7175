# ctest: a weft port of a Lace program (tools/lace_ports.cpp) gives the result of its serial
# elision under each policy at 2 workers.
#   cmake -DBIN=weft-lace-ports -DPROGRAM=fib|knapsack -DINPUT=N|FILE -DPOLICIES=a;b -P this
# For knapsack, INPUT is written first with `knapsack-input 16 300 1` (16 items: ~2^14 calls).
if(PROGRAM STREQUAL "knapsack")
  execute_process(COMMAND ${BIN} knapsack-input 16 300 1 OUTPUT_FILE ${INPUT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "knapsack-input failed: ${rc}")
  endif()
endif()
function(result_of out)
  execute_process(COMMAND ${BIN} ${PROGRAM} ${INPUT} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${INPUT} ${ARGN}: exit ${rc}\n${text}")
  endif()
  string(REGEX MATCH "^[^\n]*" first "${text}")  # "fib(N) = R" / "Best value is R"
  set(${out} "${first}" PARENT_SCOPE)
endfunction()
result_of(expected -p elision)
foreach(policy IN LISTS POLICIES)
  result_of(got -w 2 -p ${policy})
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "${PROGRAM} under ${policy}: '${got}', the serial elision: '${expected}'")
  endif()
endforeach()
message(STATUS "${PROGRAM}: '${expected}' under ${POLICIES}")
