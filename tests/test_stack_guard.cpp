// Component tests of the guard table (src/stack_guard.cpp): the table the SIGSEGV handler reads to
// name the setting of the stack that overflowed.  It grows past its first chunk of 8192 slots: until
// stop 41 a stack registered past them had no message, and an overflow there was a bare SIGSEGV
// (found by a bug hunt with 70 pools of 64 workers alive at once).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <set>
#include <vector>

#include "common.hpp"
#include "stack_guard.hpp"

namespace {

using weft::detail::guard_kind;

// Fake guards, a distinct page each from 1 TiB up: never touched, so nothing need be mapped there.
std::vector<int> fill(int n) {
  std::vector<int> handles;
  for (int i = 0; i < n; ++i) {
    const std::uintptr_t lo = (std::uintptr_t(1) << 40) + std::uintptr_t(i) * 4096;
    handles.push_back(weft::detail::register_guard(lo, lo + 4096, guard_kind::native_stack, 1));
  }
  return handles;
}

TEST(StackGuard, TheTableGrowsPastItsFirstChunkAndReusesFreedSlots) {
  const std::vector<int> handles = fill(20000);
  const std::set<int> distinct(handles.begin(), handles.end());
  EXPECT_EQ(distinct.size(), handles.size()) << "a slot handed out twice";
  EXPECT_GE(*distinct.begin(), 0) << "a registration refused";
  for (int h : handles) weft::detail::unregister_guard(h);
  const std::vector<int> again = fill(20000);
  EXPECT_EQ(std::set<int>(again.begin(), again.end()), distinct) << "freed slots not reused (the table grew again)";
  for (int h : again) weft::detail::unregister_guard(h);
}

// A guard registered past the first chunk still names its setting when it is hit.
TEST(StackGuard, AGuardInALaterChunkNamesItsSetting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  if (wt::sanitized) GTEST_SKIP() << "the sanitizers handle SIGSEGV themselves";
  EXPECT_DEATH(([] {
                 const std::vector<int> handles = fill(10000);
                 void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                 if (page == MAP_FAILED) std::_Exit(3);
                 const auto lo = reinterpret_cast<std::uintptr_t>(page);
                 if (weft::detail::register_guard(lo, lo + 4096, guard_kind::task_stack, 1234) < 8192) std::_Exit(4);
                 *static_cast<volatile char*>(page) = 1;  // the "overflow"
               }()),
               "joins nested deeper than 1234 on one worker.*WEFT_MAX_DEPTH");
}

}  // namespace
