# cmake -DBIN=<binary> -DVARIANT=<V> "-DEXPECTED=<kernel>;..." -DWORKERS=<P> -P check_variant_list.cmake
# `BIN --kernel list --variant V` must exit 0 and print exactly the EXPECTED kernels (sorted, one
# a line; none when EXPECTED is empty), and every kernel it prints must run with that variant:
# `BIN --kernel K --size test --workers P --variant V` exits 0 (its checksum verified).
execute_process(COMMAND ${BIN} --kernel list --variant ${VARIANT} OUTPUT_VARIABLE listing
                COMMAND_ERROR_IS_FATAL ANY)
string(STRIP "${listing}" listing)
string(REPLACE "\n" ";" names "${listing}")
set(want ${EXPECTED})
list(SORT want)
if(NOT "${names}" STREQUAL "${want}")
  message(FATAL_ERROR "--kernel list --variant ${VARIANT} printed '${names}', expected '${want}'")
endif()
foreach(name IN LISTS names)
  message(STATUS "kernel ${name} --variant ${VARIANT}")
  execute_process(COMMAND ${BIN} --kernel ${name} --size test --workers ${WORKERS}
                          --variant ${VARIANT} OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
endforeach()
