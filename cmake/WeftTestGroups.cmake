# weft_add_test_groups(<gtest target> [TIMEOUT <s>] [LABELS <label>...] [LONG <Suite.Name>...])
#
# Registers a GoogleTest executable with ctest as one test per test *pattern*: a TEST is one ctest
# test, a TEST_P is one ctest test for all its instances (every policy and worker count, which run
# one after another in one process).  Why not gtest_discover_tests' one process per instance: a
# process costs 0.025 s to start in a release build and 0.10-0.15 s under ThreadSanitizer and
# AddressSanitizer (their runtime's start, and the registration of ~4,900 test instances), so the
# ~2,000 instances of a sanitizer stage spent ~5 min of CPU starting processes (stop 37,
# docs/results/ci-time.md).  The instances of one TEST_P share nothing but the process: each makes
# its own pool (the whole suite passes in one process except the two tests that need a fresh global
# pool, and those are TESTs, each in a process of its own).
#
# The list is read from the executable after each build (`--gtest_list_tests`) into
# <target>_groups.cmake, which ctest includes.  A group passes when each of its instances passed or
# was skipped (GTEST_SKIP; the group's output lists the skipped ones: ctest's own "skipped" cannot be
# told apart from a group whose instances all failed, which prints "[  PASSED  ] 0 tests" too).
# Run one instance by hand with `<exe> --gtest_filter='All/Threads.PoolInsideAnotherPoolsWorker/ws_2'`.
#
# LONG names the groups that take longest (`Suite.Name`, without the instantiation's prefix): they
# get a ctest COST, so that `ctest -j` starts them first.  A clean build directory has no cost data
# of earlier runs, and ctest then starts tests in the order they were added: a long group added
# last ran alone at the end of its stage while the other core had nothing left to do (the ASan
# stage's last 58 s in stop 58's rehearsal).  Only the order changes.
set(WEFT_TEST_GROUPS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/weft_list_test_groups.cmake")

function(weft_add_test_groups target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "LABELS;LONG" ${ARGN})
  # Joined with commas: a list's semicolons would split the custom command's argument.
  string(REPLACE ";" "," long_groups "${ARG_LONG}")
  set(groups_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DEXE=$<TARGET_FILE:${target}>" "-DOUT=${groups_file}"
            "-DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}" "-DTIMEOUT=${ARG_TIMEOUT}" "-DLABELS=${ARG_LABELS}"
            "-DLONG=${long_groups}"
            -P "${WEFT_TEST_GROUPS_SCRIPT}"
    BYPRODUCTS "${groups_file}"
    VERBATIM)
  file(WRITE "${include_file}"
    "if(EXISTS \"${groups_file}\")\n"
    "  include(\"${groups_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
