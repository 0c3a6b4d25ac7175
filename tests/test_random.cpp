// Randomly generated fork-join programs (the generator and both evaluations: random_program.hpp),
// run on every policy x workers: the parallel evaluation gives the serial elision's checksum or
// exception.
#include <string>

#include "random_program.hpp"

namespace {

using namespace wt::randprog;

class RandomPrograms : public wt::PoolTest {
 protected:
  void check(std::uint64_t seed, unsigned throwers) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", throwers " + std::to_string(throwers));
    const program p = make_program(seed, throwers);
    check_against_serial(p, [&](auto&& thunk) { return pool().run(thunk); });
  }
};
WT_INSTANTIATE(RandomPrograms);

TEST_P(RandomPrograms, Checksums) {
  const unsigned seeds = unsigned(wt::pick(12, 4));
  for (unsigned s = 1; s <= seeds; ++s) check(1000 + s * 7919, 0);
}

TEST_P(RandomPrograms, OneThrowingLeaf) {
  const unsigned seeds = unsigned(wt::pick(12, 4));
  for (unsigned s = 1; s <= seeds; ++s) check(2000 + s * 104729, 1);
  // The pool stays usable.
  EXPECT_EQ(pool().run([] { return wt::fib(18); }), wt::fib_serial(18));
}

TEST_P(RandomPrograms, SeveralThrowingLeaves) {
  const unsigned seeds = unsigned(wt::pick(12, 4));
  for (unsigned s = 1; s <= seeds; ++s) check(3000 + s * 15485863, 2 + s % 4);
  EXPECT_EQ(pool().run([] { return wt::fib(18); }), wt::fib_serial(18));
}

TEST_P(RandomPrograms, SameProgramRepeated) {
  // One program, run many times: different interleavings of the same tree.
  const unsigned reps = unsigned(wt::pick(20, 5));
  for (unsigned k = 0; k < reps; ++k) check(777, k % 3);
}

// From a thread that is no worker: everything runs in the global pool.
TEST(RandomProgramsGlobal, Checksums) {
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    for (unsigned throwers : {0u, 1u, 3u}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", throwers " + std::to_string(throwers));
      const program p = make_program(seed, throwers);
      check_against_serial(p, [](auto&& thunk) { return thunk(); });
    }
  }
}

}  // namespace
