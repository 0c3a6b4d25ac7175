# cmake -DEXPECT=<code> "-DCMD=<bin>;<arg>;..." -P expect_exit.cmake
# Runs CMD and fails unless it exits with EXPECT (used for the exit-code checks of the
# command-line protocol, bench/KERNELS.md).
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL EXPECT)
  message(FATAL_ERROR "expected exit code ${EXPECT}, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT err)
  message(FATAL_ERROR "expected a message on stderr, got none")
endif()
message(STATUS "exit code ${rc} as expected: ${err}")
