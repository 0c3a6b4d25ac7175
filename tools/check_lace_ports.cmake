# ctest: a weft port of a Lace program (tools/lace_ports.cpp) gives the result of its serial
# elision under each policy at 2 workers (and in each of FORMS, where the program has forms: dfs
# written with joins and with a scope; fib and knapsack with branches capturing by value, the first
# noexcept, and by reference; fib also with a scope).
#   cmake -DBIN=weft-lace-ports -DPROGRAM=fib|knapsack|dfs -DINPUT=N|FILE|ARGS -DPOLICIES=a;b [-DFORMS=f;g] -P this
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
  string(REGEX MATCH "^[^\n]*" first "${text}")  # "fib(N) = R" / "Best value is R" / "dfs(...) = R"
  set(${out} "${first}" PARENT_SCOPE)
endfunction()
result_of(expected -p elision)
if(NOT FORMS)
  set(FORMS only)  # a program without forms: one run per policy, no -f
endif()
foreach(policy IN LISTS POLICIES)
  foreach(form IN LISTS FORMS)
    set(form_args -f ${form})
    if(form STREQUAL "only")
      set(form_args "")
    endif()
    result_of(got -w 2 -p ${policy} ${form_args})
    if(NOT got STREQUAL expected)
      message(FATAL_ERROR "${PROGRAM} ${form} under ${policy}: '${got}', the serial elision: '${expected}'")
    endif()
  endforeach()
endforeach()
if(FORMS STREQUAL "only")
  set(FORMS "")
endif()
message(STATUS "${PROGRAM}: '${expected}' under ${POLICIES} ${FORMS}")
