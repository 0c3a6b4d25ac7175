# ctest script: configure the project in this folder, which adds weft with add_subdirectory, in a
# fresh scratch folder with no build type (one cached by an earlier run would hide the check).
#   -DSRC=<this folder> -DWEFT_SOURCE=<weft's root> -DWORK=<scratch folder> [-DGENERATOR=...] [-DCXX=<compiler>]
foreach(v SRC WEFT_SOURCE WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
set(args -S "${SRC}" -B "${WORK}" "-DWEFT_SOURCE=${WEFT_SOURCE}")
if(GENERATOR)
  list(APPEND args -G "${GENERATOR}")
endif()
if(CXX)
  list(APPEND args "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
# CMake >= 3.22 takes a missing build type from the environment's CMAKE_BUILD_TYPE.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=CMAKE_BUILD_TYPE "${CMAKE_COMMAND}" ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "subproject_consumer: configuring the parent project failed (${rc})\n${out}\n${err}")
endif()
message(STATUS "${out}")
